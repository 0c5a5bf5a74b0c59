"""A study's output folder, every file written whole or not at all.

``per_fold.csv`` (one row per model and fold), ``summary.csv`` (mean and standard
deviation over folds), ``trials.csv`` (tuned models: every validation trial),
``comparison.csv`` (the paired tests), ``per_user.parquet`` (every model, fold and user),
``report.html`` (the cross-validation report), ``comparison.html`` (the comparison's report,
with ``[compare]``) and ``run.json`` (the manifest). The paths are
checked before any data is read (:func:`check_folder`); each file is written to a temporary
name beside it and renamed (:func:`receval._paths.atomic_write`). Once ``run.json`` is
written, the files of these names that an earlier study left in the folder and this one did
not write are removed (:func:`remove_stale`); no other file is touched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from receval._paths import atomic_write, check_output
from receval.exceptions import OutputPathError

__all__ = ["FILES", "check_folder", "remove_stale", "to_write", "write_outputs"]

#: Output files by the ``[outputs]`` switch that writes them (run.json always).
FILES = {"tables": ("per_fold.csv", "summary.csv", "trials.csv", "comparison.csv"),
         "per_user": ("per_user.parquet",), "report": ("report.html", "comparison.html")}


def check_folder(outputs: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Path]:
    """The folder created if needed, and the path of every file the study will write.

    Raises
    ------
    OutputPathError
        ``outputs.folder`` is a file, lies under a file, or its parent does not exist;
        or an output would overwrite an input.
    """
    folder = Path(outputs["folder"])
    if folder.exists() and not folder.is_dir():
        raise OutputPathError(f"outputs.folder: {str(folder)!r} is a file, not a folder",
                              parameter="outputs.folder", examples=[str(folder)])
    if not folder.exists():
        check_output(folder, parameter="outputs.folder")
        folder.mkdir()
    names = ["run.json"] + [name for switch, files in FILES.items() if outputs[switch]
                            for name in files]
    return {name: check_output(folder / name, parameter=f"outputs.folder ({name})",
                               inputs=inputs) for name in names}


def to_write(paths: dict[str, Path], study: Any) -> dict[str, Path]:
    """The files of ``paths`` that ``study`` writes.

    ``trials.csv`` only with a tuned model, ``comparison.csv`` and ``comparison.html`` only
    with a comparison.
    """
    skip = set()
    if not study.tuning:
        skip.add("trials.csv")
    if study.comparison is None:
        skip |= {"comparison.csv", "comparison.html"}
    return {name: path for name, path in paths.items() if name not in skip}


def remove_stale(folder: Path, written: dict[str, Path], inputs: dict[str, Any]) -> list[str]:
    """Remove the study's own outputs of an earlier run that this run did not write.

    Only the names of :data:`FILES` and ``run.json``, only files, never an input; returns
    the names removed.
    """
    removed = []
    for name in ("run.json", *(n for files in FILES.values() for n in files)):
        path = folder / name
        if name in written or not path.is_file():
            continue
        try:
            check_output(path, parameter=name, inputs=inputs)
        except OutputPathError:  # an input (or not ours to touch): left alone
            continue
        path.unlink()
        removed.append(name)
    return removed


def _write_text(path: Path, text: str) -> None:
    with atomic_write(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _per_user(cv: Any) -> pd.DataFrame:
    frames = []
    for (model, fold), ev in cv.results.items():
        frame = ev.per_user.reset_index()
        frame.insert(0, "fold", fold)
        frame.insert(0, "model", model)
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    user = out.columns[2]
    if out[user].dtype == object:
        out[user] = out[user].astype(str)
    return out


def write_outputs(paths: dict[str, Path], study: Any) -> None:
    """Write every file of ``paths`` from a finished study (run.json last)."""
    cv = study.cv
    if "per_fold.csv" in paths:
        _write_text(paths["per_fold.csv"], cv.per_fold.to_csv())
        summary = cv.summary()
        summary.columns = [f"{label} {stat}" for label, stat in summary.columns]
        _write_text(paths["summary.csv"], summary.to_csv(index_label="model"))
        if "trials.csv" in paths:
            trials = pd.concat([t.trials.assign(model=name) for name, t in
                                study.tuning.items()], ignore_index=True)
            _write_text(paths["trials.csv"], trials.to_csv(index=False))
        if "comparison.csv" in paths:
            _write_text(paths["comparison.csv"], study.comparison.tests.to_csv(index=False))
    if "per_user.parquet" in paths:
        with atomic_write(paths["per_user.parquet"]) as tmp:
            _per_user(cv).to_parquet(tmp, index=False)
    if "report.html" in paths:
        with atomic_write(paths["report.html"]) as tmp:
            cv.report(tmp, title=study.config["name"])
        if "comparison.html" in paths:
            with atomic_write(paths["comparison.html"]) as tmp:
                study.comparison.report(tmp, title=f"{study.config['name']}: comparison")
    _write_text(paths["run.json"], json.dumps(study.manifest, indent=1, ensure_ascii=False,
                                              allow_nan=False) + "\n")
