"""Every error and warning that receval raises on purpose.

receval never returns a silently wrong number: bad input raises one of the errors below, or
is handled by a policy that the caller chose and that the result records. The tree::

    RecevalError(Exception)                       base of every error receval raises on purpose
    ├── InvalidParameterError(RecevalError, ValueError)
    │   │                                         a bad argument: k, a metric parameter, a policy
    │   ├── UnknownMetricError(InvalidParameterError, KeyError)
    │   │                                         a metric name or parameter the registry lacks;
    │   │                                         the message lists close matches
    │   ├── ConfigError(InvalidParameterError)
    │   │                                         a study's config (rv.run, receval run): an
    │   │                                         unknown key or a bad value, named by its key
    │   │                                         path (models.knn.params.k)
    │   ├── InvalidModelError(InvalidParameterError)
    │   │                                         a model that breaks the model protocol: not
    │   │                                         wrapped, fit raising, output of the wrong kind
    │   └── OutputPathError(InvalidParameterError)
    │                                             an output path that cannot be written (missing
    │                                             directory, a directory, under a file, the same
    │                                             as an input or another output)
    ├── SchemaError(RecevalError, ValueError)     the shape of an input: columns, dtypes
    │   ├── ColumnNotFoundError(SchemaError, KeyError)
    │   │                                         no column matches a role; lists the columns
    │   └── IdTypeMismatchError(SchemaError)      user or item ids of different types in the
    │                                             two tables (no implicit cast)
    ├── DataError(RecevalError, ValueError)       the content of an input
    │   ├── DuplicateRowError(DataError)          repeated (user, item) pairs
    │   ├── NonFiniteValueError(DataError)        NaN scores, NaN / infinite ratings, null ids
    │   ├── InvalidGradeError(DataError)          negative grades, gain overflow
    │   ├── RankScoreMismatchError(DataError)     a rank column that contradicts the scores
    │   ├── MissingUsersError(DataError)          users on one side only, under policy "error"
    │   ├── MissingPredictionError(DataError)     truth ratings without a prediction
    │   └── EmptyInputError(DataError)            empty tables, or no user left to evaluate
    ├── DatasetError(RecevalError)                a data set of rv.datasets cannot be read or
    │   │                                         fetched (a failed download)
    │   ├── DatasetNotFoundError(DatasetError, FileNotFoundError)
    │   │                                         no archive or folder at the path, a file
    │   │                                         missing from the folder, not in the cache
    │   └── CorruptDatasetError(DatasetError, ValueError)
    │                                             not a zip archive, a failed CRC check, a file
    │                                             that is not in the data set's format
    └── BackendUnavailableError(RecevalError, ImportError)
                                                  an optional dependency is not installed

    RecevalWarning(UserWarning)                   base of every warning receval emits
    ├── DataWarning                               something in the data worth knowing
    │   ├── TiesAtCutoffWarning                   tied scores straddle a cutoff k
    │   └── SampledCorrectionWarning              a sampled-metric correction gave a mean
    │                                             outside the metric's range, or was asked
    │                                             of the wrong catalog size
    └── UndefinedMetricWarning                    a value is undefined for some users

Warnings are emitted with :func:`warn`, which points them at the caller's line (the first
frame outside receval), not at receval's own code.

Every data error carries the offending column or parameter (``column`` / ``parameter``), the
number of offending keys (``n_bad``) and up to five of them (``examples``), and pickles with its
attributes intact, so that it survives being sent between processes (Spark executors, process
pools).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "BackendUnavailableError",
    "ColumnNotFoundError",
    "ConfigError",
    "CorruptDatasetError",
    "DataError",
    "DataWarning",
    "DatasetError",
    "DatasetNotFoundError",
    "DuplicateRowError",
    "EmptyInputError",
    "IdTypeMismatchError",
    "InvalidGradeError",
    "InvalidModelError",
    "InvalidParameterError",
    "MissingPredictionError",
    "MissingUsersError",
    "NonFiniteValueError",
    "OutputPathError",
    "RankScoreMismatchError",
    "RecevalError",
    "RecevalWarning",
    "SampledCorrectionWarning",
    "SchemaError",
    "TiesAtCutoffWarning",
    "UndefinedMetricWarning",
    "UnknownMetricError",
]

MAX_EXAMPLES = 5


def format_examples(examples: Sequence[Any], n_bad: int | None = None) -> str:
    """Render up to five offending keys as ``'a', 'b', ... (12 in all)``."""
    shown = list(examples)[:MAX_EXAMPLES]
    text = ", ".join(repr(_plain(x)) for x in shown)
    total = len(examples) if n_bad is None else n_bad
    if total > len(shown):
        text += f", ... ({total} in all)"
    return text


def _plain(x: Any) -> Any:
    """Numpy scalars and tuples of them print as plain Python values."""
    if isinstance(x, tuple):
        return tuple(_plain(v) for v in x)
    item = getattr(x, "item", None)
    if callable(item) and type(x).__module__ == "numpy":
        return item()
    return x


class RecevalError(Exception):
    """Base class of every error that receval raises on purpose.

    Parameters
    ----------
    message : str
        The full, human-readable message.
    column : str, optional
        The input column concerned, if any.
    parameter : str, optional
        The parameter concerned, if any.
    n_bad : int, optional
        How many keys (rows, users, pairs) break the rule.
    examples : sequence, optional
        Up to five offending keys.
    """

    def __init__(
        self,
        message: str,
        *,
        column: str | None = None,
        parameter: str | None = None,
        n_bad: int | None = None,
        examples: Sequence[Any] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.parameter = parameter
        self.n_bad = n_bad
        self.examples = tuple(_plain(x) for x in list(examples)[:MAX_EXAMPLES])

    def __reduce__(self) -> tuple[Any, ...]:
        kwargs = {
            "column": self.column,
            "parameter": self.parameter,
            "n_bad": self.n_bad,
            "examples": self.examples,
        }
        return (_rebuild, (type(self), self.message, kwargs))

    def __str__(self) -> str:
        return self.message


def _rebuild(cls: type[RecevalError], message: str, kwargs: dict[str, Any]) -> RecevalError:
    return cls(message, **kwargs)


class InvalidParameterError(RecevalError, ValueError):
    """A parameter of a metric, of ``evaluate`` or of a protocol has an invalid value."""


class UnknownMetricError(InvalidParameterError, KeyError):
    """A metric name (or one of its parameters) is not in the registry."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return self.message


class ConfigError(InvalidParameterError):
    """A study's config has an unknown key or a bad value (:func:`receval.run`).

    ``parameter`` is the key path (``models.knn.params.k``); the message starts with it.
    """


class InvalidModelError(InvalidParameterError):
    """A model breaks the model protocol; the message names the model.

    An unwrapped library algorithm, ``fit`` raising, or an output of the wrong kind.
    """


class OutputPathError(InvalidParameterError):
    """An output path cannot be written; raised before any work is done.

    Its directory is missing, it is a directory, it lies under a file, or it is the same
    file as an input or another output. Nothing is half-written.
    """


class SchemaError(RecevalError, ValueError):
    """The shape of an input table is wrong: a missing column, a wrong dtype."""


class ColumnNotFoundError(SchemaError, KeyError):
    """No column of the input plays a required role (user, item, score, ...)."""

    def __str__(self) -> str:
        return self.message


class IdTypeMismatchError(SchemaError):
    """User or item ids have different types in the recommendations and the truth."""


class DataError(RecevalError, ValueError):
    """The content of an input breaks a rule."""


class DuplicateRowError(DataError):
    """A (user, item) pair appears more than once in one table."""


class NonFiniteValueError(DataError):
    """A NaN score, a NaN or infinite rating, or a missing id."""


class InvalidGradeError(DataError):
    """A relevance grade that is not allowed (negative) or that overflows a gain."""


class RankScoreMismatchError(DataError):
    """A rank column orders a user's items differently from the score column."""


class MissingUsersError(DataError):
    """Users present in one table only, when the policy for them is ``"error"``."""


class MissingPredictionError(DataError):
    """Truth ratings have no predicted rating, when the policy for them is ``"error"``."""


class EmptyInputError(DataError):
    """An input table is empty, or no user is left to evaluate."""


class DatasetError(RecevalError):
    """A data set of :mod:`receval.datasets` cannot be read or fetched; names the path or URL."""


class DatasetNotFoundError(DatasetError, FileNotFoundError):
    """A data set is not where it was looked for.

    No archive or folder at the path, a file missing from the folder, or nothing in the cache
    (and ``download=False``).
    """


class CorruptDatasetError(DatasetError, ValueError):
    """The archive or a file of a data set is not in the data set's format.

    Not a zip archive, a failed CRC check, a line with the wrong number of fields, a
    non-numeric id.
    """


class BackendUnavailableError(RecevalError, ImportError):
    """An optional dependency needed by the requested feature is not installed."""


class RecevalWarning(UserWarning):
    """Base class of every warning receval emits; ``strict=True`` makes them errors."""


class DataWarning(RecevalWarning):
    """Something in the data the user should know about (the result also records it)."""


class TiesAtCutoffWarning(DataWarning):
    """Tied scores straddle a cutoff ``k``, so the value depends on the tie policy."""


class SampledCorrectionWarning(DataWarning):
    """A correction of sampled metrics is unreliable on these data (the result records it).

    Its mean over the lists lies outside the metric's range (the per-list values of an
    unbiased correction swing widely and too few lists average them out), or ``n_items``
    is not the catalog the negatives were drawn from.
    """


class UndefinedMetricWarning(RecevalWarning):
    """A metric is undefined for some users; the result records how they were handled."""


_PACKAGE = str(Path(__file__).resolve().parent) + "/"


def _outside_receval(filename: str) -> bool:
    try:
        return not str(Path(filename).resolve()).startswith(_PACKAGE)
    except (OSError, ValueError):  # "<string>", "<frozen ...>"
        return True


def warn(message: str, category: type[Warning] = RecevalWarning) -> None:
    """Emit a warning attributed to the caller's code: the first frame outside receval.

    ``warnings.warn`` with a fixed ``stacklevel`` points at receval's own lines whenever the
    call goes through more than one of receval's functions; this walks the stack instead, so
    the warning names the user's line (and ``-W error`` / filters by module work on it).
    """
    frame = sys._getframe(1)
    level = 2  # 1 is this function, 2 its caller
    while frame is not None and not _outside_receval(frame.f_code.co_filename):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, category, stacklevel=level)
