"""``cross_validate``: fit each model on each fold's training rows and evaluate it on the test.

The experiment of the seeds (split, fit, rank or predict, measure; repeat over folds) on top
of :func:`receval.evaluate`: no metric is computed here.
"""

from __future__ import annotations

import dataclasses
import re
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval._cv_checks import (
    check_cutoffs,
    check_folds,
    check_models,
    check_options,
    check_rating_only,
    model_params,
    warn_test_in_train,
)
from receval._cv_progress import CvProgress
from receval._cv_result import CrossValidation
from receval._evaluate import evaluate, metric_list
from receval._flags import check_flag
from receval._result import EvaluationResult
from receval.exceptions import InvalidParameterError, warn
from receval.metrics import Metric, parse
from receval.models._base import check_k, rank_by_predict
from receval.models._checks import series_in_order
from receval.models._data import (
    ModelOutputError,
    canonical,
    check_predictions,
    check_recommendations,
    exclusion_csr,
)
from receval.models._guard import guarded
from receval.models._params import clone

__all__ = ["cross_validate"]


def cross_validate(
    models: Mapping[str, Any],
    data: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    split: Any,
    k: int = 10,
    exclude_seen: bool = True,
    progress: bool | None = None,
    columns: Columns | dict[str, str] | None = None,
    **evaluate_options: Any,
) -> CrossValidation:
    """Fit and evaluate every model on every fold.

    For each fold ``(train, test)`` and each model: a clone of the model
    (:func:`receval.models.clone`: a new model with the same parameters) is fitted on
    ``train``; ranking metrics evaluate ``recommend(test users, k, exclude=train)`` (``exclude
    =None`` when ``exclude_seen`` is false) against ``test``; rating metrics evaluate
    ``predict(test pairs)`` against ``test``. A model without ``predict`` gets no rating
    metrics (NaN in :attr:`CrossValidation.per_fold`, listed in ``settings``; asked for rating
    metrics only, it is an error); a model without ``recommend`` is ranked by ``predict`` over
    the training items (every item of the fold's ``train``, minus the excluded pairs: users x
    items predictions; listed in ``settings["ranked_by_predict"]``). Every number comes from
    :func:`receval.evaluate`, called with ``evaluate_options``.

    Parameters
    ----------
    models : dict of str to model
        Name -> a model with ``fit(train)`` and ``recommend(users, k, exclude=None)`` and/or
        ``predict(pairs)`` (:mod:`receval.models`), or a spec that
        :func:`receval.models.from_spec` reads (``"item-mean:shrinkage=5"``,
        ``"surprise:SVD(n_factors=50)"``). Models see pandas DataFrames with columns
        ``user_id``, ``item_id``, and ``rating`` / ``timestamp`` when the data has them.
        ``predict`` returns a table, one number per pair in order (an array or list), or a
        Series indexed like ``pairs`` (matched by its labels, whatever their order).
        Names are text: lone surrogates become U+FFFD (with a warning).
    data : table or None
        The whole data set: the catalog of items a model may recommend (an item outside it
        is an error), and the input of ``split`` when ``split`` is a function.
    metrics : str, Metric or list of them
        As in :func:`receval.evaluate`; no ranking metric may cut deeper than ``k``
        (``ndcg@20`` of 10-item lists is an error).
    split : Split, list of Split, (train, test) pair, or function of ``data``
        The folds: one Split (anything with ``.train`` and ``.test``, or that unpacks into
        ``(train, test)``), a list of them (``rv.split.kfold``'s output), or a function that
        returns either from ``data``.
    k : int
        Length of the recommendation lists.
    exclude_seen : bool
        Leave each user's training items out of their recommendations (default). A model
        that recommends a training pair anyway is an error. ``False`` ranks them too: a
        model that leaves them out by itself (``rv.models.Surprise``'s default
        ``candidates="unseen"``) is fitted with ``candidates="all"`` instead (listed in
        ``settings["candidates_all"]``). With ``True``, a fold whose test pairs are all in
        its train (``split=(data, data)``) scores 0 on every accuracy metric: a
        :class:`~receval.exceptions.DataWarning` says so.
    progress : bool, optional
        Progress over folds x models (default on): a rich bar when stdout is a terminal,
        else one line per (model, fold) with its seconds on stderr; ``False``: none.
    columns : Columns or dict, optional
        Column names of the data, when not the defaults or their aliases.
    **evaluate_options
        Passed to every :func:`receval.evaluate` call (``relevance_threshold``,
        ``convention``, ``ties``, ``missing_predictions``, ...); any other keyword is an
        error naming it.

    Returns
    -------
    CrossValidation
        ``per_fold``, ``summary()``, ``results[(model, fold)]``, ``settings``, ``compare()``.

    Raises
    ------
    InvalidModelError
        Naming the model: not a model (a class, an unwrapped Surprise algorithm, a
        scikit-learn estimator, no ``fit`` or neither ``recommend`` nor ``predict``), its
        ``fit`` / ``recommend`` / ``predict`` raising (chained), or an output that breaks
        the protocol (:class:`~receval.models.ModelOutputError`: not a table, non-numeric or
        non-finite scores, ids of another type than the data's, unknown users or items,
        pairs not asked for, duplicates, more than ``k`` items, excluded pairs).
    InvalidParameterError
        Bad parameters: an unknown keyword, a metric cut deeper than ``k``, a flag
        (``exclude_seen``, ``progress``, ``strict``) that is not True or False, ...
    EmptyInputError
        A fold with an empty train or test part, naming the fold and the part (before any
        model is fitted).
    """
    models = check_models(models)
    k = check_k(k)
    exclude_seen = bool(check_flag(exclude_seen, "exclude_seen"))
    progress = check_flag(progress, "progress", none=True)
    check_options(evaluate_options)
    specs = [m if isinstance(m, Metric) else parse(m) for m in _as_list(metrics)]
    check_cutoffs(specs, k)
    ranking = [m for m, s in zip(_as_list(metrics), specs, strict=True) if s.family != "rating"]
    rating = [m for m, s in zip(_as_list(metrics), specs, strict=True) if s.family == "rating"]
    check_rating_only(models, ranking, rating)
    folds = _folds(split, data)
    parts = [(canonical(tr, columns, name=f"fold {f}: train"),
              canonical(te, columns, name=f"fold {f}: test")) for f, (tr, te) in
             enumerate(_unpack(fold) for fold in folds)]
    check_folds(parts)
    if exclude_seen and ranking:
        warn_test_in_train(parts)
    catalog = None if data is None else pd.Index(canonical(data, columns)["item_id"].unique())
    settings: dict[str, Any] = {
        "k": k, "exclude_seen": exclude_seen, "n_folds": len(folds),
        "models": {name: repr(model) for name, model in models.items()},
        "model_params": model_params(models),
        "evaluate_options": dict(evaluate_options), "no_rating_metrics": [],
        "ranked_by_predict": [], "candidates_all": [], "fallbacks": {}, "ties_at_cutoff": {},
        "split_reports": [getattr(fold, "report", None) for fold in folds]}
    results: dict[tuple[str, int], EvaluationResult] = {}
    timings: dict[tuple[str, int], dict[str, float]] = {}
    with CvProgress(progress, len(parts) * len(models), len(parts)) as bar, \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for fold, (train, test) in enumerate(parts):
            for name, model in models.items():
                bar.start(name, fold)
                fresh = guarded(name, "clone", None, partial(clone, model))
                if not exclude_seen:
                    _rank_seen(name, fresh, settings)
                results[(name, fold)], timings[(name, fold)] = _run_one(
                    name, fresh, train, test, ranking, rating, k,
                    exclude_seen, catalog, evaluate_options, settings, fold)
                bar.done(name, fold, timings[(name, fold)])
    _warn_once(caught)
    labels = list(dict.fromkeys(label for ev in results.values() for label in ev.labels))
    order = {s.label: i for i, s in enumerate(specs)}
    labels.sort(key=lambda label: order.get(label, len(order)))
    frame = pd.DataFrame.from_dict(timings, orient="index")
    frame.index = pd.MultiIndex.from_tuples(list(timings), names=["model", "fold"])
    return CrossValidation(results=results, models=list(models), n_folds=len(parts),
                           labels=labels, settings=settings, timings=frame)


def _warn_once(caught: list[warnings.WarningMessage]) -> None:
    """Re-emit the warnings of every evaluation, each distinct message once."""
    seen: set[tuple[type[Warning], str]] = set()
    for w in caught:
        key = (w.category, str(w.message))
        if key not in seen:
            seen.add(key)
            warn(key[1], key[0])


_TIED_USERS = re.compile(r"for (\d+) users")


def _count_ties(caught: list[warnings.WarningMessage], settings: dict[str, Any],
                key: tuple[str, int]) -> None:
    """Record the ties at the cutoff that ``recommend`` warned about: warnings and users.

    Matched by class name, so that a model's own ``TiesAtCutoffWarning`` counts too; the
    number of users is read from receval's message ("for N users"), when it says.
    """
    ties = [w for w in caught if w.category.__name__ == "TiesAtCutoffWarning"]
    if ties:
        users = [re.search(_TIED_USERS, str(w.message)) for w in ties]
        settings["ties_at_cutoff"][key] = {
            "warnings": len(ties),
            "users": sum(int(m.group(1)) for m in users if m) if all(users) else None,
            "messages": [str(w.message) for w in ties]}


def _as_list(metrics: str | Metric | Iterable[str | Metric]) -> list[str | Metric]:
    return metric_list(metrics)


def _fold_like(obj: Any) -> bool:
    return (hasattr(obj, "train") and hasattr(obj, "test")) or (
        isinstance(obj, (tuple, list)) and len(obj) == 2)


def _folds(split: Any, data: Any) -> list[Any]:
    """The list of folds that ``split`` describes (see :func:`cross_validate`)."""
    if callable(split) and not hasattr(split, "train"):
        if data is None:
            raise InvalidParameterError("split is a function of data, but data is None",
                                        parameter="split")
        split = split(data)
    if hasattr(split, "train") and hasattr(split, "test"):
        return [split]
    if isinstance(split, (tuple, list)) and len(split) == 2 and \
            not any(_fold_like(part) for part in split):
        return [tuple(split)]
    folds = list(split) if isinstance(split, Iterable) and not isinstance(
        split, (str, bytes, pd.DataFrame)) else []
    if not folds or not all(_fold_like(fold) for fold in folds):
        raise InvalidParameterError(
            f"split must be a Split, a list of Splits (e.g. rv.split.kfold(data, 5)), a "
            f"(train, test) pair, or a function of data returning one; got "
            f"{type(split).__name__}", parameter="split")
    return folds


def _unpack(fold: Any) -> tuple[Any, Any]:
    if hasattr(fold, "train") and hasattr(fold, "test"):
        return fold.train, fold.test
    train, test = fold
    return train, test


def _rank_seen(name: str, model: Any, settings: dict[str, Any]) -> None:
    """``exclude_seen=False`` reaches a model that leaves training items out by itself.

    A model with ``candidates="unseen"`` (:class:`~receval.models.Surprise`) drops each
    user's training items whatever ``exclude`` says; its fold's copy gets
    ``candidates="all"``, so that ``exclude=None`` means what it says (listed in
    ``settings["candidates_all"]``).
    """
    if getattr(model, "candidates", None) == "unseen" and \
            callable(getattr(model, "set_params", None)):
        guarded(name, "set_params(candidates='all')", None,
                lambda: model.set_params(candidates="all"))
        if name not in settings["candidates_all"]:
            settings["candidates_all"].append(name)


def _ranked(name: str, model: Any, train: pd.DataFrame, users: pd.Index, k: int,
            exclude_seen: bool, catalog: pd.Index | None, settings: dict[str, Any],
            fold: int) -> pd.DataFrame:
    """The model's top-k lists for ``users``, checked against the protocol.

    The :class:`~receval.exceptions.TiesAtCutoffWarning` s of ``recommend`` are counted in
    ``settings["ties_at_cutoff"][(name, fold)]`` (and passed on).
    """
    exclude = train[["user_id", "item_id"]] if exclude_seen else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if callable(getattr(model, "recommend", None)):
            out = guarded(name, "recommend(users, k, exclude)", fold,
                          lambda: model.recommend(users.to_numpy(), k, exclude=exclude))
            recs = check_recommendations(out, name, users, catalog, k)
        else:
            if name not in settings["ranked_by_predict"]:
                settings["ranked_by_predict"].append(name)
            items = pd.Index(np.sort(train["item_id"].unique()))
            recs = rank_by_predict(
                lambda pairs: _predicted(name, model, pairs, fold),
                name, users, items, exclusion_csr(exclude, users, items), k)
    _count_ties(caught, settings, (name, fold))
    for w in caught:  # passed on to cross_validate's own record
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if exclude is not None and len(recs):
        seen = pd.MultiIndex.from_frame(exclude)
        bad = pd.MultiIndex.from_frame(recs[["user_id", "item_id"]]).isin(seen)
        if bad.any():
            shown = list(recs.loc[bad, ["user_id", "item_id"]].head(5).itertuples(
                index=False, name=None))
            raise ModelOutputError(
                f"model {name!r}: recommend() returned {int(bad.sum())} (user, item) pairs "
                f"of the user's training rows although exclude_seen=True, e.g. {shown}",
                parameter="models", n_bad=int(bad.sum()), examples=shown)
    return recs


def _predicted(name: str, model: Any, pairs: pd.DataFrame, fold: int) -> Any:
    """``model.predict(pairs)``, guarded; a Series is put in the order of ``pairs`` by label."""
    out = guarded(name, "predict(pairs)", fold, lambda: model.predict(pairs))
    return series_in_order(out, pairs, f"model {name!r}, fold {fold}: predict()",
                           error=ModelOutputError, parameter="models")


def _run_one(name: str, model: Any, train: pd.DataFrame, test: pd.DataFrame,
             ranking: Sequence[str | Metric], rating: Sequence[str | Metric], k: int,
             exclude_seen: bool, catalog: pd.Index | None, options: dict[str, Any],
             settings: dict[str, Any], fold: int) -> tuple[EvaluationResult, dict[str, float]]:
    """Fit one model on one fold, query it, and evaluate it."""
    seconds: dict[str, float] = {}
    clock = time.perf_counter()
    guarded(name, "fit(train)", fold, lambda: model.fit(train))
    seconds["fit"] = time.perf_counter() - clock
    evaluations = []
    if ranking:
        clock = time.perf_counter()
        users = pd.Index(pd.unique(test["user_id"]))
        recs = _ranked(name, model, train, users, k, exclude_seen, catalog, settings, fold)
        seconds["recommend"] = time.perf_counter() - clock
        evaluations.append((recs, ranking))
    if rating and callable(getattr(model, "predict", None)):
        clock = time.perf_counter()
        pairs = test[["user_id", "item_id"]].reset_index(drop=True)
        out = _predicted(name, model, pairs, fold)
        evaluations.append((check_predictions(out, pairs, name), rating))
        seconds["predict"] = time.perf_counter() - clock
    elif rating and name not in settings["no_rating_metrics"]:
        settings["no_rating_metrics"].append(name)
    if getattr(model, "fallbacks_", None):
        settings["fallbacks"][(name, fold)] = dict(model.fallbacks_)
    clock = time.perf_counter()
    parts = [evaluate(recs, test, list(metrics), **_fold_train(metrics, options, train))
             for recs, metrics in evaluations]
    seconds["evaluate"] = time.perf_counter() - clock
    return _combine(parts), seconds


def _fold_train(metrics: Sequence[str | Metric], options: dict[str, Any],
                train: pd.DataFrame) -> dict[str, Any]:
    """The evaluate options of one fold, with the fold's training rows as ``train=``.

    Only for the metrics that read it (novelty, popularity, the long tail, calibration,
    popularity propensities, ...), and only when no ``train=`` was given.
    """
    if "train" in options:
        return options
    for metric in metrics:
        try:
            parsed = parse(metric) if isinstance(metric, str) else metric
        except InvalidParameterError:  # a name only a convention knows: not a beyond metric
            continue
        if "train" in getattr(parsed, "inputs", tuple)():  # beyond metrics, propensities
            return {**options, "train": train}
    return options


def _combine(parts: list[EvaluationResult]) -> EvaluationResult:
    """One result from a ranking and a rating evaluation of the same test set.

    Metrics, summaries and per-user columns are put side by side (and every other per-metric
    mapping of the results, such as aliases); the user accounting is the ranking one with the
    rating fields of the rating evaluation.
    """
    if len(parts) == 1:
        return parts[0]
    first, second = parts
    per_user = first.per_user.join(second.per_user, how="outer")
    users = dataclasses.replace(
        first.users, rating_evaluated=second.users.rating_evaluated,
        rating_skipped=second.users.rating_skipped,
        n_missing_predictions=second.users.n_missing_predictions)
    settings = dict(first.settings)
    settings["metrics"] = {**first.settings.get("metrics", {}),
                           **second.settings.get("metrics", {})}
    done = {"metrics", "summaries", "per_user", "users", "settings"}
    extra = {f.name: {**getattr(first, f.name), **getattr(second, f.name)}  # _aliases, ...
             for f in dataclasses.fields(first)
             if f.name not in done and isinstance(getattr(first, f.name), dict)}
    return dataclasses.replace(
        first, metrics=first.metrics + second.metrics,
        summaries={**first.summaries, **second.summaries}, per_user=per_user, users=users,
        settings=settings, **extra)

