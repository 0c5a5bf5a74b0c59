"""Conformance with ranx on random data, per user and on the mean.

Definitions matched (ranx 0.3):

* ``ndcg@k`` (Järvelin: gain = grade) == receval ``ndcg@k`` (linear gain, 1/log2(i+1),
  ideal = all relevant judged items by decreasing grade, cut at k);
  ``ndcg_burges@k`` (gain 2^grade - 1) == ``ndcg(gain=exponential)@k``;
  ``dcg@k`` / ``dcg_burges@k`` == ``dcg@k`` / ``dcg(gain=exponential)@k``;
* ``map@k`` (sum of P@i at hits within k over the number of relevant items) ==
  ``ap(denominator=relevant)@k``;
* ``precision@k`` (hits / k, k nominal even for a shorter run), ``recall@k``, ``mrr@k``,
  ``hit_rate@k``, ``f1@k`` (2PR/(P+R) = 2 hits / (|R| + k)), ``hits@k`` ==
  ``cg(gain=binary)@k``;
* without ``@k`` ranx uses the whole run (k = its length), as receval does without a cutoff.

Conventions reproduced: ``make_comparable=True`` gives queries of the qrels without a run an
empty run (score 0) — receval's default ``missing_recs='zero'`` — and drops run queries
without qrels — receval ignores them by default; a query without a relevant document
scores 0 — receval ``no_relevant='zero'``; ranx's relevance level ``-lN`` (grade >= N) is
receval's ``relevance_threshold=N``, and relevant items keep their raw grade as gain in both.
ranx sorts by score with an unstable sort, so scores are distinct.
"""

from __future__ import annotations

import pytest
import ranx
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from tests.conformance._data import Case, assert_close, cases, close

pytestmark = [
    pytest.mark.conformance,
    # ranx's numba functions warn about a uint64 -> int64 cast (doc-id hashes) when they are
    # compiled, i.e. on first use without a numba cache
    pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning"),
]

# (receval metric, ranx metric); "{k}" is "@k" or "" (no cutoff)
PAIRS = [
    ("ndcg{k}", "ndcg{k}"),
    ("ndcg(gain=exponential){k}", "ndcg_burges{k}"),
    ("dcg{k}", "dcg{k}"),
    ("dcg(gain=exponential){k}", "dcg_burges{k}"),
    ("ap(denominator=relevant){k}", "map{k}"),
    ("precision{k}", "precision{k}"),
    ("recall{k}", "recall{k}"),
    ("mrr{k}", "mrr{k}"),
    ("hit_rate{k}", "hit_rate{k}"),
    ("f1{k}", "f1{k}"),
    ("cg(gain=binary){k}", "hits{k}"),
]


def _metric_pairs(ks: list[int | None], level: int) -> list[tuple[str, str]]:
    suffix = f"-l{level}" if level > 1 else ""
    out = []
    for k in ks:
        at = "" if k is None else f"@{k}"
        out += [(ours.format(k=at), theirs.format(k=at) + suffix) for ours, theirs in PAIRS]
    return out


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=False),
       ks=st.lists(st.one_of(st.none(), st.integers(1, 35)), min_size=1, max_size=4,
                   unique=True),
       level=st.sampled_from([1, 1, 2, 3]))
def test_per_user_values_match_ranx(case: Case, ks: list[int | None], level: int) -> None:
    """Every metric pair, per user and mean, with distinct scores and relevance level N.

    All truth users are compared: those without recommendations (empty run in ranx, 0 in
    receval with ``missing_recs='zero'``) and those without a relevant item (0 in ranx,
    ``no_relevant='zero'``); recommendations of users without truth are dropped by both.
    """
    pairs = _metric_pairs(ks, level)
    ev = rv.evaluate(case.recs, case.truth, [m for m, _ in pairs], no_relevant="zero",
                     missing_recs="zero", relevance_threshold=level)
    qrels = ranx.Qrels(case.qrels())
    run = ranx.Run(case.run())
    means = ranx.evaluate(qrels, run, [m for _, m in pairs], make_comparable=True)
    if len(pairs) == 1:  # ranx returns a bare float for a single metric
        means = {pairs[0][1]: means}
    assert set(ev.per_user.index) == case.truth_users == set(run.scores[pairs[0][1]])
    for (ours, theirs), label in zip(pairs, ev.labels, strict=True):
        column = ev.per_user[label]
        for user, value in run.scores[theirs].items():
            assert_close(column[user], value, f"{ours} vs ranx {theirs}, user {user}")
        assert close(ev[label], means[theirs]), f"{ours}: mean {ev[label]} != {means[theirs]}"
