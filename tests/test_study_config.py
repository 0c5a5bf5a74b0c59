"""A study's config: every section resolved with its defaults, every class of bad config an error.

Errors are ConfigError (a RecevalError) whose message starts with the key path, and unknown
keys name the closest known one. The JSON schema shipped with receval is the one generated
from the declarations, and accepts what ``rv.run`` accepts.
"""

from __future__ import annotations

import copy
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

import receval as rv
from receval._evaluate_options import EVALUATE_OPTIONS
from receval.exceptions import ConfigError, InvalidParameterError, RecevalError
from receval.study._config import load, resolve
from receval.study._schema import NOT_IN_STUDY, SPLIT_METHODS, json_schema

BASE: dict[str, Any] = {
    "name": "toy",
    "data": {"dataset": "sample_ratings", "params": {"n_users": 40, "n_items": 30, "seed": 1}},
    "split": {"method": "kfold", "n_splits": 2, "seed": 0},
    "models": {"pop": "most-popular", "im": {"model": "item-mean", "params": {"shrinkage": 2}}},
    "evaluate": {"metrics": ["ndcg@5", "rmse"], "k": 5, "relevance_threshold": 4},
}


def _with(change: dict[str, Any]) -> dict[str, Any]:
    """BASE with ``change`` applied: {"a.b": value} sets, {"a.b": DELETE} removes."""
    config = copy.deepcopy(BASE)
    for path, value in change.items():
        *head, last = path.split(".")
        node = config
        for key in head:
            node = node.setdefault(key, {})
        if value is DELETE:
            node.pop(last, None)
        else:
            node[last] = value
    return config


DELETE = object()


def test_resolve_fills_every_default(tmp_path):
    out = resolve(_with({"outputs.folder": "out"}), tmp_path)
    assert out["split"] == {"method": "kfold", "n_splits": 2, "by": "rows", "seed": 0,
                            "cold_users": "keep", "cold_items": "keep"}
    assert out["models"]["pop"] == {"model": "most-popular", "params": {}, "grid": {}}
    assert out["filters"] == {"min_rating": None, "min_user_interactions": 1,
                              "min_item_interactions": 1, "k_core": None}
    assert out["outputs"]["folder"] == str(tmp_path / "out")
    assert out["compare"] is None
    assert out["tune"]["search"] == "grid"
    # evaluate: metrics, k, exclude_seen and every option of evaluate but those a study sets
    wanted = {"metrics", "k", "exclude_seen"} | {o.name for o in EVALUATE_OPTIONS
                                                  if o.name not in NOT_IN_STUDY}
    assert set(out["evaluate"]) == wanted
    assert out["evaluate"]["duplicates"] == "error"


def test_evaluate_keys_come_from_the_one_declaration():
    props = json_schema()["properties"]["evaluate"]["properties"]
    for option in EVALUATE_OPTIONS:
        assert (option.name in props) == (option.name not in NOT_IN_STUDY)
        if option.choices and option.name in props:
            assert props[option.name]["anyOf"][0]["enum"] == list(option.choices)


def test_split_keys_are_the_splitters_keywords():
    branches = json_schema()["properties"]["split"]["oneOf"]
    assert [b["properties"]["method"]["const"] for b in branches] == list(SPLIT_METHODS)
    for branch in branches:
        method = branch["properties"]["method"]["const"]
        if method == "all":  # train = test = every row: no keywords
            assert set(branch["properties"]) == {"method"}
            continue
        names = set(inspect.signature(getattr(rv.split, method)).parameters) - {"data",
                                                                                 "columns"}
        assert set(branch["properties"]) == names | {"method"}


def test_shipped_schema_is_the_generated_one():
    shipped = Path(rv.study.__file__).parent / "config.schema.json"
    assert json.loads(shipped.read_text()) == json_schema()


@pytest.mark.parametrize("config", [BASE, _with({"compare.test": "wilcoxon",
                                                 "models.im.grid": {"shrinkage": [0, 5]},
                                                 "tune.search": "random", "tune.n_iter": 1,
                                                 "filters.k_core": 2, "seed": 3,
                                                 "tune.validation": "random",
                                                 "outputs.tracking": "mlflow"})])
def test_schema_accepts_valid_configs(config):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(config, json_schema())


@pytest.mark.parametrize("change", [{"modles": {}}, {"data.pth": "x.csv"},
                                    {"split.n_split": 3}, {"evaluate.ties": "sideways"},
                                    {"evaluate.k": "ten"}, {"models": {}}])
def test_schema_rejects_what_run_rejects(change, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    config = _with(change)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(config, json_schema())
    with pytest.raises(ConfigError):
        resolve(config, tmp_path)


# (change, key path the error names, words of the message) -- one row per class of error
BAD = [
    ({"modles": {"x": "random"}}, "modles", "did you mean 'models'"),
    ({"data.pth": "ratings.csv"}, "data.pth", "did you mean 'path'"),
    ({"data.dataset": "ml-2m"}, "data.dataset", "is not one of"),
    ({"data.dataset": DELETE}, "data", "give path"),
    ({"data.columns": {"usr": "u"}}, "data.columns", "did you mean 'user'"),
    ({"filters.min_user_interactions": "5"}, "filters.min_user_interactions",
     'expected an integer, got "5"'),
    ({"filters.min_item_interactions": 0}, "filters.min_item_interactions", "must be >= 1"),
    ({"split.method": "kfolds"}, "split.method", "did you mean 'kfold'"),
    ({"split.method": DELETE}, "split.method", "required"),
    ({"split.n_split": 3}, "split.n_split", "did you mean 'n_splits'"),
    ({"split.n_splits": "five"}, "split.n_splits", 'expected an integer, got "five"'),
    ({"split.n_splits": 1}, "split", "n_splits must be an integer >= 2"),
    ({"models": {}}, "models", "at least one model"),
    ({"models.im.params.shrinkage": "five"}, "models.im.params.shrinkage",
     'expected a number, got "five"'),
    ({"models.im.params.shrinkge": 1}, "models.im.params.shrinkge",
     "did you mean 'shrinkage'"),
    ({"models.im.grid": {"shrinkage": []}}, "models.im.grid.shrinkage", "empty list"),
    ({"models.im.grid": {"shrinkage": [1, "x"]}}, "models.im.grid.shrinkage[1]",
     'expected a number, got "x"'),
    ({"models.im.modle": "x"}, "models.im.modle", "did you mean 'model'"),
    ({"models.knn": {"model": "surprise:KNNBasic", "params": {"k": "ten"}}},
     "models.knn.params.k", 'expected an integer, got "ten"'),
    ({"models.x": "item-meen"}, "models.x", "item-meen"),
    ({"evaluate.metrics": []}, "evaluate.metrics", "empty"),
    ({"evaluate.metrics": ["ndcg@5", 3]}, "evaluate.metrics[1]", "expected a string"),
    ({"evaluate.metrics": DELETE}, "evaluate.metrics", "required"),
    ({"evaluate.metrics": ["ndcg@5", "ndgc@5"]}, "evaluate.metrics[1]", "ndgc"),
    ({"evaluate.metrics": ["ndcg(gain=cubic)@5"]}, "evaluate.metrics[0]", "gain"),
    ({"evaluate.ties": "sideways"}, "evaluate.ties", "is not one of"),
    ({"evaluate.relevance_threshold": "high"}, "evaluate.relevance_threshold",
     'expected a number, got "high"'),
    ({"evaluate.missing_predictions": "guess"}, "evaluate.missing_predictions",
     "is not one of"),
    ({"evaluate.strict": "yes"}, "evaluate.strict", 'expected true or false, got "yes"'),
    ({"evaluate.relevance_treshold": 4}, "evaluate.relevance_treshold",
     "did you mean 'relevance_threshold'"),
    ({"evaluate.columns": {"user": "u"}}, "evaluate.columns", "unknown key"),
    ({"tune.search": "bayes"}, "tune.search", "is not one of"),
    ({"compare.tst": "t"}, "compare.tst", "did you mean 'test'"),
    ({"outputs.tracking": "wandb"}, "outputs.tracking", "is not one of mlflow"),
    ({"outputs.folder": 3}, "outputs.folder", "expected a string"),
    ({"name": ["x"]}, "name", "expected a string"),
    ({"seed": -1}, "seed", "from 0 to 2**63 - 1"),
    ({"seed": "1"}, "seed", 'expected an integer, got "1"'),
    ({"models": {"pop": "most-popular"}, "compare.test": "t"}, "compare",
     "needs at least two models, got 1 ('pop')"),
    ({"tune.validation": {"method": "randm"}}, "tune.validation.method",
     "did you mean 'random'"),
    ({"tune.validation": {"method": "random", "test_sze": 0.2}}, "tune.validation.test_sze",
     "did you mean 'test_size'"),
    ({"tune.validation": "randm"}, "tune.validation.method", "did you mean 'random'"),
    ({"tune.validation": 3}, "tune.validation", "expected a table"),
    ({"tune.metric": "bogus@10"}, "tune.metric", "unknown metric 'bogus'"),
    ({"tune.search": "random", "tune.n_iter": 0}, "tune.n_iter", "needs n_iter >= 1"),
    ({"tune.search": "random"}, "tune.n_iter", "needs n_iter >= 1"),
    ({"models.im.grid": {"shrinkage": [1, -2]}}, "models.im.grid.shrinkage[1]",
     "-2 is refused"),
    ({"models.im.params.shrinkage": -1}, "models.im.params", "shrinkage must be"),
    ({"evaluate.k": 0}, "evaluate.k", "must be an integer >= 1, got 0"),
]


@pytest.mark.parametrize(("change", "path", "words"), BAD,
                         ids=[row[1] + ":" + row[2][:20] for row in BAD])
def test_bad_config_names_the_key_path(change, path, words, tmp_path):
    config = _with({"outputs.folder": str(tmp_path / "out"), "outputs.report": False,
                    **change})
    with pytest.raises(ConfigError) as info:
        rv.run(config, progress=False)
    assert isinstance(info.value, RecevalError)
    assert isinstance(info.value, InvalidParameterError)
    assert info.value.parameter == path
    assert str(info.value).startswith(f"{path}: ") or str(info.value).startswith(f"{path} ")
    assert words in str(info.value)


def test_config_files_toml_yaml_json(tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text('[data]\ndataset = "sample_ratings"\n[split]\nmethod = "kfold"\n'
                    '[models]\npop = "most-popular"\n[evaluate]\nmetrics = ["ndcg@5"]\n')
    config, base = load(toml)
    assert base == tmp_path
    yaml = pytest.importorskip("yaml")
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (tmp_path / "s.json").write_text(json.dumps(config))
    assert load(tmp_path / "s.yaml")[0] == config
    assert load(tmp_path / "s.json")[0] == config


@pytest.mark.parametrize(("name", "text", "words"), [
    ("missing.toml", None, "no file"),
    ("bad.toml", "[data\n", "cannot be parsed"),
    ("bad.yaml", "data: [1,\n", "cannot be parsed"),
    ("list.json", "[1, 2]", "does not hold a table"),
    ("study.ini", "[data]", "is not .toml"),
])
def test_unreadable_config_files(tmp_path, name, text, words):
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    with pytest.raises(ConfigError, match=words) as info:
        load(path)
    assert info.value.parameter == "config"


def test_relative_paths_are_relative_to_the_config_file(tmp_path):
    (tmp_path / "sub").mkdir()
    config = _with({"data": {"path": "ratings.csv"}, "evaluate.item_features": "f.csv"})
    out = resolve(config, tmp_path / "sub")
    assert out["data"]["path"] == str(tmp_path / "sub" / "ratings.csv")
    assert out["evaluate"]["item_features"] == str(tmp_path / "sub" / "f.csv")
    assert out["outputs"]["folder"] == str(tmp_path / "sub" / "study-output")
