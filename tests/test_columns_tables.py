"""Column names per table, and named columns that a table lacks, at every door.

Two classes of input (issue 22):

- ``rv.Columns`` naming the user (item, ...) column of one table apart from the others, in
  the flat form (``truth_user="user_id"``), the nested form (``truth=Columns(user=...)`` or
  a dict) and as a plain dict: every door that reads tables must honour it.
- a column named for a role (``Columns(timestamp="nope")``) that the table does not have:
  an error listing the table's columns at every door, never silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

import receval as rv
from receval._columns import ROLES, TABLES, Columns
from receval.exceptions import ColumnNotFoundError, InvalidParameterError

# recs under 'uid' / 'iid', truth under the defaults, train under 'who' / 'what'
RECS = pd.DataFrame({"uid": [1, 1, 2, 2], "iid": [10, 11, 10, 12],
                     "score": [0.9, 0.5, 0.8, 0.1]})
TRUTH = pd.DataFrame({"user_id": [1, 2], "item_id": [11, 12], "rating": [5.0, 4.0]})
TRAIN = pd.DataFrame({"who": [1, 1, 2, 3], "what": [10, 10, 11, 10]})
LOG = pd.DataFrame({"who": [1, 1, 1, 2, 2, 2, 3, 3], "what": [1, 2, 3, 1, 2, 4, 1, 3],
                    "when": [1, 2, 3, 4, 5, 6, 7, 8]})

PER_TABLE = {
    "flat": Columns(recs_user="uid", recs_item="iid", train_user="who", train_item="what"),
    "nested": Columns(recs=Columns(user="uid", item="iid"), train={"user": "who",
                                                                   "item": "what"}),
    "shared + truth": Columns(user="uid", item="iid", truth_user="user_id",
                              truth_item="item_id", train=Columns(user="who", item="what")),
    "dict": {"recs": {"user": "uid", "item": "iid"}, "train_user": "who",
             "train_item": "what"},
}


def test_the_forms_are_one_value() -> None:
    a = Columns(user="u", truth_user="t")
    assert a == Columns(user="u", truth=Columns(user="t")) == Columns.coerce(
        {"user": "u", "truth": {"user": "t"}}) == Columns.coerce({"user": "u",
                                                                  "truth_user": "t"})
    assert repr(a) == "Columns(user='u', truth=Columns(user='t'))"
    assert hash(a) == hash(Columns(user="u", truth={"user": "t"}))
    assert a.named("user", "truth") == "t"
    assert a.named("user", "recs") == "u"
    assert a.named("user", "fold 3: test") == "t"  # a cross-validation's test part is truth
    assert Columns(data_user="d").named("user", "fold 0: train") == "d"
    assert Columns(user="u").named("item", "truth") is None


@pytest.mark.parametrize("bad", [
    {"foo": "x"}, {"truth_foo": "x"}, {"nope_user": "x"}, {"truth": {"colour": "x"}},
    {"truth": 3}, {"user": 3}, {"truth": Columns(recs_user="x")},
    {"truth_user": "a", "truth": {"user": "b"}},
])
def test_bad_names_are_errors_that_list_the_names(bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidParameterError) as info:
        Columns.coerce(bad)
    assert info.value.parameter == "columns"


def test_the_unknown_name_message_lists_roles_and_tables() -> None:
    with pytest.raises(InvalidParameterError) as info:
        Columns(colour="x")
    for name in (*ROLES, *TABLES):
        assert name in str(info.value)


@pytest.mark.parametrize("form", list(PER_TABLE))
def test_evaluate_reads_each_table_under_its_own_names(form: str) -> None:
    ev = rv.evaluate(RECS, TRUTH, ["precision@1", "novelty@2"], columns=PER_TABLE[form],
                     train=TRAIN)
    # user 1 ranks 10 then 11 (relevant): P@1 = 0; user 2 ranks 10 first: P@1 = 0
    assert ev["precision@1"] == 0.0
    ref = rv.evaluate(RECS.rename(columns={"uid": "user_id", "iid": "item_id"}), TRUTH,
                      ["novelty@2"], train=TRAIN.rename(columns={"who": "user_id",
                                                                 "what": "item_id"}))
    assert ev["novelty@2"] == ref["novelty@2"]


def test_item_features_under_their_own_item_column() -> None:
    feats = pd.DataFrame({"movie": [10, 11, 12], "a": [1.0, 0.0, 1.0], "b": [0.0, 1.0, 1.0]})
    ev = rv.evaluate(RECS, TRUTH, ["diversity@2"], item_features=feats,
                     columns=Columns(user="uid", item="iid", truth=Columns(user="user_id",
                                                                            item="item_id"),
                                     item_features_item="movie"))
    ref = rv.evaluate(RECS.rename(columns={"uid": "user_id", "iid": "item_id"}), TRUTH,
                      ["diversity@2"], item_features=feats.rename(columns={"movie": "item_id"}))
    assert ev["diversity@2"] == ref["diversity@2"]


def test_compare_reads_each_table_under_its_own_names() -> None:
    cmp = rv.compare({"a": RECS, "b": RECS.assign(score=-RECS["score"])}, TRUTH,
                     ["precision@1"], columns=Columns(recs_user="uid", recs_item="iid"))
    # b ranks 11 first for user 1 and 12 first for user 2: P@1 = 1
    assert cmp.table()["Precision@1"].tolist() == [0.0, 1.0]


@pytest.mark.parametrize("splitter", [
    lambda d, c: rv.split.random(d, 0.25, columns=c),
    lambda d, c: rv.split.temporal(d, 0.25, columns=c),
    lambda d, c: rv.split.leave_k_out(d, 1, columns=c),
    lambda d, c: rv.split.kfold(d, 2, columns=c)[0],
])
@pytest.mark.parametrize("columns", [
    Columns(data_user="who", data_item="what", data_timestamp="when"),
    {"data": {"user": "who", "item": "what", "timestamp": "when"}},
    Columns(user="who", item="what", timestamp="when"),
])
def test_splits_read_data_under_its_own_names(splitter: Callable[..., Any],
                                              columns: Any) -> None:
    s = splitter(LOG, columns)
    assert s.report.settings["columns"] == {"user": "who", "item": "what", "timestamp": "when"}
    assert s.report.rows["train"] + s.report.rows["test"] == len(LOG)


def test_cross_validate_reads_data_and_folds_under_data_names() -> None:
    data = LOG.assign(rating=[5.0, 3, 4, 2, 5, 1, 4, 4])
    cols = Columns(data=Columns(user="who", item="what", timestamp="when"))
    folds = rv.split.kfold(data, 2, columns=cols)
    cv = rv.cross_validate({"pop": rv.models.MostPopular()}, data, ["recall@2"], split=folds,
                           k=2, columns=cols)
    same = rv.cross_validate({"pop": rv.models.MostPopular()}, data, ["recall@2"],
                             split=folds, k=2, columns=Columns(user="who", item="what",
                                                               timestamp="when"))
    pd.testing.assert_frame_equal(cv.per_fold, same.per_fold)


def test_sampled_negatives_read_test_as_truth() -> None:
    test = pd.DataFrame({"u": [1, 2], "item_id": [1, 2]})
    cand = rv.sampled.negatives(test, 2, items=[1, 2, 3, 4], columns=Columns(truth_user="u"),
                                seed=0)
    assert len(cand) == 6


# --- a named column the table lacks: every door, every role it reads ----------------------

def _doors() -> dict[str, Callable[[dict[str, str]], Any]]:
    log = LOG.rename(columns={"who": "user_id", "what": "item_id", "when": "timestamp"})
    recs = RECS.rename(columns={"uid": "user_id", "iid": "item_id"})
    return {
        "evaluate": lambda c: rv.evaluate(recs, TRUTH, ["precision@1"], columns=c),
        "evaluate train": lambda c: rv.evaluate(recs, TRUTH, ["novelty@1"], columns=c,
                                                train=TRUTH),
        "compare": lambda c: rv.compare({"a": recs, "b": recs}, TRUTH, ["precision@1"],
                                        columns=c),
        "split.random": lambda c: rv.split.random(log, 0.25, columns=c),
        "split.temporal": lambda c: rv.split.temporal(log, 0.25, columns=c),
        "split.leave_k_out": lambda c: rv.split.leave_k_out(log, columns=c),
        "split.kfold": lambda c: rv.split.kfold(log, 2, columns=c),
        "cross_validate": lambda c: rv.cross_validate(
            {"pop": rv.models.MostPopular()}, log, ["recall@2"],
            split=rv.split.kfold(log, 2), k=2, columns=c),
        "negatives": lambda c: rv.sampled.negatives(TRUTH, 1, items=[11, 12, 13], columns=c),
    }


#: The roles each door reads (a name set for one of them must exist).
READS = {"evaluate": ("user", "item", "score", "rating"),
         "evaluate train": ("user", "item"), "compare": ("user", "item", "score", "rating"),
         "split.random": ("user", "item", "timestamp"),
         "split.temporal": ("user", "item", "timestamp"),
         "split.leave_k_out": ("user", "item", "timestamp"),
         "split.kfold": ("user", "item", "timestamp"),
         "cross_validate": ("user", "item", "timestamp"), "negatives": ("user", "item")}


@pytest.mark.parametrize(("door", "role"), [(d, r) for d, roles in READS.items()
                                            for r in roles])
def test_a_named_column_that_is_missing_is_an_error(door: str, role: str) -> None:
    with pytest.raises(ColumnNotFoundError) as info:
        _doors()[door]({role: "nope"})
    message = str(info.value)
    assert f"the {role} column 'nope'" in message
    assert "its columns are [" in message
    assert info.value.column == "nope"


@pytest.mark.parametrize(("door", "table", "role"), [
    (door, table, role) for door, table in (
        ("split.random", "data"), ("split.kfold", "data"), ("evaluate", "truth"),
        ("evaluate", "recs"), ("evaluate train", "train"))
    for role in ("timestamp", "rating", "rank")])
def test_a_column_named_for_one_table_must_exist_whatever_it_reads(door: str, table: str,
                                                                   role: str) -> None:
    with pytest.raises(ColumnNotFoundError, match=f"{table}_{role}=") as info:
        _doors()[door]({f"{table}_{role}": "nope"})
    assert "its columns are [" in str(info.value)


def test_naming_both_score_and_rank_reads_both() -> None:
    """Naming both used to look up neither (recs read in input order, no disagreement check)."""
    recs = pd.DataFrame({"user_id": [1, 1], "item_id": [10, 11], "s": [0.1, 0.9],
                         "r": [1, 2]})
    with pytest.raises(rv.exceptions.RankScoreMismatchError):
        rv.evaluate(recs, TRUTH, ["precision@1"], columns=Columns(score="s", rank="r"))


@pytest.mark.parametrize("flags", [["--time-col", "nope"], ["--column", "data_timestamp=nope"]])
def test_the_split_command_refuses_a_missing_named_column(tmp_path: Any,
                                                          flags: list[str]) -> None:
    from click.testing import CliRunner

    from receval.cli import cli

    path = tmp_path / "log.csv"
    LOG.rename(columns={"who": "user_id", "what": "item_id"}).to_csv(path, index=False)
    out = CliRunner().invoke(cli, ["split", str(path), *flags])
    assert out.exit_code == 2
    assert "the timestamp column 'nope'" in out.output
    assert "'when'" in out.output
