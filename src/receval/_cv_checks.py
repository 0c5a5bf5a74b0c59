"""The arguments of ``cross_validate``, checked before any model is fitted.

Model names (text, never lone surrogates), the models themselves (the protocol, unwrapped
library algorithms, specs), keyword arguments (each must be an option of ``evaluate``),
metric cutoffs (none beyond ``k``) and models that cannot give any of the metrics asked for.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from receval._evaluate import evaluate
from receval._evaluate_options import check_flags, unknown_keyword
from receval._names import clean_name
from receval.exceptions import (
    DataWarning,
    EmptyInputError,
    InvalidModelError,
    InvalidParameterError,
    warn,
)
from receval.metrics import Metric
from receval.models._params import constructor_params, param_repr
from receval.models._spec import as_model

__all__ = ["check_cutoffs", "check_folds", "check_models", "check_options",
           "check_rating_only", "model_params", "warn_test_in_train"]

#: cross_validate's own keywords (besides the options it passes on to evaluate).
_OWN = ("split", "k", "exclude_seen", "progress", "columns")

#: evaluate()'s own arguments that cross_validate makes or holds itself.
_MADE_HERE = ("recs", "truth", "metrics", "columns", "progress")


def check_models(models: Any) -> dict[str, Any]:
    """Name -> model, names cleaned and distinct, each model checked (or built from a spec)."""
    if not isinstance(models, Mapping) or not models:
        raise InvalidParameterError(
            f"models must be a non-empty dict of name -> model, e.g. {{'pop': "
            f"rv.models.MostPopular()}}; got {type(models).__name__}", parameter="models")
    out: dict[str, Any] = {}
    for key, model in models.items():
        name = clean_name(key, what="model", parameter="models")
        if name in out:
            raise InvalidParameterError(
                f"models names two models alike: {name!r}; every model needs its own name",
                parameter="models", examples=[name])
        out[name] = as_model(name, model)
    return out


def check_options(options: Mapping[str, Any]) -> None:
    """Every keyword argument must be an option of :func:`receval.evaluate`; flags bools."""
    allowed = [n for n, p in inspect.signature(evaluate).parameters.items()
               if p.kind is inspect.Parameter.KEYWORD_ONLY and n not in _MADE_HERE]
    for key in options:
        if key in ("recs", "truth", "metrics"):
            raise InvalidParameterError(
                f"{key} is made by cross_validate from the models and the folds; it is not an "
                f"option here", parameter=key)
        if key not in allowed:
            raise unknown_keyword("cross_validate", key, own=_OWN, passed_on=True)
    check_flags(options)  # strict: a string is always truthy


def check_folds(parts: Sequence[tuple[Any, Any]]) -> None:
    """Every fold's train and test hold rows: checked before any model is fitted.

    An empty test part has no user to recommend to (every metric would be undefined), an
    empty train part nothing to fit on; either is an error naming the fold and the part.
    """
    for fold, (train, test) in enumerate(parts):
        empty = [name for name, part in (("train", train), ("test", test)) if not len(part)]
        if empty:
            raise EmptyInputError(
                f"split: fold {fold} (of {len(parts)}) has an empty {' and an empty '.join(empty)}"
                f" part: {'no model can be fitted' if 'train' in empty else ''}"
                f"{' and ' if len(empty) == 2 else ''}"
                f"{'no user is left to evaluate' if 'test' in empty else ''}; every fold needs "
                f"training and test rows", parameter="split", n_bad=len(empty),
                examples=[(fold, name) for name in empty])


def warn_test_in_train(parts: Sequence[tuple[Any, Any]]) -> None:
    """A :class:`~receval.exceptions.DataWarning` for each fold whose test pairs are all in train.

    With ``exclude_seen=True`` every such test pair is left out of the lists, so every
    accuracy metric of the fold is 0 whatever the model (e.g. ``split=(data, data)``). Only "all": a
    fold where some test pairs are new is a legitimate (if odd) experiment.
    """
    for fold, (train, test) in enumerate(parts):
        pairs = pd.MultiIndex.from_frame(test[["user_id", "item_id"]])
        if len(pairs) and pairs.isin(pd.MultiIndex.from_frame(train[["user_id",
                                                                      "item_id"]])).all():
            warn(f"split: fold {fold}: all {len(pairs)} test (user, item) pairs are also in "
                 f"the fold's train, and exclude_seen=True leaves each user's training items "
                 f"out of the lists, so no test item can be recommended and every accuracy "
                 f"metric of this fold (ndcg, precision, recall, ...) is 0 whatever the "
                 f"model; pass exclude_seen=False (receval cv --include-seen) to rank them, "
                 f"or give test rows that are not in train", DataWarning)


def check_cutoffs(specs: Sequence[Metric], k: int) -> None:
    """A ranking metric must not cut deeper than the lists (``@20`` of 10-item lists)."""
    cuts = {m.label: m.k for m in specs
            if m.family != "rating" and isinstance(getattr(m, "k", None), int)}
    deep = [label for label, cut in cuts.items() if cut is not None and cut > k]
    if deep:
        raise InvalidParameterError(
            f"metrics {deep} cut at more than k={k}, the length of the lists the models give: "
            f"they would measure {k}-item lists as if longer; raise k to at least "
            f"{max(int(cuts[label] or 0) for label in deep)} or cut the metrics at {k}",
            parameter="k", n_bad=len(deep), examples=deep)


def check_rating_only(models: Mapping[str, Any], ranking: Sequence[Any],
                      rating: Sequence[Any]) -> None:
    """A model without ``predict`` cannot give rating metrics: with nothing else asked, error."""
    if ranking:
        return
    lacking = [name for name, m in models.items() if not callable(getattr(m, "predict", None))]
    if lacking:
        raise InvalidModelError(
            f"model {lacking[0]!r} ({type(models[lacking[0]]).__name__}) has no predict(): it "
            f"cannot give the rating metrics {[str(m) for m in rating]}, the only metrics asked "
            f"for; add a ranking metric (e.g. ndcg@10) or leave the model out"
            + (f" (also without predict: {lacking[1:]})" if len(lacking) > 1 else ""),
            parameter="models", n_bad=len(lacking), examples=lacking)


class ParamRepr(str):
    """A parameter value that is not a plain literal, kept as its text (``repr`` unquoted).

    A string (JSON-ready); its ``repr`` is the text itself, so that ``f"{name}={value!r}"``
    reads ``algo=SVD(n_factors=50, ...)`` as for literal values.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return type(value) in (type(None), bool, int, float, str)
    if isinstance(value, (list, tuple)):
        return type(value) in (list, tuple) and all(_plain(v) for v in value)
    if isinstance(value, dict):
        return type(value) is dict and all(isinstance(k, str) and _plain(v)
                                           for k, v in value.items())
    return False


def model_params(models: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each model's parameters (``get_params()``, or ``__init__``'s names read back).

    Plain literals (numbers, strings, booleans, None, lists, tuples and dicts of them) as
    they are; anything else (a wrapped algorithm, a random state) as a :class:`ParamRepr`
    of it (``SVD(n_factors=50, ...)``).
    """
    out: dict[str, dict[str, Any]] = {}
    for name, model in models.items():
        try:
            params = constructor_params(model)
        except Exception:
            params = {}
        out[name] = {str(k): v if _plain(v) else ParamRepr(param_repr(v))
                     for k, v in params.items()}
    return out
