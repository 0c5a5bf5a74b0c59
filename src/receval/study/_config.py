"""A study's config (TOML, YAML or a dict), resolved: every key checked, every default filled.

Errors are :class:`~receval.exceptions.ConfigError` naming the key path
(``models.knn.params.k: expected an integer, got "ten"``); an unknown key lists the keys
of its section and the closest one (``did you mean ...?``).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from receval.exceptions import ConfigError
from receval.study._schema import (
    SECTIONS,
    SPLIT_METHODS,
    Key,
    compare_keys,
    fixed_sections,
    split_keys,
)

__all__ = ["check_type", "check_validation", "load", "resolve", "splitter", "unknown_key"]

_TYPE_NAMES = {"string": "a string", "integer": "an integer", "number": "a number",
               "boolean": "true or false", "array": "a list", "object": "a table (mapping)",
               "null": "nothing"}


def _show(value: Any) -> str:
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError):
        return repr(value)


def unknown_key(path: str, key: str, allowed: Iterable[str]) -> ConfigError:
    """The error of an unknown key ``key`` at ``path``, with the closest known key."""
    allowed = list(allowed)
    where = f"{path}.{key}" if path else key
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return ConfigError(f"{where}: unknown key{hint} (known keys: {', '.join(allowed)})",
                       parameter=where, examples=[key])


def _is(value: Any, json_type: str) -> bool:
    if json_type == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if json_type == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, {"string": str, "boolean": bool, "array": list,
                              "object": Mapping, "null": type(None)}[json_type])


def check_type(value: Any, types: tuple[str, ...], path: str,
               choices: tuple[str, ...] = ()) -> Any:
    """``value`` if it has one of the JSON ``types`` (and is one of ``choices``, if a string).

    Raises
    ------
    ConfigError
        ``<path>: expected an integer, got "ten"``.
    """
    if types and not any(_is(value, t) for t in types):
        wanted = " or ".join(_TYPE_NAMES[t] for t in types if t != "null")
        if choices:
            wanted = f"one of {', '.join(choices)}" + (
                "" if set(types) <= {"string", "null"} else f" or {wanted}")
        raise ConfigError(f"{path}: expected {wanted}, got {_show(value)}", parameter=path,
                          examples=[value])
    if choices and isinstance(value, str) and value not in choices:
        close = difflib.get_close_matches(value, choices, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"{path}: {_show(value)} is not one of {', '.join(choices)}{hint}",
                          parameter=path, examples=[value])
    return value


def _section(given: Any, keys: tuple[Key, ...], path: str) -> dict[str, Any]:
    """A section's keys checked, with every default filled in."""
    if not isinstance(given, Mapping):
        raise ConfigError(f"{path}: expected a table (mapping), got {_show(given)}",
                          parameter=path, examples=[given])
    by_name = {k.name: k for k in keys}
    for name in given:
        if name not in by_name:
            raise unknown_key(path, str(name), by_name)
    out: dict[str, Any] = {}
    for key in keys:
        where = f"{path}.{key.name}"
        if key.name not in given:
            if key.required:
                raise ConfigError(f"{where}: required, and missing", parameter=where)
            out[key.name] = copy.deepcopy(key.default)
            continue
        out[key.name] = check_type(given[key.name], key.types, where, key.choices)
    return out


def load(source: str | os.PathLike[str] | Mapping[str, Any]) -> tuple[dict[str, Any], Path]:
    """The config as a dict, and the folder its relative paths are relative to.

    ``source`` is a path to a ``.toml`` file (read with the standard library's ``tomllib``),
    a ``.yaml`` / ``.yml`` file (needs PyYAML) or ``.json`` file, or a dict (relative paths
    are then relative to the working directory).
    """
    if isinstance(source, Mapping):
        return dict(source), Path.cwd()
    path = Path(os.fspath(source))
    if not path.is_file():
        raise ConfigError(f"config: no file at {str(path)!r}", parameter="config",
                          examples=[str(path)])
    suffix = path.suffix.lower()
    text = path.read_bytes()
    try:
        if suffix == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # pragma: no cover - Python 3.10
                import tomli as tomllib  # type: ignore[import-not-found,no-redef]
            data = tomllib.loads(text.decode("utf-8"))
        elif suffix in (".yaml", ".yml"):
            try:
                import yaml  # type: ignore[import-untyped]
            except ImportError:
                from receval.exceptions import BackendUnavailableError

                raise BackendUnavailableError(
                    "YAML configs need PyYAML: pip install pyyaml (or write the config as "
                    "TOML)", parameter="config") from None
            data = yaml.safe_load(text.decode("utf-8"))
        elif suffix == ".json":
            data = json.loads(text.decode("utf-8"))
        else:
            raise ConfigError(f"config: {str(path)!r} is not .toml, .yaml, .yml or .json",
                              parameter="config", examples=[str(path)])
    except ConfigError:
        raise
    except (ValueError, UnicodeDecodeError) as exc:  # tomllib, yaml and json errors
        raise ConfigError(f"config: {str(path)!r} cannot be parsed: {exc}",
                          parameter="config", examples=[str(path)]) from None
    except Exception as exc:  # yaml.YAMLError is not a ValueError
        raise ConfigError(f"config: {str(path)!r} cannot be parsed: {exc}",
                          parameter="config", examples=[str(path)]) from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"config: {str(path)!r} does not hold a table of sections",
                          parameter="config", examples=[str(path)])
    return dict(data), path.resolve().parent


def _absolute(value: Any, base: Path) -> Any:
    if value is None:
        return None
    path = Path(os.path.expanduser(str(value)))
    return str(path if path.is_absolute() else (base / path).resolve())


def splitter(given: Any, path: str = "split") -> dict[str, Any]:
    """A splitter table (``method`` and that function's keywords), checked and filled."""
    if not isinstance(given, Mapping):
        raise ConfigError(f"{path}: expected a table (mapping), got {_show(given)}",
                          parameter=path, examples=[given])
    if "method" not in given:
        raise ConfigError(f"{path}.method: required, and missing (one of "
                          f"{', '.join(SPLIT_METHODS)})", parameter=f"{path}.method")
    method = check_type(given["method"], ("string",), f"{path}.method", SPLIT_METHODS)
    rest = {k: v for k, v in given.items() if k != "method"}
    return {"method": method, **_section(rest, split_keys(method), path)}


def check_validation(value: Any, path: str = "validation") -> Any:
    """``rv.tune``'s ``validation=`` / ``[tune] validation``, checked before any fit.

    None (the folds' own splitter) and a function of the training part are returned as
    they are; a method name is ``{"method": name}``; a splitter table has its method (with
    the closest name) and keywords checked as ``[split]``'s, and is returned as given.

    Raises
    ------
    ConfigError
        ``<path>.method: "randm" is not one of ...; did you mean 'random'?``,
        ``<path>.test_sze: unknown key; did you mean 'test_size'?``, or a value that is
        none of these.
    """
    if value is None or callable(value):
        return value
    if isinstance(value, str):
        value = {"method": value}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{path}: expected a splitter table such as {{'method': 'random', "
                          f"'test_size': 0.2}}, a method name or a function of the training "
                          f"part, got {_show(value)}", parameter=path, examples=[value])
    splitter(value, path)
    return dict(value)


def _models(given: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(given, Mapping) or not given:
        raise ConfigError(f"models: expected a table of name -> model spec with at least one "
                          f"model, got {_show(given)}", parameter="models", examples=[given])
    out = {}
    for name, entry in given.items():
        where = f"models.{name}"
        if isinstance(entry, str):
            out[str(name)] = {"model": entry, "params": {}, "grid": {}}
            continue
        keys = (Key("model", ("string",), None, "", required=True),
                Key("params", ("object",), {}, ""), Key("grid", ("object",), {}, ""))
        entry = _section(entry, keys, where)
        for param, values in entry["grid"].items():
            check_type(values, ("array",), f"{where}.grid.{param}")
            if not values:
                raise ConfigError(f"{where}.grid.{param}: an empty list of values",
                                  parameter=f"{where}.grid.{param}")
        out[str(name)] = {**entry, "params": dict(entry["params"]), "grid": dict(entry["grid"])}
    return out


def _metrics(value: Any, parse: bool) -> list[str]:
    """The metric names, each parsed (unless a convention may define names of its own)."""
    from receval.exceptions import InvalidParameterError
    from receval.metrics import parse as parse_metric

    metrics = [value] if isinstance(value, str) else list(value)
    if not metrics:
        raise ConfigError("evaluate.metrics: an empty list; name at least one metric",
                          parameter="evaluate.metrics")
    for i, metric in enumerate(metrics):
        where = f"evaluate.metrics[{i}]"
        check_type(metric, ("string",), where)
        if parse:
            try:
                parse_metric(metric)
            except InvalidParameterError as exc:
                raise ConfigError(f"{where}: {exc}", parameter=where,
                                  examples=[metric]) from None
    return metrics


def resolve(config: Mapping[str, Any], base: Path) -> dict[str, Any]:
    """The config with every key checked, every default filled in and paths made absolute.

    Raises
    ------
    ConfigError
        An unknown key or section, a missing required key, a value of the wrong type or
        not among the choices; the message starts with the key path.
    """
    for name in config:
        if name not in SECTIONS:
            raise unknown_key("", str(name), SECTIONS)
    for name in ("data", "split", "models", "evaluate"):
        if name not in config:
            raise ConfigError(f"{name}: required section, and missing", parameter=name)
    fixed = fixed_sections()
    out: dict[str, Any] = {"name": check_type(config.get("name", "study"), ("string",), "name"),
                           "seed": _seed(config.get("seed", 0))}
    for name in ("data", "filters"):
        out[name] = _section(config.get(name, {}), fixed[name], name)
    out["split"] = splitter(config["split"])
    out["models"] = _models(config["models"])
    out["evaluate"] = _section(config["evaluate"], fixed["evaluate"], "evaluate")
    out["evaluate"]["metrics"] = _metrics(out["evaluate"]["metrics"],
                                          out["evaluate"]["convention"] is None)
    if out["evaluate"]["k"] < 1:
        raise ConfigError(f"evaluate.k: must be an integer >= 1, got {out['evaluate']['k']}",
                          parameter="evaluate.k", examples=[out["evaluate"]["k"]])
    for name in ("tune", "outputs"):
        out[name] = _section(config.get(name, {}), fixed[name], name)
    _check_tune(out["tune"], out["evaluate"]["convention"] is None)
    out["compare"] = None if config.get("compare") is None else _section(
        config["compare"], compare_keys(), "compare")
    if out["compare"] is not None and len(out["models"]) < 2:
        raise ConfigError(f"compare: needs at least two models, got {len(out['models'])} "
                          f"({', '.join(map(repr, out['models']))})", parameter="compare",
                          examples=list(out["models"]))
    _check_data(out["data"])
    out["data"]["path"] = _absolute(out["data"]["path"], base)
    out["outputs"]["folder"] = _absolute(out["outputs"]["folder"], base)
    from receval._evaluate_options import EVALUATE_OPTIONS

    for option in EVALUATE_OPTIONS:
        value = out["evaluate"].get(option.name)
        if option.is_path and value is not None and not (
                option.name == "item_features" and value == "genres"):
            out["evaluate"][option.name] = _absolute(out["evaluate"][option.name], base)
    return out


def _check_tune(tune: dict[str, Any], parse: bool) -> None:
    """``[tune]``'s metric, n_iter and validation, checked before the data is read."""
    from receval.exceptions import InvalidParameterError
    from receval.metrics import parse as parse_metric

    if tune["metric"] is not None and parse:
        try:
            parse_metric(tune["metric"])
        except InvalidParameterError as exc:
            raise ConfigError(f"tune.metric: {exc}", parameter="tune.metric",
                              examples=[tune["metric"]]) from None
    n_iter = tune["n_iter"]
    if (n_iter is not None and n_iter < 1) or (n_iter is None and tune["search"] == "random"):
        raise ConfigError(f"tune.n_iter: search = {tune['search']!r} needs n_iter >= 1 (the "
                          f"points to draw), got {_show(n_iter)}", parameter="tune.n_iter",
                          examples=[n_iter])
    tune["validation"] = check_validation(tune["validation"], "tune.validation")


def _seed(value: Any) -> int:
    from receval._seeds import check_seed
    from receval.exceptions import InvalidParameterError

    check_type(value, ("integer",), "seed")
    try:
        return check_seed(value)
    except InvalidParameterError as exc:
        raise ConfigError(f"seed: {exc}", parameter="seed", examples=[value]) from None


def _check_data(data: dict[str, Any]) -> None:
    if data["path"] is None and data["dataset"] is None:
        raise ConfigError("data: give path (a table) or dataset (a receval.datasets name)",
                          parameter="data")
    for role, column in data["columns"].items():
        check_type(role, ("string",), "data.columns", ("user", "item", "rating", "timestamp"))
        check_type(column, ("string",), f"data.columns.{role}")
