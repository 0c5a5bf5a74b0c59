"""docs/bad-input.md, row by row: each bad input raises a specific, informative error, or is
handled by a policy that the caller chose and that the result records.

Each test is named after its row (``test_a_...`` for row a). Error tests check the exception
type, the message (column or parameter, rule, value, offending keys) and the attributes
``column``, ``parameter``, ``n_bad`` and ``examples``. Policy tests check hand-computed values
and what the result records (``settings``, ``users``, ``summaries``).
"""

from __future__ import annotations

import math
import re
import unicodedata
import warnings
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval._evaluate_options import EVALUATE_OPTIONS
from receval.exceptions import (
    ColumnNotFoundError,
    DataError,
    DataWarning,
    DuplicateRowError,
    EmptyInputError,
    IdTypeMismatchError,
    InvalidGradeError,
    InvalidParameterError,
    MissingPredictionError,
    MissingUsersError,
    NonFiniteValueError,
    RankScoreMismatchError,
    SchemaError,
    TiesAtCutoffWarning,
    UndefinedMetricWarning,
    UnknownMetricError,
)

TOL = 1e-12
L3 = math.log2(3)  # discount of rank 2 is 1 / L3


def recs_df(rows: list[tuple[Any, Any, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["user", "item", "score"])


def truth_df(rows: list[tuple[Any, Any, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["user", "item", "rating"]).astype({"rating": "float64"})


def per_user(ev: rv.EvaluationResult, metric: str) -> dict[Any, float]:
    col = ev.per_user[rv.metrics.parse(metric).label]
    return {u: float(v) for u, v in col.items()}


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)


# ============================================================================================
# a. a truth user with no relevant item
#   u1: a b c   truth a:3 c:1        P@2 = 1/2, MRR = 1
#   u2: a d     truth d:2            P@2 = 1/2, MRR = 1/2
#   u3: x       truth x:0 y:0        no relevant item
# ============================================================================================
RECS_A = recs_df([("u1", "a", .9), ("u1", "b", .8), ("u1", "c", .7), ("u2", "a", .5),
                  ("u2", "d", .4), ("u3", "x", .3)])
TRUTH_A = truth_df([("u1", "a", 3), ("u1", "c", 1), ("u2", "d", 2), ("u3", "x", 0),
                    ("u3", "y", 0)])


def test_a_no_relevant_default_skips_and_warns() -> None:
    with pytest.warns(UndefinedMetricWarning, match=r"1 truth users have no relevant item.*"
                      r"no_relevant='skip'.*'u3'"):
        ev = rv.evaluate(RECS_A, TRUTH_A, ["precision@2", "mrr"])
    assert list(ev.users.skipped_no_relevant) == ["u3"]
    assert list(ev.users.no_relevant) == ["u3"]
    assert list(ev.users.evaluated) == ["u1", "u2"]
    assert "u3" not in ev.per_user.index
    assert close(ev["precision@2"], 0.5)
    assert close(ev["mrr"], (1 + 1 / 2) / 2)
    assert ev.settings["no_relevant"] == "skip"
    assert ev.summaries["MRR"].n_users == 2


def test_a_no_relevant_zero() -> None:
    ev = rv.evaluate(RECS_A, TRUTH_A, ["precision@2", "mrr"], no_relevant="zero")
    assert per_user(ev, "mrr") == {"u1": 1.0, "u2": 0.5, "u3": 0.0}
    assert close(ev["precision@2"], (0.5 + 0.5 + 0) / 3)
    assert close(ev["mrr"], 1.5 / 3)
    assert len(ev.users.skipped_no_relevant) == 0
    assert list(ev.users.no_relevant) == ["u3"]  # still listed, whatever the policy
    assert ev.settings["no_relevant"] == "zero"


def test_a_no_relevant_error() -> None:
    with pytest.raises(MissingUsersError, match=r"1 truth users have no relevant item.*'u3'.*"
                       r"no_relevant=") as info:
        rv.evaluate(RECS_A, TRUTH_A, ["mrr"], no_relevant="error")
    assert info.value.parameter == "no_relevant"
    assert info.value.n_bad == 1
    assert info.value.examples == ("u3",)


def test_a_below_relevance_threshold_is_no_relevant() -> None:
    # with relevance_threshold=3 only u1's a (grade 3) is relevant: u2 and u3 have none
    with pytest.warns(UndefinedMetricWarning, match=r"2 truth users have no relevant item"):
        ev = rv.evaluate(RECS_A, TRUTH_A, ["mrr"], relevance_threshold=3)
    assert sorted(ev.users.skipped_no_relevant) == ["u2", "u3"]
    assert ev["mrr"] == 1.0
    assert ev.settings["relevance_threshold"] == 3


def test_a_strict_turns_the_warning_into_an_error() -> None:
    with pytest.raises(DataError, match=r"no relevant item.*strict=True") as info:
        rv.evaluate(RECS_A, TRUTH_A, ["mrr"], strict=True)
    assert info.value.n_bad == 1
    assert info.value.examples == ("u3",)


def test_a_invalid_policy() -> None:
    with pytest.raises(InvalidParameterError, match=r"no_relevant must be one of 'skip', "
                       r"'zero', 'error'; got 'drop'") as info:
        rv.evaluate(RECS_A, TRUTH_A, ["mrr"], no_relevant="drop")
    assert info.value.parameter == "no_relevant"
    assert info.value.examples == ("drop",)


# ============================================================================================
# b. a truth user absent from the recommendations
#   u1: a b (truth b) -> MRR 1/2;  u2: c (truth c) -> MRR 1;  u3: no recs (truth z)
# ============================================================================================
RECS_B = recs_df([("u1", "a", .9), ("u1", "b", .8), ("u2", "c", .7)])
TRUTH_B = truth_df([("u1", "b", 1), ("u2", "c", 1), ("u3", "z", 1)])


def test_b_missing_recs_default_scores_zero() -> None:
    ev = rv.evaluate(RECS_B, TRUTH_B, ["mrr", "recall@5"])
    assert per_user(ev, "mrr") == {"u1": 0.5, "u2": 1.0, "u3": 0.0}
    assert close(ev["mrr"], 1.5 / 3)
    assert close(ev["recall@5"], 2 / 3)
    assert list(ev.users.missing_recs) == ["u3"]
    assert len(ev.users.skipped_missing_recs) == 0
    assert ev.settings["missing_recs"] == "zero"


def test_b_missing_recs_skip() -> None:
    ev = rv.evaluate(RECS_B, TRUTH_B, ["mrr"], missing_recs="skip")
    assert per_user(ev, "mrr") == {"u1": 0.5, "u2": 1.0}
    assert close(ev["mrr"], 0.75)
    assert list(ev.users.skipped_missing_recs) == ["u3"]
    assert list(ev.users.missing_recs) == ["u3"]
    assert ev.settings["missing_recs"] == "skip"


def test_b_missing_recs_error() -> None:
    with pytest.raises(MissingUsersError, match=r"1 truth users have no recommendations "
                       r"\(e\.g\. 'u3'\).*missing_recs=") as info:
        rv.evaluate(RECS_B, TRUTH_B, ["mrr"], missing_recs="error")
    assert info.value.parameter == "missing_recs"
    assert (info.value.n_bad, info.value.examples) == (1, ("u3",))


# ============================================================================================
# c. a user in the recommendations but absent from the truth
# ============================================================================================
RECS_C = recs_df([("u1", "a", .9), ("u1", "b", .8), ("u9", "a", .5)])
TRUTH_C = truth_df([("u1", "b", 1)])


def test_c_recs_without_truth_ignored_and_listed() -> None:
    ev = rv.evaluate(RECS_C, TRUTH_C, ["mrr"])
    assert list(ev.users.recs_without_truth) == ["u9"]
    assert per_user(ev, "mrr") == {"u1": 0.5}
    assert ev.users.n_users == 2
    assert ev.users.n_recs_users == 2
    assert ev.users.n_truth_users == 1
    assert ev.settings["recs_without_truth"] == "ignore"


def test_c_recs_without_truth_error() -> None:
    with pytest.raises(MissingUsersError, match=r"1 users have recommendations but no truth "
                       r"row \(e\.g\. 'u9'\)") as info:
        rv.evaluate(RECS_C, TRUTH_C, ["mrr"], recs_without_truth="error")
    assert info.value.parameter == "recs_without_truth"
    assert (info.value.n_bad, info.value.examples) == (1, ("u9",))


# ============================================================================================
# d. a repeated (user, item) in the recommendations
#   u1: a .5, b .8, a .9, c .7;  truth a, c
#   first: b .8, c .7, a .5  -> P@1 = 0, MRR = 1/2
#   best:  a .9, b .8, c .7  -> P@1 = 1, MRR = 1
# ============================================================================================
RECS_D = recs_df([("u1", "a", .5), ("u1", "b", .8), ("u1", "a", .9), ("u1", "c", .7)])
TRUTH_D = truth_df([("u1", "a", 1), ("u1", "c", 1)])


def test_d_repeated_recs_raise() -> None:
    with pytest.raises(DuplicateRowError, match=r"recs: 1 repeated \(user, item\) pairs over 1 "
                       r"users, e\.g\. \('u1', 'a'\).*columns 'user', 'item'.*"
                       r"duplicates='first'") as info:
        rv.evaluate(RECS_D, TRUTH_D, ["mrr"])
    assert info.value.column == "item"
    assert info.value.n_bad == 1
    assert info.value.examples == (("u1", "a"),)


def test_d_repeated_recs_integer_ids() -> None:
    recs = recs_df([(1, 5, 1.0), (1, 5, 2.0), (1, 6, 0.5), (2, 6, 0.1), (2, 6, 0.2)])
    truth = truth_df([(1, 5, 1), (2, 6, 1)])
    with pytest.raises(DuplicateRowError, match=r"2 repeated \(user, item\) pairs over 2 "
                       r"users") as info:
        rv.evaluate(recs, truth, ["mrr"])
    assert info.value.examples == ((1, 5), (2, 6))
    assert type(info.value.examples[0][0]) is int


@pytest.mark.parametrize(("policy", "p1", "mrr"), [("first", 0.0, 0.5), ("best", 1.0, 1.0)])
def test_d_repeated_recs_policies(policy: str, p1: float, mrr: float) -> None:
    ev = rv.evaluate(RECS_D, TRUTH_D, ["precision@1", "mrr", "precision"], duplicates=policy)
    assert ev["precision@1"] == p1
    assert ev["mrr"] == mrr
    assert close(ev["precision"], 2 / 3)  # 3 distinct items left, 2 relevant
    assert ev.settings["recs_duplicates_dropped"] == 1
    assert ev.settings["truth_duplicates_dropped"] == 0
    assert ev.settings["duplicates"] == policy


@pytest.mark.parametrize(("policy", "mrr"), [("first", 1 / 3), ("best", 1 / 2)])
def test_d_repeated_recs_best_rank(policy: str, mrr: float) -> None:
    # a at rank 4 then at rank 2: first keeps rank 4 (b c a), best keeps rank 2 (b a c)
    recs = pd.DataFrame({"user": ["u"] * 4, "item": ["a", "b", "a", "c"], "rank": [4, 1, 2, 3]})
    ev = rv.evaluate(recs, pd.DataFrame({"user": ["u"], "item": ["a"]}), ["mrr"],
                     duplicates=policy)
    assert close(ev["mrr"], mrr)
    assert ev.settings["recs_duplicates_dropped"] == 1


def test_d_invalid_policy() -> None:
    with pytest.raises(InvalidParameterError, match=r"duplicates must be one of 'error', "
                       r"'first', 'best'; got 'last'") as info:
        rv.evaluate(RECS_D, TRUTH_D, ["mrr"], duplicates="last")
    assert info.value.parameter == "duplicates"


# ============================================================================================
# e. a repeated (user, item) in the truth, with conflicting grades
#   recs u1: a b c;  truth a:1, c:2, a:3
#   first (a:1, c:2): DCG@3 = 1 + 2/log2 4 = 2,   IDCG@3 = 2 + 1/log2 3
#   best  (a:3, c:2): DCG@3 = 3 + 2/log2 4 = 4,   IDCG@3 = 3 + 2/log2 3
# ============================================================================================
RECS_E = recs_df([("u1", "a", .9), ("u1", "b", .8), ("u1", "c", .7)])
TRUTH_E = truth_df([("u1", "a", 1), ("u1", "c", 2), ("u1", "a", 3)])


def test_e_repeated_truth_raises() -> None:
    with pytest.raises(DuplicateRowError, match=r"truth: 1 repeated \(user, item\) pairs over "
                       r"1 users, e\.g\. \('u1', 'a'\)") as info:
        rv.evaluate(RECS_E, TRUTH_E, ["ndcg@3"])
    assert info.value.column == "item"
    assert (info.value.n_bad, info.value.examples) == (1, (("u1", "a"),))


@pytest.mark.parametrize(("policy", "expected"), [("first", 2 / (2 + 1 / L3)),
                                                  ("best", 4 / (3 + 2 / L3))])
def test_e_repeated_truth_policies(policy: str, expected: float) -> None:
    ev = rv.evaluate(RECS_E, TRUTH_E, ["ndcg@3"], duplicates=policy)
    assert close(ev["ndcg@3"], expected)
    assert ev.settings["truth_duplicates_dropped"] == 1
    assert ev.settings["recs_duplicates_dropped"] == 0


# ============================================================================================
# f. tied scores:  u: a .9, z .5, c .5, d .1  (z before c in the input), c relevant
#   stable (z c): P@2 = 0,   MRR = 1/3      item (c < z): P@2 = 1/2, MRR = 1/2
#   optimistic:   P@2 = 1/2, MRR = 1/2      pessimistic:  P@2 = 0,   MRR = 1/3
#   expected:     P@2 = 1/4, MRR = (1/2 + 1/3) / 2
# ============================================================================================
RECS_F = recs_df([("u", "a", .9), ("u", "z", .5), ("u", "c", .5), ("u", "d", .1)])
TRUTH_F = truth_df([("u", "c", 1)])
TIES = {"stable": (0.0, 1 / 3), "item": (0.5, 0.5), "optimistic": (0.5, 0.5),
        "pessimistic": (0.0, 1 / 3), "expected": (0.25, 5 / 12)}


def test_f_ties_default_stable_warns_and_counts() -> None:
    with pytest.warns(TiesAtCutoffWarning, match=r"tied scores straddle the cutoff k=2 for 1 "
                      r"users \(e\.g\. 'u'\).*ties='stable'"):
        ev = rv.evaluate(RECS_F, TRUTH_F, ["precision@2", "mrr", "precision@3"])
    assert ev["precision@2"] == 0.0
    assert close(ev["mrr"], 1 / 3)
    assert ev.summaries["Precision@2"].n_ties_at_cutoff == 1
    assert ev.summaries["Precision@3"].n_ties_at_cutoff == 0  # a z c | d: no tie at 3
    assert ev.summaries["Precision@2"].ties == "stable"
    assert ev.settings["ties"] == "stable"


@pytest.mark.parametrize("policy", list(TIES))
def test_f_ties_per_call(policy: str) -> None:
    p2, mrr = TIES[policy]
    if policy in ("stable", "item"):
        with pytest.warns(TiesAtCutoffWarning, match=f"ties='{policy}'"):
            ev = rv.evaluate(RECS_F, TRUTH_F, ["precision@2", "mrr"], ties=policy)
    else:
        ev = rv.evaluate(RECS_F, TRUTH_F, ["precision@2", "mrr"], ties=policy)
    assert close(ev["precision@2"], p2)
    assert close(ev["mrr"], mrr)
    assert ev.settings["ties"] == policy
    assert ev.summaries["Precision@2"].ties == policy
    assert ev.summaries["Precision@2"].n_ties_at_cutoff == 1


@pytest.mark.parametrize("policy", ["optimistic", "pessimistic", "expected", "item"])
def test_f_ties_per_metric(policy: str) -> None:
    p2, mrr = TIES[policy]
    with pytest.warns(TiesAtCutoffWarning):  # the call-level 'stable' metric still warns
        ev = rv.evaluate(RECS_F, TRUTH_F, ["precision@2", f"precision(ties={policy})@2",
                                           f"mrr(ties={policy})"])
    assert ev["precision@2"] == 0.0
    assert close(ev[f"precision(ties={policy})@2"], p2)
    assert close(ev[f"mrr(ties={policy})"], mrr)
    assert ev.summaries[f"Precision(ties='{policy}')@2"].ties == policy


#: Recs with a score and a rank that agree, tied on score for user 1 (the rank orders them).
RECS_SR = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 13, 14],
                        "score": [0.9, 0.9, 0.5, 0.4], "rank": [2, 1, 1, 2]})
TRUTH_SR = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 13], "rating": [5, 4]})


def _as_file(frame: pd.DataFrame, tmp_path: Path, name: str) -> str:
    frame.to_csv(tmp_path / name, index=False)
    return str(tmp_path / name)


@pytest.mark.parametrize("source", ["frame", "csv", "parquet buckets"])
@pytest.mark.parametrize("rank", ["rank", "position", "pos"])
def test_f_a_tie_warning_names_the_unused_rank_column(tmp_path: Path, rank: str,
                                                      source: str) -> None:
    recs, truth = RECS_SR.rename(columns={"rank": rank}), TRUTH_SR
    kw: dict[str, Any] = {}
    if source == "csv":
        recs, truth = _as_file(recs, tmp_path, "r.csv"), _as_file(truth, tmp_path, "t.csv")
    elif source == "parquet buckets":
        recs.to_parquet(tmp_path / "r.parquet", index=False)
        truth.to_parquet(tmp_path / "t.parquet", index=False)
        recs, truth = str(tmp_path / "r.parquet"), str(tmp_path / "t.parquet")
        kw = {"buckets": 2, "progress": False}
    hint = (rf"; recs also has a rank column '{rank}', not used \(the rows are ranked by "
            rf"score\): pass columns=Columns\(rank='{rank}'\) / --rank-col {rank} to rank by "
            rf"it$")
    with pytest.warns(TiesAtCutoffWarning, match=r"tied scores straddle the cutoff k=1" + ".*"
                      + hint):
        ev = rv.evaluate(recs, truth, ["precision@1"], **kw)
    assert ev["precision@1"] == 1.0  # the default ordering is unchanged: score, then input
    with pytest.raises(DataError, match=hint.replace("$", "")):
        rv.evaluate(recs, truth, ["precision@1"], strict=True, **kw)
    ranked = rv.evaluate(recs, truth, ["precision@1"], columns=rv.Columns(rank=rank), **kw)
    assert ranked["precision@1"] == 0.5  # the advice settles the tie


def test_f_a_tie_warning_without_a_rank_column_has_no_hint() -> None:
    with pytest.warns(TiesAtCutoffWarning) as caught:
        rv.evaluate(RECS_SR.drop(columns="rank"), TRUTH_SR, ["precision@1"])
    assert all("rank column" not in str(w.message) for w in caught)


def test_f_ties_strict() -> None:
    with pytest.raises(DataError, match=r"tied scores straddle the cutoff k=2.*strict=True"):
        rv.evaluate(RECS_F, TRUTH_F, ["precision@2"], strict=True)


def test_f_invalid_tie_policy() -> None:
    with pytest.raises(InvalidParameterError, match=r"ties must be one of .*got 'random'"):
        rv.evaluate(RECS_F, TRUTH_F, ["mrr"], ties="random")
    with pytest.raises(InvalidParameterError, match=r"'ties' parameter of MRR.*'random'"):
        rv.evaluate(RECS_F, TRUTH_F, ["mrr(ties=random)"])


# ============================================================================================
# g. NaN and infinite scores
# ============================================================================================
def test_g_nan_score() -> None:
    recs = RECS_F.assign(score=[.9, np.nan, .5, np.nan])
    with pytest.raises(NonFiniteValueError, match=r"recs: the score column 'score' has 2 "
                       r"missing or NaN values") as info:
        rv.evaluate(recs, TRUTH_F, ["mrr"])
    assert info.value.column == "score"
    assert info.value.n_bad == 2
    assert info.value.examples == (1, 3)


@pytest.mark.parametrize("dtype", ["float64", "Float64", "double[pyarrow]"])
def test_g_missing_score_any_dtype(dtype: str) -> None:
    recs = RECS_F.assign(score=pd.array([.9, None, .5, .1], dtype=dtype))
    with pytest.raises(NonFiniteValueError, match="score") as info:
        rv.evaluate(recs, TRUTH_F, ["mrr"])
    assert (info.value.column, info.value.n_bad, info.value.examples) == ("score", 1, (1,))


def test_g_infinite_scores_are_ordered() -> None:
    # +inf first, then 0.5, then -inf
    recs = recs_df([("u", "lo", -np.inf), ("u", "mid", 0.5), ("u", "hi", np.inf),
                    ("v", "lo", -np.inf), ("v", "hi", np.inf)])
    for relevant, rr in (("hi", 1.0), ("mid", 0.5), ("lo", 1 / 3)):
        truth = truth_df([("u", relevant, 1), ("v", "lo", 1)])
        ev = rv.evaluate(recs, truth, ["mrr"])
        assert per_user(ev, "mrr") == {"u": rr, "v": 0.5}


@pytest.mark.parametrize("column", ["user", "item"])
def test_g_null_ids(column: str) -> None:
    recs = RECS_F.copy()
    recs[column] = pd.Series(["u", None, "u", "u"] if column == "user"
                             else ["a", "z", None, "d"], dtype=object)
    with pytest.raises(NonFiniteValueError, match=rf"recs: the {column} id column "
                       rf"'{column}' has 1 missing values") as info:
        rv.evaluate(recs, TRUTH_F, ["mrr"])
    assert info.value.column == column
    assert info.value.n_bad == 1


# ============================================================================================
# h. a NaN or infinite rating
# ============================================================================================
@pytest.mark.parametrize(("value", "rule"), [(np.nan, "missing or NaN"), (np.inf, "infinite"),
                                             (-np.inf, "infinite")])
def test_h_non_finite_rating(value: float, rule: str) -> None:
    truth = truth_df([("u", "c", 1), ("u", "a", value)])
    with pytest.raises(NonFiniteValueError, match=rf"truth: the rating column 'rating' has 1 "
                       rf"{rule} values") as info:
        rv.evaluate(RECS_F, truth, ["mrr"])
    assert info.value.column == "rating"
    assert (info.value.n_bad, info.value.examples) == (1, (1,))


def test_h_non_finite_rating_aliased_column_is_named() -> None:
    truth = pd.DataFrame({"user": ["u"], "item": ["c"], "relevance": [np.nan]})
    with pytest.raises(NonFiniteValueError, match=r"'relevance'") as info:
        rv.evaluate(RECS_F, truth, ["mrr"])
    assert info.value.column == "relevance"


# ============================================================================================
# i. negative and zero grades
# ============================================================================================
def test_i_negative_grades_raise() -> None:
    truth = truth_df([("u", "c", 1), ("u", "a", -2), ("u", "d", -1)])
    with pytest.raises(InvalidGradeError, match=r"truth: the rating column 'rating' has 2 "
                       r"negative grades, e\.g\. \(user, item, grade\).*'u', 'a', -2\.0.*"
                       r"negative_grades='allow'") as info:
        rv.evaluate(RECS_F, truth, ["mrr"])
    assert info.value.column == "rating"
    assert info.value.n_bad == 2
    assert set(info.value.examples) == {("u", "a", -2.0), ("u", "d", -1.0)}


def test_i_negative_grades_allowed() -> None:
    # a: -2 is not relevant; c: 1 is. Rating metrics use -2 as it is.
    truth = truth_df([("u", "c", 1), ("u", "a", -2)])
    ev = rv.evaluate(RECS_F, truth, ["mrr", "recall@4", "mae"], negative_grades="allow",
                     ties="optimistic", missing_predictions="skip")
    assert ev["mrr"] == 0.5
    assert ev["recall@4"] == 1.0
    assert close(ev["mae"], (abs(0.9 - (-2)) + abs(0.5 - 1)) / 2)
    assert ev.settings["negative_grades"] == "allow"


def test_i_zero_grades_are_not_relevant() -> None:
    truth = truth_df([("u", "a", 0), ("u", "c", 2)])
    ev = rv.evaluate(RECS_F, truth, ["mrr", "recall@4"], ties="optimistic")
    assert ev["mrr"] == 0.5
    assert ev["recall@4"] == 1.0


def test_i_relevance_threshold() -> None:
    truth = truth_df([("u", "a", 1), ("u", "c", 2)])
    ev = rv.evaluate(RECS_F, truth, ["mrr", "recall@1"], ties="optimistic")
    assert ev["mrr"] == 1.0
    assert ev["recall@1"] == 0.5
    ev = rv.evaluate(RECS_F, truth, ["mrr", "recall@1"], ties="optimistic",
                     relevance_threshold=2)
    assert ev["mrr"] == 0.5
    assert ev["recall@1"] == 0.0
    assert ev.settings["relevance_threshold"] == 2


@pytest.mark.parametrize("threshold", [-0.5, -1, math.nan, "2", True])
def test_i_invalid_relevance_threshold(threshold: Any) -> None:
    with pytest.raises(InvalidParameterError, match=r"relevance_threshold must be a number "
                       r">= 0") as info:
        rv.evaluate(RECS_F, TRUTH_F, ["mrr"], relevance_threshold=threshold)
    assert info.value.parameter == "relevance_threshold"


def test_i_invalid_negative_grades_policy() -> None:
    with pytest.raises(InvalidParameterError, match=r"negative_grades must be one of"):
        rv.evaluate(RECS_F, TRUTH_F, ["mrr"], negative_grades="clip")


# ============================================================================================
# j. bad and large k
# ============================================================================================
@pytest.mark.parametrize(("spec", "shown"), [("precision@0", "0"), ("precision@-1", "-1"),
                                             ("ndcg@-3", "-3"), ("precision@2.5", "2.5"),
                                             ("precision@True", "True"), ("ap@1e3", "1e3"),
                                             ("recall@ten", "ten"),
                                             ("recall@99999999999999999999",
                                              "at most 2**31 - 1")])
def test_j_bad_k_in_metric_strings(spec: str, shown: str) -> None:
    with pytest.raises(InvalidParameterError, match=re.escape(shown)) as info:
        rv.metrics.parse(spec)
    assert info.value.parameter == "k"
    assert "k" in str(info.value) or "cutoff" in str(info.value)


@pytest.mark.parametrize("k", [0, -1, 2.5, True, False, "3", np.float64(2.0), 2**31, 2**63])
def test_j_bad_k_in_metric_objects(k: Any) -> None:
    with pytest.raises(InvalidParameterError, match=r"cutoff k of Precision must be an integer "
                       r">= 1.*got " + re.escape(repr(k))) as info:
        rv.metrics.Precision(k=k)
    assert info.value.parameter == "k"


@pytest.mark.parametrize("spec", ["ndcg@0", "precision@-1", "recall@2.5", "mrr@True"])
def test_j_bad_k_before_any_computation(spec: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        rv.evaluate(RECS_F, TRUTH_F, [spec])
    assert info.value.parameter == "k"
    # the metrics are checked before the data is even read
    with pytest.raises(InvalidParameterError) as info:
        rv.evaluate(object(), object(), ["mrr", spec])
    assert info.value.parameter == "k"


def test_j_k_on_a_metric_without_cutoff() -> None:
    with pytest.raises(InvalidParameterError, match=r"RMSE takes no cutoff") as info:
        rv.metrics.parse("rmse@5")
    assert info.value.parameter == "k"


def test_j_k_larger_than_the_lists() -> None:
    # u: a z c d (c relevant): precision@10 = 1/10, precision (whole list) = 1/4
    ev = rv.evaluate(RECS_F, TRUTH_F, ["precision@10", "precision", "recall@10", "ndcg@10"],
                     ties="item")
    assert close(ev["precision@10"], 1 / 10)
    assert close(ev["precision"], 1 / 4)
    assert ev["recall@10"] == 1.0
    assert close(ev["ndcg@10"], 1 / L3)  # a, then c (ties='item': c < z) at rank 2


# ============================================================================================
# k. empty inputs, no user left
# ============================================================================================
@pytest.mark.parametrize("side", ["recs", "truth"])
def test_k_empty_tables(side: str) -> None:
    recs, truth = (RECS_F.iloc[:0], TRUTH_F) if side == "recs" else (RECS_F, TRUTH_F.iloc[:0])
    with pytest.raises(EmptyInputError, match=rf"{side} is empty") as info:
        rv.evaluate(recs, truth, ["mrr"])
    assert info.value.parameter == side


@pytest.mark.parametrize("side", ["recs", "truth"])
def test_k_empty_tables_without_dtypes(side: str) -> None:
    # a frame with the right column names and no rows (object dtype) is empty, not mistyped
    empty = pd.DataFrame(columns=["user", "item", "score" if side == "recs" else "rating"])
    recs, truth = (empty, TRUTH_F) if side == "recs" else (RECS_F, empty)
    with pytest.raises(EmptyInputError, match=rf"{side} is empty"):
        rv.evaluate(recs, truth, ["mrr"])


def test_k_empty_dicts() -> None:
    with pytest.raises(EmptyInputError, match="recs is empty"):
        rv.evaluate({}, {"u": {"a": 1}}, ["mrr"])
    with pytest.raises(EmptyInputError, match="truth is empty"):
        rv.evaluate({"u": {"a": 1.0}}, {}, ["mrr"])


def test_k_no_user_left() -> None:
    truth = truth_df([("u", "c", 0), ("w", "c", 1), ("x", "c", 0)])
    with pytest.raises(
            EmptyInputError, match=r"no user can be evaluated on ranking metrics: 3 truth "
            r"users, of whom 2 have no relevant item and 2 have no recommendations"):
        rv.evaluate(RECS_F, truth, ["mrr"], missing_recs="skip")


# ============================================================================================
# l. ids of different types
# ============================================================================================
RECS_L = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 10], "score": [.9, .5, .4]})
TRUTH_L = pd.DataFrame({"user": ["1", "2"], "item": [11, 10], "rating": [1.0, 1.0]})


def test_l_int_vs_str_user_ids() -> None:
    with pytest.raises(IdTypeMismatchError, match=r"user ids have different types: recs column "
                       r"'user' holds integer ids \(dtype int64\) and truth column 'user' holds "
                       r"string ids") as info:
        rv.evaluate(RECS_L, TRUTH_L, ["mrr"])
    assert info.value.column == "user"
    assert info.value.examples[0] == "int64"
    assert "convert one side first, or pass id_cast='str' or 'int' (--id-cast)" in \
        str(info.value)


def test_l_int_vs_str_names_both_columns() -> None:
    recs = RECS_L.rename(columns={"user": "userId"})
    truth = TRUTH_L.rename(columns={"user": "uid"})
    with pytest.raises(IdTypeMismatchError, match=r"recs column 'userId'.*truth column 'uid'"):
        rv.evaluate(recs, truth, ["mrr"])


@pytest.mark.parametrize(("cast", "users"), [("str", ["1", "2"]), ("int", [1, 2])])
def test_l_id_cast(cast: str, users: list[Any]) -> None:
    ev = rv.evaluate(RECS_L, TRUTH_L, ["mrr"], id_cast=cast)
    assert list(ev.per_user.index) == users
    assert per_user(ev, "mrr") == dict(zip(users, [0.5, 1.0], strict=True))
    assert ev.settings["id_cast"] == cast


def test_l_float_vs_int_ids() -> None:
    recs = RECS_L.assign(user=[1.0, 1.0, 2.0])
    truth = TRUTH_L.assign(user=[1, 2])
    with pytest.raises(IdTypeMismatchError, match=r"float ids \(dtype float64\).*integer ids "
                       r"\(dtype int64\)"):
        rv.evaluate(recs, truth, ["mrr"])
    for cast in ("int", "str"):
        ev = rv.evaluate(recs, truth, ["mrr"], id_cast=cast)
        assert sorted(per_user(ev, "mrr").values()) == [0.5, 1.0]
        assert len(ev.users.recs_without_truth) == 0


def test_l_mixed_column() -> None:
    recs = RECS_L.assign(user=pd.Series([1, "1", 2], dtype=object))
    with pytest.raises(IdTypeMismatchError, match=r"recs: the user id column 'user' mixes value "
                       r"types \['int', 'str'\]") as info:
        rv.evaluate(recs, TRUTH_L, ["mrr"])
    assert info.value.column == "user"
    assert set(info.value.examples) == {"int", "str"}
    ev = rv.evaluate(recs, TRUTH_L, ["mrr"], id_cast="str")
    assert per_user(ev, "mrr") == {"1": 0.5, "2": 1.0}


def test_l_id_cast_int_rejects_non_integral() -> None:
    recs = RECS_L.assign(user=[1.5, 1.5, 2.0])
    with pytest.raises(IdTypeMismatchError, match=r"id_cast='int' found 2 non-integral user "
                       r"ids in column 'user'") as info:
        rv.evaluate(recs, TRUTH_L, ["mrr"], id_cast="int")
    assert info.value.n_bad == 2
    assert info.value.examples == (1.5, 1.5)


def test_l_invalid_id_cast() -> None:
    with pytest.raises(InvalidParameterError, match=r"id_cast must be None, 'str' or 'int'; "
                       r"got 'float'") as info:
        rv.evaluate(RECS_L, TRUTH_L, ["mrr"], id_cast="float")
    assert info.value.parameter == "id_cast"


# ============================================================================================
# m. huge and Unicode ids; look-alike ids
# ============================================================================================
U64 = 2**64 - 1
I64 = 2**63 - 1


@pytest.mark.parametrize(("dtype", "top"), [(np.uint64, U64), (np.int64, I64)])
def test_m_huge_integer_ids_exact(dtype: type, top: int) -> None:
    # top and top - 1 are the same float64: an id cast to float would merge them
    assert float(top) == float(top - 1)
    recs = pd.DataFrame({"user": np.array([top, top, top - 1, top - 1], dtype=dtype),
                         "item": np.array([top, top - 1, top - 1, top], dtype=dtype),
                         "score": [.9, .5, .8, .4]})
    truth = pd.DataFrame({"user": np.array([top, top - 1], dtype=dtype),
                          "item": np.array([top - 1, top - 1], dtype=dtype)})
    ev = rv.evaluate(recs, truth, ["mrr", "precision@1"])
    assert per_user(ev, "mrr") == {top - 1: 1.0, top: 0.5}
    assert [int(u) for u in ev.per_user.index] == [top - 1, top]
    assert ev.users.n_users == 2


def test_m_uint64_ids_spanning_the_whole_range() -> None:
    ids = np.array([0, 1, 2**63, U64], dtype=np.uint64)
    recs = pd.DataFrame({"user": ids, "item": ids[::-1], "score": [1.0, 1.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": ids, "item": ids[::-1]})  # every top item is relevant
    ev = rv.evaluate(recs, truth, ["mrr"])
    assert per_user(ev, "mrr") == {0: 1.0, 1: 1.0, 2**63: 1.0, U64: 1.0}
    truth = pd.DataFrame({"user": ids, "item": ids})  # ids[i] != ids[3 - i] for every i
    ev = rv.evaluate(recs, truth, ["mrr"])
    assert per_user(ev, "mrr") == {0: 0.0, 1: 0.0, 2**63: 0.0, U64: 0.0}


def test_m_unicode_ids() -> None:
    family = "\U0001f468\u200d\U0001f469"  # a ZWJ sequence
    recs = recs_df([("\u7528\u6237", "\u7269\u54c1", .9), ("\u7528\u6237", "\U0001f389", .5),
                    ("\U0001f600", "\u7269\u54c1", .4), ("\U0001f600", family, .3)])
    truth = truth_df([("\u7528\u6237", "\U0001f389", 1), ("\U0001f600", "\u7269\u54c1", 1)])
    ev = rv.evaluate(recs, truth, ["mrr", "precision@1"])
    assert per_user(ev, "mrr") == {"\u7528\u6237": 0.5, "\U0001f600": 1.0}
    assert ev["precision@1"] == 0.5


def test_m_nfc_vs_nfd_lookalikes_warn() -> None:
    nfc = unicodedata.normalize("NFC", "caf\u00e9")
    nfd = unicodedata.normalize("NFD", "caf\u00e9")
    assert nfc != nfd
    recs = recs_df([("u", nfc, .9), ("u", "x", .5)])
    truth = truth_df([("u", nfd, 1)])
    with pytest.warns(DataWarning, match=r"item ids that differ only by Unicode normalisation") \
            as record:
        ev = rv.evaluate(recs, truth, ["mrr"])
    assert repr((nfc, nfd)) in str(record[0].message)
    assert ev["mrr"] == 0.0  # different ids: no hit
    with pytest.raises(DataError, match=r"Unicode normalisation.*strict=True") as info:
        rv.evaluate(recs, truth, ["mrr"], strict=True)
    assert info.value.examples == ((nfc, nfd),)


def test_m_surrounding_spaces_lookalikes_warn() -> None:
    recs = recs_df([("u ", "a", .9), ("v", "a", .9)])
    truth = truth_df([("u", "a", 1), ("v", "a", 1)])
    with pytest.warns(DataWarning, match=r"user ids .*\('u ', 'u'\)"):
        ev = rv.evaluate(recs, truth, ["mrr"])
    assert list(ev.users.recs_without_truth) == ["u "]
    assert list(ev.users.missing_recs) == ["u"]


# ============================================================================================
# n. a list shorter than k:  u: a b (b relevant), |R| = 3
# ============================================================================================
def test_n_short_list() -> None:
    recs = recs_df([("u", "a", .9), ("u", "b", .5)])
    truth = truth_df([("u", "b", 1), ("u", "c", 1), ("u", "d", 1)])
    ev = rv.evaluate(recs, truth, ["precision@5", "recall@5", "ap(denominator=relevant)@5",
                                   "ndcg@5", "precision"])
    assert close(ev["precision@5"], 1 / 5)
    assert close(ev["recall@5"], 1 / 3)
    assert close(ev["ap(denominator=relevant)@5"], (1 / 2) / 3)
    assert close(ev["ndcg@5"], (1 / L3) / (1 + 1 / L3 + 1 / 2))
    assert close(ev["precision"], 1 / 2)


# ============================================================================================
# o. float grades; huge grades with exponential gain
# ============================================================================================
def test_o_float_grades_are_not_truncated() -> None:
    recs = recs_df([("u", "a", .9), ("u", "b", .5)])
    truth = truth_df([("u", "a", 1.5), ("u", "b", 2.5)])
    ev = rv.evaluate(recs, truth, ["dcg@2", "cg@2", "ndcg@2"])
    assert close(ev["dcg@2"], 1.5 + 2.5 / L3)
    assert ev["cg@2"] == 4.0
    assert close(ev["ndcg@2"], (1.5 + 2.5 / L3) / (2.5 + 1.5 / L3))


def exact_ndcg_exponential(list_grades: list[int], all_grades: list[int], k: int | None
                           ) -> float:
    """nDCG with gain 2^g - 1 (Python integers, exact) and discounts 1/log2(i+1) (floats,
    taken exactly as Fractions): the ratio is exact before the final rounding."""
    def dcg(grades: list[int]) -> Fraction:
        cut = grades if k is None else grades[:k]
        return sum((Fraction(2**g - 1) * Fraction(1 / math.log2(i + 2))
                    for i, g in enumerate(cut)), Fraction(0))
    ideal = sorted((g for g in all_grades if g > 0), reverse=True)
    return float(dcg(list_grades) / dcg(ideal))


@pytest.mark.parametrize("k", [2, 3, None])
def test_o_huge_grades_ndcg_exponential_is_exact(k: int | None) -> None:
    # list a(1000) b(1100) c(0) d(1099); truth also e(1050), not recommended
    grades = {"a": 1000, "b": 1100, "c": 0, "d": 1099, "e": 1050}
    recs = recs_df([("u", i, s) for i, s in zip("abcd", [.9, .8, .7, .6], strict=True)])
    truth = truth_df([("u", i, g) for i, g in grades.items()])
    spec = "ndcg(gain=exponential)" + (f"@{k}" if k else "")
    ev = rv.evaluate(recs, truth, [spec])
    value = ev[spec]
    assert math.isfinite(value)
    expected = exact_ndcg_exponential([grades[i] for i in "abcd"], list(grades.values()), k)
    assert math.isclose(value, expected, rel_tol=1e-12), (value, expected)
    assert not math.isclose(value, 1.0)
    # and a small-grade user in the same call is unaffected
    recs2 = pd.concat([recs, recs_df([("v", "a", .9), ("v", "b", .8)])])
    truth2 = pd.concat([truth, truth_df([("v", "a", 1), ("v", "b", 3)])])
    ev2 = rv.evaluate(recs2, truth2, [spec])
    small = exact_ndcg_exponential([1, 3], [1, 3], k)
    assert math.isclose(per_user(ev2, spec)["v"], small, rel_tol=1e-12)
    assert math.isclose(per_user(ev2, spec)["u"], expected, rel_tol=1e-12)


@pytest.mark.parametrize("spec", ["dcg(gain=exponential)@2", "cg(gain=exponential)",
                                  "dcg(gain=exponential, discount=breese)"])
def test_o_huge_grades_dcg_exponential_raise(spec: str) -> None:
    recs = recs_df([("u", "a", .9), ("u", "b", .8), ("v", "a", .9)])
    truth = truth_df([("u", "a", 1000), ("u", "b", 1100), ("v", "a", 1)])
    with pytest.raises(InvalidGradeError, match=r"gains overflow to infinity for 1 users "
                       r"\(e\.g\. 'u'\).*gain='linear'") as info:
        rv.evaluate(recs, truth, [spec])
    assert info.value.parameter == "gain"
    assert (info.value.n_bad, info.value.examples) == (1, ("u",))
    ev = rv.evaluate(recs, truth, [spec.replace("exponential", "linear")])
    assert math.isfinite(ev[spec.replace("exponential", "linear")])


def test_o_large_but_finite_exponential_dcg() -> None:
    recs = recs_df([("u", "a", .9)])
    truth = truth_df([("u", "a", 1000)])
    ev = rv.evaluate(recs, truth, ["dcg(gain=exponential)"])
    assert ev["dcg(gain=exponential)"] == float(2**1000 - 1)


# ============================================================================================
# p. unsorted rows
# ============================================================================================
def test_p_unsorted_rows_are_sorted_per_user() -> None:
    rows = [("v", "a", .1), ("u", "b", .2), ("u", "c", .9), ("v", "d", .8), ("u", "a", .5),
            ("w", "x", 3.0), ("w", "y", 1.0), ("w", "z", 2.0)]
    truth = truth_df([("u", "c", 1), ("u", "a", 2), ("v", "a", 1), ("w", "z", 1)])
    metrics = ["mrr", "ndcg@2", "ap@3"]
    ev = rv.evaluate(recs_df(rows), truth, metrics)
    assert per_user(ev, "mrr") == {"u": 1.0, "v": 0.5, "w": 0.5}
    rng = np.random.default_rng(7)
    for _ in range(5):
        shuffled = [rows[i] for i in rng.permutation(len(rows))]
        other = rv.evaluate(recs_df(shuffled), truth.sample(frac=1, random_state=1), metrics)
        for m in metrics:
            assert per_user(other, m) == per_user(ev, m)
            assert other[m] == ev[m]


# ============================================================================================
# q. a rank column that contradicts the score column
# ============================================================================================
RECS_Q = pd.DataFrame({"user": ["u", "u", "u", "v", "v"], "item": ["a", "b", "c", "a", "b"],
                       "score": [.9, .5, .1, .9, .5], "rank": [1, 3, 2, 1, 2]})
TRUTH_Q = truth_df([("u", "c", 1), ("v", "b", 1)])


def test_q_rank_score_mismatch() -> None:
    with pytest.raises(RankScoreMismatchError, match=r"recs: the rank column 'rank' and the "
                       r"score column 'score' disagree for 1 users.*'u'.*"
                       r"columns=Columns\(score=\.\.\.\)") as info:
        rv.evaluate(RECS_Q, TRUTH_Q, ["mrr"])
    assert info.value.column == "rank"
    assert (info.value.n_bad, info.value.examples) == (1, ("u",))


def test_q_agreeing_rank_and_score() -> None:
    recs = RECS_Q.assign(rank=[1, 2, 3, 1, 2])
    ev = rv.evaluate(recs, TRUTH_Q, ["mrr"])
    assert per_user(ev, "mrr") == {"u": 1 / 3, "v": 0.5}


@pytest.mark.parametrize(("role", "u_mrr"), [("score", 1 / 3), ("rank", 1 / 2)])
def test_q_choose_the_column_with_columns(role: str, u_mrr: float) -> None:
    # docs/bad-input.md: "name the one to use with columns=Columns(score=...) or
    # Columns(rank=...)"
    ev = rv.evaluate(RECS_Q, TRUTH_Q, ["mrr"], columns=rv.Columns(**{role: role}))
    assert per_user(ev, "mrr") == {"u": u_mrr, "v": 0.5}


def test_q_dropping_one_column_works() -> None:
    by_score = rv.evaluate(RECS_Q.drop(columns="rank"), TRUTH_Q, ["mrr"])
    by_rank = rv.evaluate(RECS_Q.drop(columns="score"), TRUTH_Q, ["mrr"])
    assert per_user(by_score, "mrr") == {"u": 1 / 3, "v": 0.5}
    assert per_user(by_rank, "mrr") == {"u": 1 / 2, "v": 0.5}


# ============================================================================================
# r. rating metrics: missing predictions; undefined correlations
#   predictions u: a 4, b 2;  v: a 3.   truth u: a 5, c 3;  v: a 1, b 2
#   pairs with a prediction: (u,a) |4-5| = 1, (v,a) |3-1| = 2
# ============================================================================================
RECS_R = recs_df([("u", "a", 4.0), ("u", "b", 2.0), ("v", "a", 3.0)])
TRUTH_R = truth_df([("u", "a", 5), ("u", "c", 3), ("v", "a", 1), ("v", "b", 2)])
MEAN_R = (5 + 3 + 1 + 2) / 4


def test_r_missing_predictions_raise() -> None:
    with pytest.raises(MissingPredictionError, match=r"2 truth ratings have no predicted rating "
                       r"in recs, e\.g\. \(user, item\) \('u', 'c'\), \('v', 'b'\).*"
                       r"missing_predictions=") as info:
        rv.evaluate(RECS_R, TRUTH_R, ["mae"])
    assert info.value.parameter == "missing_predictions"
    assert info.value.n_bad == 2
    assert info.value.examples == (("u", "c"), ("v", "b"))


@pytest.mark.parametrize(("policy", "errors"), [
    ("skip", {"u": [1.0], "v": [2.0]}),
    ("global_mean", {"u": [1.0, abs(MEAN_R - 3)], "v": [2.0, abs(MEAN_R - 2)]}),
    (3.0, {"u": [1.0, 0.0], "v": [2.0, 1.0]}),
    (0, {"u": [1.0, 3.0], "v": [2.0, 2.0]}),
])
def test_r_missing_predictions_policies(policy: Any, errors: dict[str, list[float]]) -> None:
    ev = rv.evaluate(RECS_R, TRUTH_R, ["mae", "rmse", "mae(aggregation=macro)"],
                     missing_predictions=policy)
    flat = [e for es in errors.values() for e in es]
    assert close(ev["mae"], sum(flat) / len(flat))
    assert close(ev["rmse"], math.sqrt(sum(e * e for e in flat) / len(flat)))
    assert close(ev["mae(aggregation=macro)"],
                 sum(sum(es) / len(es) for es in errors.values()) / len(errors))
    assert per_user(ev, "mae(aggregation=macro)") == pytest.approx(
        {u: sum(es) / len(es) for u, es in errors.items()}, rel=TOL)
    assert ev.users.n_missing_predictions == 2
    assert ev.settings["missing_predictions"] == policy
    assert sorted(ev.users.rating_evaluated) == ["u", "v"]


def test_r_missing_predictions_skip_drops_users_without_pairs() -> None:
    truth = pd.concat([TRUTH_R, truth_df([("w", "q", 4)])])
    recs = pd.concat([RECS_R, recs_df([("w", "z", 1.0)])])
    ev = rv.evaluate(recs, truth, ["mae"], missing_predictions="skip")
    assert list(ev.users.rating_skipped) == ["w"]
    assert ev.users.n_missing_predictions == 3
    assert close(ev["mae"], 1.5)


@pytest.mark.parametrize("value", ["mean", math.nan, math.inf, -math.inf, True, "none",
                                   [1.0]])
def test_r_invalid_missing_predictions(value: Any) -> None:
    with pytest.raises(InvalidParameterError, match=r"missing_predictions must be one of "
                       r"'error', 'skip', 'global_mean' or a finite number") as info:
        rv.evaluate(RECS_R, TRUTH_R, ["mae"], missing_predictions=value)
    assert info.value.parameter == "missing_predictions"


def test_r_undefined_correlation() -> None:
    # u has one pair (undefined); v has three, in reverse order (rho = tau = -1)
    recs = recs_df([("u", "a", 4.0), ("v", "a", 3.0), ("v", "b", 2.0), ("v", "c", 1.0)])
    truth = truth_df([("u", "a", 5), ("v", "a", 1), ("v", "b", 2), ("v", "c", 3)])
    with pytest.warns(UndefinedMetricWarning, match=r"is undefined for 1 users") as record:
        ev = rv.evaluate(recs, truth, ["spearman", "kendall"])
    assert sorted(str(w.message).split()[0] for w in record) == ["Kendall", "Spearman"]
    assert ev["spearman"] == -1.0
    assert ev["kendall"] == -1.0
    assert ev.summaries["Spearman"].n_undefined == 1
    assert ev.summaries["Spearman"].n_users == 1
    assert math.isnan(per_user(ev, "spearman")["u"])
    with pytest.raises(DataError, match=r"undefined for 1 users.*strict=True"):
        rv.evaluate(recs, truth, ["spearman"], strict=True)


def test_r_rating_metrics_need_ratings() -> None:
    with pytest.raises(InvalidParameterError, match=r"need true ratings: the truth has no "
                       r"rating column") as info:
        rv.evaluate(RECS_R, TRUTH_R.drop(columns="rating"), ["rmse"])
    assert info.value.parameter == "metrics"


# ============================================================================================
# s. recommended items outside the catalog
# ============================================================================================
RECS_S = recs_df([("u", "a", .9), ("u", "b", .5), ("v", "c", .5)])
TRUTH_S = truth_df([("u", "a", 1), ("v", "c", 1)])


def test_s_items_outside_catalog() -> None:
    with pytest.raises(DataError, match=r"2 recommended items are not in catalog \(e\.g\. "
                       r"'b', 'c'\); coverage would exceed") as info:
        rv.evaluate(RECS_S, TRUTH_S, ["item_coverage@2"], catalog=["a", "d"])
    assert info.value.parameter == "catalog"
    assert info.value.n_bad == 2
    assert set(info.value.examples) == {"b", "c"}


def test_s_wider_catalog() -> None:
    ev = rv.evaluate(RECS_S, TRUTH_S, ["item_coverage@2", "item_coverage@1"],
                     catalog=["a", "b", "c", "d", "e"])
    assert close(ev["item_coverage@2"], 3 / 5)
    assert close(ev["item_coverage@1"], 2 / 5)
    ev = rv.evaluate(RECS_S, TRUTH_S, ["item_coverage"])  # default: items of both tables
    assert ev["item_coverage"] == 1.0


@pytest.mark.parametrize("catalog", [[], 5, [[1]]])
def test_s_invalid_catalog(catalog: Any) -> None:
    with pytest.raises(InvalidParameterError, match="catalog") as info:
        rv.evaluate(RECS_S, TRUTH_S, ["item_coverage"], catalog=catalog)
    assert info.value.parameter == "catalog"


# ============================================================================================
# t. a column that cannot be found
# ============================================================================================
def test_t_missing_column_lists_aliases_and_columns() -> None:
    recs = RECS_S.rename(columns={"user": "who"})
    with pytest.raises(ColumnNotFoundError, match=r"recs: no user column; looked for "
                       r"\['user_id', 'user', 'userId'.*found none among the table's columns "
                       r"\['who', 'item', 'score'\].*columns=Columns\(user=\.\.\.\)") as info:
        rv.evaluate(recs, TRUTH_S, ["mrr"])
    assert isinstance(info.value, KeyError)
    assert info.value.column == "user"
    assert info.value.examples == ("who", "item", "score")


def test_t_missing_item_column_in_truth() -> None:
    truth = TRUTH_S.rename(columns={"item": "thing"})
    with pytest.raises(ColumnNotFoundError, match=r"truth: no item column.*\['user', 'thing', "
                       r"'rating'\]"):
        rv.evaluate(RECS_S, truth, ["mrr"])


def test_t_columns_override() -> None:
    recs = RECS_S.rename(columns={"user": "who"})
    truth = TRUTH_S.rename(columns={"user": "who"})
    ev = rv.evaluate(recs, truth, ["mrr"], columns=rv.Columns(user="who"))
    assert per_user(ev, "mrr") == {"u": 1.0, "v": 1.0}
    ev = rv.evaluate(recs, truth, ["mrr"], columns={"user": "who"})
    assert ev["mrr"] == 1.0


def test_t_explicit_column_missing() -> None:
    with pytest.raises(ColumnNotFoundError, match=r"recs: the user column 'who' \(set by "
                       r"columns=Columns\(user=...\)\) is not in the table; its columns are "
                       r"\['user', 'item', 'score'\]") as info:
        rv.evaluate(RECS_S, TRUTH_S, ["mrr"], columns={"user": "who"})
    assert info.value.column == "who"


def test_t_ambiguous_alias() -> None:
    recs = RECS_S.assign(user_id=RECS_S["user"])
    with pytest.raises(ColumnNotFoundError, match=r"recs: several columns could hold the user: "
                       r"\['user_id', 'user'\]") as info:
        rv.evaluate(recs, TRUTH_S, ["mrr"])
    assert set(info.value.examples) == {"user_id", "user"}


def test_t_unknown_role() -> None:
    with pytest.raises(InvalidParameterError, match=r"columns= has unknown roles \['usr'\]") \
            as info:
        rv.evaluate(RECS_S, TRUTH_S, ["mrr"], columns={"usr": "who"})
    assert info.value.parameter == "columns"


@pytest.mark.parametrize("values", [["x", "y", "z"], [True, False, True],
                                    [1 + 0j, 2 + 1j, 0j], pd.to_datetime([0, 1, 2])],
                         ids=["str", "bool", "complex", "datetime"])
def test_t_non_numeric_score(values: Any) -> None:
    recs = RECS_S.assign(score=values)
    with pytest.raises(SchemaError, match=r"recs: the score column 'score' must be numeric") \
            as info:
        rv.evaluate(recs, TRUTH_S, ["mrr"])
    assert info.value.column == "score"


@pytest.mark.parametrize(("recs", "truth"), [
    ({"u": {"a": "x"}}, {"u": {"a": 1}}),
    ({"u": {"a": 1.0}}, {"u": {"a": "high"}}),
    ({"u": {"a": 1.0}}, {"u": {"a": [1]}}),
], ids=["str-score", "str-grade", "list-grade"])
def test_t_non_numeric_dict_values(recs: Any, truth: Any) -> None:
    with pytest.raises(SchemaError, match=r"must be numeric"):
        rv.evaluate(recs, truth, ["mrr"])


def test_t_repeated_column_names() -> None:
    recs = RECS_S.assign(extra=1.0).set_axis(["user", "item", "score", "score"], axis=1)
    with pytest.raises(SchemaError, match="score"):
        rv.evaluate(recs, TRUTH_S, ["mrr"])


# ============================================================================================
# u. a malformed file
# ============================================================================================
@pytest.fixture
def truth_csv(tmp_path: Path) -> Path:
    path = tmp_path / "truth.csv"
    path.write_text("user,item,rating\nu,a,1\n")
    return path


def _malformed_case(tmp_path: Path, truth_csv: Path, name: str, text: str
                    ) -> tuple[Path, Path]:
    """Write a malformed recs file; a TREC run gets a qrels truth, the others the CSV one."""
    path = tmp_path / name
    path.write_text(text)
    if not name.endswith(".run"):
        return path, truth_csv
    truth = tmp_path / "t.qrels"
    truth.write_text("u 0 a 1\n")
    return path, truth


@pytest.mark.parametrize(("name", "text", "line"), [
    ("recs.csv", "user,item,score\nu,a,1.0\nu,b,2.0,7,8\n", 3),
    ("recs.tsv", "user\titem\tscore\nu\ta\t1.0\nu\tb\t2.0\t7\n", 3),
    ("recs.run", "u Q0 a 1 2.0 tag\nu Q0 b 2 1.0 tag extra more\n", 2),
])
def test_u_malformed_text_file_extra_fields(tmp_path: Path, truth_csv: Path, name: str,
                                            text: str, line: int) -> None:
    path, truth = _malformed_case(tmp_path, truth_csv, name, text)
    with pytest.raises(SchemaError, match=rf"{re.escape(name)}.*line {line}") as info:
        rv.evaluate(str(path), str(truth), ["mrr"])
    assert any(name in str(x) for x in info.value.examples)


@pytest.mark.parametrize(("name", "text", "line"), [
    ("recs.csv", "user,item,score\nu,a,1.0\nu,b\n", 3),
    ("recs.run", "u Q0 a 1 2.0 tag\nu Q0 b 2\n", 2),
])
def test_u_malformed_text_file_missing_fields(tmp_path: Path, truth_csv: Path, name: str,
                                              text: str, line: int) -> None:
    path, truth = _malformed_case(tmp_path, truth_csv, name, text)
    with pytest.raises(SchemaError, match=rf"{re.escape(name)}.*line {line}"):
        rv.evaluate(str(path), str(truth), ["mrr"])


def test_u_malformed_qrels_missing_field(tmp_path: Path) -> None:
    run = tmp_path / "r.run"
    run.write_text("u Q0 a 1 2.0 tag\n")
    qrels = tmp_path / "t.qrels"
    qrels.write_text("u 0 a 1\nu 0 b\n")
    with pytest.raises(SchemaError, match=r"t\.qrels.*line 2"):
        rv.evaluate(str(run), str(qrels), ["mrr"])


def test_u_non_numeric_cell_in_csv(tmp_path: Path, truth_csv: Path) -> None:
    path = tmp_path / "recs.csv"
    path.write_text("user,item,score\nu,a,1.0\nu,b,notanumber\n")
    with pytest.raises(SchemaError, match=r"recs\.csv.*line 3"):
        rv.evaluate(str(path), str(truth_csv), ["mrr"])


def test_u_corrupt_parquet(tmp_path: Path, truth_csv: Path) -> None:
    path = tmp_path / "recs.parquet"
    path.write_bytes(b"PAR1 this is not a parquet file")
    with pytest.raises(SchemaError, match=r"cannot read '.*recs\.parquet' as Parquet") as info:
        rv.evaluate(str(path), str(truth_csv), ["mrr"])
    assert info.value.examples == (str(path),)


def test_u_headerless_file_with_too_many_columns(tmp_path: Path, truth_csv: Path) -> None:
    path = tmp_path / "recs.csv"
    path.write_text("u,a,1.0,3\nu,b,0.5,4\n")
    with pytest.raises(SchemaError, match=r"recs\.csv' has no header and 4 columns"):
        rv.evaluate(str(path), str(truth_csv), ["mrr"])


def test_u_missing_file_and_unknown_format(tmp_path: Path, truth_csv: Path) -> None:
    with pytest.raises(InvalidParameterError, match=r"no such file: '.*nope\.csv'") as info:
        rv.evaluate(str(tmp_path / "nope.csv"), str(truth_csv), ["mrr"])
    assert info.value.parameter == "path"
    odd = tmp_path / "recs.xyz"
    odd.write_text("user,item\nu,a\n")
    with pytest.raises(InvalidParameterError, match=r"cannot tell the format of") as info:
        rv.evaluate(str(odd), str(truth_csv), ["mrr"])
    assert info.value.parameter == "format"


# ============================================================================================
# v. an unknown metric or parameter
# ============================================================================================
def test_v_unknown_metric() -> None:
    with pytest.raises(UnknownMetricError, match=r"unknown metric 'ndgc'; did you mean "
                       r"'ndcg'") as info:
        rv.evaluate(RECS_S, TRUTH_S, ["ndgc@10"])
    assert isinstance(info.value, KeyError)
    assert isinstance(info.value, InvalidParameterError)
    assert "ndcg" in info.value.examples
    assert info.value.parameter == "metrics"
    assert str(info.value).startswith("unknown metric")


def test_v_unknown_metric_parameter() -> None:
    with pytest.raises(UnknownMetricError, match=r"NDCG has no parameter 'gian'; did you mean "
                       r"'gain'") as info:
        rv.metrics.parse("ndcg(gian=exponential)@10")
    assert info.value.parameter == "gian"
    assert info.value.examples == ("gain",)


def test_v_bad_parameter_value() -> None:
    with pytest.raises(InvalidParameterError, match=r"the 'gain' parameter of NDCG must be one "
                       r"of 'linear', 'exponential', 'binary', 'shifted_exponential'; "
                       r"got 'expo'") as info:
        rv.metrics.parse("ndcg(gain=expo)@10")
    assert info.value.parameter == "gain"
    assert not isinstance(info.value, UnknownMetricError)


@pytest.mark.parametrize(("kwargs", "parameter"), [
    ({"convention": "ranks"}, "convention"), ({"missing_recs": "drop"}, "missing_recs"),
    ({"recs_without_truth": "skip"}, "recs_without_truth"),
])
def test_v_bad_evaluate_parameters(kwargs: dict[str, Any], parameter: str) -> None:
    with pytest.raises(InvalidParameterError, match=parameter) as info:
        rv.evaluate(RECS_S, TRUTH_S, ["mrr"], **kwargs)
    assert info.value.parameter == parameter


def test_v_empty_and_malformed_metric_lists() -> None:
    with pytest.raises(InvalidParameterError, match=r"metrics is empty"):
        rv.evaluate(RECS_S, TRUTH_S, [])
    with pytest.raises(InvalidParameterError, match=r"metrics is empty \(got None\)") as info:
        rv.evaluate(RECS_S, TRUTH_S, None)
    assert info.value.parameter == "metrics"
    with pytest.raises(InvalidParameterError, match=r"metrics must be a metric name, a Metric "
                       r"or a list of them.*got int 5"):
        rv.evaluate(RECS_S, TRUTH_S, 5)
    with pytest.raises(InvalidParameterError, match=r"a metric is a string"):
        rv.evaluate(RECS_S, TRUTH_S, [3])
    with pytest.raises(InvalidParameterError, match=r"cannot read metric"):
        rv.evaluate(RECS_S, TRUTH_S, ["ndcg@10 @5"])


def _cross_validate(**kwargs: Any) -> Any:
    data = pd.DataFrame({"user": [1, 1, 2, 2], "item": [1, 2, 1, 3], "rating": [5, 4, 3, 2]})
    return rv.cross_validate({"pop": "popular"}, data, ["ndcg@2"], split=[(data, data)], k=2,
                             **{"progress": False, **kwargs})


#: The doors that take evaluate's options as keywords (rv.compare: its own checks).
OPTION_DOORS = {"evaluate": lambda **kw: rv.evaluate(RECS_S, TRUTH_S, ["mrr"], **kw),
                "cross_validate": _cross_validate}


@pytest.mark.parametrize("door", sorted(OPTION_DOORS))
@pytest.mark.parametrize(("key", "close"), [
    ("relevance_treshold", "relevance_threshold"), ("missing_rec", "missing_recs"),
    ("Strict", "strict"), ("tie", "ties"), ("foo", None)])
def test_v_an_unknown_keyword_names_it_and_its_close_matches(door: str, key: str,
                                                              close: str | None) -> None:
    with pytest.raises(InvalidParameterError) as info:
        OPTION_DOORS[door](**{key: 4})
    message = str(info.value)
    assert f"{door}() got an unexpected keyword argument {key!r}" in message
    assert info.value.parameter == key
    if close is not None:
        assert f"did you mean {close}" in message
    else:
        assert "did you mean" not in message
    assert "no_relevant, missing_recs, recs_without_truth" in message  # the options, listed


@pytest.mark.parametrize("door", sorted(OPTION_DOORS))
@pytest.mark.parametrize("value", ["yes", "no", "false", 0, 1, 1.0, np.array([True]), None],
                         ids=repr)
@pytest.mark.parametrize("name", [o.name for o in EVALUATE_OPTIONS
                                  if o.kind in ("flag", "switch")])
def test_v_every_boolean_option_takes_booleans_only(door: str, name: str, value: Any) -> None:
    kind = next(o.kind for o in EVALUATE_OPTIONS if o.name == name)
    if value is None and kind == "switch":  # None: unset (the default)
        OPTION_DOORS["evaluate"](**{name: value})
        return
    with pytest.raises(InvalidParameterError) as info:
        OPTION_DOORS[door](**{name: value})
    assert info.value.parameter == name
    assert f"{name} must be True or False" in str(info.value)


@pytest.mark.parametrize("value", [True, False, np.bool_(True)], ids=repr)
def test_v_boolean_options_take_numpy_and_python_booleans(value: Any) -> None:
    ev = rv.evaluate(RECS_S, TRUTH_S, ["mrr"], strict=False, progress=value)
    assert ev["mrr"] == 1.0


def test_v_result_lookup_of_a_missing_metric() -> None:
    ev = rv.evaluate(RECS_S, TRUTH_S, ["mrr"])
    with pytest.raises(UnknownMetricError, match=r"'ndcg@10' is not in this result"):
        ev["ndcg@10"]
    assert "ndcg@10" not in ev
    assert "mrr" in ev
    assert "MRR" in ev


# ============================================================================================
# every row: messages show ids and row numbers as plain values (1, not np.int64(1))
# ============================================================================================
INT_RECS = pd.DataFrame({"user": [1, 1, 2], "item": [5, 6, 5], "score": [.9, .5, .4]})
INT_TRUTH = pd.DataFrame({"user": [1, 2], "item": [6, 5], "rating": [1.0, 1.0]})


@pytest.mark.parametrize(("case", "recs", "truth", "error", "shown"), [
    ("d", pd.concat([INT_RECS, INT_RECS.iloc[:1]]), INT_TRUTH, DuplicateRowError, "(1, 5)"),
    ("g", INT_RECS.assign(score=[.9, np.nan, np.nan]), INT_TRUTH, NonFiniteValueError,
     "rows [1, 2]"),
    ("g", INT_RECS.assign(user=pd.array([1, None, 2], dtype="Int64")), INT_TRUTH,
     NonFiniteValueError, "rows [1]"),
    ("i", INT_RECS, INT_TRUTH.assign(rating=[1.0, -1.0]), InvalidGradeError, "(2, 5, -1.0)"),
    ("q", INT_RECS.assign(rank=[2, 1, 1]), INT_TRUTH, RankScoreMismatchError, "users [1]"),
], ids=["d-duplicates", "g-nan-score", "g-null-id", "i-negative-grade", "q-rank-vs-score"])
def test_messages_show_plain_values(case: str, recs: pd.DataFrame, truth: pd.DataFrame,
                                    error: type[Exception], shown: str) -> None:
    with pytest.raises(error) as info:
        rv.evaluate(recs, truth, ["mrr"])
    message = str(info.value)
    assert "np." not in message, message
    assert shown in message, message


@pytest.mark.parametrize("per_user", ["spark", "polars", None])
def test_per_user_spark_needs_spark_inputs(per_user: Any, tmp_path: Path) -> None:
    """per_user='spark' keeps per-user values in Spark: for pandas or Parquet inputs it is an
    error naming per_user; another value is not an option at all."""
    with pytest.raises(InvalidParameterError) as info:
        rv.evaluate(INT_RECS, INT_TRUTH, ["mrr"], per_user=per_user)
    assert info.value.parameter == "per_user"
    INT_RECS.to_parquet(tmp_path / "recs.parquet")
    INT_TRUTH.to_parquet(tmp_path / "truth.parquet")
    match = "needs recs and truth as Spark" if per_user == "spark" else "one of 'pandas'"
    with pytest.raises(InvalidParameterError, match=match):
        rv.evaluate(tmp_path / "recs.parquet", tmp_path / "truth.parquet", ["mrr"],
                    per_user=per_user, buckets=2)
    assert rv.evaluate(INT_RECS, INT_TRUTH, ["mrr"], per_user="pandas")["mrr"] == 0.75


# -- the users table: a total, then cases that say where their users went ----------------------
# 1, 2: evaluated; 3: no recommendations; 5: no relevant item and no recommendations;
# 4: recommendations without truth
RECS_U = pd.DataFrame({"user_id": [1, 1, 2, 2, 4], "item_id": [10, 11, 12, 13, 10],
                       "score": [.9, .8, .7, .6, .5]})
TRUTH_U = pd.DataFrame({"user_id": [1, 2, 3, 5], "item_id": [10, 12, 10, 11],
                        "rating": [5, 4, 3, 0]})


@pytest.mark.parametrize("recs_without_truth", ["ignore", "zero"])
@pytest.mark.parametrize("missing_recs", ["zero", "skip"])
@pytest.mark.parametrize("no_relevant", ["skip", "zero"])
def test_users_summary_has_the_total_and_says_where_each_case_went(
        no_relevant: str, missing_recs: str, recs_without_truth: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        ev = rv.evaluate(RECS_U, TRUTH_U, ["ndcg@10"], no_relevant=no_relevant,
                         missing_recs=missing_recs, recs_without_truth=recs_without_truth)
    u, table = ev.users, ev.users.summary()
    assert list(table.index) == ["all users (both inputs)", "evaluated", "no relevant item",
                                 "no recommendations", "recommendations without truth"]
    count = table["count"].to_dict()
    assert count["all users (both inputs)"] == u.n_users == 5
    # the data are the same: each case counted whatever its policy
    assert (count["no relevant item"], count["no recommendations"],
            count["recommendations without truth"]) == (1, 2, 1)
    # each user evaluated or left out once: the partition adds up to the total
    assert len(u.evaluated) + len(u.skipped_no_relevant) + len(u.skipped_missing_recs) \
        + len(u.recs_without_truth) == count["all users (both inputs)"]
    handling = table["handling"].to_dict()
    went = {"skip": "left out", "ignore": "left out", "zero": "scored 0, counted in evaluated"}
    assert handling["no relevant item"] == f"no_relevant={no_relevant!r}: {went[no_relevant]}"
    assert handling["no recommendations"].startswith(
        f"missing_recs={missing_recs!r}: {went[missing_recs]}")
    assert ("or left out as a user without a relevant item" in handling["no recommendations"]) \
        == (no_relevant == "skip")
    assert handling["recommendations without truth"] == \
        f"recs_without_truth={recs_without_truth!r}: {went[recs_without_truth]}"
    assert "rows below overlap" in handling["all users (both inputs)"]
