"""``evaluate``: from two tables and a list of metric names to an :class:`EvaluationResult`."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from receval import conventions
from receval._columns import Columns
from receval._engine import Options, evaluate_partition, merge, truth_grade_sum
from receval._evaluate_options import (
    check_flags,
    check_relevance_threshold,
    choices_of,
    unknown_keyword,
)
from receval._exact import ExactSum
from receval._result import EvaluationResult
from receval.conventions import Convention
from receval.data._buckets import (
    ROWS_PER_BUCKET,
    is_parquet_source,
    read_bucket,
    split_into_buckets,
)
from receval.data._encode import ID_CASTS
from receval.data._side import prepare_side
from receval.data._spark import is_spark_frame
from receval.exceptions import EmptyInputError, InvalidParameterError, format_examples
from receval.metrics import Metric, parse

__all__ = ["evaluate", "make_options", "metric_list", "with_side_inputs"]

#: The choices of each policy, from the one declaration of evaluate's options.
_POLICIES = {name: choices_of(name) for name in (
    "no_relevant", "missing_recs", "recs_without_truth", "truth_scope", "score_precision",
    "missing_predictions", "duplicates", "negative_grades", "item_features_missing",
    "per_user")}


def _choice(name: str, value: Any, options: Sequence[str]) -> str:
    if value not in options:
        raise InvalidParameterError(
            f"{name} must be one of {', '.join(repr(o) for o in options)}; got {value!r}",
            parameter=name, examples=[value])
    return str(value)


def metric_list(metrics: Any) -> list[str | Metric]:
    """``metrics`` (one metric or several) as a list, never empty.

    Raises
    ------
    InvalidParameterError
        ``None`` or an empty list, or something that is not metrics
        (``parameter='metrics'``), the same message for ``rv.evaluate``, ``rv.compare`` and
        ``rv.cross_validate``.
    """
    if metrics is not None and not isinstance(metrics, (str, Metric, Iterable)):
        raise InvalidParameterError(
            f"metrics must be a metric name, a Metric or a list of them, e.g. ['ndcg@10', "
            f"'map@10']; got {type(metrics).__name__} {metrics!r}", parameter="metrics",
            examples=[repr(metrics)])
    items = [] if metrics is None else (
        [metrics] if isinstance(metrics, (str, Metric)) else list(metrics))
    if not items:
        got = " (got None)" if metrics is None else ""
        raise InvalidParameterError(f"metrics is empty{got}: name at least one metric, e.g. "
                                    f"['ndcg@10', 'map@10']", parameter="metrics")
    return items


def _parse_metrics(metrics: str | Metric | Iterable[str | Metric],
                   convention: Convention | None = None, *, item_features: bool = False
                   ) -> list[tuple[str, Metric]]:
    items = metric_list(metrics)
    out, seen = [], set()
    for item in items:
        metric = parse(item) if convention is None else convention.metric(
            item, item_features=item_features)
        if metric.label not in seen:
            seen.add(metric.label)
            out.append((item if isinstance(item, str) else metric.label, metric))
    return out


def evaluate(
    recs: Any,
    truth: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    convention: str | Convention | None = None,
    relevance_threshold: float | None = None,
    columns: Columns | dict[str, str] | None = None,
    ties: str | None = None,
    no_relevant: str | None = None,
    missing_recs: str | None = None,
    recs_without_truth: str | None = None,
    missing_predictions: str | float | None = None,
    truth_scope: str | None = None,
    score_precision: str | None = None,
    catalog: Iterable[Any] | None = None,
    duplicates: str = "error",
    negative_grades: str = "error",
    id_cast: str | None = None,
    strict: bool = False,
    buckets: int | str | None = None,
    progress: bool | None = None,
    train: Any = None,
    item_features: Any = None,
    item_features_missing: str | None = None,
    item_features_sep: str | None = "|",
    item_groups: Any = None,
    user_groups: Any = None,
    propensities: Any = None,
    sample: str | None = None,
    per_user: str = "pandas",
    **unknown: Any,
) -> EvaluationResult:
    """Evaluate recommendations against the ground truth.

    Parameters
    ----------
    recs : pandas.DataFrame
        One row per recommended (user, item), with a ``score`` (higher is better) or a
        ``rank`` (1 is best), or neither when the rows are already in rank order per user.
        Rating metrics read the predicted rating from the score.
    truth : pandas.DataFrame
        One row per held-out (user, item), with an optional grade (``rating``).
    metrics : str, Metric or list of them
        Metric names in the grammar ``name[(param=value, ...)][@k]``, e.g. ``"ndcg@10"``,
        ``"ap(denominator=relevant)@10"``, ``"rmse"``.
    convention : str or Convention, optional
        Reproduce another library's numbers: ``"trec_eval"``, ``"ranx"``, ``"sklearn"``,
        ``"recbole"``, ``"ms_recommenders"``, ``"lenskit"``, ``"replay"``,
        ``"torchmetrics"``, ``"evidently"``, ``"elliot"`` or ``"cornac"``
        (:func:`receval.conventions.table` shows what each sets). Metric names are read in
        the convention (parameters written in a name still win), and every setting below
        that is left at ``None`` takes the convention's value. The result records the
        convention, each metric's variant and the library's name for it.
    relevance_threshold : float, optional
        A truth row is relevant when its grade is ``>=`` this; by default the convention's
        level, or every row with a positive grade (every row when there is no grade).
        Relevant items keep their grade as gain for graded metrics; the others have gain 0.
    columns : Columns or dict, optional
        Column names by role, when they are not the defaults or their aliases.
    ties : {"stable", "item", "item_desc", "item_str_desc", "optimistic", "pessimistic", \
"expected"}, optional
        Order of items with equal scores (default ``"stable"``): input order, ascending or
        descending item id, descending id as text (trec_eval's docno order), relevant first,
        relevant last, or the exact mean over all orders of each tied block. A metric's own
        ``ties=`` parameter overrides it.
    no_relevant : {"skip", "zero", "error"}, optional
        Truth users without a relevant item (default ``"skip"``): left out of ranking means
        (counted), scored 0, or an error.
    missing_recs : {"zero", "skip", "error"}, optional
        Truth users without recommendations (default ``"zero"``): scored 0 (counted), left
        out, or an error. A ranking metric's own ``missing_recs=`` parameter overrides it.
        ``"skip"`` also leaves them out of the rating metrics (counted in
        ``rating_skipped``), as LensKit, which measures the prediction lists only, does;
        otherwise their truth ratings are missing predictions.
    recs_without_truth : {"ignore", "zero", "error"}, optional
        Users with recommendations and no truth row (default ``"ignore"``): left out
        (counted), scored 0 like a user with no relevant item (torchmetrics, scikit-learn),
        or an error.
    missing_predictions : {"error", "skip", "global_mean"} or float, optional
        Truth ratings without a predicted rating, for rating metrics (default ``"error"``):
        an error, left out (the common subset, counted), or filled with the mean truth
        rating or a value.
    truth_scope : {"all", "recommended"}, optional
        Which truth rows count (default ``"all"``): every row, or only those of items in the
        user's recommendations, as in libraries whose input is the recommended rows with a
        target column (torchmetrics, Evidently): recall, AP's |R| and the nDCG ideal then
        count the relevant items that were recommended.
    score_precision : {"float64", "float32"}, optional
        Round scores to float32 first (default ``"float64"``: as given), as libraries that
        read them in single precision do (trec_eval, torchmetrics); this can create ties.
    catalog : iterable, optional
        The item catalog for item coverage; by default every item of both tables.
    duplicates : {"error", "first", "best"}
        A (user, item) pair repeated in a table: an error, keep its first row, or keep its
        best row (highest score or best rank in recs, highest grade in truth). The number of
        rows dropped is recorded in ``result.settings``.
    negative_grades : {"error", "allow"}
        Negative truth grades: an error, or allowed (never relevant for ranking metrics;
        rating metrics use them as they are).
    id_cast : {None, "str", "int"}
        Ids of different types in the two tables are an error; ``"str"`` or ``"int"`` casts
        both tables' user and item ids first (recorded in the result).
    strict : bool
        Turn every receval warning into an error.
    buckets : int or "auto", optional
        Larger than memory: when ``recs`` and ``truth`` are Parquet files or directories,
        split the users into this many buckets (``"auto"``: about 8 million rows each) in one
        streaming pass and evaluate bucket by bucket with bounded memory. The numbers are the
        same as in memory. By default, Parquet inputs are bucketed when they hold more than
        ``3 * 8`` million rows.
    progress : bool, optional
        Show a progress bar over the buckets (default: when the terminal is interactive).
    train : table, optional
        The training interactions (user, item), for the beyond-accuracy metrics: item
        popularity, expected items, co-occurrence (``docs/beyond-accuracy.md``).
    item_features : table, optional
        Item -> features for similarity: a wide table (item + numeric columns), a long
        table (item, category; an item may have several rows, and text cells holding
        ``item_features_sep`` are split, e.g. MovieLens genres ``"Action|Adventure"``) or an
        item -> vector column.
    item_features_missing : {"error", "skip", "zero"}, optional
        An item without features (recommended, or in the history of a user whose list is
        compared with it): an error (default), left out of similarities, or kept as a zero
        vector (similarity 0 to every item, Microsoft Recommenders'; the convention
        ``ms_recommenders`` sets it). The items without features are counted in
        ``result.settings["beyond"]``.
    item_features_sep : str or None
        The separator of multi-valued categories in a long ``item_features`` table (default
        ``"|"``); None reads each cell as one category. It also splits multi-valued cells of
        ``item_groups``.
    item_groups : table, mapping or Series, optional
        Item -> provider-side group, for the exposure and group-fairness metrics
        (``exposure``, ``awrf``, ``rsp``, ``reo``, ``bias_disparity``; ``docs/fairness.md``):
        a table (item, group), a mapping or a Series indexed by item. An item may have several
        groups (several rows, a list, or text joined by ``item_features_sep``).
    user_groups : table, mapping or Series, optional
        User -> group (one per user), for ``delta_gap`` and ``bias_disparity`` and the
        fairness section of reports; ``ev.disparity(groups)`` takes groups directly.
    propensities : table, mapping or Series, optional
        Item -> observation propensity in ``(0, 1]``, read by the debiased metrics'
        ``propensity='column'`` (``recall(propensity=column, estimator=snips)@10``).
    sample : str, optional
        The column of ``recs`` holding a sample label, for a stochastic ranker evaluated from
        several rankings sampled per user (each (user, sample) one ranked list): the
        expected exposure of an item is its mean exposure over the user's samples (Diaz et
        al. 2020). Only ``expected_exposure`` reads sampled rankings (any other metric is
        an error that names it); every user needs the same number of samples (an error
        names a few that differ) and no label may be missing. Not available over buckets or
        on Spark (an error).
    per_user : {"pandas", "spark"}
        Where the per-user values go. ``"pandas"`` (default): ``result.per_user`` is a
        pandas DataFrame on this machine. ``"spark"`` (Spark inputs only, for more users
        than the driver holds): nothing per user is collected; ``result.per_user`` is a
        Spark DataFrame (the user id column as in recs, one column per metric label, null
        where undefined), ``result.users.frame`` a Spark DataFrame of every user and their
        groups, the lists of ``result.users`` hold a few example ids and
        ``result.users.count(group)`` the counts. Both DataFrames read the cached output of
        the one job that computed the aggregates; ``result.unpersist()`` frees it. The
        aggregates are the same either way (``docs/spark.md``).
    **unknown
        Not an option: any other keyword (a misspelt option, ``relevance_treshold=4``) is
        an :class:`~receval.exceptions.InvalidParameterError` naming it and its close
        matches.

    Returns
    -------
    EvaluationResult
        ``result["ndcg@10"]``, ``result.per_user``, ``result.users`` and exports.

    Raises
    ------
    RecevalError
        On any bad input or parameter; see :mod:`receval.exceptions`.
    """
    if unknown:
        raise unknown_keyword("evaluate", next(iter(unknown)), own=("recs", "truth", "metrics"))
    check_flags({"strict": strict, "progress": progress})
    opts = make_options(
        metrics, convention=convention, relevance_threshold=relevance_threshold,
        columns=columns, ties=ties, no_relevant=no_relevant, missing_recs=missing_recs,
        recs_without_truth=recs_without_truth, missing_predictions=missing_predictions,
        truth_scope=truth_scope, score_precision=score_precision,
        catalog=catalog, duplicates=duplicates, negative_grades=negative_grades,
        id_cast=id_cast, strict=strict, item_features_missing=item_features_missing,
        item_features_given=item_features is not None)
    if item_features_sep is not None and (not isinstance(item_features_sep, str)
                                          or item_features_sep == ""):
        raise InvalidParameterError(
            f"item_features_sep must be a non-empty string or None; got {item_features_sep!r}",
            parameter="item_features_sep", examples=[item_features_sep])
    opts = dataclasses.replace(opts, item_features_sep=item_features_sep,
                               sample=_sample(sample, opts))
    opts = with_side_inputs(opts, train, item_features, item_groups=item_groups,
                            user_groups=user_groups, propensities=propensities)
    spark = is_spark_frame(recs) or is_spark_frame(truth)
    if _choice("per_user", per_user, _POLICIES["per_user"]) == "spark" and not spark:
        raise InvalidParameterError(
            "per_user='spark' keeps the per-user values in Spark: it needs recs and truth as "
            f"Spark DataFrames, got {type(recs).__name__} and {type(truth).__name__}; leave "
            "per_user='pandas' for inputs in memory or on disk", parameter="per_user",
            examples=[per_user])
    if opts.sample is not None and (spark or buckets is not None or (
            is_parquet_source(recs) and is_parquet_source(truth)
            and _parquet_rows(recs) + _parquet_rows(truth) > 3 * ROWS_PER_BUCKET)):
        raise InvalidParameterError(
            "sample= (sampled rankings of a stochastic ranker) is evaluated in memory only: "
            "not on Spark DataFrames nor over Parquet buckets; read the sampled rows into "
            "pandas, or evaluate the users in parts", parameter="sample", examples=[sample])
    if spark:
        from receval.spark import evaluate_spark

        return evaluate_spark(recs, truth, opts, buckets=buckets, per_user=per_user)
    paths = {role: os.path.abspath(os.fspath(value)) for role, value in (
        ("recs", recs), ("truth", truth), ("train", train), ("item_features", item_features),
        ("item_groups", item_groups), ("user_groups", user_groups),
        ("propensities", propensities)) if isinstance(value, (str, os.PathLike))}
    if is_parquet_source(recs) and is_parquet_source(truth):
        if buckets is None and _parquet_rows(recs) + _parquet_rows(truth) > 3 * ROWS_PER_BUCKET:
            buckets = "auto"
        if buckets is not None:
            return dataclasses.replace(_evaluate_buckets(recs, truth, opts, buckets, progress),
                                       _input_paths=paths)
    elif buckets is not None:
        raise InvalidParameterError(
            "buckets= needs recs and truth given as Parquet files or directories",
            parameter="buckets")
    return dataclasses.replace(merge([evaluate_partition(recs, truth, opts)], opts),
                               _input_paths=paths)


def _sample(sample: Any, opts: Options) -> str | None:
    """The sample column, checked: a name, and only metrics that read sampled rankings."""
    if sample is None:
        return None
    if not isinstance(sample, str) or not sample:
        raise InvalidParameterError(
            f"sample must be the name of a column of recs (a non-empty string) or None; got "
            f"{sample!r}", parameter="sample", examples=[sample])
    others = [m.label for _, m in opts.specs if not getattr(m, "reads_samples", False)]
    if others:
        raise InvalidParameterError(
            f"sample={sample!r} gives several sampled rankings per user, which only "
            f"expected_exposure reads (its exposure is the mean over the samples); "
            f"{format_examples(others, len(others))} read one list per user: evaluate them in "
            f"a call without sample= (e.g. on one sample's rows)", parameter="sample",
            n_bad=len(others), examples=others[:5])
    return sample


def with_side_inputs(opts: Options, train: Any, item_features: Any, *, item_groups: Any = None,
                     user_groups: Any = None, propensities: Any = None) -> Options:
    """The options with the side inputs read and encoded, once.

    ``train``, ``item_features``, ``item_groups``, ``user_groups`` and ``propensities``:
    every partition (in memory, Parquet buckets, Spark executors) maps these arrays to its
    own codes; none reads the tables again.
    """
    side = prepare_side(train, item_features, opts.columns,
                        need_features=opts.needs_features(), id_cast=opts.id_cast,
                        sep=opts.item_features_sep,
                        need_ratings=any(getattr(m, "needs_ratings", False)
                                         for _, m in opts.specs),
                        item_groups=item_groups, user_groups=user_groups,
                        propensities=propensities)
    return dataclasses.replace(opts, side=side)


def _parquet_rows(path: Any) -> int:
    import pyarrow.dataset as ds

    try:
        return int(ds.dataset(str(path), format="parquet").count_rows())
    except Exception:  # unreadable here: the reader reports it with the file name
        return 0


def _evaluate_buckets(recs: Any, truth: Any, opts: Options, buckets: int | str,
                      progress: bool | None) -> EvaluationResult:
    import tempfile
    from pathlib import Path

    from rich.progress import Progress

    with tempfile.TemporaryDirectory(prefix="receval-buckets-") as tmp:
        parts = split_into_buckets(recs, truth, opts.columns, Path(tmp), buckets,
                                   opts.id_cast)
        for rows, name in zip(parts.rows, ("recs", "truth"), strict=True):
            if rows == 0:
                raise EmptyInputError(f"{name} is empty: there is nothing to evaluate",
                                      parameter=name)
        grades = ExactSum.from_accumulator(parts.rating_sum, parts.rating_special,
                                           parts.rating_count)
        if opts.policies["missing_predictions"] == "global_mean" and grades.n_defined:
            if opts.policies["duplicates"] != "error":  # the grades of the rows kept
                no_recs = read_bucket(parts.pairs[0][0]).iloc[:0]
                grades = sum((truth_grade_sum(no_recs, read_bucket(t), opts)
                              for _, t in parts.pairs), ExactSum.of(np.empty(0)))
            opts = dataclasses.replace(opts, fill_value=grades.mean())
        show = sys.stderr.isatty() if progress is None else progress
        partials = []
        with Progress(disable=not show, transient=True) as bar:
            task = bar.add_task("evaluating buckets of users", total=len(parts.pairs))
            for recs_file, truth_file in parts.pairs:
                partials.append(evaluate_partition(read_bucket(recs_file),
                                                   read_bucket(truth_file), opts,
                                                   part_of_whole=True))
                bar.advance(task)
    return merge(partials, opts)


def make_options(
    metrics: str | Metric | Iterable[str | Metric], *, convention: str | Convention | None,
    relevance_threshold: float | None, columns: Columns | dict[str, str] | None,
    ties: str | None, no_relevant: str | None, missing_recs: str | None,
    recs_without_truth: str | None, missing_predictions: str | float | None,
    catalog: Iterable[Any] | None, duplicates: str, negative_grades: str, id_cast: str | None,
    strict: bool, truth_scope: str | None = None, score_precision: str | None = None,
    item_features_missing: str | None = None, item_features_given: bool = False,
) -> Options:
    """Validate every option of :func:`evaluate` once, before reading any data.

    A setting left at ``None`` takes the convention's value, or receval's default.
    ``item_features_given``: whether ``item_features=`` was passed (a convention may read
    metric names differently then: MS Recommenders' feature similarity).
    """
    conv = None if convention is None else conventions.get(convention)
    specs = _parse_metrics(metrics, conv, item_features=item_features_given)
    given = {"ties": ties, "no_relevant": no_relevant, "missing_recs": missing_recs,
             "recs_without_truth": recs_without_truth,
             "missing_predictions": missing_predictions,
             "relevance_threshold": relevance_threshold, "truth_scope": truth_scope,
             "score_precision": score_precision,
             "item_features_missing": item_features_missing}
    base = conv.all_settings() if conv is not None else dict(conventions.DEFAULTS)
    resolved = {name: base[name] if value is None else value for name, value in given.items()}
    overrides = {name: value for name, value in given.items()
                 if value is not None and conv is not None and value != base[name]}
    threshold: Any = resolved["relevance_threshold"]
    missing_predictions = resolved["missing_predictions"]
    pol: dict[str, Any] = {name: _choice(name, resolved[name], _POLICIES[name]) for name in
                           ("no_relevant", "missing_recs", "recs_without_truth",
                            "truth_scope", "score_precision")}
    if not (isinstance(missing_predictions, (int, float)) and not isinstance(
            missing_predictions, bool) and np.isfinite(missing_predictions)) and \
            missing_predictions not in _POLICIES["missing_predictions"]:
        raise InvalidParameterError(
            f"missing_predictions must be one of "
            f"{', '.join(repr(o) for o in _POLICIES['missing_predictions'])} or a finite "
            f"number (the predicted rating to fill in); got {missing_predictions!r}",
            parameter="missing_predictions", examples=[missing_predictions])
    pol["missing_predictions"] = missing_predictions
    pol["duplicates"] = _choice("duplicates", duplicates, _POLICIES["duplicates"])
    pol["negative_grades"] = _choice("negative_grades", negative_grades,
                                     _POLICIES["negative_grades"])
    if id_cast not in ID_CASTS:
        raise InvalidParameterError(f"id_cast must be None, 'str' or 'int'; got {id_cast!r}",
                                    parameter="id_cast", examples=[id_cast])
    check_relevance_threshold(threshold)
    return Options(
        specs=tuple(specs), columns=Columns.coerce(columns),
        ties=_choice("ties", resolved["ties"], choices_of("ties")), policies=pol,
        relevance_threshold=threshold, id_cast=id_cast, strict=bool(strict),
        catalog=_catalog(catalog), convention=conv, overrides=overrides,
        item_features_missing=_choice("item_features_missing",
                                      resolved["item_features_missing"],
                                      ("error", "skip", "zero")))


def _catalog(catalog: Iterable[Any] | None) -> list[Any] | None:
    """The catalog as a list of hashable ids, or an error naming what is wrong."""
    if catalog is None:
        return None
    if isinstance(catalog, (str, bytes)) or not isinstance(catalog, Iterable):
        raise InvalidParameterError(
            f"catalog must be a collection of item ids (a list, set, array or Series), got "
            f"{type(catalog).__name__}", parameter="catalog")
    items = list(catalog)
    bad = [x for x in items[:100_000] if not isinstance(x, Hashable)]
    if bad:
        raise InvalidParameterError(
            f"catalog must hold item ids; it holds unhashable values such as {bad[0]!r}",
            parameter="catalog", n_bad=len(bad), examples=[repr(b) for b in bad[:5]])
    return items
