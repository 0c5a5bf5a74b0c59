"""rv.datasets.movielens on archives written here in every version's format; never downloads."""

from __future__ import annotations

import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.datasets import _archive
from receval.datasets._formats import VERSIONS
from receval.exceptions import (
    CorruptDatasetError,
    DatasetError,
    DatasetNotFoundError,
    InvalidParameterError,
    RecevalError,
)
from tests.movielens_files import (
    USERS,
    expected_items,
    expected_ratings,
    files_of,
    write_archive,
    write_folder,
)

NAMES = list(rv.datasets.NAMES)
REAL_URLOPEN = urllib.request.urlopen


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Only file:// URLs open; the cache is a fresh folder, whatever the environment says."""

    def local_only(url: str, *args: object, **kwargs: object) -> object:
        assert str(url).startswith("file://"), f"a test tried the network: {url}"
        return REAL_URLOPEN(url, *args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", local_only)
    monkeypatch.setenv("RECEVAL_DATA", str(tmp_path / "default-cache"))


def _check(ml: rv.datasets.MovieLens, name: str,
           base: str = "https://files.grouplens.org/datasets/movielens/") -> None:
    pd.testing.assert_frame_equal(ml.ratings, expected_ratings(name))
    pd.testing.assert_frame_equal(ml.items, expected_items(name), check_dtype=False)
    assert ml.items["item_id"].dtype == np.int32
    assert ml.name == name
    assert ml.url == f"{base}{name}.zip"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("where", ["archive", "folder", "parent", "archive in folder"])
def test_every_version_from_an_archive_or_a_folder(tmp_path: Path, name: str,
                                                    where: str) -> None:
    folder = VERSIONS[name].folder
    if where == "archive":
        path = write_archive(tmp_path / f"{name}.zip", name)
    elif where == "folder":
        path = write_folder(tmp_path / folder, name)
    elif where == "parent":
        write_folder(tmp_path / folder, name)
        path = tmp_path
    else:
        write_archive(tmp_path / f"{name}.zip", name)
        path = tmp_path
    ml = rv.datasets.movielens(name, path=path)
    _check(ml, name)
    assert Path(ml.source).is_absolute()
    assert name in repr(ml)


def test_an_archive_with_its_files_at_the_root(tmp_path: Path) -> None:
    path = write_archive(tmp_path / "repacked.zip", "ml-1m", folder="")
    _check(rv.datasets.movielens("ml-1m", path=path), "ml-1m")


def test_a_quoted_csv_header_is_the_same_header(tmp_path: Path) -> None:
    files = files_of("ml-32m")
    for member in ("ratings.csv", "movies.csv"):
        head, rest = files[member].split(b"\n", 1)
        files[member] = b",".join(b'"%s"' % f for f in head.split(b",")) + b"\n" + rest
    _check(rv.datasets.movielens("ml-32m", path=write_archive(tmp_path / "a.zip", "ml-32m",
                                                              files)), "ml-32m")


def test_the_ml_10m_folder_is_ml_10M100K(tmp_path: Path) -> None:
    path = write_archive(tmp_path / "ml-10m.zip", "ml-10m")
    assert "ml-10M100K/ratings.dat" in zipfile.ZipFile(path).namelist()
    ml = rv.datasets.movielens("ml-10m", path=path)
    assert ml.ratings["rating"].tolist()[-1] == 3.5     # half stars


def test_ml_100k_genre_flags_and_latin_1_titles(tmp_path: Path) -> None:
    ml = rv.datasets.movielens("ml-100k", path=write_archive(tmp_path / "a.zip", "ml-100k"))
    # u.item flags (in u.genre order) -> names joined by "|"; no flag set -> ""
    assert ml.items["genres"].tolist() == ["Comedy|Romance", "Action|Sci-Fi", "Drama", ""]
    assert ml.items["title"][0] == "Café au lait (1993)"          # 0xE9 in the file
    assert "\xe9".encode("latin-1") in files_of("ml-100k")["u.item"]


def test_users_of_ml_100k_and_ml_1m(tmp_path: Path) -> None:
    small = rv.datasets.movielens("ml-100k", path=write_archive(tmp_path / "a.zip", "ml-100k"))
    assert small.users is not None
    assert small.users.to_dict("list") == {
        "user_id": [u[0] for u in USERS], "gender": [u[1] for u in USERS],
        "age": [u[2] for u in USERS], "occupation": [u[3] for u in USERS],
        "zip_code": [u[5] for u in USERS]}
    one = rv.datasets.movielens("ml-1m", path=write_archive(tmp_path / "b.zip", "ml-1m"))
    assert one.users is not None
    assert one.users["occupation"].tolist() == [u[4] for u in USERS]   # codes 0-20
    assert rv.datasets.movielens("ml-20m", path=write_archive(
        tmp_path / "c.zip", "ml-20m")).users is None


def test_titles_with_colons_commas_and_quotes(tmp_path: Path) -> None:
    for name in ("ml-1m", "ml-25m"):
        ml = rv.datasets.movielens(name, path=write_archive(tmp_path / f"{name}.zip", name))
        assert ml.items["title"].tolist()[1:3] == [
            "Star Wars: Episode IV - A New Hope (1977)",
            'American President, The "Director\'s Cut" (1995)']


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_ml_10m_movies_utf_8_else_latin_1(tmp_path: Path, encoding: str) -> None:
    files = files_of("ml-10m", items_encoding=encoding)
    ml = rv.datasets.movielens("ml-10m", path=write_archive(tmp_path / "a.zip", "ml-10m",
                                                            files))
    assert ml.items["title"][0] == "Café au lait (1993)"


def test_genres_long_table_is_what_item_features_reads(tmp_path: Path) -> None:
    ml = rv.datasets.movielens("ml-1m", path=write_archive(tmp_path / "a.zip", "ml-1m"))
    assert list(ml.genres.itertuples(index=False, name=None)) == [
        (10, "Comedy"), (10, "Romance"), (20, "Action"), (20, "Sci-Fi"), (30, "Drama")]
    # items 10 {Comedy, Romance}, 20 {Action, Sci-Fi}, 30 {Drama} share no genre: every
    # pair has Jaccard similarity 0, so the intra-list diversity of (10, 20, 30) is 1
    recs = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [10, 20, 30], "score": [3, 2, 1]})
    truth = pd.DataFrame({"user_id": [1], "item_id": [10], "rating": [5]})
    ev = rv.evaluate(recs, truth, ["diversity(similarity=jaccard)@3"],
                     item_features=ml.genres)
    assert ev["diversity(similarity=jaccard)@3"] == pytest.approx(1.0)
    assert ml.genres is ml.genres                                   # computed once


def test_genres_shared_between_items_lower_the_diversity(tmp_path: Path) -> None:
    files = files_of("ml-1m")
    files["movies.dat"] = (b"10::A (1990)::Comedy|Romance\n20::B (1991)::Comedy\n"
                           b"30::C (1992)::Drama\n40::D (1993)::Drama\n")
    ml = rv.datasets.movielens("ml-1m", path=write_archive(tmp_path / "a.zip", "ml-1m", files))
    recs = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [10, 20, 30], "score": [3, 2, 1]})
    truth = pd.DataFrame({"user_id": [1], "item_id": [10], "rating": [5]})
    ev = rv.evaluate(recs, truth, ["diversity(similarity=jaccard)@3"],
                     item_features=ml.genres)
    # Jaccard(10, 20) = |{Comedy}| / |{Comedy, Romance}| = 1/2; the other pairs share nothing
    # diversity = mean of 1 - similarity over the 3 pairs = (1/2 + 1 + 1) / 3 = 5/6
    assert ev["diversity(similarity=jaccard)@3"] == pytest.approx(5 / 6)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("bad", ["ml-2m", "movielens", "ml-100", 1, None])
def test_unknown_names_list_the_known_ones(tmp_path: Path, bad: object) -> None:
    with pytest.raises(InvalidParameterError, match="ml-100k") as err:
        rv.datasets.movielens(bad, path=tmp_path)  # type: ignore[arg-type]
    assert err.value.parameter == "name"
    assert all(name in str(err.value) for name in NAMES)


def test_names_are_case_insensitive_and_the_prefix_optional(tmp_path: Path) -> None:
    path = write_archive(tmp_path / "a.zip", "ml-1m")
    assert rv.datasets.movielens("ML-1M", path=path).name == "ml-1m"
    assert rv.datasets.movielens("1m", path=path).name == "ml-1m"
    with pytest.raises(InvalidParameterError, match="did you mean 'ml-100k'"):
        rv.datasets.movielens("ml-100", path=path)


def test_no_file_at_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "ml-1m.zip"
    with pytest.raises(DatasetNotFoundError, match="no file or folder at") as err:
        rv.datasets.movielens("ml-1m", path=missing)
    assert str(missing) in str(err.value)
    assert isinstance(err.value, FileNotFoundError)
    assert err.value.parameter == "path"


def test_a_folder_without_the_files_says_where_it_looked(tmp_path: Path) -> None:
    (tmp_path / "ml-1m").mkdir()
    with pytest.raises(DatasetNotFoundError, match=r"looked for ratings.dat, "
                       r"ml-1m/ratings.dat and ml-1m.zip"):
        rv.datasets.movielens("ml-1m", path=tmp_path)


@pytest.mark.parametrize("missing", ["movies.dat", "users.dat"])
@pytest.mark.parametrize("kind", ["archive", "folder"])
def test_a_missing_file(tmp_path: Path, missing: str, kind: str) -> None:
    files = files_of("ml-1m")
    del files[missing]
    path = write_archive(tmp_path / "a.zip", "ml-1m", files) if kind == "archive" \
        else write_folder(tmp_path / "ml-1m", "ml-1m", files)
    with pytest.raises(DatasetNotFoundError, match=missing) as err:
        rv.datasets.movielens("ml-1m", path=path)
    assert str(path) in str(err.value)


def test_not_a_zip_archive(tmp_path: Path) -> None:
    path = tmp_path / "ml-1m.zip"
    path.write_text("<html>Not Found</html>")
    with pytest.raises(CorruptDatasetError, match="not a zip archive") as err:
        rv.datasets.movielens("ml-1m", path=path)
    assert str(path) in str(err.value)


def test_an_archive_of_another_data_set(tmp_path: Path) -> None:
    path = write_archive(tmp_path / "data.zip", "ml-100k")
    with pytest.raises(CorruptDatasetError, match=r"does not hold ml-1m: no "
                       r"ml-1m/ratings.dat .* it holds \['ml-100k/u.data'"):
        rv.datasets.movielens("ml-1m", path=path)


def test_a_damaged_archive_fails_its_crc(tmp_path: Path) -> None:
    path = tmp_path / "ml-1m.zip"
    files = files_of("ml-1m")
    files["ratings.dat"] = files["ratings.dat"] * 50
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for member, data in files.items():
            z.writestr(f"ml-1m/{member}", data)
    raw = bytearray(path.read_bytes())
    at = raw.index(b"1::10::4::978300760") + 300          # inside the stored ratings
    raw[at] = ord("7") if raw[at] != ord("7") else ord("8")
    path.write_bytes(bytes(raw))
    with pytest.raises(CorruptDatasetError, match="damaged"):
        rv.datasets.movielens("ml-1m", path=path)


@pytest.mark.parametrize(("name", "member", "content", "message"), [
    ("ml-1m", "ratings.dat", b"1::10::4::978300760\n1::20::3\n", "ratings format"),
    ("ml-1m", "ratings.dat", b"1::10::4::978300760\nx::20::3::978300760\n", "ratings format"),
    ("ml-100k", "u.data", b"1\t10\t4\t978300760\n1\t\t3\t978300761\n",
     r"1 lines have no item_id \(lines \[2\]\)"),
    ("ml-25m", "ratings.csv", b"user,movie,rating,timestamp\n1,10,4.0,978300760\n",
     "the header 'userId,movieId,rating,timestamp'"),
    ("ml-25m", "ratings.csv", b"userId,movieId,rating,timestamp\n1,10,4.0\n",
     "ratings format"),
    ("ml-25m", "movies.csv", b"id,name,genres\n10,A,Drama\n", "the header 'movieId"),
    ("ml-25m", "movies.csv", "movieId,title,genres\n10,Caf\xe9,Drama\n".encode("latin-1"),
     "not valid utf-8"),
    ("ml-1m", "movies.dat", b"10::A (1990)\n", r"line 1 has 2 fields separated by '::'"),
    ("ml-1m", "movies.dat", b"ten::A (1990)::Drama\n", r"movie ids must be integers"),
    ("ml-100k", "u.item", b"10|A|01-Jan-1995||url|0|1\n", "line 1 has 7 fields"),
    ("ml-1m", "users.dat", b"1::F::1::10\n", "line 1 has 4 fields"),
])
def test_files_not_in_their_format_name_the_file(tmp_path: Path, name: str, member: str,
                                                 content: bytes, message: str) -> None:
    files = files_of(name)
    files[member] = content
    path = write_archive(tmp_path / f"{name}.zip", name, files)
    with pytest.raises(CorruptDatasetError, match=message) as err:
        rv.datasets.movielens(name, path=path)
    assert member in str(err.value)
    assert str(path) in str(err.value)


def test_path_and_download_together(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterError, match="give one of them") as err:
        rv.datasets.movielens("ml-1m", path=tmp_path, download=True)
    assert err.value.parameter == "download"
    with pytest.raises(InvalidParameterError, match="download must be True or False"):
        rv.datasets.movielens("ml-1m", download="yes")  # type: ignore[arg-type]


def test_errors_are_receval_errors() -> None:
    for cls in (DatasetNotFoundError, CorruptDatasetError):
        assert issubclass(cls, DatasetError)
        assert issubclass(cls, RecevalError)
    assert issubclass(CorruptDatasetError, ValueError)


# ---------------------------------------------------------------- cache and download


def test_not_in_the_cache_and_no_download(tmp_path: Path) -> None:
    with pytest.raises(DatasetNotFoundError, match=r"not in the cache .* download=True to "
                       r"fetch https://files.grouplens.org/datasets/movielens/ml-1m.zip"):
        rv.datasets.movielens("ml-1m", cache_dir=tmp_path / "cache")


def test_read_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    write_archive(cache / "ml-100k.zip", "ml-100k")
    _check(rv.datasets.movielens("ml-100k", cache_dir=cache), "ml-100k")
    monkeypatch.setenv("RECEVAL_DATA", str(cache))                 # the default cache
    _check(rv.datasets.movielens("ml-100k"), "ml-100k")
    monkeypatch.delenv("RECEVAL_DATA")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _archive.default_cache() == tmp_path / "xdg" / "receval" / "datasets"


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder served as GroupLens's download site, through file:// URLs."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setattr(_archive, "BASE_URL", site.as_uri() + "/")
    return site


def test_download_into_the_cache_once(tmp_path: Path, server: Path) -> None:
    write_archive(server / "ml-latest-small.zip", "ml-latest-small")
    cache = tmp_path / "new" / "cache"
    ml = rv.datasets.movielens("ml-latest-small", download=True, cache_dir=cache)
    _check(ml, "ml-latest-small", server.as_uri() + "/")
    assert sorted(p.name for p in cache.iterdir()) == ["ml-latest-small.zip"]
    assert ml.source == str((cache / "ml-latest-small.zip").resolve())
    (server / "ml-latest-small.zip").unlink()                      # no second download
    _check(rv.datasets.movielens("ml-latest-small", download=True, cache_dir=cache),
           "ml-latest-small", server.as_uri() + "/")


def test_a_failed_download_leaves_nothing(tmp_path: Path, server: Path) -> None:
    cache = tmp_path / "cache"
    with pytest.raises(DatasetError, match=r"could not download .*ml-1m.zip") as err:
        rv.datasets.movielens("ml-1m", download=True, cache_dir=cache)
    assert not isinstance(err.value, DatasetNotFoundError)
    assert list(cache.iterdir()) == []


def test_a_damaged_download_is_not_kept(tmp_path: Path, server: Path) -> None:
    (server / "ml-1m.zip").write_bytes(b"PK\x03\x04 truncated")
    cache = tmp_path / "cache"
    with pytest.raises(CorruptDatasetError, match=r"download of .* is damaged"):
        rv.datasets.movielens("ml-1m", download=True, cache_dir=cache)
    assert list(cache.iterdir()) == []


def test_the_cache_folder_cannot_be_made(tmp_path: Path, server: Path) -> None:
    write_archive(server / "ml-1m.zip", "ml-1m")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(DatasetError, match="cannot make the cache folder") as err:
        rv.datasets.movielens("ml-1m", download=True, cache_dir=blocker / "cache")
    assert err.value.parameter == "cache_dir"
