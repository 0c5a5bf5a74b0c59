"""Small MovieLens archives in the formats GroupLens distributes, written by the tests.

One logical data set (:data:`RATINGS`, :data:`ITEMS`, :data:`USERS`) is written in the files
of any version: ``u.data`` / ``u.item`` (19 genre flags, Latin-1) / ``u.user``; the ``::``
``.dat`` files (Latin-1 movies and users in ml-1m); the CSV files with headers (UTF-8, titles
quoted when they hold a comma). Titles have an accent, a colon, a comma and quotes, so that
every encoding and separator rule is exercised. Nothing is ever downloaded.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from receval.datasets._formats import GENRES_100K, VERSIONS

__all__ = ["ITEMS", "RATINGS", "USERS", "expected_items", "expected_ratings", "files_of",
           "sample_files", "write_archive", "write_folder"]

#: (user, item, rating, seconds since the epoch); half stars only where a version has them.
RATINGS = [(1, 10, 4.0, 978300760), (1, 20, 3.0, 978302109), (2, 10, 5.0, 978298413),
           (2, 30, 1.0, 978299000), (3, 20, 2.0, 881250949), (3, 40, 4.0, 881251000)]
HALF_STARS = [(4, 30, 3.5, 1230000000)]

#: (item, title, genres); item 40 has none.
ITEMS = [(10, "Café au lait (1993)", ["Comedy", "Romance"]),
         (20, "Star Wars: Episode IV - A New Hope (1977)", ["Action", "Sci-Fi"]),
         (30, 'American President, The "Director\'s Cut" (1995)', ["Drama"]),
         (40, "Untitled (2001)", [])]

#: (user, gender, age, occupation as ml-100k writes it, occupation code of ml-1m, zip)
USERS = [(1, "F", 24, "technician", 19, "85711"), (2, "M", 53, "other", 0, "94043"),
         (3, "M", 23, "writer", 20, "32067"), (4, "F", 33, "other", 0, "15213")]


def _ratings(name: str) -> list[tuple[int, int, float, int]]:
    return RATINGS + (HALF_STARS if VERSIONS[name].layout != "100k" and name != "ml-1m"
                      else [])


def _number(rating: float, name: str) -> str:
    return str(int(rating)) if name in ("ml-100k", "ml-1m") else f"{rating:.1f}"


def _no_genre(name: str) -> str:
    return "(no genres listed)" if VERSIONS[name].layout == "csv" else ""


def files_of(name: str, *, items_encoding: str | None = None) -> dict[str, bytes]:
    """The files of version ``name`` (names as in its archive's folder), as bytes."""
    version = VERSIONS[name]
    encoding = items_encoding or ("latin-1" if name in ("ml-100k", "ml-1m") else "utf-8")
    rows = _ratings(name)
    if version.layout == "100k":
        genre = {g: i for i, g in enumerate(GENRES_100K)}
        lines = []
        for item, title, genres in ITEMS:
            flags = ["0"] * len(GENRES_100K)
            for g in genres:
                flags[genre[g]] = "1"
            lines.append("|".join([str(item), title, "01-Jan-1995", "",
                                   f"http://us.imdb.com/M/title-exact?{item}", *flags]))
        return {
            "u.data": "".join(f"{u}\t{i}\t{_number(r, name)}\t{t}\n"
                              for u, i, r, t in rows).encode("ascii"),
            "u.item": ("\n".join(lines) + "\n").encode(encoding),
            "u.user": "".join(f"{u}|{a}|{g}|{o}|{z}\n"
                              for u, g, a, o, _, z in USERS).encode("latin-1"),
            "u.genre": "".join(f"{g}|{i}\n" for i, g in enumerate(GENRES_100K)).encode(),
        }
    if version.layout == "dat":
        out = {
            "ratings.dat": "".join(f"{u}::{i}::{_number(r, name)}::{t}\n"
                                   for u, i, r, t in rows).encode("ascii"),
            "movies.dat": "".join(f"{i}::{title}::{'|'.join(g) or _no_genre(name)}\n"
                                  for i, title, g in ITEMS).encode(encoding),
        }
        if version.has_users:
            out["users.dat"] = "".join(f"{u}::{g}::{a}::{c}::{z}\n"
                                       for u, g, a, _, c, z in USERS).encode("latin-1")
        return out
    movies = pd.DataFrame({"movieId": [i for i, _, _ in ITEMS],
                           "title": [t for _, t, _ in ITEMS],
                           "genres": ["|".join(g) or _no_genre(name) for _, _, g in ITEMS]})
    return {
        "ratings.csv": ("userId,movieId,rating,timestamp\n" + "".join(
            f"{u},{i},{_number(r, name)},{t}\n" for u, i, r, t in rows)).encode("ascii"),
        "movies.csv": movies.to_csv(index=False, lineterminator="\n").encode(encoding),
        "links.csv": b"movieId,imdbId,tmdbId\n10,0113228,15602\n",
    }


def write_archive(path: Path, name: str, files: dict[str, bytes] | None = None,
                  folder: str | None = None) -> Path:
    """A zip archive of version ``name`` at ``path``, files under the version's folder."""
    base = VERSIONS[name].folder if folder is None else folder
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for member, data in (files_of(name) if files is None else files).items():
            z.writestr(f"{base}/{member}" if base else member, data)
    return path


def write_folder(path: Path, name: str, files: dict[str, bytes] | None = None) -> Path:
    """The extracted files of version ``name`` in the folder ``path``."""
    path.mkdir(parents=True, exist_ok=True)
    for member, data in (files_of(name) if files is None else files).items():
        (path / member).write_bytes(data)
    return path


def expected_ratings(name: str) -> pd.DataFrame:
    """The ratings frame ``movielens(name)`` must return for these files."""
    rows = _ratings(name)
    return pd.DataFrame({
        "user_id": np.array([r[0] for r in rows], dtype=np.int32),
        "item_id": np.array([r[1] for r in rows], dtype=np.int32),
        "rating": np.array([r[2] for r in rows], dtype=np.float64),
        "timestamp": np.array([r[3] for r in rows], dtype="datetime64[s]")})


def expected_items(name: str) -> pd.DataFrame:
    """The items frame ``movielens(name)`` must return for these files."""
    return pd.DataFrame({"item_id": np.array([i for i, _, _ in ITEMS], dtype=np.int32),
                         "title": [t for _, t, _ in ITEMS],
                         "genres": ["|".join(g) or _no_genre(name) for _, _, g in ITEMS]})


def sample_files(name: str, n_users: int = 200, n_items: int = 120, seed: int = 1
                 ) -> dict[str, bytes]:
    """Bigger files of version ``name`` (a CSV or ``::`` version) from the seeded sample data:
    enough ratings for a whole experiment, two sample genres per item."""
    import receval as rv

    ratings = rv.datasets.sample_ratings(n_users, n_items, seed=seed)
    seconds = ratings["timestamp"].to_numpy().astype("datetime64[s]").astype(np.int64)
    first = rv.datasets.sample_genres(ratings, seed=seed)
    second = rv.datasets.sample_genres(ratings, seed=seed + 1)
    genres = ["|".join(sorted({a, b})) for a, b in zip(first["genre"], second["genre"],
                                                        strict=True)]
    items = first["item_id"].tolist()
    if VERSIONS[name].layout == "csv":
        movies = pd.DataFrame({"movieId": items, "title": [f"Movie {i}, The (2000)"
                                                           for i in items], "genres": genres})
        lines = "".join(f"{u},{i},{float(r):.1f},{t}\n" for u, i, r, t in zip(
            ratings["user_id"], ratings["item_id"], ratings["rating"], seconds, strict=True))
        return {"ratings.csv": ("userId,movieId,rating,timestamp\n" + lines).encode(),
                "movies.csv": movies.to_csv(index=False, lineterminator="\n").encode()}
    files = {"ratings.dat": "".join(f"{u}::{i}::{r}::{t}\n" for u, i, r, t in zip(
        ratings["user_id"], ratings["item_id"], ratings["rating"], seconds,
        strict=True)).encode(),
        "movies.dat": "".join(f"{i}::Movie {i}: The Sequel (2000)::{g}\n"
                              for i, g in zip(items, genres, strict=True)).encode("latin-1")}
    if VERSIONS[name].has_users:
        files["users.dat"] = "".join(f"{u}::F::25::{u % 21}::00000\n" for u in
                                     range(1, n_users + 1)).encode()
    return files
