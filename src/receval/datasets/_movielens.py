"""``rv.datasets.movielens``: the GroupLens MovieLens archives, read as they are distributed."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pandas as pd

from receval.datasets._archive import locate, url_of
from receval.datasets._formats import VERSIONS, Version, read_items, read_ratings, read_users
from receval.exceptions import InvalidParameterError

__all__ = ["NAMES", "MovieLens", "movielens"]

#: The MovieLens versions :func:`movielens` reads.
NAMES = tuple(VERSIONS)


@dataclass(frozen=True, repr=False)
class MovieLens:
    """A MovieLens data set as read by :func:`movielens`.

    Attributes
    ----------
    name : str
        The version (``"ml-1m"``, ...).
    ratings : pandas.DataFrame
        ``user_id`` (int32), ``item_id`` (int32), ``rating`` (float64: the 10M and later
        versions have half stars) and ``timestamp`` (``datetime64[s]``, naive, in UTC as the
        files' seconds since 1970-01-01 UTC), one row per rating in file order.
    items : pandas.DataFrame
        ``item_id`` (int32), ``title`` and ``genres``: the genre names joined by ``"|"``
        (``"Action|Adventure"``) as the 1M and later files write them; ml-100k's 19 genre
        flags give the same form (the names of the flags set, in its ``u.genre`` order, which
        may be ``"unknown"``); an item with no genre has ``""`` in ml-100k and the files'
        own ``"(no genres listed)"`` in the CSV versions. One row per item of the items file,
        rated or not.
    users : pandas.DataFrame or None
        ml-100k and ml-1m: ``user_id``, ``gender``, ``age``, ``occupation``, ``zip_code`` as
        the files have them (ml-1m codes its age groups and occupations, see its README);
        None for the versions without demographics.
    source : str
        The archive or folder read.
    url : str
        The archive's address at GroupLens.
    """

    name: str
    ratings: pd.DataFrame
    items: pd.DataFrame
    users: pd.DataFrame | None
    source: str
    url: str = field(default="")

    @cached_property
    def genres(self) -> pd.DataFrame:
        """The genres as a long ``(item_id, genre)`` table, one row per item and genre.

        What ``rv.evaluate(item_features=...)`` reads today as categorical features
        (diversity, serendipity, ...): each genre a 0/1 feature. An item whose genre field
        is empty has no row (and so no features).
        """
        split = self.items["genres"].astype(str).str.split("|")
        long = pd.DataFrame({"item_id": self.items["item_id"].to_numpy(),
                             "genre": split}).explode("genre", ignore_index=True)
        long = long[long["genre"].notna() & (long["genre"] != "")]
        return long.astype({"item_id": self.items["item_id"].dtype, "genre": str}) \
            .reset_index(drop=True)

    def __repr__(self) -> str:
        r = self.ratings
        return (f"MovieLens({self.name!r}: {len(r):,} ratings by {r['user_id'].nunique():,} "
                f"users of {r['item_id'].nunique():,} items; {len(self.items):,} items listed"
                f"{'' if self.users is None else f', {len(self.users):,} users listed'}; "
                f"from {self.source})")


def _version(name: Any) -> Version:
    """The version called ``name`` (case-insensitive; the ``ml-`` prefix may be left out)."""
    if not isinstance(name, str):
        raise InvalidParameterError(f"name must be a string, one of {list(NAMES)}; got "
                                    f"{name!r}", parameter="name", examples=[name])
    key = name.strip().lower()
    key = key if key.startswith("ml-") else f"ml-{key}"
    key = {"ml-10m100k": "ml-10m"}.get(key, key)
    if key not in VERSIONS:
        close = difflib.get_close_matches(key, NAMES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InvalidParameterError(
            f"unknown MovieLens data set {name!r}{hint}; the known ones are {list(NAMES)}",
            parameter="name", examples=[name])
    return VERSIONS[key]


def movielens(name: str, path: Any = None, *, download: bool = False,
              cache_dir: Any = None) -> MovieLens:
    """Read a MovieLens data set from the archive GroupLens distributes (or its folder).

    Versions: ``ml-100k``, ``ml-1m``, ``ml-10m`` (its archive's folder is ``ml-10M100K``),
    ``ml-20m``, ``ml-25m``, ``ml-32m``, ``ml-latest-small`` and ``ml-latest``. Each is read
    in its own format (``u.data`` / ``u.item``; ``::``-separated ``.dat`` files; CSV files
    with a header) and encoding (Latin-1 for ml-100k's items and ml-1m's movies and users,
    UTF-8 for the CSV versions; ml-10m's movies as UTF-8 when valid, else Latin-1).

    Where it is read from:

    - ``path`` given: the ``.zip`` archive at ``path``, or a folder holding the extracted
      files, the extracted folder (``ml-1m/``), or the archive (``ml-1m.zip``);
    - else the cache folder ``cache_dir`` (default ``$RECEVAL_DATA``, else
      ``$XDG_CACHE_HOME/receval/datasets``, else ``~/.cache/receval/datasets``), looked into
      the same way;
    - else, only with ``download=True``, the archive is downloaded from
      ``https://files.grouplens.org/datasets/movielens/<name>.zip`` into the cache, checked
      (the CRC of every member) and kept there. Nothing is ever downloaded otherwise.

    Parameters
    ----------
    name : str
        The version, e.g. ``"ml-1m"`` (case-insensitive; ``"1m"`` works too).
    path : str or os.PathLike, optional
        A local archive or folder; then ``download`` must be False.
    download : bool
        Fetch the archive into the cache when it is not there (default False).
    cache_dir : str or os.PathLike, optional
        The cache folder.

    Returns
    -------
    MovieLens
        ``ratings``, ``items`` (genres ``|``-joined), ``users`` (or None), ``genres`` (a long
        item-genre table for ``item_features=``), ``name``, ``source``, ``url``.

    Raises
    ------
    InvalidParameterError
        An unknown name (the message lists the known ones), or ``path`` with
        ``download=True``.
    DatasetNotFoundError
        Nothing at ``path``, a folder without the data set's files, or not in the cache
        (with ``download=False``).
    CorruptDatasetError
        Not a zip archive, an archive of another data set, a damaged archive, or a file not
        in the version's format (the message names the file and the line).
    DatasetError
        A failed download.

    Examples
    --------
    >>> import receval as rv
    >>> ml = rv.datasets.movielens("ml-latest-small", path="ml-latest-small.zip")  # doctest: +SKIP
    >>> ml.ratings.head(2)                                                         # doctest: +SKIP
       user_id  item_id  rating           timestamp
    0        1        1     4.0 2000-07-30 18:45:03
    1        1        3     4.0 2000-07-30 18:20:47
    """
    version = _version(name)
    files = locate(version, path, download, cache_dir)
    ratings_file, items_file, users_file = version.files
    with files.reading() as open_file:
        ratings = read_ratings(version, open_file, files.where(ratings_file))
        with open_file(items_file) as stream:
            items = read_items(version, stream.read(), files.where(items_file))
        users = None
        if users_file is not None:
            with open_file(users_file) as stream:
                users = read_users(version, stream.read(), files.where(users_file))
    return MovieLens(version.name, ratings, items, users, str(files.path.resolve()),
                     url_of(version))
