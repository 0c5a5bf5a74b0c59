"""AUC: hand-computed per tie policy, undefined lists, scikit-learn per list, explain()."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from tests.strategies import examples

TOL = 1e-12


def test_auc_hand_computed():
    recs = pd.DataFrame({"user_id": [1, 1, 1, 1, 2, 2, 2],
                         "item_id": [1, 2, 3, 4, 1, 2, 3],
                         "score": [.9, .8, .8, .1, .5, .5, .5]})
    truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [2, 4, 3]})
    # user 1, order 1 2 3 4 with 2 and 4 relevant: pairs (2,1) (2,3) (4,1) (4,3);
    #   only 2 above 3 is right (stable order) -> 1/4; tied (2,3) counts 1/2 -> 0.5/4
    # user 2: all tied; 3 relevant vs 1, 2: stable puts 3 last -> 0/2; expected -> 1/2
    for ties, want in (("stable", [1 / 4, 0.0]), ("expected", [0.5 / 4, 0.5]),
                       ("optimistic", [1 / 4, 1.0]), ("pessimistic", [0.0, 0.0])):
        ev = rv.evaluate(recs, truth, ["auc"], ties=ties)
        assert ev.per_user["AUC"].tolist() == pytest.approx(want, abs=TOL), ties


def test_auc_is_undefined_without_a_negative():
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 2, 1, 2],
                         "score": [.9, .8, .9, .8]})
    truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 2]})
    ev = rv.evaluate(recs, truth, ["auc"])
    assert np.isnan(ev.per_user["AUC"].iloc[0])
    assert ev["auc"] == 0.0  # user 2: 1 below 2 -> 0 of 1 pair
    assert ev.summaries["AUC"].n_undefined == 1


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.booleans()), min_size=2, max_size=15))
def test_auc_matches_scikit_learn_per_list(rows):
    from sklearn.metrics import roc_auc_score

    labels = [r for _, r in rows]
    if all(labels) or not any(labels):
        return
    scores = [float(s) for s, _ in rows]
    recs = pd.DataFrame({"user_id": 1, "item_id": range(len(rows)), "score": scores})
    truth = pd.DataFrame({"user_id": 1,
                          "item_id": [i for i, lab in enumerate(labels) if lab]})
    ev = rv.evaluate(recs, truth, ["auc"], ties="expected")
    assert ev["auc"] == pytest.approx(roc_auc_score(labels, scores), abs=TOL)


def test_explain_auc_shows_the_misses_below_each_hit():
    e = rv.explain("auc", [1, 0, 1, 0])
    # hits at 1 and 3; misses below them: 2 and 1 -> 3 correct of 2 * 2 pairs
    assert e.value == 0.75
    assert e.table["misses below"].tolist() == [2, 0, 1, 0]
    assert "3 / 4" in str(e)
