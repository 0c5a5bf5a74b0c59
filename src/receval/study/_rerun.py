"""``rv.rerun``: run a manifest's study again and compare every number, exactly.

The rerun reads only the manifest (its resolved config) and the input files; outputs go to
a temporary folder (or ``folder=``). The sections of :data:`._manifest.COMPARED` are compared
in order, key by key, floats with ``==`` (no tolerance); the first difference is reported by
its key path, e.g. ``inputs.data.sha256`` (the input file changed) or
``results.pop.folds[0].values.NDCG@10``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from receval.exceptions import ConfigError
from receval.study._manifest import COMPARED, FORMAT

__all__ = ["Difference", "Rerun", "differences", "read_manifest", "rerun"]


@dataclass(frozen=True)
class Difference:
    """One value that differs between the manifest and the rerun."""

    path: str
    old: Any
    new: Any

    def __str__(self) -> str:
        what = ""
        if self.path.startswith("inputs.") and self.path.endswith("sha256"):
            what = " (the input changed)"
        elif self.path.startswith("splits"):
            what = " (a split part changed)"
        return (f"{self.path}{what}: old {json.dumps(self.old, default=str)}, new "
                f"{json.dumps(self.new, default=str)}")


@dataclass(frozen=True)
class Rerun:
    """What :func:`receval.rerun` found.

    Attributes
    ----------
    identical : bool
        Every compared value is the same.
    differences : list of Difference
        Every difference, in comparison order (``differences[0]`` is the first).
    manifest : dict
        The rerun's own manifest.
    """

    identical: bool
    differences: list[Difference] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def first(self) -> Difference | None:
        """The first difference, or None."""
        return self.differences[0] if self.differences else None

    def __str__(self) -> str:
        if self.identical:
            return "identical: every number of the manifest was recomputed exactly"
        more = len(self.differences) - 1
        return f"first difference: {self.first}" + (
            f" ({more} more)" if more else "")


def _walk(old: Any, new: Any, path: str) -> Iterator[Difference]:
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in list(old) + [k for k in new if k not in old]:
            where = f"{path}.{key}" if path else str(key)
            if key not in new or key not in old:
                yield Difference(where, old.get(key), new.get(key))
            else:
                yield from _walk(old[key], new[key], where)
    elif isinstance(old, list) and isinstance(new, list):
        for i, (a, b) in enumerate(zip(old, new, strict=False)):
            yield from _walk(a, b, f"{path}[{i}]")
        if len(old) != len(new):
            yield Difference(f"{path} (length)", len(old), len(new))
    elif old != new or (type(old) is not type(new) and not (
            isinstance(old, (int, float)) and isinstance(new, (int, float)))):
        yield Difference(path, old, new)


def _without_paths(value: Any) -> Any:
    """``inputs`` without where the files were (their content is compared by hash)."""
    if isinstance(value, Mapping):
        return {k: _without_paths(v) for k, v in value.items() if k != "path"}
    return value


def differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Difference]:
    """Every difference of the compared sections, in order (inputs first).

    Input files are compared by content (their SHA-256), not by where they are.
    """
    out = []
    for section in COMPARED:
        a, b = old.get(section), new.get(section)
        if section == "inputs":
            a, b = _without_paths(a), _without_paths(b)
        out += list(_walk(a, b, section))
    return out


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest at ``path``, checked to be one.

    Raises
    ------
    ConfigError
        No file, not JSON, or not a receval manifest of a known format.
    """
    file = Path(os.fspath(path))
    try:
        manifest = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"manifest: no file at {str(file)!r}", parameter="manifest",
                          examples=[str(file)]) from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"manifest: {str(file)!r} is not a JSON file: {exc}",
                          parameter="manifest", examples=[str(file)]) from None
    if not isinstance(manifest, dict) or manifest.get("receval_manifest") != FORMAT:
        raise ConfigError(f"manifest: {str(file)!r} is not a receval run.json (format "
                          f"{FORMAT})", parameter="manifest", examples=[str(file)])
    return manifest


def rerun(manifest: str | os.PathLike[str] | Mapping[str, Any], *,
          data: str | os.PathLike[str] | None = None,
          folder: str | os.PathLike[str] | None = None, progress: bool = False) -> Rerun:
    """Recompute a study from its manifest and compare every number.

    Parameters
    ----------
    manifest : path or dict
        A ``run.json`` written by :func:`receval.run`, or its content.
    data : path, optional
        Where the input file (``[data] path``) is now, when it moved (another machine); its
        content is still checked against the manifest's hash.
    folder : path, optional
        Where the rerun writes its outputs (default: a temporary folder, removed after).
    progress : bool
        Progress lines on stderr.

    Returns
    -------
    Rerun
        ``identical``, ``differences`` (the first is the first in the order inputs,
        splits, metrics, evaluation, results, tuning, comparison), the new manifest.
    """
    from receval.study._study import run

    old = dict(manifest) if isinstance(manifest, Mapping) else read_manifest(manifest)
    config = json.loads(json.dumps(old["config"]))
    config["outputs"]["tracking"] = None
    if data is not None:
        config["data"]["path"] = str(Path(os.fspath(data)).resolve())
    else:
        _check_input_is_there(config["data"])
    if folder is None:  # the numbers only: no report, no per-user table to throw away
        config["outputs"].update(report=False, per_user=False, tables=False)
    with tempfile.TemporaryDirectory(prefix="receval-rerun-") as tmp:
        config["outputs"]["folder"] = str(folder) if folder is not None else tmp
        study = run(config, progress=progress, models_from=old.get("models_from"))
    found = differences(old, study.manifest)
    return Rerun(not found, found, study.manifest)


def _check_input_is_there(data: Mapping[str, Any]) -> None:
    """Refuse, with the way out, a recorded input file that is no longer where it was.

    Only a file the config named itself (``[data] path`` without a data set): a data set
    downloads or reads its own archive.
    """
    path = data.get("path")
    if data.get("dataset") is None and path is not None and not Path(path).exists():
        raise ConfigError(
            f"data.path: the input the manifest recorded, {path!r}, is not there; if it "
            "moved, give its new place (rv.rerun(manifest, data=...), receval rerun "
            "run.json --data PATH): its content is still checked against the recorded hash",
            parameter="data", examples=[path])
