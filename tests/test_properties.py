"""Invariants of receval's ranking metrics on random inputs (hypothesis)."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import TiesAtCutoffWarning, UndefinedMetricWarning
from receval.metrics import parse
from tests import oracle as O
from tests import strategies as S

SETTINGS = settings(max_examples=S.examples(20), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: Tie policies whose order does not depend on the order of the input rows.
ORDER_FREE = ("item", "expected", "optimistic", "pessimistic")
UNIT_BOUNDED = {"precision", "recall", "f1", "fbeta", "hit_rate", "mrr", "ap", "ndcg",
                "rank_score"}
ALL = [(name, params, k) for name, params in O.VARIANTS for k in O.KS]
ALL_SPECS = [O.spec(name, params, k) for name, params, k in ALL]
LABELS = [parse(s).label for s in ALL_SPECS]
NDCG_VARIANTS = [(n, p) for n, p in O.VARIANTS if n == "ndcg"]


def some_specs(n: int = 40) -> st.SearchStrategy[list[str]]:
    """``n`` of the (variant, k) metric strings, a different sample in each example."""
    return st.lists(st.sampled_from(ALL_SPECS), min_size=n, max_size=n, unique=True)


def evaluate(recs: pd.DataFrame, truth: pd.DataFrame, metrics: list[str],
             **kwargs: Any) -> rv.EvaluationResult:
    """``rv.evaluate``, quiet about ties at a cutoff (expected with ties='stable'/'item')."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=TiesAtCutoffWarning)
        return rv.evaluate(recs, truth, metrics, **kwargs)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def assert_same_values(a: rv.EvaluationResult, b: rv.EvaluationResult,
                       index_map: Callable[[Any], Any] = lambda u: u) -> None:
    """Same per-user values (users of ``a`` renamed by ``index_map``) and same aggregates."""
    pa = a.per_user.rename(index=index_map).sort_index()
    pb = b.per_user.sort_index()
    assert list(pa.index) == list(pb.index)
    assert list(pa.columns) == list(pb.columns)
    np.testing.assert_allclose(pa.to_numpy(), pb.to_numpy(), rtol=1e-12, atol=1e-12)
    for label in a.labels:
        assert close(a[label], b[label]), (label, a[label], b[label])


def lengths_and_relevant(recs: pd.DataFrame,
                         truth: pd.DataFrame) -> dict[Any, tuple[int, int]]:
    """Per truth user: (list length, |R|)."""
    return {u: (len(rows), len(rel)) for u, (rows, rel) in O.user_inputs(recs, truth).items()}


# -- bounds -----------------------------------------------------------------------------------


@SETTINGS
@given(data=S.datasets(), policy=st.sampled_from(O.TIE_POLICIES))
def test_bounds(data: Any, policy: str) -> None:
    recs, truth = data
    ev = evaluate(recs, truth, ALL_SPECS, ties=policy, no_relevant="zero")
    for (name, _, _), label in zip(ALL, LABELS, strict=True):
        col = ev.per_user[label].to_numpy()
        assert np.isfinite(col).all(), label
        assert (col >= 0).all(), label
        if name in UNIT_BOUNDED:
            assert (col <= 1).all(), (label, col.max())
            assert 0 <= ev[label] <= 1, label


# -- a perfect ranking ------------------------------------------------------------------------


@SETTINGS
@given(data=S.perfect_datasets(), policy=st.sampled_from(O.TIE_POLICIES))
def test_perfect_ranking_scores_one(data: Any, policy: str) -> None:
    recs, truth = data
    info = lengths_and_relevant(recs, truth)
    n_rel = {u: r for u, (_, r) in info.items()}
    ones = ["ap(denominator=relevant)", "ap(denominator=hits)", "ap", "mrr", "hit_rate",
            "rank_score", "rank_score(alpha=1)", "recall"]
    ones += [O.spec(n, p, None) for n, p in NDCG_VARIANTS]
    for k in O.KS[:-1]:
        # the uncut ideal (all relevant items) is reachable only when k >= |R|: checked below
        ones += [O.spec(n, p, k) for n, p in NDCG_VARIANTS
                 if p.get("ideal", "truth") != "truth_uncut"]
        ones += [f"ap@{k}", f"ap(denominator=hits)@{k}", f"mrr@{k}", f"hit_rate@{k}",
                 f"rank_score@{k}"]
    per_user = {f"recall@{r}" for r in n_rel.values()}
    per_user |= {f"precision@{min(r, k)}" for r in n_rel.values() for k in O.KS[:-1]}
    specs = list(dict.fromkeys(ones + sorted(per_user)))
    ev = evaluate(recs, truth, specs, ties=policy)
    assert sorted(ev.per_user.index) == sorted(n_rel)
    for s in ones:
        col = ev.per_user[parse(s).label]
        assert np.allclose(col, 1.0, rtol=0, atol=1e-12), (s, col)
    uncut = [(O.spec(n, p, k), k) for n, p in NDCG_VARIANTS if p.get("ideal") == "truth_uncut"
             for k in O.KS[:-1]]
    ev_uncut = evaluate(recs, truth, [s for s, _ in uncut], ties=policy)
    for s, k in uncut:
        for u, r in n_rel.items():
            if k is not None and k >= r:
                assert close(ev_uncut.per_user.at[u, parse(s).label], 1.0), (s, u)
    for u, r in n_rel.items():
        assert close(ev.per_user.at[u, parse(f"recall@{r}").label], 1.0)
        for k in O.KS[:-1]:
            assert close(ev.per_user.at[u, parse(f"precision@{min(r, k)}").label], 1.0)


# -- invariances ------------------------------------------------------------------------------


@SETTINGS
@given(data=S.datasets(), policy=st.sampled_from(ORDER_FREE), specs=some_specs(),
       by_user=st.booleans(), choice=st.data())
def test_invariant_to_row_and_user_order(data: Any, policy: str, specs: list[str],
                                         by_user: bool, choice: st.DataObject) -> None:
    recs, truth = data
    base = evaluate(recs, truth, specs, ties=policy, no_relevant="zero")
    if by_user:  # users in decreasing order, each user's rows kept together
        r2 = recs.sort_values("user", ascending=False, kind="stable")
        t2 = truth.sort_values("user", ascending=False, kind="stable")
    else:
        r2 = recs.iloc[choice.draw(st.permutations(range(len(recs))), label="recs order")]
        t2 = truth.iloc[choice.draw(st.permutations(range(len(truth))), label="truth order")]
    assert_same_values(base, evaluate(r2, t2, specs, ties=policy, no_relevant="zero"))


TRANSFORMS: dict[str, Callable[[pd.Series], pd.Series]] = {
    "affine": lambda s: 3 * s - 7,
    "exp": np.exp,
    "cube": lambda s: s**3 + 0.5,
    "shift": lambda s: s + 1000.0,
}


@SETTINGS
@given(data=S.datasets(), policy=st.sampled_from(O.TIE_POLICIES),
       transform=st.sampled_from(sorted(TRANSFORMS)), specs=some_specs())
def test_invariant_to_increasing_score_transform(data: Any, policy: str, transform: str,
                                                 specs: list[str]) -> None:
    recs, truth = data
    base = evaluate(recs, truth, specs, ties=policy, no_relevant="zero")
    moved = recs.assign(score=TRANSFORMS[transform](recs["score"]))
    assert_same_values(base, evaluate(moved, truth, specs, ties=policy, no_relevant="zero"))


@SETTINGS
@given(data=S.datasets(), specs=some_specs(), choice=st.data())
def test_invariant_to_renaming_users_and_items(data: Any, specs: list[str],
                                               choice: st.DataObject) -> None:
    recs, truth = data
    users = sorted(set(recs["user"]) | set(truth["user"]))
    items = sorted(set(recs["item"]) | set(truth["item"]))
    new_users = choice.draw(st.permutations([f"user-{i}" for i in range(len(users))]),
                            label="new users")
    as_str = choice.draw(st.booleans(), label="items as strings")
    pool = [f"x{i}" for i in range(40)] if as_str else list(range(-20, 20))
    new_items = choice.draw(st.lists(st.sampled_from(pool), unique=True, min_size=len(items),
                                     max_size=len(items)), label="new items")
    umap = dict(zip(users, new_users, strict=True))
    imap = dict(zip(items, new_items, strict=True))

    def rename(df: pd.DataFrame) -> pd.DataFrame:
        out = df.copy()
        out["user"] = [umap[u] for u in df["user"]]
        out["item"] = pd.Series([imap[i] for i in df["item"]], index=df.index,
                                dtype=object if as_str else "int64")
        return out

    base = evaluate(recs, truth, specs, ties="expected", no_relevant="zero")
    renamed = evaluate(rename(recs), rename(truth), specs, ties="expected", no_relevant="zero")
    assert_same_values(base, renamed, index_map=umap.__getitem__)


# -- counting identities ----------------------------------------------------------------------


@SETTINGS
@given(data=S.datasets(), policy=st.sampled_from(O.TIE_POLICIES))
def test_counting_identities(data: Any, policy: str) -> None:
    """precision@k·k == hits@k == recall@k·|R|; hit_rate@k == [hits@k > 0]; F1 = 2PR/(P+R)."""
    recs, truth = data
    info = lengths_and_relevant(recs, truth)
    specs = [f"{m}@{k}" if k else m for k in O.KS
             for m in ("precision", "recall", "cg(gain=binary)", "hit_rate", "f1")]
    ev = evaluate(recs, truth, specs, ties=policy, no_relevant="zero")
    pu = ev.per_user
    for u, (n, r) in info.items():
        for k in O.KS:
            at = f"@{k}" if k else ""
            p = pu.at[u, parse("precision" + at).label]
            rec = pu.at[u, parse("recall" + at).label]
            h = pu.at[u, parse("cg(gain=binary)" + at).label]
            hr = pu.at[u, parse("hit_rate" + at).label]
            f1 = pu.at[u, parse("f1" + at).label]
            nominal = k if k is not None else n
            assert close(p * nominal, h), (u, k, p, h)
            if r:
                assert close(rec * r, h), (u, k, rec, h)
            else:
                assert rec == 0.0
            assert h <= min(nominal, r) + 1e-12
            if policy == "expected":  # the probability of a hit
                assert (hr > 0) == (h > 0)
                assert h / max(nominal, 1) - 1e-12 <= hr <= min(h, 1.0) + 1e-12
            else:
                assert hr == (1.0 if h > 0 else 0.0)
                assert h == round(h)
            f1_pr = 2 * p * rec / (p + rec) if p + rec > 0 else 0.0
            assert close(f1, f1_pr), (u, k, f1, f1_pr)


@SETTINGS
@given(data=S.datasets(), policy=st.sampled_from(O.TIE_POLICIES),
       k=st.sampled_from(O.KS))
def test_micro_aggregation(data: Any, policy: str, k: int | None) -> None:
    recs, truth = data
    info = lengths_and_relevant(recs, truth)
    at = f"@{k}" if k else ""
    specs = ["cg(gain=binary)" + at, "precision(aggregation=micro)" + at,
             "recall(aggregation=micro)" + at, "precision" + at]
    ev = evaluate(recs, truth, specs, ties=policy, no_relevant="zero")
    hits = ev.per_user[parse(specs[0]).label]
    users = list(ev.per_user.index)
    total_k = sum(k if k is not None else info[u][0] for u in users)
    total_rel = sum(info[u][1] for u in users)
    assert close(ev[specs[1]], hits.sum() / total_k if total_k else math.nan) or (
        total_k == 0 and math.isnan(ev[specs[1]]))
    if total_rel:
        assert close(ev[specs[2]], hits.sum() / total_rel)
    # micro and macro agree per user: only the aggregate differs
    np.testing.assert_array_equal(ev.per_user[parse(specs[1]).label],
                                  ev.per_user[parse(specs[3]).label])
    assert close(ev[specs[3]], float(ev.per_user[parse(specs[3]).label].mean()))


@SETTINGS
@given(data=S.datasets(), policy=st.sampled_from(O.TIE_POLICIES))
def test_recall_monotone_in_k(data: Any, policy: str) -> None:
    recs, truth = data
    ks = list(range(1, S.MAX_LEN + 2))
    specs = [f"recall@{k}" for k in ks] + ["recall"]
    ev = evaluate(recs, truth, specs, ties=policy, no_relevant="zero")
    values = ev.per_user[[parse(s).label for s in specs]].to_numpy()
    assert (np.diff(values, axis=1) >= -1e-12).all()
    np.testing.assert_allclose(values[:, -1], values[:, -2], rtol=0, atol=1e-12)


@SETTINGS
@given(data=S.datasets(), policy=st.sampled_from(O.TIE_POLICIES), extra=st.integers(0, 5))
def test_ndcg_without_cutoff_equals_large_cutoff(data: Any, policy: str, extra: int) -> None:
    recs, truth = data
    info = lengths_and_relevant(recs, truth)
    big = max(1, *(n for n, _ in info.values()), *(r for _, r in info.values())) + extra
    specs = [O.spec(n, p, k) for n, p in NDCG_VARIANTS for k in (None, big)]
    ev = evaluate(recs, truth, specs, ties=policy, no_relevant="zero")
    for whole, cut in zip(specs[::2], specs[1::2], strict=True):
        np.testing.assert_allclose(ev.per_user[parse(whole).label],
                                   ev.per_user[parse(cut).label], rtol=1e-12, atol=1e-12)


# -- tie policies -----------------------------------------------------------------------------


@SETTINGS
@given(data=S.datasets(ties=True), which=st.lists(st.sampled_from(ALL), min_size=50,
                                                  max_size=50, unique_by=repr))
def test_expected_between_pessimistic_and_optimistic(data: Any, which: list[Any]) -> None:
    """pessimistic <= expected <= optimistic, for every metric but AP with denominator hits
    (see test_expected_ap_hits_may_leave_the_interval)."""
    recs, truth = data
    variants = [(n, p, k) for n, p, k in which
                if not (n == "ap" and p.get("denominator") == "hits")]
    specs = {t: [O.spec(n, p, k, t) for n, p, k in variants]
             for t in ("pessimistic", "expected", "optimistic")}
    ev = evaluate(recs, truth, [s for group in specs.values() for s in group],
                  no_relevant="zero")
    for lo, mid, hi in zip(*specs.values(), strict=True):
        a = ev.per_user[parse(lo).label].to_numpy()
        b = ev.per_user[parse(mid).label].to_numpy()
        c = ev.per_user[parse(hi).label].to_numpy()
        assert (a <= b + 1e-12).all(), (mid, a, b)
        assert (b <= c + 1e-12).all(), (mid, b, c)


def test_expected_ap_hits_may_leave_the_interval() -> None:
    """AP with denominator hits is not monotone in the order: here the optimistic and the
    pessimistic order both give 1, while other orders of the tied block give less."""
    recs = pd.DataFrame({"user": [1] * 6, "item": list(range(6)),
                         "score": [2.0, 1.0, 1.0, 1.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": [1] * 4, "item": [0, 1, 2, 3], "rating": [1, 1, 1, 1]})
    label = "ap(denominator=hits)@3"
    got = {t: evaluate(recs, truth, [label], ties=t)[label]
           for t in ("optimistic", "pessimistic", "expected")}
    rows = list(zip(recs["score"], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0], recs["item"], strict=True))
    want = O.value(O.metric("ap", denominator="hits"), 3, rows, [1.0] * 4, "expected")
    assert got["optimistic"] == 1.0
    assert got["pessimistic"] == 1.0
    assert close(got["expected"], want)
    assert want < 1.0


@SETTINGS
@given(data=S.datasets(ties=False), which=st.lists(st.sampled_from(ALL), min_size=30,
                                                   max_size=30, unique_by=repr))
def test_distinct_scores_make_tie_policies_agree(data: Any, which: list[Any]) -> None:
    recs, truth = data
    specs = [O.spec(n, p, k, t) for t in O.TIE_POLICIES for n, p, k in which]
    ev = evaluate(recs, truth, specs, no_relevant="zero")
    values = ev.per_user[[parse(s).label for s in specs]].to_numpy()
    values = values.reshape(len(values), len(O.TIE_POLICIES), len(which))
    for j in range(1, len(O.TIE_POLICIES)):
        np.testing.assert_allclose(values[:, j], values[:, 0], rtol=1e-12, atol=1e-12)


# -- user accounting --------------------------------------------------------------------------


@SETTINGS
@given(data=S.datasets(), no_relevant=st.sampled_from(["skip", "zero"]),
       missing_recs=st.sampled_from(["zero", "skip"]))
def test_user_accounting_adds_up(data: Any, no_relevant: str, missing_recs: str) -> None:
    recs, truth = data
    all_users = set(recs["user"]) | set(truth["user"])
    inputs = O.user_inputs(recs, truth)
    no_rel = {u for u, (_, rel) in inputs.items() if not rel}
    missing = set(truth["user"]) - set(recs["user"])
    extra = set(recs["user"]) - set(truth["user"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = rv.evaluate(recs, truth, ["ndcg@5", "precision"], no_relevant=no_relevant,
                         missing_recs=missing_recs)
    undefined = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert bool(undefined) == (no_relevant == "skip" and bool(no_rel))
    acc = ev.users
    parts = [set(acc.evaluated), set(acc.skipped_no_relevant), set(acc.skipped_missing_recs),
             set(acc.recs_without_truth)]
    assert sum(len(p) for p in parts) == acc.n_users == len(all_users)
    assert set().union(*parts) == all_users
    assert set(acc.no_relevant) == no_rel
    assert set(acc.missing_recs) == missing
    assert set(acc.recs_without_truth) == extra
    assert acc.n_truth_users == truth["user"].nunique()
    assert acc.n_recs_users == recs["user"].nunique()
    skipped_rel = no_rel if no_relevant == "skip" else set()
    assert set(acc.skipped_no_relevant) == skipped_rel
    skipped_missing = (missing - skipped_rel) if missing_recs == "skip" else set()
    assert set(acc.skipped_missing_recs) == skipped_missing
    assert set(acc.evaluated) == set(truth["user"]) - skipped_rel - skipped_missing
    assert set(ev.per_user.index) == set(acc.evaluated)


@pytest.mark.parametrize("policy", O.TIE_POLICIES)
def test_oracle_policies_agree_without_ties(policy: str) -> None:
    rows = [(3.0, 0.0, "c"), (1.0, 2.0, "a"), (2.0, 1.0, "b")]
    assert O.grades_of(O.ORDERS.get(policy, O.order_stable)(rows)) == [0.0, 1.0, 2.0]
    assert close(O.value(O.metric("ndcg"), 2, rows, [2.0, 1.0], policy),
                 (1 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_rating_values_do_not_depend_on_truth_row_order() -> None:
    # user u's squared errors are 1e16 (item a), 1 (b) and 1 (c). Floating-point sums depend
    # on their order: (1e16 + 1) + 1 = 1e16 (each 1 is lost: the spacing of doubles at 1e16
    # is 2), but (1 + 1) + 1e16 = 1e16 + 2. receval sums each user's pairs in item order
    # (a, b, c) whatever the order of the truth rows: MSE = 1e16 / 3 in every order.
    truth = pd.DataFrame({"user": ["u", "u", "u", "v"], "item": ["a", "b", "c", "a"],
                          "rating": [1e8 + 1.0, 3.0, 3.0, 2.0]})
    recs = pd.DataFrame({"user": ["u", "u", "u", "v"], "item": ["a", "b", "c", "a"],
                         "score": [1.0, 2.0, 2.0, 2.0]})
    in_item_order = ((0.0 + 1e16) + 1.0) + 1.0
    assert in_item_order != ((0.0 + 1.0) + 1.0) + 1e16  # the order matters here
    for rows in itertools.permutations(range(4)):
        ev = rv.evaluate(recs, truth.iloc[list(rows)], ["mse"])
        assert ev.per_user.at["u", "MSE"] == in_item_order / 3, rows
        assert ev.per_user.at["v", "MSE"] == 0.0
