"""``evaluate``: metrics of sampled lists, with Krichene & Rendle's corrections."""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval import conventions
from receval._columns import Columns
from receval._evaluate import _POLICIES, _choice, _parse_metrics
from receval._evaluate import evaluate as _engine_evaluate
from receval._exact import exact_mean
from receval._result import EvaluationResult
from receval.exceptions import InvalidParameterError
from receval.metrics import (
    AUC,
    NDCG,
    AveragePrecision,
    HitRate,
    Metric,
    Precision,
    Recall,
    ReciprocalRank,
)
from receval.sampled._corrections import (
    CORRECTIONS,
    RCOND,
    least_squares_table,
    rank_estimate_table,
)
from receval.sampled._lists import Lists, read_lists
from receval.sampled._model import scored_by
from receval.sampled._negatives import STRATEGIES
from receval.sampled._record import (
    check_catalog,
    out_of_range,
    resolve_strategy,
    standard_errors,
)

__all__ = ["SUPPORTED", "evaluate"]

#: Metrics whose value at one positive per list depends only on the positive's rank.
SUPPORTED = (HitRate, Precision, Recall, ReciprocalRank, AveragePrecision, NDCG, AUC)
_BV_GAMMA = 0.01


def _shape(metric: Metric) -> Callable[[np.ndarray], np.ndarray] | None:
    """The metric at one positive of (real) rank x <= k, over its value at rank 1."""
    if isinstance(metric, (HitRate, Precision, Recall)):
        return np.ones_like
    if isinstance(metric, ReciprocalRank) or (
            isinstance(metric, AveragePrecision) and metric.positions == "relevant"):
        return np.reciprocal
    if isinstance(metric, NDCG) and metric.discount in ("log2", "ln"):
        return lambda x: 1.0 / np.log2(x + 1.0)
    if isinstance(metric, NDCG) and metric.discount == "breese":
        return lambda x: 1.0 / np.maximum(1.0, np.log2(x))
    return None


def _check_options(correction: str, gamma: float | None, prior: Any, n_items: int,
                   strategy: str | None) -> tuple[float | None, np.ndarray | None]:
    if correction not in CORRECTIONS:
        raise InvalidParameterError(
            f"correction must be one of {', '.join(map(repr, CORRECTIONS))}; got "
            f"{correction!r}", parameter="correction", examples=[correction])
    if isinstance(n_items, bool) or not isinstance(n_items, numbers.Integral) or n_items < 2:
        raise InvalidParameterError(f"n_items (the catalog size) must be an integer >= 2, got "
                                    f"{n_items!r}", parameter="n_items", examples=[n_items])
    if strategy is not None and strategy not in STRATEGIES:
        raise InvalidParameterError(
            f"strategy must be one of {', '.join(map(repr, STRATEGIES))} or None; got "
            f"{strategy!r}", parameter="strategy", examples=[strategy])
    least_squares = correction in ("minimal_bias", "bias_variance")
    if gamma is not None and (isinstance(gamma, bool) or not isinstance(gamma, numbers.Real)
                              or not 0.0 <= float(gamma) <= 1.0):
        raise InvalidParameterError(f"gamma must be a number in [0, 1], got {gamma!r}",
                                    parameter="gamma", examples=[gamma])
    if gamma is not None and not (correction == "bias_variance" or (
            correction == "minimal_bias" and float(gamma) == 0.0)):
        raise InvalidParameterError(
            f"gamma={gamma!r} has no meaning for correction={correction!r}: it weighs the "
            f"variance in correction='bias_variance' (minimal_bias is gamma=0)",
            parameter="gamma", examples=[gamma])
    if correction == "bias_variance":
        gamma = _BV_GAMMA if gamma is None else float(gamma)
    elif correction == "minimal_bias":
        gamma = 0.0
    weights = None
    if isinstance(prior, str) and prior == "uniform":
        return gamma, None
    if not least_squares:
        raise InvalidParameterError(
            f"prior= applies to correction='minimal_bias' or 'bias_variance', not "
            f"{correction!r}", parameter="prior")
    weights = np.asarray(prior, dtype=np.float64) if not isinstance(prior, str) else None
    if weights is None or weights.shape != (n_items,) or not np.all(np.isfinite(weights)) \
            or (weights < 0).any() or weights.sum() <= 0:
        raise InvalidParameterError(
            f"prior must be 'uniform' or n_items={n_items} weights >= 0 of the true ranks "
            f"1..n_items (not all 0); got {prior if isinstance(prior, str) else 'an array'}",
            parameter="prior")
    return gamma, weights


def _check_rcond(rcond: Any) -> None:
    if isinstance(rcond, bool) or not isinstance(rcond, numbers.Real) \
            or not 0.0 <= float(rcond) < 1.0:
        raise InvalidParameterError(
            f"rcond must be a number in [0, 1) (the relative singular-value cutoff of the "
            f"least-squares corrections), got {rcond!r}", parameter="rcond", examples=[rcond])


def _supported(specs: Sequence[tuple[str, Metric]], correction: str) -> None:
    for text, metric in specs:
        if not isinstance(metric, SUPPORTED):
            raise InvalidParameterError(
                f"{metric.label} is not supported under sampling: at one positive per list "
                f"receval evaluates HitRate, Precision, Recall, MRR, MAP, NDCG (at k) and AUC",
                parameter="metrics", examples=[text])
        if correction != "none" and not isinstance(metric, AUC) and metric.k is None:
            raise InvalidParameterError(
                f"{metric.label} needs a cutoff under correction={correction!r}: the "
                f"correction needs the metric at every true rank, which is 0 beyond k "
                f"(write {metric.name}@k)", parameter="metrics", examples=[text])
        if correction == "rank_estimate" and not isinstance(metric, AUC) \
                and _shape(metric) is None:
            raise InvalidParameterError(
                f"{metric.label} has no value at an unrounded rank, which "
                f"correction='rank_estimate' needs; use minimal_bias or bias_variance",
                parameter="metrics", examples=[text])


def evaluate(scored: Any, test: Any, metrics: str | Metric | Iterable[str | Metric], *,
             n_items: int, correction: str = "none", gamma: float | None = None,
             prior: Any = "uniform", strategy: str | None = None,
             columns: Columns | dict[str, str] | None = None, rcond: float = RCOND,
             model: Any = None, **evaluate_options: Any) -> EvaluationResult:
    r"""Evaluate sampled lists (one positive, ``m`` negatives), optionally corrected.

    Each list is a test row's item (the positive) and ``m`` sampled negatives, scored by the
    model (the output of :func:`receval.sampled.negatives` with a score column). The engine
    ranks every list, as :func:`receval.evaluate` does; the positive's sampled rank is
    ``r' = 1 +`` the number of its negatives that score higher, ties by the ``ties`` policy.

    Sampled metrics are biased: with ``m`` negatives out of ``n`` items, a positive of true
    rank ``r`` has ``r' - 1 ~ Binomial(m, (r - 1) / (n - 1))``, so HR@10 on 100 sampled
    items measures roughly HR@(10 n / 100) of the full ranking, and can order two models
    differently from the full metric (Krichene & Rendle, "On Sampled Metrics for Item
    Recommendation", KDD 2020). A correction replaces each list's value by a table entry
    ``T[r']`` (see :mod:`receval.sampled._corrections`):

    * ``"none"``: the metric of the sampled list itself.
    * ``"rank_estimate"``: the metric at the expected true rank,
      ``M(1 + (n - 1)(r' - 1) / m)``, unrounded: HR, precision and recall at rank ``x``
      are ``[x <= k]`` (over k for precision), MRR and AP ``[x <= k] / x``, nDCG
      ``[x <= k] / log2(x + 1)`` (``1/max(1, log2 x)`` with the Breese discount).
    * ``"minimal_bias"``: ``T`` minimising ``sum_r p(r) (E[T[r'] | r] - M(r))^2``.
    * ``"bias_variance"``: ``T`` minimising
      ``sum_r p(r) [(E[T[r'] | r] - M(r))^2 + gamma Var(T[r'] | r)]``, i.e.
      ``T = [(1 - gamma) A^T P A + gamma diag(A^T p)]^{-1} A^T P M``.

    ``M(r)``, the metric of a full ranking whose positive is at rank ``r``, is computed by
    the engine on synthetic one-positive lists; ``p`` is the prior over true ranks. AUC is
    never corrected: its sampled value is unbiased under uniform sampling.

    Parameters
    ----------
    scored : table
        One row per candidate: user, item, a score (higher is better) or rank, and
        optionally ``positive`` (checked against ``test``) and ``list_id`` (when a user has
        several lists).
    test : table
        The positives: a row is positive when its (user, item) is a test row. Every test
        row must have its list in ``scored``.
    metrics : str, Metric or list
        Among HitRate, Precision, Recall, MRR, MAP, NDCG (with ``@k`` under a correction)
        and AUC.
    n_items : int
        ``n``: the number of items the full ranking would rank (the catalog size).
    correction : {"none", "rank_estimate", "minimal_bias", "bias_variance"}
        See above.
    gamma : float, optional
        Weight of the variance for ``bias_variance``, in ``[0, 1]`` (default 0.01);
        ``minimal_bias`` is ``gamma = 0``.
    prior : "uniform" or array of n_items weights
        ``p(r)`` for the least-squares corrections.
    strategy : {"uniform", "popularity"}, optional
        How the negatives were sampled; by default read from what
        :func:`~receval.sampled.negatives` recorded on its frame (``DataFrame.attrs``, which
        ``merge`` drops). Corrections assume uniform sampling: they refuse
        ``"popularity"`` (given or recorded), a ``strategy`` contradicting the record, and
        a table whose strategy is unknown (pass ``strategy="uniform"``).
    columns : Columns or dict, optional
        Column names of ``scored`` and ``test``.
    rcond : float
        Relative singular-value cutoff of the least-squares solve, in ``[0, 1)`` (default
        1e-2): directions whose singular value is below ``rcond`` times the largest are
        dropped. At ``m = 99`` the exact minimal-bias table has entries of ~1e12; the
        default keeps them within ``|T| <= 10`` at a small bias (see
        :mod:`receval.sampled._corrections`).
    model : fitted model, optional
        Score the candidates with it: ``scored`` is then the unscored output of
        :func:`~receval.sampled.negatives`, and each row gets ``model.score(pairs)`` (every
        model of :mod:`receval.models` has it; a model of your own may give ``predict``
        instead). A pair the model cannot score is an error naming a few of them.
    **evaluate_options
        Passed to :func:`receval.evaluate` (``ties``, ``convention``, ``strict``, ...).

    Returns
    -------
    EvaluationResult
        One "user" per list (the list id when there is a ``list_id`` column).
        ``settings['sampled']`` records ``m``, ``n``, the strategy, the correction,
        ``gamma``, the prior, ``rcond`` (least-squares corrections), the correction tables,
        the uncorrected values, ``standard_error`` (of each metric's mean over the lists,
        ``sd / sqrt(L)`` of the per-list values), and under a correction ``range`` (each
        metric's smallest and largest value at one positive) and ``out_of_range`` (the
        metrics whose corrected mean falls outside it).

    Raises
    ------
    InvalidParameterError
        Bad options, metrics not supported under sampling, and corrections of negatives
        not known to be uniform (see ``strategy``).

    Warns
    -----
    SampledCorrectionWarning
        A corrected mean outside the metric's range, or ``n_items`` different from the
        catalog the negatives were drawn from.
    """
    gamma, weights = _check_options(correction, gamma, prior, n_items, strategy)
    _check_rcond(rcond)
    conv = evaluate_options.get("convention")
    specs = _parse_metrics(metrics, None if conv is None else conventions.get(conv))
    _supported(specs, correction)
    if model is not None:
        scored = scored_by(model, scored, Columns.coerce(columns))
    duplicates = _choice("duplicates", evaluate_options.get("duplicates", "error"),
                         _POLICIES["duplicates"])
    lists = read_lists(scored, test, Columns.coerce(columns), int(n_items), duplicates)
    strategy = resolve_strategy(strategy, lists.record.get("strategy"), correction)
    check_catalog(int(n_items), lists.record.get("n_items"), correction)
    corrected = [m for _, m in specs if not isinstance(m, AUC)]
    helpers = _rank_helpers(corrected, evaluate_options) if correction != "none" else {}
    extra = _helper_policies(helpers) if conv is None else []
    asked: list[str | Metric] = [m for _, m in specs]
    plain = _engine_evaluate(lists.recs, lists.truth,
                             asked + [f"mrr(ties={q})" for q in extra],
                             columns=lists.columns, **evaluate_options)
    plain, ranked = _split_off(plain, [_rr_label(q) for q in extra])
    if lists.dropped:  # read_lists applied the duplicates policy: the engine saw none
        plain = dataclasses.replace(plain, settings={
            **plain.settings, "recs_duplicates_dropped": lists.dropped})
    record: dict[str, Any] = {
        "m": _m_record(lists.m), "n": int(n_items),
        "strategy": strategy, "correction": correction,
        "gamma": gamma, "prior": "uniform" if weights is None else "custom",
        "lists": len(lists.m), "list_key": "list_id" if lists.key == "list_id" else "user",
        "not_corrected": [m.label for _, m in specs if isinstance(m, AUC)],
    }
    if correction in ("minimal_bias", "bias_variance"):
        record["rcond"] = float(rcond)
    if "seed" in lists.record:
        record["seed"] = lists.record["seed"]
    if correction == "none" or not corrected:
        record["standard_error"] = standard_errors(plain.per_user, plain.labels)
        return _with_record(plain, {}, record)
    if ranked is None:  # under a convention, which may lack MRR: a call without it
        ranked = _rank_frame(lists, _helper_policies(helpers), evaluate_options)
    ranks = _sampled_ranks(helpers, ranked.reindex(plain.per_user.index))
    values = _true_rank_values(corrected, int(n_items), evaluate_options)
    tables = _tables(corrected, values, int(n_items), lists.m, correction, gamma, weights,
                     float(rcond))
    record["uncorrected"] = {m.label: plain[m.label] for m in corrected}
    record["tables"] = {label: {int(mm): t.tolist() for mm, t in by_m.items()}
                        for label, by_m in tables.items()}
    m_of = lists.m.reindex(plain.per_user.index).to_numpy()
    new = {m.label: _apply(tables[m.label], m_of, *ranks[_policy(m, evaluate_options)])
           for m in corrected}
    out = _with_record(plain, new, record)
    errors = standard_errors(out.per_user, out.labels)
    record["standard_error"] = errors
    record["range"] = {m.label: (float(min(0.0, values[:, j].min())), float(values[:, j].max()))
                       for j, m in enumerate(corrected)}
    record["out_of_range"] = out_of_range(
        {m.label: out[m.label] for m in corrected}, record["range"], errors,
        record["uncorrected"], correction, len(lists.m))
    return out


def _m_record(m: pd.Series) -> int | list[int]:
    distinct = np.unique(m.to_numpy())
    return int(distinct[0]) if len(distinct) == 1 else [int(x) for x in distinct]


def _base_setting(name: str, options: dict[str, Any]) -> Any:
    if options.get(name) is not None:
        return options[name]
    conv = options.get("convention")
    base = conventions.get(conv).all_settings() if conv else dict(conventions.DEFAULTS)
    return base[name]


def _policy(metric: Metric, options: dict[str, Any]) -> str:
    return str(getattr(metric, "ties", None) or _base_setting("ties", options))


def _rank_helpers(corrected: Sequence[Metric], options: dict[str, Any]
                  ) -> dict[str, tuple[str, str]]:
    """Per tie policy of the corrected metrics, the policies giving its lowest/highest rank.

    Under ``ties='expected'`` the positive is equally likely at every place of its tied
    block, from the optimistic to the pessimistic rank.
    """
    policies = sorted({_policy(m, options) for m in corrected})
    return {p: (("optimistic", "pessimistic") if p == "expected" else (p, p)) for p in policies}


def _helper_policies(helpers: dict[str, tuple[str, str]]) -> list[str]:
    return sorted({q for pair in helpers.values() for q in pair})


def _rr_label(policy: str) -> str:
    """The label of the whole-list reciprocal rank under one tie policy."""
    return f"MRR(ties={policy!r})"


def _split_off(result: EvaluationResult, labels: Sequence[str]
               ) -> tuple[EvaluationResult, pd.DataFrame | None]:
    """The result without the helper metrics ``labels``, and their per-list values."""
    if not labels:
        return result, None
    drop = set(labels)
    settings = {**result.settings, "metrics": {k: v for k, v in result.settings["metrics"]
                                               .items() if k not in drop}}
    kept = dataclasses.replace(
        result, metrics=tuple(m for m in result.metrics if m.label not in drop),
        summaries={k: v for k, v in result.summaries.items() if k not in drop},
        per_user=result.per_user.drop(columns=list(labels)), settings=settings,
        _aliases={k: v for k, v in result._aliases.items() if v not in drop})
    return kept, result.per_user[list(labels)]


def _rank_frame(lists: Lists, policies: Sequence[str], options: dict[str, Any]
                ) -> pd.DataFrame:
    """Each list's whole-list reciprocal rank per policy, by its own engine call.

    Used under a convention (whose library may lack MRR): the call has no convention but
    the convention's score precision.
    """
    rank_options = {k: v for k, v in options.items() if k not in ("convention", "ties")}
    rank_options["score_precision"] = _base_setting("score_precision", options)
    result = _engine_evaluate(lists.recs, lists.truth, [f"mrr(ties={q})" for q in policies],
                              columns=lists.columns, **rank_options)
    return result.per_user


def _sampled_ranks(helpers: dict[str, tuple[str, str]], frame: pd.DataFrame
                   ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``(lowest, highest)`` sampled rank of each list's positive per tie policy.

    The engine computed each list's whole-list reciprocal rank under the policy:
    ``r' = 1 / RR``.
    """
    rank = {q: np.rint(1.0 / frame[_rr_label(q)].to_numpy()).astype(np.int64)
            for q in _helper_policies(helpers)}
    return {p: (rank[lo], rank[hi]) for p, (lo, hi) in helpers.items()}


def _true_rank_values(corrected: Sequence[Metric], n: int, options: dict[str, Any]
                      ) -> np.ndarray:
    """``M(r)`` for ``r = 1..R`` by the engine: one synthetic list per rank.

    List ``r`` holds ``R = min(n, max k + 1)`` items with the positive at rank ``r``; every
    metric is 0 beyond its cutoff, so ranks past ``R`` are 0 too.
    """
    big_k = max(int(m.k or 0) for m in corrected)
    size = min(n, big_k + 1)
    lists = np.repeat(np.arange(1, size + 1), size)
    items = np.tile(np.arange(size), size)
    recs = pd.DataFrame({"key": lists, "item": items, "score": size - items.astype(float)})
    truth = pd.DataFrame({"key": np.arange(1, size + 1), "item": np.arange(size)})
    options = {k: v for k, v in options.items() if k != "ties"}
    result = _engine_evaluate(recs, truth, list(corrected),
                              columns=Columns(user="key", item="item", score="score"),
                              **options)
    return np.asarray(result.per_user[[m.label for m in corrected]].to_numpy(), dtype=float)


def _tables(corrected: Sequence[Metric], values: np.ndarray, n: int, m: pd.Series,
            correction: str, gamma: float | None, prior: np.ndarray | None,
            rcond: float) -> dict[str, dict[int, np.ndarray]]:
    """``T[r' - 1]`` per metric and per distinct number of negatives."""
    out: dict[str, dict[int, np.ndarray]] = {x.label: {} for x in corrected}
    for mm in np.unique(m.to_numpy()):
        mm = int(mm)
        if correction == "rank_estimate":
            for j, metric in enumerate(corrected):
                out[metric.label][mm] = rank_estimate_table(
                    _continuous(metric, values[:, j]), n, mm)
        else:
            table = least_squares_table(values, n, mm, float(gamma or 0.0), prior, rcond)
            for j, metric in enumerate(corrected):
                out[metric.label][mm] = table[:, j]
    return out


def _continuous(metric: Metric, at_ranks: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The metric at a real rank: ``M(1) * shape(x)`` up to k, 0 beyond.

    The engine's values at the integer ranks must agree with it; they do for every metric
    :func:`_shape` knows, and a variant for which they do not is refused.
    """
    shape = _shape(metric)
    k = int(metric.k or 0)
    ranks = np.arange(1, min(k, len(at_ranks)) + 1, dtype=float)
    if shape is None or not np.allclose(at_ranks[0] * shape(ranks), at_ranks[: len(ranks)],
                                        rtol=1e-12, atol=1e-15):
        raise InvalidParameterError(
            f"{metric.label} has no value at an unrounded rank, which "
            f"correction='rank_estimate' needs; use minimal_bias or bias_variance",
            parameter="metrics", examples=[metric.label])
    first = float(at_ranks[0])

    def value_at(x: np.ndarray) -> np.ndarray:
        return np.where(x <= k, first * shape(x), 0.0)

    return value_at


def _apply(tables: dict[int, np.ndarray], m_of: np.ndarray, low: np.ndarray,
           high: np.ndarray) -> np.ndarray:
    """Each list's table entry at its sampled rank (the mean over ``low..high`` if tied)."""
    out = np.empty(len(m_of))
    for mm, table in tables.items():
        rows = np.flatnonzero(m_of == mm)
        cum = np.concatenate([[0.0], np.cumsum(table)])
        lo, hi = low[rows], high[rows]
        out[rows] = (cum[hi] - cum[lo - 1]) / (hi - lo + 1)
    return out


def _with_record(result: EvaluationResult, new: dict[str, np.ndarray],
                 record: dict[str, Any]) -> EvaluationResult:
    """The engine's result with corrected per-list values and ``settings['sampled']``."""
    per_user = result.per_user.copy()
    per_user.index.name = record["list_key"]  # "user", or "list_id": one row per list
    summaries = dict(result.summaries)
    for label, values in new.items():
        per_user[label] = values
        summaries[label] = dataclasses.replace(summaries[label], value=exact_mean(values))
    settings = {**result.settings, "sampled": record}
    return dataclasses.replace(result, summaries=summaries, per_user=per_user,
                               settings=settings)
