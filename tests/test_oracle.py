"""receval's per-user ranking metrics against the pure-Python oracle, on random inputs."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import TiesAtCutoffWarning, UndefinedMetricWarning
from receval.metrics import parse
from tests import oracle as O
from tests import strategies as S

SETTINGS = settings(max_examples=S.examples(30), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


ALL = [(name, params, k) for name, params in O.VARIANTS for k in O.KS]
ALL_SPECS = [O.spec(name, params, k) for name, params, k in ALL]
ALL_FNS = [(O.metric(name, **params), k) for name, params, k in ALL]


def oracle_frame(recs: pd.DataFrame, truth: pd.DataFrame,
                 metrics: list[tuple[O.MetricFn, int | None]], policies: list[str],
                 labels: list[str], skip_no_relevant: bool) -> pd.DataFrame:
    """Per-user oracle values: one row per evaluated user, one column per label."""
    inputs = O.user_inputs(recs, truth)
    out: dict[Any, list[float]] = {}
    for user, (rows, rel) in inputs.items():
        if skip_no_relevant and not rel:
            continue
        vals: list[float] = [math.nan] * len(metrics)
        for policy in dict.fromkeys(policies):
            idx = [j for j, p in enumerate(policies) if p == policy]
            got = O.values([metrics[j] for j in idx], rows, rel, policy)
            for j, v in zip(idx, got, strict=True):
                vals[j] = v
        out[user] = vals
    frame = pd.DataFrame.from_dict(out, orient="index", columns=labels)
    return frame.sort_index()


def assert_frames_close(actual: pd.DataFrame, expected: pd.DataFrame,
                        recs: pd.DataFrame, truth: pd.DataFrame) -> None:
    assert sorted(actual.index) == sorted(expected.index)
    assert list(actual.columns) == list(expected.columns)
    bad = []
    for user in expected.index:
        for label in expected.columns:
            a, e = float(actual.at[user, label]), float(expected.at[user, label])
            if not math.isclose(a, e, rel_tol=1e-12, abs_tol=1e-12):
                bad.append(f"user {user!r} {label}: receval {a!r} != oracle {e!r}")
    assert not bad, ("\n".join(bad[:20]) + f"\n({len(bad)} mismatches)\nrecs=\n{recs}\n"
                     f"truth=\n{truth}")


def evaluate(recs: pd.DataFrame, truth: pd.DataFrame, metrics: list[str],
             **kwargs: Any) -> rv.EvaluationResult:
    """``rv.evaluate``, quiet about ties at a cutoff (expected with ties='stable'/'item')."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=TiesAtCutoffWarning)
        return rv.evaluate(recs, truth, metrics, **kwargs)


def check(recs: pd.DataFrame, truth: pd.DataFrame, specs: list[str],
          metrics: list[tuple[O.MetricFn, int | None]], policies: list[str], *,
          ties: str = "stable", no_relevant: str = "zero") -> rv.EvaluationResult:
    ev = evaluate(recs, truth, specs, ties=ties, no_relevant=no_relevant)
    labels = [parse(s).label for s in specs]
    assert ev.labels == labels
    expected = oracle_frame(recs, truth, metrics, policies, labels,
                            skip_no_relevant=no_relevant == "skip")
    assert_frames_close(ev.per_user, expected, recs, truth)
    for label in labels:  # the aggregate is the mean over the evaluated users (macro)
        want = math.fsum(expected[label]) / len(expected)
        assert math.isclose(ev[label], want, rel_tol=1e-12, abs_tol=1e-12), (label, ev[label])
    return ev


@pytest.mark.parametrize("policy", O.TIE_POLICIES)
@settings(SETTINGS, max_examples=S.examples(40))
@given(all_relevant=st.booleans(), choice=st.data())
def test_every_metric_matches_oracle(policy: str, all_relevant: bool,
                                     choice: st.DataObject) -> None:
    """Every variant at every k, per user, under one tie policy.

    Either every truth user has a relevant item and the default no_relevant='skip' applies
    (and must not warn), or relevance is random and no_relevant='zero' scores such users 0.
    """
    recs, truth = choice.draw(S.datasets(all_relevant=all_relevant), label="data")
    check(recs, truth, ALL_SPECS, ALL_FNS, [policy] * len(ALL_FNS), ties=policy,
          no_relevant="skip" if all_relevant else "zero")


@SETTINGS
@given(data=S.datasets(), policy=st.sampled_from(O.TIE_POLICIES))
def test_skipped_no_relevant_users_warn_and_leave_the_frame(data: Any, policy: str) -> None:
    recs, truth = data
    inputs = O.user_inputs(recs, truth)
    no_rel = sorted(u for u, (_, rel) in inputs.items() if not rel)
    specs = [O.spec(n, p, k) for n, p, k in ALL[::7]]
    fns = ALL_FNS[::7]
    if no_rel:
        with pytest.warns(UndefinedMetricWarning):
            ev = check(recs, truth, specs, fns, [policy] * len(fns), ties=policy,
                       no_relevant="skip")
    else:
        ev = check(recs, truth, specs, fns, [policy] * len(fns), ties=policy,
                   no_relevant="skip")
    assert sorted(ev.users.skipped_no_relevant) == no_rel
    assert not set(no_rel) & set(ev.per_user.index)


@SETTINGS
@given(data=S.datasets(), choice=st.data())
def test_metric_level_ties_override_evaluate(data: Any, choice: st.DataObject) -> None:
    """Each metric gets its own ties=...; evaluate's ties= applies to the others."""
    recs, truth = data
    default = choice.draw(st.sampled_from(O.TIE_POLICIES), label="evaluate ties")
    own = choice.draw(st.lists(st.sampled_from((None, *O.TIE_POLICIES)),
                               min_size=len(O.VARIANTS), max_size=len(O.VARIANTS)),
                       label="own")
    k = choice.draw(st.sampled_from(O.KS), label="k")
    specs = [O.spec(n, p, k, t) for (n, p), t in zip(O.VARIANTS, own, strict=True)]
    fns = [(O.metric(n, **p), k) for n, p in O.VARIANTS]
    policies = [t or default for t in own]
    check(recs, truth, specs, fns, policies, ties=default, no_relevant="zero")


@settings(SETTINGS, max_examples=S.examples(20))
@given(data=S.datasets(rating=True, truth_only_users=True))
def test_truth_users_without_recs_score_zero(data: Any) -> None:
    recs, truth = data
    ev = evaluate(recs, truth, ALL_SPECS, no_relevant="zero", missing_recs="zero")
    missing = sorted(set(truth["user"]) - set(recs["user"]))
    assert sorted(ev.users.missing_recs) == missing
    for user in missing:
        assert (ev.per_user.loc[user] == 0.0).all()
    ev = evaluate(recs, truth, ALL_SPECS[:5], no_relevant="zero", missing_recs="skip")
    assert not set(missing) & set(ev.per_user.index)
    assert sorted(ev.users.skipped_missing_recs) == missing


@SETTINGS
@given(data=S.datasets(), gain=st.sampled_from(O.GAINS), k=st.sampled_from(O.KS),
       ideal=st.sampled_from(("truth", "list", "truth_uncut")))
def test_ndcg_zero_ideal_skip_leaves_out_exactly_the_users_with_ideal_zero(
        data: Any, gain: str, k: int | None, ideal: str) -> None:
    """With relevance at a positive grade, every relevant item has a positive gain, so the
    ideal DCG is 0 exactly for users without a relevant item (ideal='list': without a
    relevant item in the list). zero_ideal='skip' makes those users NaN, counts them in
    n_excluded, keeps every other value and averages over the rest."""
    recs, truth = data
    base = O.spec("ndcg", {"gain": gain, "ideal": ideal}, k)
    skip = O.spec("ndcg", {"gain": gain, "ideal": ideal, "zero_ideal": "skip"}, k)
    ev = evaluate(recs, truth, [base, skip], no_relevant="zero")
    a, b = ev.labels
    inputs = O.user_inputs(recs, truth)
    positive = {u: (any(g > 0 for _, g, _ in rows) if ideal == "list" else bool(rel))
                for u, (rows, rel) in inputs.items()}
    zero = sorted(u for u in ev.per_user.index if not positive[u])
    assert sorted(ev.per_user.index[ev.per_user[b].isna()]) == zero
    kept = ev.per_user[b].notna()
    assert (ev.per_user.loc[kept, a] == ev.per_user.loc[kept, b]).all()
    assert ev.summaries[b].n_excluded == len(zero)
    assert ev.summaries[b].n_users == len(ev.per_user) - len(zero)
    if kept.any():
        want = math.fsum(ev.per_user.loc[kept, a]) / int(kept.sum())
        assert math.isclose(ev[b], want, rel_tol=1e-12, abs_tol=1e-12)
    else:
        assert math.isnan(ev[b])


# -- the oracle itself, on hand-computed examples --------------------------------------------


def test_oracle_hand_examples() -> None:
    g = [3.0, 0.0, 1.0, 0.0]  # ranks 1 and 3 relevant
    rel = [3.0, 1.0, 2.0]  # one relevant item not recommended
    assert O.precision(g, rel, 2) == 0.5
    assert O.precision(g, rel, None) == 0.5
    assert O.precision(g, rel, 10) == 0.2
    assert O.precision([], rel, None) == 0.0
    assert O.recall(g, rel, 3) == pytest.approx(2 / 3)
    assert O.fbeta(g, rel, 3, 1.0) == pytest.approx(2 * 2 / (3 + 3))
    assert O.fbeta(g, rel, 3, 2.0) == pytest.approx(5 * 2 / (4 * 3 + 3))
    assert O.rr(g, rel, 1) == 1.0
    assert O.rr([0.0, 0.0, 1.0], rel, 2) == 0.0
    assert O.rr([0.0, 0.0, 1.0], rel, None) == pytest.approx(1 / 3)
    assert O.arhr(g, rel, None) == pytest.approx(1 + 1 / 3)
    assert O.ap(g, rel, None, "relevant") == pytest.approx((1 + 2 / 3) / 3)
    assert O.ap(g, rel, None, "hits") == pytest.approx((1 + 2 / 3) / 2)
    assert O.ap(g, rel, 2, "min_k_relevant") == pytest.approx(1 / 2)
    assert O.ap(g, rel, None, "min_k_relevant") == pytest.approx((1 + 2 / 3) / 3)
    assert O.cg(g, rel, None, "exponential") == 7 + 1
    assert O.dcg(g, rel, None, "linear", "log2") == pytest.approx(3 + 1 / 2)
    assert O.dcg(g, rel, None, "linear", "breese") == pytest.approx(3 + 1 / math.log2(3))
    idcg = 3 + 2 / math.log2(3) + 1 / 2
    assert O.ndcg(g, rel, None) == pytest.approx((3 + 1 / 2) / idcg)
    assert O.ndcg(g, rel, 1) == 1.0
    assert O.ndcg(g, rel, None, ideal="list") == pytest.approx((3 + 1 / 2) / (3 + 1 / math.log2(3)))
    assert O.rank_score(g, rel, 2, 1.0) == pytest.approx(1 / (1 + 1 / 2))
    assert O.rank_score(g, rel, None, 1.0) == pytest.approx((1 + 1 / 4) / (1 + 1 / 2 + 1 / 4))
    rows = [(1.0, 0.0, "b"), (1.0, 2.0, "a"), (0.5, 1.0, "c")]
    assert O.grades_of(O.order_stable(rows)) == [0.0, 2.0, 1.0]
    assert O.grades_of(O.order_item(rows)) == [2.0, 0.0, 1.0]
    assert O.grades_of(O.order_optimistic(rows)) == [2.0, 0.0, 1.0]
    assert O.grades_of(O.order_pessimistic(rows)) == [0.0, 2.0, 1.0]
    assert O.n_orders(rows) == 2
    assert O.value(O.rr, None, rows, [2.0, 1.0], "expected") == pytest.approx((1 + 1 / 2) / 2)
