"""Every option of ``evaluate`` is declared once and reaches every command that evaluates.

The class (issue 22): ``receval report --train FILE`` read the file and never passed it to
``evaluate``; ``evaluate`` and ``compare`` had no ``--train`` and no ``--item-features``.
Here: the declaration lists exactly ``evaluate``'s keywords and defaults; every command that
evaluates has a flag for every declared option; and every flag's value arrives in the
``evaluate`` calls of every command (a spy records them), tables read from their files.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import click
import pandas as pd
import pytest
from click.testing import CliRunner

import receval as rv
from receval._evaluate_options import EVALUATE_OPTIONS, KINDS, EvaluateOption, defaults
from receval.cli import cli
from receval.cli._options import cli_options, evaluate_flags

#: Every command that evaluates (``evaluate --all-conventions`` is a door of its own).
COMMANDS = ("evaluate", "compare", "report", "cv")


def test_the_declaration_is_evaluates_signature() -> None:
    params = inspect.signature(rv.evaluate).parameters
    keywords = {name: p.default for name, p in params.items()
                if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert [o.name for o in EVALUATE_OPTIONS] == list(keywords)
    assert dict(defaults()) == keywords
    for o in EVALUATE_OPTIONS:
        assert o.kind in KINDS
        assert o.help.strip()
        assert (o.kind in ("choice", "choice_or_number", "choice_or_integer")) == bool(o.choices)


def test_evaluate_checks_values_against_the_declared_choices() -> None:
    recs = pd.DataFrame({"user_id": [1], "item_id": [1], "score": [1.0]})
    for o in EVALUATE_OPTIONS:
        if o.kind != "choice":
            continue
        with pytest.raises(rv.exceptions.InvalidParameterError) as info:
            rv.evaluate(recs, recs, ["precision@1"], **{o.name: "not-a-choice"})
        for choice in o.choices:
            assert repr(choice) in str(info.value) or choice in str(info.value)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_flag_for_every_declared_option(command: str) -> None:
    flags = {opt for p in cli.commands[command].params for opt in p.opts}
    for o in EVALUATE_OPTIONS:
        if o.cli is not None:  # a reason why no command has it
            assert o.flag not in flags or command == "evaluate"  # --per-user is its FILE
            continue
        if o.kind == "columns":
            assert {"--user-col", "--item-col", "--score-col", "--rank-col", "--rating-col",
                    "--column"} <= flags
            continue
        assert o.flag in flags, f"{command} lacks {o.flag}"
        if o.short:
            assert o.short in flags
    assert "--encoding" in flags


def test_an_option_added_to_the_declaration_reaches_the_generated_flags(monkeypatch) -> None:
    new = EvaluateOption("shiny_new", "choice", None, "A new option.", choices=("a", "b"))
    monkeypatch.setattr("receval.cli._options.EVALUATE_OPTIONS", (*EVALUATE_OPTIONS, new))

    @click.command()
    @evaluate_flags
    def command(**given: Any) -> None:
        click.echo(repr(given["shiny_new"]))

    assert CliRunner().invoke(command, ["--shiny-new", "b"]).output.strip() == "'b'"
    assert CliRunner().invoke(command, ["--shiny-new", "c"]).exit_code == 2


# --- every flag's value reaches evaluate, at every door -----------------------------------

@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
                         "score": [0.9, 0.5, 0.8, 0.1]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [11, 12], "rating": [5.0, 4.0]})
    data = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2, 3, 3], "item_id": [10, 11, 12] * 2 +
                         [10, 11], "rating": [5.0, 4, 3, 2, 5, 4, 3, 1]})
    feats = pd.DataFrame({"item_id": [10, 11, 12], "a": [1.0, 0.0, 1.0]})
    paths = {"recs": tmp_path / "recs.csv", "truth": tmp_path / "truth.csv",
             "data": tmp_path / "data.csv", "train": tmp_path / "train.csv",
             "features": tmp_path / "features.csv", "catalog": tmp_path / "catalog.txt"}
    recs.to_csv(paths["recs"], index=False)
    truth.to_csv(paths["truth"], index=False)
    data.to_csv(paths["data"], index=False)
    data.to_csv(paths["train"], index=False)
    feats.to_csv(paths["features"], index=False)
    paths["catalog"].write_text("10\n11\n12\n13\n")
    return paths


def _value(o: EvaluateOption, files: dict[str, Path]) -> tuple[list[str], Any]:
    """Flags giving ``o`` a value other than its default, and the value evaluate must get."""
    if o.kind == "flag":
        return [o.flag], True
    if o.kind == "switch":
        return [o.flag], True
    if o.kind == "number":
        return [o.flag, "2.5"], 2.5
    if o.kind == "choice_or_number":
        return [o.flag, "2.5"], 2.5
    if o.kind == "choice_or_integer":
        return [o.flag, "3"], 3
    if o.kind == "text":
        return [o.flag, "trec_eval"], "trec_eval"
    if o.kind == "items":
        return [o.flag, str(files["catalog"])], [10, 11, 12, 13]
    if o.kind == "table":
        path = files["features"] if o.name == "item_features" else files["train"]
        return [o.flag, str(path)], pd.read_csv(path)
    choice = next(c for c in o.choices if c != o.default)
    return [o.flag, choice], choice


def _args(command: str, files: dict[str, Path], tmp: Path) -> list[str]:
    m = ["-m", "precision@1"]
    return {"evaluate": ["evaluate", str(files["recs"]), str(files["truth"]), *m],
            "all-conventions": ["evaluate", str(files["recs"]), str(files["truth"]), *m,
                                "--all-conventions"],
            "compare": ["compare", str(files["truth"]), str(files["recs"]), str(files["recs"]),
                        "--names", "a,b", *m],
            "report": ["report", str(files["recs"]), str(files["truth"]), *m, "-o",
                       str(tmp / "r.html")],
            "cv": ["cv", str(files["data"]), "--model", "popular", "-m", "recall@1", "--folds",
                   "2", "-k", "1"]}[command]


class Spy:
    """Records the keyword arguments of every ``evaluate`` call, then makes it."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original = rv.evaluate

        def spy(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(kwargs)
            return original(*args, **kwargs)

        for target in ("receval.evaluate", "receval._evaluate.evaluate", "receval._cv.evaluate"):
            monkeypatch.setattr(target, spy)


DOORS = ("evaluate", "all-conventions", "compare", "report", "cv")
#: Not evaluate's: side by side runs every convention; cross_validate's own progress bar
#: (over folds and models) takes cv's --progress.
ELSEWHERE = {("all-conventions", "convention"), ("cv", "progress")}
CASES = [(door, o.name) for door in DOORS for o in cli_options()
         if (door, o.name) not in ELSEWHERE]


@pytest.mark.parametrize(("door", "name"), CASES)
def test_every_flag_reaches_evaluate(files: dict[str, Path], tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch, door: str,
                                     name: str) -> None:
    o = next(o for o in EVALUATE_OPTIONS if o.name == name)
    flags, expected = _value(o, files)
    spy = Spy()
    spy.install(monkeypatch)
    CliRunner().invoke(cli, [*_args(door, files, tmp_path), *flags])
    assert spy.calls, f"{door} never called evaluate"
    got = spy.calls[0].get(name)
    if isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(got, expected, check_dtype=False)
    else:
        assert got == expected


def test_cv_progress_is_the_cross_validation_bar(files: dict[str, Path], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    original = rv.cross_validate

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("progress"))
        return original(*args, **kwargs)

    monkeypatch.setattr("receval.cross_validate", spy)
    out = CliRunner().invoke(cli, [*_args("cv", files, tmp_path), "--no-progress"])
    assert out.exit_code == 0, out.output
    assert seen == [False]


def test_no_flag_given_passes_no_option(files: dict[str, Path], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset flags leave evaluate's own defaults (and a convention's settings) in force."""
    spy = Spy()
    spy.install(monkeypatch)
    out = CliRunner().invoke(cli, _args("evaluate", files, tmp_path))
    assert out.exit_code == 0, out.output
    assert spy.calls[0] == {"convention": None}


def test_report_train_reaches_evaluate_novelty_and_gini(files: dict[str, Path],
                                                        tmp_path: Path) -> None:
    """The reported case: novelty failed and Gini used another catalog."""
    out = CliRunner().invoke(cli, ["report", str(files["recs"]), str(files["truth"]),
                                   "-m", "novelty@2", "-m", "gini@2", "--train",
                                   str(files["train"]), "-o", str(tmp_path / "r.html")])
    assert out.exit_code == 0, out.output
    ev = rv.evaluate(pd.read_csv(files["recs"]), pd.read_csv(files["truth"]),
                     ["novelty@2", "gini@2"], train=pd.read_csv(files["train"]))
    assert f"Novelty@2 {ev['novelty@2']:.4f}" in out.output
    assert f"Gini@2 {ev['gini@2']:.4f}" in out.output


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_train_and_item_features_on_evaluate_and_compare(files: dict[str, Path],
                                                         tmp_path: Path, command: str) -> None:
    args = [*_args(command, files, tmp_path)[:-2], "-m", "novelty@2", "-m", "diversity@2",
            "--train", str(files["train"]), "--item-features", str(files["features"]),
            "--format", "json"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    ev = rv.evaluate(pd.read_csv(files["recs"]), pd.read_csv(files["truth"]),
                     ["novelty@2", "diversity@2"], train=pd.read_csv(files["train"]),
                     item_features=pd.read_csv(files["features"]))
    for value in (ev["novelty@2"], ev["diversity@2"]):
        assert str(round(value, 6))[:6] in out.stdout


@pytest.mark.parametrize("command", ["evaluate", "compare", "report"])
def test_column_flags_per_table(files: dict[str, Path], tmp_path: Path, command: str) -> None:
    renamed = tmp_path / "recs_uid.csv"
    pd.read_csv(files["recs"]).rename(columns={"user_id": "uid"}).to_csv(renamed, index=False)
    args = _args(command, files, tmp_path)
    args = [str(renamed) if a == str(files["recs"]) else a for a in args]
    out = CliRunner().invoke(cli, [*args, "--column", "recs_user=uid"])
    assert out.exit_code == 0, out.output
    bad = CliRunner().invoke(cli, [*args, "--column", "recs_user"])
    assert bad.exit_code == 2
    assert "--column takes [TABLE_]ROLE=NAME" in bad.output


@pytest.mark.parametrize(("name", "text", "value"), [
    ("ties", "item", "item"), ("missing_predictions", "global_mean", "global_mean"),
    ("missing_predictions", "2.5", 2.5), ("buckets", "auto", "auto"), ("buckets", "4", 4),
    ("relevance_threshold", "3", 3.0), ("strict", "yes", True), ("progress", "false", False),
    ("convention", "ranx", "ranx"), ("train", "t.csv", "t.csv"),
])
def test_the_declaration_reads_text_values(name: str, text: str, value: Any) -> None:
    """What a config file or a flag gives, read by the one declaration."""
    got = next(o for o in EVALUATE_OPTIONS if o.name == name).read(text)
    assert got == value
    assert type(got) is type(value)


@pytest.mark.parametrize(("name", "text"), [
    ("ties", "random"), ("missing_predictions", "mean"), ("buckets", "2.5"),
    ("relevance_threshold", "high"), ("strict", "maybe")])
def test_the_declaration_refuses_bad_text(name: str, text: str) -> None:
    with pytest.raises(rv.exceptions.InvalidParameterError) as info:
        next(o for o in EVALUATE_OPTIONS if o.name == name).read(text)
    assert info.value.parameter == name
    assert repr(text) in str(info.value)
