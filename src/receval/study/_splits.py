"""The folds of a study, and the validation part carved from a training part by the same splitter.

A splitter is described as a config table, ``{"method": "kfold", "n_splits": 5, ...}``:
the name of a function of :mod:`receval.split` and its keywords. :func:`splitter_of` reads
that table back from a :class:`~receval.split.Split`'s report, so that :func:`receval.tune`
can carve validation parts with the splitter that made the folds it is given.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from receval.exceptions import ConfigError, InvalidParameterError, RecevalError
from receval.study._schema import SPLIT_METHODS, WHOLE_DATA

__all__ = ["WholeData", "make_folds", "splitter_of", "validation_part"]


@dataclass(frozen=True)
class WholeData:
    """``[split] method = "all"``: train and test are both every row of the data.

    Seed 004's procedure (fit on every row, measure on the same rows): it measures how well a
    model fits its data, never how it generalises; for textbook examples, not for choosing
    a model.
    """

    train: Any
    test: Any
    report: None = None


def _call(frame: Any, splitter: dict[str, Any], where: str) -> list[Any]:
    import receval.split

    method = splitter["method"]
    if method == WHOLE_DATA:
        return [WholeData(frame, frame)]
    params = {k: v for k, v in splitter.items() if k != "method"}
    try:
        out = getattr(receval.split, method)(frame, **params)
    except RecevalError as exc:
        raise ConfigError(f"{where}: {exc}", parameter=where,
                          examples=getattr(exc, "examples", ())) from None
    except TypeError as exc:
        raise ConfigError(f"{where}: {exc}", parameter=where) from None
    return out if isinstance(out, list) else [out]


def make_folds(frame: Any, splitter: dict[str, Any]) -> list[Any]:
    """The Splits of ``[split]`` on the study's data, in order."""
    return _call(frame, splitter, "split")


def validation_part(train: Any, splitter: dict[str, Any], where: str = "tune.validation"
                    ) -> Any:
    """One Split of a training part ``train``: its validation part is carved from it.

    The splitter runs on ``train`` alone (never on test rows). A k-fold splitter gives its
    first fold; a rolling one its last window (the latest origin, nearest the test period);
    the others their one Split.
    """
    folds = _call(train, splitter, where)
    if not folds:
        raise ConfigError(f"{where}: the splitter made no validation part of the training "
                          f"part", parameter=where)
    return folds[-1] if splitter["method"] == "rolling" else folds[0]


def splitter_of(split: Any) -> dict[str, Any]:
    """The splitter table (method and keywords) that made ``split``, from its report.

    Raises
    ------
    InvalidParameterError
        ``split`` has no report of a :mod:`receval.split` method (then pass
        ``validation=`` explicitly).
    """
    import receval.split

    report = getattr(split, "report", None)
    method = getattr(report, "method", None)
    if method not in SPLIT_METHODS:
        raise InvalidParameterError(
            "validation: the folds carry no receval.split report to carve a validation part "
            "with the same splitter; pass validation= (a dict such as {'method': 'random', "
            "'test_size': 0.2}, or a function of the training part returning a Split)",
            parameter="validation")
    assert report is not None
    names = set(inspect.signature(getattr(receval.split, str(method))).parameters)
    names -= {"data", "columns"}
    return {"method": method, **{k: v for k, v in report.settings.items() if k in names}}
