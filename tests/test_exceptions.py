"""The exception tree of receval: classes, attributes, pickling, and light imports."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import receval
import receval.exceptions as E

ERRORS = [getattr(E, name) for name in E.__all__
          if isinstance(getattr(E, name), type) and issubclass(getattr(E, name), Exception)
          and not issubclass(getattr(E, name), Warning)]
WARNINGS = [getattr(E, name) for name in E.__all__
            if isinstance(getattr(E, name), type) and issubclass(getattr(E, name), Warning)]


def test_all_lists_every_public_class() -> None:
    public = {name for name, obj in vars(E).items()
              if isinstance(obj, type) and issubclass(obj, BaseException)
              and obj.__module__ == E.__name__ and not name.startswith("_")}
    assert public == set(E.__all__)
    assert len(ERRORS) + len(WARNINGS) == len(E.__all__)


@pytest.mark.parametrize("cls", ERRORS, ids=lambda c: c.__name__)
def test_attributes(cls: type[E.RecevalError]) -> None:
    exc = cls("bad k: got 0", column="score", parameter="k", n_bad=7,
              examples=[("u1", "a"), ("u2", "b"), 3, 4, 5, 6, 7])
    assert isinstance(exc, E.RecevalError)
    assert str(exc) == "bad k: got 0"
    assert exc.message == "bad k: got 0"
    assert exc.column == "score"
    assert exc.parameter == "k"
    assert exc.n_bad == 7
    assert exc.examples == (("u1", "a"), ("u2", "b"), 3, 4, 5)  # at most five


@pytest.mark.parametrize("cls", ERRORS, ids=lambda c: c.__name__)
def test_defaults(cls: type[E.RecevalError]) -> None:
    exc = cls("message")
    assert (exc.column, exc.parameter, exc.n_bad, exc.examples) == (None, None, None, ())
    assert str(exc) == "message"


@pytest.mark.parametrize("cls", ERRORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_roundtrip(cls: type[E.RecevalError], protocol: int) -> None:
    exc = cls("3 repeated (user, item) pairs, e.g. ('u1', 'a')", column="item",
              parameter="duplicates", n_bad=3, examples=[("u1", "a"), ("u2", 2**64 - 1)])
    back = pickle.loads(pickle.dumps(exc, protocol=protocol))
    assert type(back) is cls
    assert str(back) == str(exc)
    assert back.message == exc.message
    assert back.args == exc.args
    assert (back.column, back.parameter, back.n_bad, back.examples) == (
        "item", "duplicates", 3, (("u1", "a"), ("u2", 2**64 - 1)))


def test_pickle_keeps_numpy_examples_plain() -> None:
    exc = E.DuplicateRowError("dup", n_bad=np.int64(2),
                              examples=[(np.int64(1), np.str_("a")), np.uint64(2**64 - 1)])
    assert exc.examples == ((1, "a"), 2**64 - 1)
    assert type(exc.examples[0][0]) is int
    back = pickle.loads(pickle.dumps(exc))
    assert back.examples == ((1, "a"), 2**64 - 1)
    assert back.n_bad == 2


def test_raised_error_pickles_with_its_traceback_attributes() -> None:
    recs = pd.DataFrame({"user": [1, 1], "item": ["a", "a"], "score": [1.0, 2.0]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    with pytest.raises(E.DuplicateRowError) as info:
        receval.evaluate(recs, truth, ["mrr"])
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is E.DuplicateRowError
    assert str(back) == str(info.value)
    assert back.examples == ((1, "a"),)
    assert back.n_bad == 1
    assert back.column == "item"


# -- the tree ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("cls", "bases"), [
    (E.RecevalError, (Exception,)),
    (E.InvalidParameterError, (E.RecevalError, ValueError)),
    (E.UnknownMetricError, (E.InvalidParameterError, KeyError, ValueError)),
    (E.SchemaError, (E.RecevalError, ValueError)),
    (E.ColumnNotFoundError, (E.SchemaError, KeyError, ValueError)),
    (E.IdTypeMismatchError, (E.SchemaError, ValueError)),
    (E.DataError, (E.RecevalError, ValueError)),
    (E.DuplicateRowError, (E.DataError,)),
    (E.NonFiniteValueError, (E.DataError,)),
    (E.InvalidGradeError, (E.DataError,)),
    (E.RankScoreMismatchError, (E.DataError,)),
    (E.MissingUsersError, (E.DataError,)),
    (E.MissingPredictionError, (E.DataError,)),
    (E.EmptyInputError, (E.DataError,)),
    (E.BackendUnavailableError, (E.RecevalError, ImportError)),
])
def test_tree(cls: type, bases: tuple[type, ...]) -> None:
    for base in bases:
        assert issubclass(cls, base), (cls, base)


def test_every_error_is_a_receval_error() -> None:
    assert all(issubclass(cls, E.RecevalError) for cls in ERRORS)
    assert receval.RecevalError is E.RecevalError
    assert receval.RecevalWarning is E.RecevalWarning


def test_data_and_schema_and_parameter_errors_are_distinct_branches() -> None:
    assert not issubclass(E.DataError, E.SchemaError)
    assert not issubclass(E.SchemaError, E.DataError)
    assert not issubclass(E.InvalidParameterError, (E.DataError, E.SchemaError))
    assert not issubclass(E.DataError, KeyError)
    assert not issubclass(E.BackendUnavailableError, ValueError)


@pytest.mark.parametrize("cls", [E.UnknownMetricError, E.ColumnNotFoundError])
def test_key_errors_print_the_plain_message(cls: type[E.RecevalError]) -> None:
    exc = cls("unknown metric 'ndgc'; did you mean 'ndcg'?", parameter="metrics")
    assert isinstance(exc, KeyError)
    assert str(exc) == "unknown metric 'ndgc'; did you mean 'ndcg'?"  # KeyError would quote it
    with pytest.raises(KeyError, match=r"^unknown metric 'ndgc'; did you mean 'ndcg'\?$"):
        raise exc


def test_key_error_message_from_evaluate_is_plain() -> None:
    with pytest.raises(KeyError) as info:
        receval.metrics.parse("ndgc@10")
    assert str(info.value).startswith("unknown metric 'ndgc'")
    assert not str(info.value).startswith('"')


def test_docstring_mentions_every_exception() -> None:
    doc = E.__doc__ or ""
    for name in E.__all__:
        assert name in doc, name


@pytest.mark.parametrize("cls", WARNINGS, ids=lambda c: c.__name__)
def test_warnings(cls: type[Warning]) -> None:
    assert issubclass(cls, E.RecevalWarning)
    assert issubclass(cls, UserWarning)
    assert not issubclass(cls, E.RecevalError)


def test_warning_tree() -> None:
    assert issubclass(E.TiesAtCutoffWarning, E.DataWarning)
    assert issubclass(E.SampledCorrectionWarning, E.DataWarning)
    assert issubclass(E.DataWarning, E.RecevalWarning)
    assert issubclass(E.UndefinedMetricWarning, E.RecevalWarning)
    assert not issubclass(E.UndefinedMetricWarning, E.DataWarning)
    assert {c.__name__ for c in WARNINGS} == {"RecevalWarning", "DataWarning",
                                              "TiesAtCutoffWarning", "UndefinedMetricWarning",
                                              "SampledCorrectionWarning"}


def test_format_examples() -> None:
    assert E.format_examples(["a", "b"]) == "'a', 'b'"
    assert E.format_examples(list(range(7))) == "0, 1, 2, 3, 4, ... (7 in all)"
    assert E.format_examples([1], n_bad=12) == "1, ... (12 in all)"


def test_import_is_light() -> None:
    code = ("import receval, sys; print([m for m in ('pyspark', 'matplotlib', 'jinja2', "
            "'polars', 'duckdb') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
