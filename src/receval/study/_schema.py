"""The keys of a study's config, declared once: checked by :mod:`._config`, shipped as JSON schema.

Every section mirrors a Python call, and its keys are that call's names:

- ``[evaluate]``: ``metrics``, ``k`` and ``exclude_seen`` of :func:`receval.cross_validate`,
  and every option of :func:`receval.evaluate` from its one declaration
  (:data:`receval._evaluate_options.EVALUATE_OPTIONS`), minus those a study sets itself
  (:data:`NOT_IN_STUDY`);
- ``[split]``: ``method`` (a function of :mod:`receval.split`) and that function's keywords,
  read from its signature;
- ``[compare]``: the keywords of :func:`receval.stats.compare_folds`, from its signature;
- ``[models]``: name -> a spec (``"item-mean:shrinkage=5"``) or ``{model, params, grid}``;
  the parameters are checked against the model class's constructor.

:func:`json_schema` writes the same declarations as a JSON schema (draft 2020-12), which
``receval run --schema`` prints and ``receval/study/config.schema.json`` ships.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from receval._evaluate_options import EVALUATE_OPTIONS, EvaluateOption

__all__ = ["NOT_IN_STUDY", "SECTIONS", "SPLIT_METHODS", "WHOLE_DATA", "Key", "compare_keys",
           "evaluate_keys", "fixed_sections", "json_schema", "split_keys", "type_of_default"]

#: Options of ``evaluate`` that a study does not take from its config, and why.
NOT_IN_STUDY = {
    "columns": "the data's columns are [data] columns",
    "per_user": "Spark inputs only; a study reads its data into pandas",
    "progress": "the study prints its own progress on stderr",
    "buckets": "a study's data is in memory",
    "sample": "a study's lists come from its models, one ranking per user",
}

#: The splitters a study can name in ``[split] method``.
SPLIT_METHODS = ("random", "temporal", "leave_k_out", "kfold", "rolling", "all")
#: ``method = "all"``: train and test are both every row (seed 004's textbook procedure, fit
#: and measured on the same rows; it measures fit, never generalisation). No keywords.
WHOLE_DATA = "all"


@dataclass(frozen=True)
class Key:
    """One key of a config section.

    Attributes
    ----------
    name : str
        The key, as the Python keyword it mirrors.
    types : tuple of str
        JSON types it accepts: ``string``, ``integer``, ``number``, ``boolean``, ``array``,
        ``object``, ``null``; empty means any value.
    default : object
        The value the resolved config records when the key is absent.
    help : str
        One line of documentation.
    choices : tuple of str
        The strings it accepts, when it is a choice.
    items : str or None
        The JSON type of an array's items.
    required : bool
        Whether the key must be given.
    """

    name: str
    types: tuple[str, ...]
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    items: str | None = None
    required: bool = False


_KIND_TYPES = {"choice": ("string",), "number": ("number",),
               "choice_or_number": ("string", "number"),
               "choice_or_integer": ("string", "integer"), "flag": ("boolean",),
               "switch": ("boolean",), "text": ("string",), "table": ("string",),
               "items": ("string",)}


def _from_option(option: EvaluateOption) -> Key:
    types = _KIND_TYPES[option.kind]
    if option.default is None:
        types = (*types, "null")
    return Key(option.name, types, option.default, option.help, choices=option.choices)


def evaluate_keys() -> tuple[Key, ...]:
    """The ``[evaluate]`` section: metrics, k, exclude_seen and evaluate's options."""
    own = (Key("metrics", ("array", "string"), None, "Metric names, e.g. ndcg@10 or rmse.",
               items="string", required=True),
           Key("k", ("integer",), 10, "Length of the recommendation lists."),
           Key("exclude_seen", ("boolean",), True,
               "Leave each user's training items out of their lists."))
    return own + tuple(_from_option(o) for o in EVALUATE_OPTIONS if o.name not in NOT_IN_STUDY)


def type_of_default(default: Any) -> tuple[str, ...]:
    """The JSON types a keyword accepts, judged from its default (any value when unknown)."""
    if isinstance(default, bool):
        return ("boolean",)
    if isinstance(default, int):
        return ("integer",)
    if isinstance(default, float):
        return ("number",)
    if isinstance(default, str):
        return ("string",)
    return ()


def _signature_keys(function: Callable[..., Any], skip: tuple[str, ...]) -> tuple[Key, ...]:
    keys = []
    for p in inspect.signature(function).parameters.values():
        if p.name in skip or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        required = p.default is inspect.Parameter.empty
        default = None if required else p.default
        types = type_of_default(default)
        if types and default is None:
            types = (*types, "null")
        keys.append(Key(p.name, types, default, f"{function.__name__}({p.name}=...)",
                        required=required))
    return tuple(keys)


def split_keys(method: str) -> tuple[Key, ...]:
    """The keywords of ``receval.split.<method>`` (without ``data`` and ``columns``)."""
    import receval.split

    if method == WHOLE_DATA:
        return ()
    return _signature_keys(getattr(receval.split, method), ("data", "columns"))


def compare_keys() -> tuple[Key, ...]:
    """The keywords of :func:`receval.stats.compare_folds` (without ``results``)."""
    from receval.stats import compare_folds

    return _signature_keys(compare_folds, ("results",))


def _dataset_names() -> tuple[str, ...]:
    from receval.datasets import NAMES

    return ("sample_ratings", *NAMES)


def _sections() -> dict[str, tuple[Key, ...]]:
    return {
        "data": (
            Key("path", ("string", "null"), None, "A table (CSV, TSV, Parquet, JSON lines), or "
                "a MovieLens archive or folder when dataset names a MovieLens version; "
                "relative to the config file."),
            Key("dataset", ("string", "null"), None, "A data set of receval.datasets.",
                choices=_dataset_names()),
            Key("params", ("object",), {}, "Keywords of the data set's function (e.g. "
                "n_users, n_items, seed of sample_ratings)."),
            Key("columns", ("object",), {}, "Column names by role: user, item, rating, "
                "timestamp."),
            Key("encoding", ("string",), "utf-8", "Text encoding of a CSV/TSV file.")),
        "filters": (
            Key("min_rating", ("number", "null"), None, "Keep rows whose rating is >= this."),
            Key("min_user_interactions", ("integer",), 1, "Keep users with at least this many "
                "rows (after min_rating)."),
            Key("min_item_interactions", ("integer",), 1, "Keep items with at least this many "
                "rows (after the user filter)."),
            Key("k_core", ("integer", "null"), None, "Repeat both filters until every user "
                "and item has at least this many rows.")),
        "tune": (
            Key("metric", ("string", "null"), None, "The metric the validation part chooses "
                "by (default: the first of [evaluate] metrics)."),
            Key("validation", ("object", "string", "null"), None, "A [split]-like table "
                "for the validation part carved from each training part, or a method name "
                "(\"random\" is {method = \"random\"}; default: the same splitter as "
                "[split])."),
            Key("search", ("string",), "grid", "grid, random, or optuna (when installed).",
                choices=("grid", "random", "optuna")),
            Key("n_iter", ("integer", "null"), None, "Points drawn by random / optuna "
                "search."),
            Key("seed", ("integer",), 0, "Seed of random / optuna search.")),
        "outputs": (
            Key("folder", ("string",), "study-output", "The folder the outputs go to "
                "(created; relative to the config file)."),
            Key("tables", ("boolean",), True, "per_fold.csv, summary.csv (and trials.csv, "
                "comparison.csv)."),
            Key("per_user", ("boolean",), True, "per_user.parquet: every (model, fold, user)."),
            Key("report", ("boolean",), True, "report.html (needs receval[report])."),
            Key("tracking", ("string", "null"), None, "mlflow: log the study to MLflow "
                "(receval[mlflow]).", choices=("mlflow",)),
            Key("tracking_uri", ("string", "null"), None, "MLflow tracking URI (default: "
                "MLflow's own)."),
            Key("experiment", ("string", "null"), None, "MLflow experiment name (default: "
                "the study's name).")),
    }


#: Sections with a fixed set of keys (the others: evaluate, split, compare, models).
SECTIONS = ("name", "seed", "data", "filters", "split", "models", "evaluate", "tune",
            "compare", "outputs")


def fixed_sections() -> dict[str, tuple[Key, ...]]:
    """Each section with a fixed set of keys, ``evaluate`` included."""
    return {**_sections(), "evaluate": evaluate_keys()}


def _key_schema(key: Key) -> dict[str, Any]:
    out: dict[str, Any] = {"description": key.help}
    if key.types:
        out["type"] = list(key.types) if len(key.types) > 1 else key.types[0]
    if key.choices:
        alternatives: list[dict[str, Any]] = [{"enum": list(key.choices)}]
        alternatives += [{"type": t} for t in key.types if t != "string"]
        out = {"description": key.help, "anyOf": alternatives}
    if key.items:
        out["items"] = {"type": key.items}
    if key.default not in (None, {}):
        out["default"] = key.default
    return out


def _object(keys: tuple[Key, ...], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False,
        "properties": {k.name: _key_schema(k) for k in keys}}
    schema["properties"].update(extra or {})
    required = [k.name for k in keys if k.required]
    if required:
        schema["required"] = required
    return schema


def _split_schema() -> dict[str, Any]:
    branches = []
    for method in SPLIT_METHODS:
        branch = _object(split_keys(method), {"method": {"const": method}})
        branch["required"] = ["method", *branch.get("required", [])]
        branches.append(branch)
    return {"description": "A function of receval.split and its keywords.", "oneOf": branches}


def _model_schema() -> dict[str, Any]:
    spec = {"type": "string", "description": "A model spec: 'item-mean:shrinkage=5', "
            "'surprise:SVD(n_factors=50)', 'mypkg.models:MyModel(alpha=0.1)'."}
    grid = {"type": "object", "additionalProperties": {"type": "array"},
            "description": "Parameter -> the values to try (tuned on a validation part)."}
    table = {"type": "object", "additionalProperties": False, "required": ["model"],
             "properties": {"model": spec, "params": {"type": "object"}, "grid": grid}}
    return {"type": "object", "minProperties": 1,
            "additionalProperties": {"anyOf": [spec, table]}}


def json_schema() -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of a study's config, from the declarations above."""
    sections = fixed_sections()
    properties: dict[str, Any] = {
        "name": {"type": "string", "description": "The study's title."},
        "seed": {"type": "integer", "minimum": 0, "default": 0,
                 "description": "The seed of every model whose spec leaves its seed "
                 "(random_state) unset, as receval cv --seed."},
        **{name: _object(keys) for name, keys in sections.items()},
        "split": _split_schema(),
        "models": _model_schema(),
        "compare": _object(compare_keys()),
    }
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://receval.dev/schemas/study.schema.json",
            "title": "receval study", "type": "object", "additionalProperties": False,
            "required": ["data", "split", "models", "evaluate"],
            "properties": {name: properties[name] for name in SECTIONS}}
