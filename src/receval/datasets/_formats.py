"""The MovieLens versions and their file formats, exactly as GroupLens distributes them.

Three layouts:

- ``ml-100k``: ``u.data`` (tab-separated ``user item rating timestamp``, no header),
  ``u.item`` (pipe-separated ``id | title | release date | video release date | IMDb URL``
  and 19 genre flags, Latin-1), ``u.user`` (``id | age | gender | occupation | zip``);
- ``ml-1m`` and ``ml-10m``: ``ratings.dat`` (``UserID::MovieID::Rating::Timestamp``),
  ``movies.dat`` (``MovieID::Title::Genres``, genres ``|``-separated; Latin-1 in ml-1m) and,
  in ml-1m, ``users.dat`` (``UserID::Gender::Age::Occupation::Zip-code``);
- ``ml-20m``, ``ml-25m``, ``ml-32m``, ``ml-latest-small``, ``ml-latest``: ``ratings.csv``
  (header ``userId,movieId,rating,timestamp``) and ``movies.csv`` (header
  ``movieId,title,genres``, titles quoted when they hold a comma), UTF-8.

Timestamps are seconds since 1970-01-01 UTC in every version. The ratings are parsed by
pyarrow's CSV reader, streaming from the archive; the small item and user files are decoded
with their version's encoding and split by hand, so that a title with a quote, a comma or a
colon is read as it is.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from receval.exceptions import CorruptDatasetError

__all__ = ["GENRES_100K", "VERSIONS", "Version", "read_items", "read_ratings", "read_users"]

#: The 19 genre flags of ml-100k's ``u.item``, in column order (its ``u.genre``).
GENRES_100K = ("unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime",
               "Documentary", "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery",
               "Romance", "Sci-Fi", "Thriller", "War", "Western")

#: Names of a version's files by layout: ratings, items, users (None: the version has none).
FILES: dict[str, tuple[str, str, str | None]] = {
    "100k": ("u.data", "u.item", "u.user"),
    "dat": ("ratings.dat", "movies.dat", "users.dat"),
    "csv": ("ratings.csv", "movies.csv", None),
}


@dataclass(frozen=True)
class Version:
    """One MovieLens release.

    Attributes
    ----------
    name : str
        The name GroupLens gives it, which is also its archive's name (``ml-1m.zip``).
    folder : str
        The folder the archive holds its files in (``ml-10M100K`` for ml-10m).
    layout : {"100k", "dat", "csv"}
        Its file formats.
    encoding : str
        The encoding of its item (and user) file; ``"utf-8|latin-1"`` is UTF-8 when the
        bytes are valid UTF-8, else Latin-1.
    has_users : bool
        Whether it has a user file (demographics).
    size : str
        The archive's size, roughly (for the download message).
    """

    name: str
    folder: str
    layout: str
    encoding: str
    has_users: bool
    size: str

    @property
    def files(self) -> tuple[str, str, str | None]:
        """Its ratings, items and users file names (users None when it has none)."""
        ratings, items, users = FILES[self.layout]
        return ratings, items, users if self.has_users else None


VERSIONS: dict[str, Version] = {v.name: v for v in (
    Version("ml-100k", "ml-100k", "100k", "latin-1", True, "5 MB"),
    Version("ml-1m", "ml-1m", "dat", "latin-1", True, "6 MB"),
    Version("ml-10m", "ml-10M100K", "dat", "utf-8|latin-1", False, "63 MB"),
    Version("ml-20m", "ml-20m", "csv", "utf-8", False, "190 MB"),
    Version("ml-25m", "ml-25m", "csv", "utf-8", False, "250 MB"),
    Version("ml-32m", "ml-32m", "csv", "utf-8", False, "240 MB"),
    Version("ml-latest-small", "ml-latest-small", "csv", "utf-8", False, "1 MB"),
    Version("ml-latest", "ml-latest", "csv", "utf-8", False, "340 MB"),
)}

_RATING_TYPES = {"user_id": pa.int32(), "item_id": pa.int32(), "rating": pa.float64(),
                 "timestamp": pa.int64()}


def _ratings_options(layout: str) -> tuple[Any, Any, Any]:
    """pyarrow read, parse and convert options of a layout's ratings file."""
    names = list(_RATING_TYPES)
    if layout == "dat":  # "1::1193::5::978300760": split on ':', every other field is empty
        columns = ["user_id", "_1", "item_id", "_2", "rating", "_3", "timestamp"]
        delimiter = ":"
    else:
        columns, delimiter = names, "\t" if layout == "100k" else ","
    read = pacsv.ReadOptions(column_names=columns, block_size=1 << 24)  # csv: header read
    parse = pacsv.ParseOptions(delimiter=delimiter, quote_char=False)
    convert = pacsv.ConvertOptions(column_types=_RATING_TYPES, include_columns=names)
    return read, parse, convert


def _check_header(stream: IO[bytes], expected: str, where: str) -> None:
    """Read the first line of a CSV file and check that it is ``expected``."""
    first = stream.readline()
    got = first.decode("utf-8", errors="replace").strip().lstrip("\ufeff")
    if got.replace('"', "") != expected:  # a quoted header says the same
        raise CorruptDatasetError(
            f"{where}: the first line must be the header {expected!r}, got {got[:80]!r}; "
            f"is this the MovieLens file it is named after?", parameter="path",
            examples=[got[:80]])


def read_ratings(version: Version, open_file: Callable[[str], IO[bytes]], where: str
                 ) -> pd.DataFrame:
    """The ratings, in file order.

    Columns ``user_id`` (int32), ``item_id`` (int32), ``rating`` (float64) and
    ``timestamp`` (``datetime64[s]``, naive UTC).

    Raises
    ------
    CorruptDatasetError
        A line with the wrong number of fields, a field that is not a number, a missing
        value.
    """
    name = version.files[0]
    read, parse, convert = _ratings_options(version.layout)
    with open_file(name) as stream:
        if version.layout == "csv":
            _check_header(stream, "userId,movieId,rating,timestamp", where)
        try:
            table = pacsv.read_csv(stream, read_options=read, parse_options=parse,
                                   convert_options=convert)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as exc:
            raise CorruptDatasetError(
                f"{where}: not in the {version.name} ratings format ({_expected(version)}): "
                f"{exc}", parameter="path") from exc
    for column in table.column_names:
        nulls = table.column(column).null_count
        if nulls:
            mask = table.column(column).is_null().to_numpy(zero_copy_only=False)
            lines = (np.flatnonzero(mask)[:5] + (2 if version.layout == "csv" else 1)).tolist()
            raise CorruptDatasetError(
                f"{where}: {nulls} lines have no {column} (lines {lines}); expected "
                f"{_expected(version)}", parameter="path", n_bad=nulls, examples=lines)
    frame = table.to_pandas()
    frame["timestamp"] = frame["timestamp"].to_numpy().astype("datetime64[s]")
    return frame


def _expected(version: Version) -> str:
    return {"100k": "user id, item id, rating, timestamp separated by tabs",
            "dat": "UserID::MovieID::Rating::Timestamp",
            "csv": "userId,movieId,rating,timestamp with a header"}[version.layout]


def _decode(data: bytes, version: Version, where: str) -> str:
    """The text of an item or user file, in its version's encoding."""
    if version.encoding == "utf-8|latin-1":
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data.decode("latin-1")
    try:
        return data.decode(version.encoding)
    except UnicodeDecodeError as exc:
        raise CorruptDatasetError(
            f"{where}: not valid {version.encoding} text ({exc}); {version.name}'s files "
            f"are {version.encoding}", parameter="path") from exc


def _fields(text: str, sep: str, n: int, where: str, form: str) -> list[list[str]]:
    """The lines of ``text`` split on ``sep``, each with exactly ``n`` fields."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split(sep)
        if len(fields) != n:
            raise CorruptDatasetError(
                f"{where}: line {number} has {len(fields)} fields separated by {sep!r}, "
                f"expected {n} ({form}): {line[:80]!r}", parameter="path", examples=[number])
        rows.append(fields)
    return rows


def _ids(values: list[str], where: str, what: str) -> np.ndarray:
    """Integer ids (int32) parsed from text."""
    try:
        return np.asarray([int(v) for v in values], dtype=np.int32)
    except (ValueError, OverflowError) as exc:
        bad = [v for v in values if not v.strip().lstrip("-").isdigit()][:5]
        raise CorruptDatasetError(f"{where}: {what} must be integers, got {bad}",
                                  parameter="path", examples=bad) from exc


def read_items(version: Version, data: bytes, where: str) -> pd.DataFrame:
    """The items: ``item_id`` (int32), ``title`` and ``genres`` (``|``-joined), file order.

    ml-100k's 19 genre flags become the ``|``-joined names of the flags set, in the order of
    its ``u.genre``; the other versions' genre field is kept as it is (``(no genres listed)``
    included).
    """
    text = _decode(data, version, where)
    if version.layout == "csv":
        header = text.split("\n", 1)[0].strip().lstrip("\ufeff")
        if header.replace('"', "") != "movieId,title,genres":
            raise CorruptDatasetError(
                f"{where}: the first line must be the header 'movieId,title,genres', got "
                f"{header[:80]!r}", parameter="path", examples=[header[:80]])
        try:
            frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
        except (ValueError, pd.errors.ParserError) as exc:
            raise CorruptDatasetError(f"{where}: not in the movies.csv format: {exc}",
                                      parameter="path") from exc
        ids, titles, genres = (frame["movieId"].tolist(), frame["title"].tolist(),
                               frame["genres"].tolist())
    elif version.layout == "dat":
        rows = _fields(text, "::", 3, where, "MovieID::Title::Genres")
        ids, titles, genres = ([r[0] for r in rows], [r[1] for r in rows],
                               [r[2] for r in rows])
    else:
        rows = _fields(text, "|", 5 + len(GENRES_100K), where,
                       "id|title|release date|video release date|IMDb URL|19 genre flags")
        ids, titles = [r[0] for r in rows], [r[1] for r in rows]
        genres = ["|".join(g for g, flag in zip(GENRES_100K, r[5:], strict=True)
                           if flag.strip() == "1") for r in rows]
    return pd.DataFrame({"item_id": _ids(ids, where, "movie ids"), "title": titles,
                         "genres": genres})


def read_users(version: Version, data: bytes, where: str) -> pd.DataFrame:
    """The users: ``user_id`` (int32), ``gender``, ``age``, ``occupation``, ``zip_code``.

    As the file has them: ml-100k's age is in years and its occupation a word; ml-1m's age
    is the lower bound of an age group (1, 18, 25, 35, 45, 50, 56) and its occupation a code
    0-20 (the data set's README names them).
    """
    text = _decode(data, version, where)
    if version.layout == "100k":
        rows = _fields(text, "|", 5, where, "user id|age|gender|occupation|zip code")
        age, gender, occupation, zip_code = 1, 2, 3, 4
    else:
        rows = _fields(text, "::", 5, where, "UserID::Gender::Age::Occupation::Zip-code")
        gender, age, occupation, zip_code = 1, 2, 3, 4
    frame = pd.DataFrame({"user_id": _ids([r[0] for r in rows], where, "user ids"),
                          "gender": [r[gender] for r in rows],
                          "age": _ids([r[age] for r in rows], where, "ages").astype(np.int64),
                          "occupation": [r[occupation] for r in rows],
                          "zip_code": [r[zip_code] for r in rows]})
    if version.layout == "dat":
        frame["occupation"] = _ids(frame["occupation"].tolist(), where,
                                   "occupations").astype(np.int64)
    return frame
