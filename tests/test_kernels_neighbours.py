"""The k-NN and Slope One kernels on hand-computed cases (no Surprise needed)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval._kernels import neighbours as nb

# x = 0 is the user whose estimate for item y = 0 is asked; the raters of item 0, in the
# list order of Surprise's trainset.ir[0]: (x2, rating)
RATERS = [(4, 1.0), (3, 2.0), (2, 4.0), (1, 5.0)]
SIM = np.zeros((5, 5))
SIM[0, 1:] = [0.9, 0.5, 0.5, -0.2]  # x2 = 2 and 3 tie at 0.5; x2 = 4 is dissimilar
MEAN = np.array([3.0, 4.0, 3.0, 2.0, 1.0])
SIGMA = np.array([1.0, 2.0, 1.0, 0.5, 1.0])


def _est(kind: int, k: int, min_k: int) -> tuple[float, int, int]:
    off = np.array([0, len(RATERS)], dtype=np.int64)
    xs = np.array([x for x, _ in RATERS], dtype=np.int64)
    rs = np.array([r for _, r in RATERS])
    bx, by = np.array([0.1, 0.2, -0.3, 0.0, 0.5]), np.array([0.25])
    e, n, s = nb.knn_pairs(np.array([0]), np.array([0]), kind, SIM, off, xs, rs, k, min_k,
                           MEAN, SIGMA, bx, by, 3.0, True, 4)
    return float(e[0]), int(n[0]), int(s[0])


@pytest.mark.parametrize(("k", "expected", "actual_k"), [
    # k=1: only x2=1 (sim .9, rating 5): 5
    (1, 5.0, 1),
    # k=2: .9 then the tie at .5 goes to the earlier in the list, x2=3 (rating 2):
    # (.9*5 + .5*2) / 1.4 = 5.5 / 1.4
    (2, 5.5 / 1.4, 2),
    # k=3: .9, .5, .5: (4.5 + 1 + .5*4) / 1.9 = 7.5 / 1.9
    (3, 7.5 / 1.9, 3),
    # k=4: x2=4 (sim -.2) takes the 4th place but a non-positive similarity is not used
    (4, 7.5 / 1.9, 3),
    (40, 7.5 / 1.9, 3),
])
def test_knn_basic_hand_computed(k, expected, actual_k):
    e, n, s = _est(nb.BASIC, k, 1)
    assert (n, s) == (actual_k, 0)
    assert e == pytest.approx(expected, rel=1e-15)


def test_knn_variants_hand_computed():
    # means, k=2: mu_0 + (.9*(5 - mu_1) + .5*(2 - mu_3)) / 1.4 = 3 + (.9*1 + .5*0) / 1.4
    assert _est(nb.MEANS, 2, 1)[0] == pytest.approx(3 + 0.9 / 1.4, rel=1e-15)
    # z-score, k=2: mu_0 + (.9*(5-4)/2 + .5*(2-2)/.5) / 1.4 * sigma_0 = 3 + .45 / 1.4
    assert _est(nb.ZSCORE, 2, 1)[0] == pytest.approx(3 + 0.45 / 1.4, rel=1e-15)
    # baseline, k=2, mu = 3, b_x = bx, b_y = .25: b_00 = 3 + .1 + .25 = 3.35;
    # neighbours' baselines 3 + .2 + .25 = 3.45 (x2=1), 3 + 0 + .25 = 3.25 (x2=3):
    # 3.35 + (.9*(5 - 3.45) + .5*(2 - 3.25)) / 1.4 = 3.35 + (1.395 - .625) / 1.4
    assert _est(nb.BASELINE, 2, 1)[0] == pytest.approx(3.35 + 0.77 / 1.4, rel=1e-14)


def test_too_few_neighbours():
    # 3 positive neighbours < min_k = 4: KNNBasic is impossible (status 1, the global mean),
    # the others keep their mean (means: mu_0 = 3) and drop the neighbour term
    assert _est(nb.BASIC, 40, 4) == (3.0, 3, 1)
    assert _est(nb.MEANS, 40, 4) == (3.0, 3, 0)
    # k = 0: no neighbour at all; KNNBasic with min_k = 0 divides 0 by 0 (status 2)
    assert _est(nb.BASIC, 0, 0) == (3.0, 0, 2)
    assert _est(nb.ZSCORE, 0, 0) == (3.0, 0, 0)


def test_equal_ratings_give_the_rating_exactly():
    # every neighbour rated 5: exactly 5.0, whatever the similarities (a tie, not noise)
    sim = np.array([[1.0, 0.1, 0.7, 0.3], [0.1, 1, 0, 0], [0.7, 0, 1, 0], [0.3, 0, 0, 1]])
    off, xs, rs = np.array([0, 3]), np.array([1, 2, 3]), np.full(3, 5.0)
    e, _, _ = nb.knn_pairs(np.array([0]), np.array([0]), nb.BASIC, sim, off, xs, rs, 40, 1,
                           MEAN, SIGMA, MEAN, MEAN, 3.0, True, 3)
    assert e[0] == 5.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False).map(lambda v: round(v, 1)), min_size=1,
                max_size=12), st.integers(0, 14), st.data())
def test_k_largest_with_list_order_ties_property(sims, k, data):
    # the kernel's selection equals Python's heapq.nlargest (stable) on the same list
    import heapq

    n = len(sims)
    ratings = data.draw(st.lists(st.sampled_from([1.0, 2.0, 3.0, 4.0, 5.0]), min_size=n,
                                 max_size=n))
    sim = np.zeros((n + 1, n + 1))
    sim[0, 1:] = sims
    off, xs, rs = np.array([0, n]), np.arange(1, n + 1), np.array(ratings)
    e, used, s = nb.knn_pairs(np.array([0]), np.array([0]), nb.BASIC, sim, off, xs, rs, k, 1,
                              MEAN, SIGMA, MEAN, MEAN, 3.0, True, n)
    top = heapq.nlargest(k, zip(sims, ratings, strict=True), key=lambda t: t[0])
    pos = [(w, r) for w, r in top if w > 0]
    assert used[0] == len(pos)
    if pos:
        ref = sum(w * r for w, r in pos) / sum(w for w, _ in pos)
        assert s[0] == 0
        assert e[0] == pytest.approx(ref, rel=1e-12)
    else:
        assert s[0] == 1


def test_slope_one_hand_computed():
    # user 0 rated items 1 and 2; dev[0, 1] = .5 (freq 2), dev[0, 2] = -1 (freq 0: unused)
    freq = np.array([[3, 2, 0], [2, 2, 1], [0, 1, 1]])
    dev = np.array([[0, 0.5, -1.0], [-0.5, 0, 0.25], [1.0, -0.25, 0]])
    off, items = np.array([0, 2]), np.array([1, 2])
    got = nb.slope_one_pairs(np.array([0, 0]), np.array([0, 1]), off, items, freq, dev,
                             np.array([3.5]))
    # item 0: 3.5 + .5 / 1;  item 1: 3.5 + (0 + .25) / 2 (item 1 itself has freq 2 > 0)
    np.testing.assert_allclose(got, [4.0, 3.625], rtol=1e-15)
