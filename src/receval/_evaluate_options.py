"""Every option of :func:`receval.evaluate`, declared once, as data.

``evaluate`` keeps its explicit keyword signature (for help in editors and the docs); this
table says, for each of its options, what kind of value it takes, its choices, its default
and a one-line help, and how a value written as text (a command-line flag, a config file)
is read. The command line generates the flags of every command that evaluates from it
(:mod:`receval.cli._options`), ``evaluate`` reads its choice lists from it, and a test checks
that it lists the same options with the same defaults as ``inspect.signature(evaluate)``.
So a new option of ``evaluate`` is declared here once and reaches every door.

Kinds (how a text value is read):

``choice``
    one of ``choices``.
``number``
    a float.
``choice_or_number``
    one of ``choices``, or a float (``missing_predictions``).
``choice_or_integer``
    one of ``choices``, or an integer (``buckets``).
``flag``
    a boolean switch.
``switch``
    a boolean or unset (``--progress`` / ``--no-progress``).
``text``
    a string (a convention's name).
``table``
    a path to a table, read by :func:`receval.data.read_table`.
``items``
    a path to a list of ids (a table with an item column, or one id per line).
``columns``
    column names by role (:class:`receval.Columns`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from receval.data._build import TIE_POLICIES
from receval.data._checks import DUPLICATE_POLICIES
from receval.data._encode import ID_CASTS

if TYPE_CHECKING:
    from receval.exceptions import InvalidParameterError

__all__ = ["EVALUATE_OPTIONS", "KINDS", "EvaluateOption", "check_flags",
           "check_relevance_threshold", "choices_of", "defaults", "option", "unknown_keyword"]

#: What kinds of value an option takes (see the module's documentation).
KINDS = ("choice", "number", "choice_or_number", "choice_or_integer", "flag", "switch", "text",
         "table", "items", "columns")


@dataclass(frozen=True)
class EvaluateOption:
    """One keyword option of :func:`receval.evaluate`.

    Attributes
    ----------
    name : str
        The keyword (``"no_relevant"``); the command-line flag is ``--no-relevant``.
    kind : str
        One of :data:`KINDS`: how a text value is read.
    default : object
        The default of ``evaluate``'s keyword.
    help : str
        One line for ``--help``.
    choices : tuple of str
        The values a ``choice`` accepts (and the words a ``choice_or_*`` accepts).
    short : str or None
        A one-letter flag (``"-c"``), if any.
    cli : str or None
        ``None`` when every command that evaluates has the flag; otherwise why none has it.
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    short: str | None = None
    cli: str | None = None

    @property
    def flag(self) -> str:
        """The command-line flag, e.g. ``--no-relevant``."""
        return "--" + self.name.replace("_", "-")

    @property
    def is_path(self) -> bool:
        """Whether a text value is a path to a file (a table or a list of ids)."""
        return self.kind in ("table", "items")

    def read(self, text: str) -> Any:
        """The value that ``text`` (a flag's value, a config file's string) gives the option.

        Paths (``table``, ``items``) and column names are returned as they are: the caller
        reads the file (:func:`receval.data.read_table`) or builds the ``Columns``.

        Raises
        ------
        InvalidParameterError
            A text that is none of the choices, or not a number where one is needed.
        """
        from receval.exceptions import InvalidParameterError

        words = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
        if text in self.choices or self.kind in ("text", "table", "items", "columns"):
            return text
        try:
            if self.kind in ("number", "choice_or_number"):
                return float(text)
            if self.kind == "choice_or_integer":
                return int(text)
            if self.kind in ("flag", "switch"):
                return words[text.strip().lower()]
        except (KeyError, ValueError):
            pass
        wanted = {"choice": f"one of {', '.join(self.choices)}",
                  "number": "a number", "flag": "true or false", "switch": "true or false",
                  "choice_or_number": f"one of {', '.join(self.choices)}, or a number",
                  "choice_or_integer": f"one of {', '.join(self.choices)}, or an integer"}
        raise InvalidParameterError(f"{self.name} must be {wanted[self.kind]}; got {text!r}",
                                    parameter=self.name, examples=[text])


_O = EvaluateOption

#: The options, in the order of ``evaluate``'s signature.
EVALUATE_OPTIONS: tuple[EvaluateOption, ...] = (
    _O("convention", "text", None, "Reproduce a library's numbers (receval conventions lists "
       "them).", short="-c"),
    _O("relevance_threshold", "number", None, "Grades >= this are relevant (default: the "
       "convention's, or every positive grade).", short="-t"),
    _O("columns", "columns", None, "Column names by role, for every table or one table."),
    _O("ties", "choice", None, "Order of items with equal scores (default: the convention's, "
       "or stable).", choices=tuple(TIE_POLICIES)),
    _O("no_relevant", "choice", None, "Truth users without a relevant item (default: the "
       "convention's, or skip).", choices=("skip", "zero", "error")),
    _O("missing_recs", "choice", None, "Truth users without recommendations (default: the "
       "convention's, or zero).", choices=("zero", "skip", "error")),
    _O("recs_without_truth", "choice", None, "Users with recommendations but no truth "
       "(default: the convention's, or ignore).", choices=("ignore", "zero", "error")),
    _O("missing_predictions", "choice_or_number", None, "Rating metrics: error, skip, "
       "global_mean, or a number to fill with (default: the convention's, or error).",
       choices=("error", "skip", "global_mean")),
    _O("truth_scope", "choice", None, "Truth rows that count: all, or only recommended items "
       "(default: the convention's, or all).", choices=("all", "recommended")),
    _O("score_precision", "choice", None, "Round scores to float32 first (default: the "
       "convention's, or float64).", choices=("float64", "float32")),
    _O("catalog", "items", None, "File of the item catalog for coverage: a table with an "
       "item column, or one id per line (default: every item of the inputs)."),
    _O("duplicates", "choice", "error", "A (user, item) pair repeated in a table.",
       choices=tuple(DUPLICATE_POLICIES)),
    _O("negative_grades", "choice", "error", "Negative truth grades.",
       choices=("error", "allow")),
    _O("id_cast", "choice", None, "Cast both tables' ids to str or int first (default: ids "
       "of different types are an error).", choices=tuple(c for c in ID_CASTS if c)),
    _O("strict", "flag", False, "Turn every warning into an error."),
    _O("buckets", "choice_or_integer", None, "Parquet inputs larger than memory: this many "
       "buckets of users, or auto.", choices=("auto",)),
    _O("progress", "switch", None, "Show a progress bar over the buckets (default: on a "
       "terminal)."),
    _O("train", "table", None, "Training interactions, for novelty, popularity, the long "
       "tail and Gini's catalog."),
    _O("item_features", "table", None, "Item features for diversity and serendipity: wide, "
       "long (item, feature) or item -> vector."),
    _O("item_features_missing", "choice", None, "An item without features: error, skip (left "
       "out of similarities) or zero (a zero vector); default: the convention's, or error.",
       choices=("error", "skip", "zero")),
    _O("item_features_sep", "text", "|", "Separator of several categories in one cell of a "
       "long item_features table (MovieLens genres 'Action|Adventure')."),
    _O("item_groups", "table", None, "Item -> group (providers, popularity groups), for the "
       "exposure and provider-fairness metrics."),
    _O("user_groups", "table", None, "User -> group, for delta_gap and the user-side "
       "fairness metrics."),
    _O("propensities", "table", None, "Item -> observation propensity in (0, 1], for the "
       "propensity-weighted (IPS/SNIPS) metrics with propensity=column."),
    _O("sample", "text", None, "Column of recs holding the sample label of a stochastic "
       "ranker's sampled rankings (several per user), for expected_exposure."),
    _O("per_user", "choice", "pandas", "Where per-user values go: pandas, or spark for Spark "
       "inputs.", choices=("pandas", "spark"),
       cli="Spark inputs only; the command line reads files into pandas (its --per-user FILE "
           "writes the per-user values)"),
)

_BY_NAME = {o.name: o for o in EVALUATE_OPTIONS}


def option(name: str) -> EvaluateOption:
    """The declaration of the option ``name``."""
    return _BY_NAME[name]


def choices_of(name: str) -> tuple[str, ...]:
    """The choices of option ``name`` (what ``evaluate`` checks a value against)."""
    return _BY_NAME[name].choices


def defaults() -> Mapping[str, Any]:
    """Option name -> default, as in ``evaluate``'s signature."""
    return {o.name: o.default for o in EVALUATE_OPTIONS}


def check_relevance_threshold(value: Any) -> float | None:
    """``relevance_threshold`` checked: None, or a number >= 0 (never NaN, a bool or text).

    The one rule of every door that takes a threshold (:func:`receval.evaluate`,
    :func:`receval.explain`).

    Raises
    ------
    InvalidParameterError
        Anything else, naming the parameter and the value.
    """
    from receval.exceptions import InvalidParameterError

    if value is not None and not (isinstance(value, (int, float)) and not isinstance(
            value, bool) and value >= 0):
        raise InvalidParameterError(
            f"relevance_threshold must be a number >= 0 (grades below it are not relevant), "
            f"got {value!r}", parameter="relevance_threshold", examples=[value])
    return value


def check_flags(values: Mapping[str, Any]) -> None:
    """Each boolean option among ``values`` (name -> value) is a bool, as declared.

    A ``flag`` takes True or False, a ``switch`` also None; a truthy stand-in (``"yes"``,
    ``"no"``, ``1``) is an error naming the option (:func:`receval._flags.check_flag`).
    Options of other kinds are left to their own checks.
    """
    from receval._flags import check_flag

    for name, value in values.items():
        declared = _BY_NAME.get(name)
        if declared is not None and declared.kind in ("flag", "switch"):
            check_flag(value, name, none=declared.kind == "switch")


def unknown_keyword(function: str, key: str, *, own: Sequence[str] = (),
                    passed_on: bool = False) -> InvalidParameterError:
    """The error for a keyword that ``function`` does not take, with the close matches.

    Parameters
    ----------
    function : str
        The public function's name (``"evaluate"``, ``"cross_validate"``).
    key : str
        The keyword given.
    own : sequence of str
        The function's own arguments, besides the options of :func:`receval.evaluate`.
    passed_on : bool
        Whether the function passes every other keyword on to ``evaluate`` (the message
        then says so).

    Returns
    -------
    InvalidParameterError
        Naming ``key``, up to three close matches and the keywords accepted; to raise.
    """
    from receval.exceptions import InvalidParameterError

    options = [o.name for o in EVALUATE_OPTIONS if not (passed_on and o.name in own)]
    close = difflib.get_close_matches(key, [*options, *own], n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    if passed_on:
        where = (f"Its own are {', '.join(own)}; every other keyword is passed to evaluate, "
                 f"whose options are {', '.join(options)}")
    else:
        where = f"Its arguments are {', '.join(own)}, and the options {', '.join(options)}"
    return InvalidParameterError(
        f"{function}() got an unexpected keyword argument {key!r}{hint}. {where}",
        parameter=key, examples=[key])
