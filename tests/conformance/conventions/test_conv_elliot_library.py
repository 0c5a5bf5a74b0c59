"""Conformance of ``convention="elliot"`` with values produced by Elliot's own metric code.

The values in ``fixtures/elliot.json.gz`` were produced once by ``fixtures/make_elliot.py``,
which imports Elliot's evaluation modules from a source checkout of sisinflab/elliot 0.3.1
(commit c085d430258f4e18bca38133c5f979835032f4ec) and runs them. This is not an installed
Elliot: Elliot is not on PyPI and its requirements (git-URL hyperopt, torch 2.7.1,
tensorflow, pyg wheels) do not install here, so only the evaluation files were used (their
paths and sha256 are in the fixture header, with where each came from). Unlike
``test_conv_elliot.py``, which checks receval against definitions written for that test,
the numbers here are Elliot's own code's output.

How the script ran Elliot: ``elliot.evaluation.evaluator.Evaluator`` was built with a
dataset object whose ``config.evaluation`` has the case's ``cutoffs``,
``relevance_threshold`` t, ``simple_metrics`` [Precision, Recall, F1, HR, MRR, MAP, nDCG,
nDCGRendle2020] and ``paired_ttest: True``, and whose ``get_test()`` is the truth as
``{user: {item: rating}}``; ``Evaluator.__init__`` built the evaluation objects itself
(``relevance.Relevance(test, t)``, whose ``BinaryRelevance`` and ``DiscountedRelevance`` make
an item relevant when rating >= t). ``Evaluator.eval(({}, recommendations))`` then ran, for
each cutoff, ``_process_test_data``: it keeps the users of the recommendations that have test
data, builds each metric on them, and gives ``m.eval()`` (``BaseMetric.eval``, ``np.average``
over the users each metric keeps: those with a relevant item), stored as the mean, and each
metric's ``eval_user_metric()`` (the paired t-test path), stored per user. The
recommendations are ``{user: [(item, score), ...]}`` with each user's rows sorted by
``sorted(key=score, reverse=True)`` (stable: ties keep the input order, as Elliot 0.3.x's
``ProxyRecommender.read_recommendations`` orders a recommendation file; that code was read,
not run); the metric code reads the list in that order. Stubbed in the script, and unrelated
to the values: the package ``__init__`` modules (not run; they import the whole framework),
``metrics.parse_metrics``/``parse_metric`` (name lookup over the eight classes),
``dataset.DataSet`` (an annotation), ``utils.logging.get_logger`` (silent) and
``popularity_utils.Popularity`` (unused here).

Cases: 230 seeded random ones (up to 8 users; lists up to 12 items, distinct scores that are
exact binary fractions; truth up to 8 items graded 0..5; users with truth and no list, users
with a list and no truth; lists shorter than k; 1-3 cutoffs in 1..10; Elliot's default
threshold 0 and, in about half, one of 1, 2, 3, 3.5, 4) and hand-made ones (``edge-*``).
Here receval evaluates each case's rows with ``convention="elliot"`` alone, and with
``relevance_threshold=t`` added for the thresholds other than 0 (the preset fixes 0, Elliot's
default when ``relevance_threshold`` is not configured). Names: Precision@k ==
``precision@k``, Recall@k == ``recall@k``, F1@k == ``f1@k``, HR@k == ``hit_rate@k``, MRR@k ==
``mrr@k``, MAP@k == ``ap@k`` (the preset's ``denominator='k', positions='all'``), nDCG@k ==
``ndcg@k`` (``gain='shifted_exponential'``), nDCGRendle2020@k == ``ndcg(gain=binary)@k``.

Differences (listed in the preset's ``differences``; each has a test below that shows it):

* nobody to evaluate (no user with a list, test data and a relevant item): Elliot's means
  are ``np.average([])`` = NaN, receval raises ``EmptyInputError`` (``edge-nobody-evaluated``
  and five random cases at t = 3.5 or 4, where those are checked to raise);
* negative ratings: Elliot takes them (never relevant at t >= 0), the convention raises
  ``InvalidGradeError`` (``negative_grades='error'``); with ``negative_grades='allow'``
  receval gives Elliot's numbers;
* a user whose recommendation list reaches Elliot empty is scored 0 by Elliot; receval's
  rows cannot hold an empty list, so that user has no recommendation and is left out
  (``missing_recs='skip'``).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import receval as rv
from receval.exceptions import EmptyInputError, TiesAtCutoffWarning
from tests.conformance._data import (
    assert_close,
    close,
    fixture_case,
    fixture_cases,
    load_fixture,
    undefined_warnings_ignored,
)
from tests.conformance.conventions.test_conv_elliot import PROBE_MEANS

pytestmark = pytest.mark.conformance

FIXTURE = Path(__file__).parent / "fixtures" / "elliot.json.gz"
COMMIT = "c085d430258f4e18bca38133c5f979835032f4ec"
#: Elliot's metric name -> receval's metric under the convention
SPECS = {"Precision": "precision", "Recall": "recall", "F1": "f1", "HR": "hit_rate",
         "MRR": "mrr", "MAP": "ap", "nDCG": "ndcg", "nDCGRendle2020": "ndcg(gain=binary)"}


def _cases(prefix: str) -> list[str]:
    return fixture_cases(FIXTURE, prefix)


def _case(name: str) -> dict[str, Any]:
    return fixture_case(FIXTURE, name)


def _frames(case: dict[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    recs = pd.DataFrame(case["recs"], columns=["user", "item", "score"])
    truth = pd.DataFrame(case["truth"], columns=["user", "item", "rating"])
    return recs, truth


def _specs(ks: list[int]) -> list[tuple[str, int, str]]:
    """(Elliot name, k, receval spec) for every metric at every k."""
    return [(name, k, f"{spec}@{k}") for k in ks for name, spec in SPECS.items()]


def _evaluate(case: dict[str, Any], threshold: str, specs: list[str]) -> rv.EvaluationResult:
    """The case's rows with the convention alone (t = 0, the preset's) or with t added."""
    recs, truth = _frames(case)
    with undefined_warnings_ignored(), warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)  # edge-ties-*: input order
        if threshold == "0":
            return rv.evaluate(recs, truth, specs, convention="elliot")
        return rv.evaluate(recs, truth, specs, convention="elliot",
                           relevance_threshold=float(threshold))


def _mean(value: float | None) -> float:
    return math.nan if value is None else value


def _nobody(by_k: dict[str, Any]) -> bool:
    """Elliot evaluated nobody at this threshold (every mean NaN)."""
    return all(not users for at_k in by_k.values() for users in at_k["per_user"].values())


def _check(case: dict[str, Any], *, nobody_raises: bool = True) -> dict[str, rv.EvaluationResult]:
    """Every metric at every k and threshold of the case: users, per-user values (1e-12)
    and Elliot's mean. Returns receval's results by threshold.

    Where Elliot evaluated nobody (NaN means), receval raises ``EmptyInputError``: the
    difference of ``test_edge_nobody_evaluated``. With ``nobody_raises`` that is asserted
    and the threshold skipped; without it the comparison runs (and fails).
    """
    out = {}
    specs = _specs(case["ks"])
    for threshold, by_k in case["elliot"].items():
        if nobody_raises and _nobody(by_k):
            assert all(v is None for at_k in by_k.values() for v in at_k["mean"].values())
            with pytest.raises(EmptyInputError):
                _evaluate(case, threshold, [spec for _, _, spec in specs])
            continue
        ev = _evaluate(case, threshold, [spec for _, _, spec in specs])
        for (name, k, spec), label in zip(specs, ev.labels, strict=True):
            theirs = by_k[str(k)]["per_user"][name]
            ours = ev.per_user[label].dropna()
            where = f"{case['name']} {name}@{k} (t={threshold})"
            assert set(ours.index) == set(theirs), \
                f"{where}: users {sorted(ours.index)} != Elliot's {sorted(theirs)}"
            for user, value in theirs.items():
                assert_close(ours[user], value, f"{where}, user {user}")
            mean = _mean(by_k[str(k)]["mean"][name])
            assert close(ev[spec], mean), f"{where}: mean {ev[spec]} != Elliot's {mean}"
        out[threshold] = ev
    return out


def _value(case: dict[str, Any], threshold: str, k: int, name: str, user: str) -> float:
    value: float = case["elliot"][threshold][str(k)]["per_user"][name][user]
    return value


# -- the fixture --------------------------------------------------------------------------------

def test_fixture_header() -> None:
    """The fixture says that Elliot's own code produced it, from which files and how."""
    header = load_fixture(FIXTURE)["header"]
    assert header["library"] == "elliot"
    assert header["version"] == "0.3.1"
    assert header["commit"] == COMMIT
    assert "make_elliot.py" in header["command"]
    assert "--elliot-src" in header["command"]
    assert {"python", "numpy", "seed", "source", "stubs"} <= set(header)
    paths = {f["path"] for f in header["files"]}
    assert {"elliot/evaluation/evaluator.py", "elliot/evaluation/relevance/relevance.py",
            "elliot/evaluation/metrics/base_metric.py",
            "elliot/evaluation/metrics/accuracy/map/map.py",
            "elliot/evaluation/metrics/accuracy/ndcg/ndcg.py",
            "elliot/evaluation/metrics/accuracy/ndcg/ndcg_rendle2020.py"} <= paths
    assert all(len(f["sha256"]) == 64 for f in header["files"])
    assert header["metrics"] == list(SPECS)
    assert len(_cases("random-")) >= 200


def test_random_cases_cover_the_edges() -> None:
    """The random cases hold what the module docstring says: users on one side only, lists
    shorter than k, grade-0 rows, other thresholds, and users left out by them."""
    counts = dict.fromkeys(("truth_only", "recs_only", "short", "grade0", "threshold",
                            "no_relevant"), 0)
    for name in _cases("random-"):
        case = _case(name)
        recs, truth = _frames(case)
        counts["truth_only"] += bool(set(truth["user"]) - set(recs["user"]))
        counts["recs_only"] += bool(set(recs["user"]) - set(truth["user"]))
        counts["short"] += bool(recs.groupby("user").size().min() < max(case["ks"]))
        counts["grade0"] += bool((truth["rating"] == 0).any())
        for threshold in case["elliot"]:
            if threshold == "0":
                continue
            counts["threshold"] += 1
            kept = set(case["elliot"][threshold][str(case["ks"][0])]["per_user"]["MAP"])
            both = set(recs["user"]) & set(truth["user"])
            counts["no_relevant"] += bool(both - kept)
    assert all(n >= 20 for n in counts.values()), counts


@pytest.mark.parametrize("name", _cases("random-"))
def test_random_cases_match_elliot(name: str) -> None:
    """All eight metrics at every k of the case, per user and mean, at t = 0 (the preset)
    and at the case's other threshold (``relevance_threshold`` passed to receval)."""
    _check(_case(name))


# -- hand-made cases --------------------------------------------------------------------------

def test_edge_probe_example() -> None:
    """u1 ranks a..e with relevant {b, d, x}, u2 f..j with {f}, u3 k..o with {o}, u4 p, q
    (shorter than k) with {q}: the means worked out by hand from Elliot's definitions are
    what Elliot's code gives, and receval's."""
    case = _case("edge-probe")
    ev = _check(case)["0"]
    for spec, value in PROBE_MEANS.items():
        assert ev[spec] == pytest.approx(value, abs=1e-6), spec
    # u4 at k = 5: MAP averages P@i over 5 places, past the end of its 2-item list
    assert _value(case, "0", 5, "MAP", "u4") == pytest.approx((1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 5)


def test_edge_graded_threshold() -> None:
    """Graded truth at t = 3 and 4 (``relevance_threshold`` passed to receval) and the
    default 0. At t = 3 u1 has a = 2 (not relevant), b = 5 (gain 2^3 - 1 = 7), d = 3 (gain 1)
    and x = 4 (gain 3, not recommended): nDCG@5 = (7/log2 3 + 1/log2 5) / (7 + 3/log2 3 +
    1/2); u3, with only o = 2, has no relevant item and is left out at t = 3 and 4."""
    case = _case("edge-graded-threshold")
    _check(case)
    expected = (7 / math.log2(3) + 1 / math.log2(5)) / (7 + 3 / math.log2(3) + 1 / 2)
    assert _value(case, "3", 5, "nDCG", "u1") == pytest.approx(expected, rel=1e-12)
    for threshold in ("3", "4"):
        assert set(case["elliot"][threshold]["5"]["per_user"]["nDCG"]) == {"u1"}
    assert set(case["elliot"]["0"]["5"]["per_user"]["nDCG"]) == {"u1", "u3"}


def test_edge_ties_follow_the_input_order() -> None:
    """Tied scores: Elliot's metrics read the list in the order given, and the lists put a
    tie in its input order (Python's stable sort, as ProxyRecommender reads a file). The
    same rows with the tie reversed give other Elliot values; receval's ``ties='stable'``
    (the preset's default) follows the input order in both."""
    first, second = _case("edge-ties-input-order"), _case("edge-ties-reversed")
    _check(first)
    _check(second)
    # u2 ranks b, a (both 2.0) in the first case and a, b in the second; a is relevant
    assert _value(first, "0", 1, "HR", "u2") == 0.0
    assert _value(second, "0", 1, "HR", "u2") == 1.0


def test_edge_list_shorter_than_k() -> None:
    """u2's list has one item: Precision@10 is 1/10, MAP@10 the mean of P@1..P@10 = the
    mean of 1/i; u1's two items at k = 5 and 10 likewise."""
    case = _case("edge-short-list")
    _check(case)
    assert _value(case, "0", 10, "Precision", "u2") == pytest.approx(0.1)
    assert _value(case, "0", 10, "MAP", "u2") == pytest.approx(
        sum(1 / i for i in range(1, 11)) / 10)


def test_edge_user_without_relevant_items() -> None:
    """At t = 3 u1's grades (1, 2) are all below the threshold: Elliot's metrics keep only
    users with a relevant item (``if len(self._relevance.get_user_rel(u))``), receval's
    ``no_relevant='skip'``; at t = 0 u1 counts."""
    case = _case("edge-no-relevant")
    _check(case)
    assert set(case["elliot"]["3"]["1"]["per_user"]["Precision"]) == {"u2"}
    assert set(case["elliot"]["0"]["1"]["per_user"]["Precision"]) == {"u1", "u2"}


def test_edge_users_on_one_side() -> None:
    """u2 has truth and no list (not in Elliot's recommendations: left out,
    ``missing_recs='skip'``), u3 a list and no truth (dropped by ``_process_test_data``:
    left out, receval's default ``recs_without_truth='ignore'``)."""
    case = _case("edge-users-one-side")
    results = _check(case)
    for threshold, ev in results.items():
        assert set(ev.per_user.dropna(how="all").index) == {"u1"}, threshold


def test_edge_grade_zero_is_relevant_at_the_default_threshold() -> None:
    """Elliot's default threshold 0 makes every truth row relevant (rating >= 0), grade 0
    too, with nDCG gain 2^(0 - 0 + 1) - 1 = 1: the preset's ``relevance_threshold=0.0``. At
    t = 1 the grade-0 rows are not relevant and user b (only a grade 0) is left out."""
    case = _case("edge-grade-zero")
    _check(case)
    assert _value(case, "0", 1, "HR", "a") == 1.0  # x, grade 0, at rank 1
    assert _value(case, "0", 1, "nDCG", "a") == pytest.approx(1 / 7)  # gains 1 and 2^3 - 1
    assert set(case["elliot"]["1"]["1"]["per_user"]["HR"]) == {"a"}


def test_difference_nobody_evaluated_raises() -> None:
    """Difference (preset): where Elliot returns NaN means (nobody to
    average), receval refuses with ``EmptyInputError``; in the random cases this happens at
    t = 3.5 or 4 when no user with a list has a grade that high."""
    case = _case("edge-nobody-evaluated")
    with pytest.raises(EmptyInputError):
        _evaluate(case, "0", ["precision@2"])
    random_nobody = [(name, t) for name in _cases("random-")
                     for t, by_k in _case(name)["elliot"].items() if _nobody(by_k)]
    assert random_nobody
    assert all(t != "0" for _, t in random_nobody)  # at t = 0 u0 always counts


def test_difference_negative_grades_allowed_match() -> None:
    """Difference (preset): with ``negative_grades='allow'`` (negative
    grades never relevant) receval gives Elliot's per-user values and means."""
    case = _case("edge-negative-grade")
    recs, truth = _frames(case)
    specs = _specs(case["ks"])
    for threshold, by_k in case["elliot"].items():
        with undefined_warnings_ignored():
            ev = rv.evaluate(recs, truth, [spec for _, _, spec in specs], convention="elliot",
                             relevance_threshold=float(threshold), negative_grades="allow")
        for (name, k, spec), label in zip(specs, ev.labels, strict=True):
            theirs = by_k[str(k)]["per_user"][name]
            assert set(ev.per_user[label].dropna().index) == set(theirs)
            for user, value in theirs.items():
                assert_close(ev.per_user[label][user], value, f"{name}@{k} t={threshold} {user}")
            assert close(ev[spec], by_k[str(k)]["mean"][name])
    assert _value(case, "0", 3, "Recall", "u1") == 0.5  # c (2) and z (0) relevant, b (-1) not


def test_difference_empty_list_scored_zero() -> None:
    """Difference (preset): Elliot's u2 (empty list) is 0 on every metric
    and halves the means; receval evaluates u1 only."""
    case = _case("edge-empty-list")
    assert case["elliot_recs"]["u2"] == []
    ev = _evaluate(case, "0", ["precision@1", "ndcg@2"])
    assert list(ev.per_user.dropna(how="all").index) == ["u1"]
    assert _value(case, "0", 1, "Precision", "u2") == 0.0
    assert case["elliot"]["0"]["1"]["mean"]["Precision"] == 0.5
    assert ev["precision@1"] == 1.0
    assert case["elliot"]["0"]["2"]["mean"]["nDCG"] == 0.5
    assert ev["ndcg@2"] == 1.0
