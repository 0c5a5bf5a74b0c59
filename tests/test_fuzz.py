"""Fuzz ``rv.evaluate`` with random, often malformed, input frames (hypothesis).

Whatever the input, ``evaluate`` either returns values within each metric's bounds (per user
too) with a user accounting that adds up, or raises a :class:`receval.RecevalError`. The only
warnings it may emit are :class:`receval.RecevalWarning` subclasses: any other warning (a
pandas or numpy ``RuntimeWarning``, say) is turned into an error and fails the test, and so
does any exception that is not a ``RecevalError``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.metrics import GlobalMetric, RankingMetric, RatingMetric

FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])

#: Slack for floating-point rounding at a bound (1 + 1e-16 is not a bug worth a failure).
EPS = 1e-9

NAMES = ["precision", "recall", "ndcg", "ndcg(gain=exponential)", "ap",
         "ap(denominator=relevant)", "ap(denominator=hits)", "mrr", "hit_rate", "f1", "dcg",
         "cg(gain=exponential)", "arhr", "rank_score", "ndcg(ideal=list, ties=expected)",
         "precision(ties=optimistic)", "recall(ties=pessimistic)", "rmse", "mae",
         "mae(aggregation=macro)", "spearman", "kendall", "rating_precision(threshold=3)",
         "rating_f1", "user_coverage", "item_coverage", "item_coverage(ties=item)", "ndgc",
         "precision(beta=2)"]
KS: list[Any] = [None, None, None, 1, 2, 3, 5, 20, 0, -1, -3, "2.5", "True", "x", ""]

UNI = ["a", "b", "c", "1", "2", "caf\u00e9", "cafe\u0301", " a", "a ", "\u7528\u6237", "\U0001f600"]
FLOATS = [0.0, 1.0, 2.0, 3.5, -1.0, -0.0, 1e300, -1e300, 5e-324, math.nan, math.inf, -math.inf]


# -- strategies -------------------------------------------------------------------------------
def _cell(kind: str) -> st.SearchStrategy[Any]:
    """One value of a column of the given kind (an object column may mix kinds)."""
    if kind == "int":
        return st.integers(-2, 6)
    if kind == "bigint":
        return st.sampled_from([0, 1, 2**62, 2**63 - 1, -(2**63), -1])
    if kind == "uint":
        return st.sampled_from([0, 1, 2**63, 2**64 - 2, 2**64 - 1])
    if kind in ("float", "float_nan"):
        return st.sampled_from(FLOATS if kind == "float_nan" else FLOATS[:6])
    if kind == "intfloat":
        return st.sampled_from([1.0, 2.0, 3.0, 4.0])
    if kind in ("str", "category", "arrow_str"):
        return st.sampled_from(UNI)
    if kind == "bool":
        return st.booleans()
    if kind == "none_str":
        return st.one_of(st.none(), st.sampled_from(UNI[:4]))
    if kind == "none_int":
        return st.one_of(st.none(), st.integers(0, 4))
    if kind == "mixed":
        return st.one_of(st.integers(0, 3), st.sampled_from(UNI[:4]), st.sampled_from(FLOATS),
                         st.none(), st.booleans(), st.just(b"a"))
    if kind == "bytes":
        return st.sampled_from([b"a", b"b", b"c"])
    if kind == "complex":
        return st.sampled_from([1 + 0j, 2 + 1j, -1j])
    raise AssertionError(kind)  # pragma: no cover


ID_KINDS = ["int"] * 6 + ["str"] * 6 + ["bigint", "uint", "intfloat", "category", "arrow_str",
                                         "none_str", "none_int", "mixed", "bool", "float_nan",
                                         "bytes", "nullable_int"]
TAME_ID_KINDS = ["int"] * 4 + ["str"] * 4 + ["bigint", "uint", "intfloat", "category",
                                             "arrow_str", "nullable_int", "mixed", "bool"]
NUM_KINDS = ["float"] * 8 + ["int"] * 3 + ["float_nan"] * 2 + ["bool", "str", "none_int",
                                                                "mixed", "nullable_int",
                                                                "complex"]


def _series(kind: str, values: list[Any]) -> pd.Series:
    if kind in ("int", "bigint"):
        return pd.Series(values, dtype="int64")
    if kind == "uint":
        return pd.Series(np.array(values, dtype=np.uint64))
    if kind in ("float", "float_nan", "intfloat"):
        return pd.Series(values, dtype="float64")
    if kind == "complex":
        return pd.Series(values, dtype="complex128")
    if kind == "category":
        return pd.Series(pd.Categorical(values, categories=sorted(set(UNI))))  # unused ones too
    if kind == "arrow_str":
        return pd.Series(values, dtype="string[pyarrow]")
    if kind == "bool":
        return pd.Series(values, dtype=bool)
    if kind == "nullable_int":
        return pd.Series(pd.array(values, dtype="Int64"))
    return pd.Series(values, dtype=object)


@st.composite
def column(draw: st.DrawFn, kinds: list[str], n: int) -> pd.Series:
    kind = draw(st.sampled_from(kinds))
    cell = _cell("none_int" if kind == "nullable_int" else kind)
    values = draw(st.lists(cell, min_size=n, max_size=n))
    return _series(kind, values)


@st.composite
def frame(draw: st.DrawFn, value_col: str, id_kinds: tuple[str, str] | None = None
          ) -> pd.DataFrame:
    """A table with user / item / value columns. Tame tables (well-typed columns, ids of
    ``id_kinds``) are drawn most often, so that most examples reach the metrics; the others
    have columns of random types, a column missing, renamed to an alias, doubled by an alias,
    or a rank column next to the score."""
    tame = draw(st.integers(0, 9)) < 7
    n = draw(st.one_of(st.just(0), st.integers(1, 14))) if not tame else draw(
        st.integers(1, 14))
    cols: dict[str, pd.Series] = {}
    if tame and id_kinds is not None:
        user, item, value = "user", "item", value_col
        ukinds, ikinds, vkinds = [id_kinds[0]], [id_kinds[1]], ["float", "int", "intfloat"]
    else:
        user = draw(st.sampled_from(["user"] * 8 + ["user_id", "userId", "who", None]))
        item = draw(st.sampled_from(["item"] * 8 + ["item_id", "movieId", None]))
        value = draw(st.sampled_from([value_col] * 6 + [None, "prediction", "relevance"]))
        ukinds, ikinds, vkinds = ID_KINDS, ID_KINDS, NUM_KINDS
    if user:
        cols[user] = draw(column(ukinds, n))
    if item:
        cols[item] = draw(column(ikinds, n))
    if value:
        cols[value] = draw(column(vkinds, n))
    if not tame and value_col == "score" and draw(st.integers(0, 4)) == 0:
        cols["rank"] = draw(column(["int", "float", "intfloat", "float_nan"], n))
    if not tame and draw(st.integers(0, 9)) == 0:
        cols["uid"] = draw(column(ID_KINDS, n))  # a second user alias: ambiguous
    df = pd.DataFrame(cols, index=range(n)) if cols else pd.DataFrame(index=range(n))
    if not tame and df.shape[1] >= 2 and draw(st.integers(0, 9)) == 0:
        names = list(df.columns)
        names[draw(st.integers(1, len(names) - 1))] = names[0]  # a repeated column name
        df.columns = names
    if n and draw(st.integers(0, 3)) == 0:  # duplicate rows
        extra = draw(st.lists(st.integers(0, n - 1), max_size=4))
        df = pd.concat([df, df.iloc[extra]], ignore_index=True)
    if len(df) and draw(st.booleans()):  # shuffled
        df = df.iloc[draw(st.permutations(list(range(len(df)))))].reset_index(drop=True)
    return df


@st.composite
def tables(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(recs, truth)``; tame tables of both sides share the id kinds."""
    kinds = draw(st.tuples(st.sampled_from(TAME_ID_KINDS), st.sampled_from(TAME_ID_KINDS)))
    return draw(frame("score", kinds)), draw(frame("rating", kinds))


GOOD = [n for n in NAMES if n not in ("ndgc", "precision(beta=2)")]
TAKES_K = [n for n in GOOD if rv.metrics.get(n.split("(")[0]).takes_k]
GOOD_KS = [1, 2, 3, 5, 20]


@st.composite
def metric_list(draw: st.DrawFn) -> list[str]:
    """Mostly valid metric strings; one in eight lists holds a bad name or cutoff."""
    out = []
    for _ in range(draw(st.integers(1, 5))):
        name = draw(st.sampled_from(GOOD))
        if name in TAKES_K and draw(st.booleans()):
            name += f"@{draw(st.sampled_from(GOOD_KS))}"
        out.append(name)
    if draw(st.integers(0, 7)) == 0:
        name = draw(st.sampled_from(NAMES))
        k = draw(st.sampled_from(KS))
        out.append(name if k is None else f"{name}@{k}")
    return out


POLICIES = {
    "ties": st.sampled_from(["stable", "item", "optimistic", "pessimistic", "expected"]),
    "no_relevant": st.sampled_from(["skip", "zero", "error"]),
    "missing_recs": st.sampled_from(["zero", "skip", "error"]),
    "recs_without_truth": st.sampled_from(["ignore", "ignore", "error"]),
    "missing_predictions": st.sampled_from(["error", "skip", "global_mean", 3.0, 0]),
    "duplicates": st.sampled_from(["error", "first", "best"]),
    "negative_grades": st.sampled_from(["error", "allow"]),
    "id_cast": st.sampled_from([None, None, None, "str", "int"]),
    "strict": st.booleans(),
    "relevance_threshold": st.sampled_from([None, None, 1, 2.5]),
    "catalog": st.sampled_from([None, ["a", "b", "c"], [0, 1, 2, 3, 4, 5, 6], list(UNI),
                                5, [[1]], "abc", [], [None, 1]]),
}


#: Policies whose default ("error") would stop most examples early: drawn every time, with
#: the default one time in four.
ALWAYS = {
    "duplicates": st.sampled_from(["error", "first", "best", "best"]),
    "negative_grades": st.sampled_from(["error", "allow", "allow", "allow"]),
    "missing_predictions": st.sampled_from(["error", "skip", "global_mean", 3.0]),
}


@st.composite
def options(draw: st.DrawFn) -> dict[str, Any]:
    chosen = draw(st.lists(st.sampled_from(sorted(POLICIES)), unique=True, max_size=5))
    opts = {name: draw(POLICIES[name]) for name in chosen}
    opts.update({name: draw(strategy) for name, strategy in ALWAYS.items()})
    return opts


# -- checks -----------------------------------------------------------------------------------
def run(recs: Any, truth: Any, metrics: list[str], opts: dict[str, Any]
        ) -> rv.EvaluationResult | None:
    """``rv.evaluate``; None when it raised a RecevalError. Any other exception or a
    non-receval warning propagates (and fails the test)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", rv.RecevalWarning)
        try:
            return rv.evaluate(recs, truth, metrics, **opts)
        except rv.RecevalError:
            return None


def check_result(ev: rv.EvaluationResult, metrics: list[str]) -> None:
    parsed = [rv.metrics.parse(m) for m in metrics]
    for metric in parsed:
        label = metric.label
        lo, hi = metric.bounds
        summary = ev.summaries[label]
        value = ev[label]
        if isinstance(metric, GlobalMetric):
            assert lo - EPS <= value <= hi + EPS, (label, value)
            continue
        col = ev.per_user[label].to_numpy(dtype=np.float64)
        finite = col[~np.isnan(col)]
        assert not np.isinf(finite).any() or math.isinf(hi), (label, col)
        assert (finite >= lo - EPS).all(), (label, col)
        assert (finite <= hi + EPS).all(), (label, col)
        if isinstance(metric, RankingMetric):
            # every evaluated user has a value (rows of rating-only users are NaN)
            ranked = ev.per_user[label].reindex(ev.users.evaluated).to_numpy(np.float64)
            assert not np.isnan(ranked).any(), (label, ranked)
            assert np.isnan(col).sum() == len(col) - len(ev.users.evaluated), (label, col)
            assert summary.n_users == len(ev.users.evaluated)
        if math.isnan(value):
            # only when no user has a defined value (every correlation undefined)
            assert isinstance(metric, RatingMetric), (label, value)
            assert len(finite) == 0, (label, value)
        else:
            assert lo - EPS <= value <= hi + EPS, (label, value)
        assert summary.n_undefined >= 0
    u = ev.users
    if any(isinstance(m, RankingMetric) for m in parsed):
        assert (len(u.evaluated) + len(u.skipped_no_relevant) + len(u.skipped_missing_recs)
                + len(u.recs_without_truth)) == u.n_users, u
    assert u.n_truth_users <= u.n_users
    assert u.n_recs_users <= u.n_users
    assert u.n_missing_predictions >= 0
    assert ev.settings["recs_duplicates_dropped"] >= 0
    assert ev.settings["truth_duplicates_dropped"] >= 0


def run_and_check(data: tuple[pd.DataFrame, pd.DataFrame], metrics: list[str],
                  opts: dict[str, Any]) -> None:
    """Evaluate; a result must pass every check (an error must be a RecevalError)."""
    recs, truth = data
    ev = run(recs, truth, metrics, opts)
    if ev is not None:
        check_result(ev, metrics)


# -- tests ------------------------------------------------------------------------------------
@FUZZ
@given(data=tables(), metrics=metric_list(), opts=options())
def test_random_frames_give_bounded_values_or_a_receval_error(
        data: tuple[pd.DataFrame, pd.DataFrame], metrics: list[str],
        opts: dict[str, Any]) -> None:
    run_and_check(data, metrics, opts)


USERS = st.sampled_from([1, 2, 3, 4, 5])
ITEMS = st.sampled_from(["a", "b", "c", "d", "e", "f"])


@st.composite
def plausible(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Well-typed tables with random content: repeats, ties, zero and negative grades,
    empty users (categorical user ids with unused categories), one-sided users."""
    scores = st.sampled_from([0.5, 1.0, 2.0, -1.0, 0.0, 3.0, 4.0, math.inf, -math.inf])
    grades = st.sampled_from([0, 1, 2, 3, 0.5, 1, 2, 1000, -1])
    r = draw(st.lists(st.tuples(USERS, ITEMS, scores), min_size=1, max_size=14))
    t = draw(st.lists(st.tuples(USERS, ITEMS, grades), min_size=1, max_size=10))
    recs = pd.DataFrame(r, columns=["user", "item", "score"]).astype({"score": "float64"})
    truth = pd.DataFrame(t, columns=["user", "item", "rating"]).astype({"rating": "float64"})
    if draw(st.integers(0, 2)):  # no repeated (user, item) pairs
        recs = recs.drop_duplicates(["user", "item"])
        truth = truth.drop_duplicates(["user", "item"])
    if draw(st.booleans()):
        cats = [1, 2, 3, 4, 5, 6, 7]
        recs["user"] = pd.Categorical(recs["user"], categories=cats)
        truth["user"] = pd.Categorical(truth["user"], categories=cats)
    return recs, truth


@FUZZ
@given(data=plausible(), metrics=metric_list(), opts=options())
def test_plausible_frames_give_bounded_values_or_a_receval_error(
        data: tuple[pd.DataFrame, pd.DataFrame], metrics: list[str],
        opts: dict[str, Any]) -> None:
    run_and_check(data, metrics, opts)


@FUZZ
@given(spec=st.text(max_size=30) | st.builds(lambda n, k: f"{n}@{k}", st.sampled_from(NAMES),
                                              st.text(max_size=6)))
def test_metric_strings_parse_or_raise_invalid_parameter(spec: str) -> None:
    try:
        metric = rv.metrics.parse(spec)
    except rv.exceptions.InvalidParameterError:
        return
    assert metric.k is None or (isinstance(metric.k, int) and metric.k >= 1)
    assert rv.metrics.parse(metric.label) == metric


DICT_VALUES = st.one_of(st.sampled_from(FLOATS), st.integers(-1, 4), st.none(),
                        st.sampled_from(["x", "1", b"1"]), st.booleans(), st.just([1]))
DICT_KEYS = st.one_of(st.integers(0, 3), st.sampled_from(["a", "b", "1"]))


@st.composite
def dict_input(draw: st.DrawFn, role: str) -> Any:
    """``{user: {item: value}}`` or (recs only) ``{user: [items]}``, with random values."""
    ranked = role == "recs" and draw(st.booleans())
    inner = (st.lists(DICT_KEYS, max_size=5) if ranked
             else st.dictionaries(DICT_KEYS, DICT_VALUES, max_size=5))
    out = draw(st.dictionaries(DICT_KEYS, inner, max_size=4))
    if draw(st.integers(0, 9)) == 0 and out:  # a user mapped to something else
        out[next(iter(out))] = draw(st.sampled_from([1, "a", None, {1, 2}]))
    return out


@FUZZ
@given(recs=dict_input("recs"), truth=dict_input("truth"), metrics=metric_list(),
       opts=options())
def test_dict_inputs_give_bounded_values_or_a_receval_error(
        recs: Any, truth: Any, metrics: list[str], opts: dict[str, Any]) -> None:
    ev = run(recs, truth, metrics, opts)
    if ev is not None:
        check_result(ev, metrics)


@pytest.mark.parametrize("metrics", [["rmse"], ["user_coverage"], ["item_coverage@2"],
                                     ["mae", "item_coverage"]])
def test_accounting_adds_up_without_ranking_metrics(metrics: list[str]) -> None:
    # docs/bad-input.md: the accounting adds up "for every result"
    recs = pd.DataFrame({"user": ["u", "u", "v", "x"], "item": ["a", "b", "a", "a"],
                         "score": [4.0, 2.0, 3.0, 1.0]})
    truth = pd.DataFrame({"user": ["u", "v", "w"], "item": ["a", "a", "a"],
                          "rating": [5.0, 1.0, 2.0]})
    ev = rv.evaluate(recs, truth, metrics, missing_predictions="skip")
    u = ev.users
    assert (len(u.evaluated) + len(u.skipped_no_relevant) + len(u.skipped_missing_recs)
            + len(u.recs_without_truth)) == u.n_users == 4
