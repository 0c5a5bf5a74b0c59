"""``rv.sampled.evaluate(candidates, ..., model=fitted)``: the candidates scored by a model.

Sampled evaluation needs a score for arbitrary (user, item) pairs: the positive and its
sampled negatives. Every model of :mod:`receval.models` has ``score(pairs)`` (the ranking
score of :meth:`recommend`, unclipped); a model of your own may give ``score`` or, failing
that, ``predict``. The model is duck-typed here: this module imports no model class (only
the check that puts a Series of scores in the order of the pairs).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval.exceptions import InvalidModelError, InvalidParameterError
from receval.models._checks import series_in_order

__all__ = ["scored_by"]


def _name(model: Any) -> str:
    return type(model).__name__


def _method(model: Any) -> tuple[str, Any]:
    if isinstance(model, type):
        raise InvalidModelError(
            f"model: got the class {model.__name__}, not a fitted model: write "
            f"{model.__name__}(...).fit(train)", parameter="model")
    if isinstance(model, str):
        raise InvalidModelError(
            f"model: got the spec {model!r}, not a fitted model: build and fit it first, "
            f"e.g. rv.models.from_spec({model!r}).fit(train)", parameter="model",
            examples=[model])
    for name in ("score", "predict"):
        method = getattr(model, name, None)
        if callable(method):
            return name, method
    raise InvalidModelError(
        f"model {_name(model)} has neither score(pairs) nor predict(pairs) to score the "
        "candidates with", parameter="model", examples=[_name(model)])


def _values(out: Any, pairs: pd.DataFrame, model: Any, method: str) -> np.ndarray:
    """The model's number for each row of ``pairs``, in order (a Series: by its index)."""
    where = f"model {_name(model)}: {method}(pairs)"
    if isinstance(out, pd.DataFrame):
        if not {"user_id", "item_id", "score"} <= set(out.columns):
            raise InvalidModelError(
                f"{where} must return a table with user_id, item_id and score, got columns "
                f"{list(out.columns)[:6]}", parameter="model", examples=[_name(model)])
        same = len(out) == len(pairs) and bool(
            (out["user_id"].to_numpy() == pairs["user_id"].to_numpy()).all()
            and (out["item_id"].to_numpy() == pairs["item_id"].to_numpy()).all())
        if same:
            values = out["score"].to_numpy()
        else:  # another order, or pairs left out: match by (user, item)
            table = out[["user_id", "item_id", "score"]].drop_duplicates(["user_id", "item_id"])
            values = pairs.merge(table, on=["user_id", "item_id"], how="left")["score"].to_numpy()
    else:
        out = series_in_order(out, pairs, where, error=InvalidModelError, parameter="model")
        values = np.asarray(out.to_numpy() if isinstance(out, pd.Series) else out)
        if values.ndim != 1 or len(values) != len(pairs):
            raise InvalidModelError(
                f"{where} must return a table with user_id, item_id, score or one number per "
                f"pair ({len(pairs)}), got {type(out).__name__} of shape "
                f"{getattr(values, 'shape', None)}", parameter="model",
                examples=[_name(model)])
    if values.dtype.kind not in "fiu":
        raise InvalidModelError(f"{where}: scores must be numbers, got dtype {values.dtype}",
                                parameter="model", examples=[_name(model)])
    values = values.astype(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        shown = list(pairs.loc[bad, ["user_id", "item_id"]].head(5).itertuples(
            index=False, name=None))
        raise InvalidModelError(
            f"{where} gave no finite score for {int(bad.sum())} of {len(pairs)} candidate "
            f"pairs (missing, NaN or infinite), e.g. {shown}: a sampled list needs a score "
            "for its positive and every negative (a model may not score users or items it "
            "never saw in training: draw the negatives from its training items, "
            "negatives(..., items=train's items))", parameter="model",
            n_bad=int(bad.sum()), examples=shown)
    return values


def scored_by(model: Any, candidates: Any, columns: Columns) -> pd.DataFrame:
    """``candidates`` with the model's score of each row in ``columns.score``.

    Raises
    ------
    InvalidParameterError
        ``candidates`` is not a pandas DataFrame, or already has a score column.
    InvalidModelError
        The model is a class, has neither ``score`` nor ``predict``, or gives something
        other than one finite number per candidate pair.
    """
    if not isinstance(candidates, pd.DataFrame):
        raise InvalidParameterError(
            f"scored: with model=, the candidates must be a pandas DataFrame (the output of "
            f"rv.sampled.negatives), got {type(candidates).__name__}", parameter="scored")
    names = list(candidates.columns)
    user = columns.require("user", names, table="recs")
    item = columns.require("item", names, table="recs")
    given = columns.resolve("score", names, table="recs", required=False)
    if given is not None:
        raise InvalidParameterError(
            f"scored: the candidates already have a score column ({given!r}); pass model= to "
            "score them, or the scored table without model=, not both", parameter="model",
            column=given)
    score = columns.named("score", "recs") or "score"
    method, call = _method(model)
    pairs = pd.DataFrame({"user_id": candidates[user].to_numpy(),
                          "item_id": candidates[item].to_numpy()})
    values = _values(call(pairs.copy()), pairs, model, method)
    out = candidates.copy()  # keeps attrs: the strategy negatives() recorded
    out[score] = values
    return out
