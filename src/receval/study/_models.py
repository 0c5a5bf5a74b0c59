"""A study's models, built by :func:`receval.models.from_spec` and checked by key path.

Before a model is built, its ``params`` and ``grid`` are checked against the constructor of
the model's class (of the wrapped algorithm, for an adapter such as ``surprise:SVD``): an
unknown parameter is an error with the closest name, and a value whose type differs from
the default's (``k = "ten"`` where the default is ``40``) is an error naming the key path.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from receval.exceptions import ConfigError, RecevalError
from receval.study._config import check_type, unknown_key
from receval.study._schema import type_of_default

__all__ = ["build", "check_models", "importable", "model_params", "seed_models"]


def _from_spec(spec: Any) -> Any:
    from receval.models import from_spec

    return from_spec(spec)


def _wrap(name: str, exc: Exception) -> ConfigError:
    where = f"models.{name}"
    return ConfigError(f"{where}: {exc}", parameter=where,
                       examples=getattr(exc, "examples", ()))


def build(name: str, entry: dict[str, Any], point: dict[str, Any] | None = None) -> Any:
    """The model ``name`` of the config, with ``point`` (a grid point) over its params."""
    spec = {"model": entry["model"], "params": {**entry["params"], **(point or {})}}
    try:
        return _from_spec(spec)
    except ConfigError:
        raise
    except (RecevalError, TypeError, ValueError, ImportError, AttributeError) as exc:
        raise _wrap(name, exc) from None


def _constructor(model: Any) -> inspect.Signature | None:
    target = getattr(model, "algo", model)
    try:
        return inspect.signature(type(target).__init__)
    except (TypeError, ValueError):
        return None


def model_params(model: Any) -> dict[str, Any]:
    """The model's ``repr`` and its scalar hyper-parameters (``get_params(deep=True)``)."""
    out: dict[str, Any] = {"repr": repr(model)}
    get = getattr(model, "get_params", None)
    if callable(get):
        try:
            params = dict(get(deep=True))
        except TypeError:  # a get_params without deep=
            params = dict(get())
        out.update({str(k): v for k, v in params.items()
                    if v is None or isinstance(v, (bool, int, float, str))})
    return out


def _check_value(value: Any, default: Any, where: str) -> None:
    check_type(value, type_of_default(default), where)


def check_models(models: dict[str, dict[str, Any]]) -> None:
    """Check every model's params and grid against its class's constructor.

    Raises
    ------
    ConfigError
        ``models.<name>.params.<p>`` / ``models.<name>.grid.<p>``: an unknown parameter
        (with the closest name) or a value of the wrong type; ``models.<name>``: a spec
        that names no model.
    """
    for name, entry in models.items():
        default = build(name, {"model": entry["model"], "params": {}})
        signature = _constructor(default)
        if signature is None:
            continue
        known = {p.name: p for p in signature.parameters.values()
                 if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        open_ended = any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())
        for part in ("params", "grid"):
            for param, value in entry[part].items():
                where = f"models.{name}.{part}.{param}"
                if param not in known:
                    if open_ended:
                        continue
                    raise unknown_key(f"models.{name}.{part}", param, known)
                default_value = known[param].default
                if default_value is inspect.Parameter.empty:
                    continue
                values = value if part == "grid" else [value]
                for i, one in enumerate(values):
                    _check_value(one, default_value, where if part == "params" else
                                 f"{where}[{i}]")
        _check_builds(name, entry)


def _check_builds(name: str, entry: dict[str, Any]) -> None:
    """Build the model with its params, and with each grid value, naming the key at fault."""
    tries = [(f"models.{name}.params", entry["params"], None)]
    tries += [(f"models.{name}.grid.{param}[{i}]", {**entry["params"], param: one}, one)
              for param, values in entry["grid"].items() for i, one in enumerate(values)]
    for where, params, value in tries:
        _build_at(where, entry["model"], params, value)


def _build_at(where: str, model: str, params: dict[str, Any], value: Any) -> None:
    try:
        _from_spec({"model": model, "params": params})
    except ConfigError:
        raise
    except (RecevalError, TypeError, ValueError) as exc:
        shown = "" if value is None else f"{value!r} is refused: "
        raise ConfigError(f"{where}: {shown}{exc}", parameter=where,
                          examples=[value] if value is not None else []) from None


def seed_models(models: dict[str, dict[str, Any]], seed: int) -> dict[str, int]:
    """Give every model whose spec leaves its seed unset the study's ``seed``, in its params.

    As ``receval cv --seed`` (:func:`receval.models._seeding.seed_unseeded`): a ``seed``
    parameter that neither the spec string nor ``params`` sets, or a Surprise algorithm's
    ``random_state`` left ``None``, becomes ``seed`` (unless the ``grid`` tunes it). The
    parameter is added to the entry's ``params`` (so the resolved config, and a rerun, hold
    it). Returns ``{"models.<name>.params.<p>": seed}`` of the seeds given.
    """
    from receval.models._seeding import spec_sets_seed, unset_seed

    given: dict[str, int] = {}
    for name, entry in models.items():
        sets_seed = spec_sets_seed(entry["model"]) or "seed" in entry["params"]
        key = unset_seed(build(name, {"model": entry["model"], "params": entry["params"]}),
                         sets_seed)
        param = None if key is None else key.split("__")[-1]
        if param is None or param in entry["grid"]:
            continue
        entry["params"][param] = seed
        given[f"models.{name}.params.{param}"] = seed
    return given


@contextlib.contextmanager
def importable(folder: str | Path | None) -> Iterator[None]:
    """Modules beside the config file importable while the study builds and runs its models.

    ``[models] mine = "mymodels:MyModel(alpha=0.1)"`` finds ``mymodels.py`` in the config's
    folder (then on the usual import path). The folder is put first on ``sys.path`` for the
    study's duration only.
    """
    entry = None if folder is None else str(folder)
    added = entry is not None and entry not in sys.path
    if added:
        sys.path.insert(0, str(entry))
    try:
        yield
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(str(entry))
