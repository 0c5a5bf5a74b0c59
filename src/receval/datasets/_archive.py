"""Where a data set's files are: a zip archive or a folder, given, cached or downloaded.

Nothing is fetched unless ``download=True``: a download goes to ``<cache>/<name>.zip.part``,
is checked (every member's CRC) and only then renamed to ``<cache>/<name>.zip``, so that the
cache never holds half an archive.
"""

from __future__ import annotations

import contextlib
import os
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from receval._flags import check_flag
from receval.datasets._formats import Version
from receval.exceptions import (
    CorruptDatasetError,
    DatasetError,
    DatasetNotFoundError,
    InvalidParameterError,
)

__all__ = ["BASE_URL", "Files", "default_cache", "locate", "url_of"]

#: Where GroupLens serves the archives: ``BASE_URL + "<name>.zip"``.
BASE_URL = "https://files.grouplens.org/datasets/movielens/"

#: Seconds a download may wait for the server before it fails.
TIMEOUT = 60.0


def url_of(version: Version) -> str:
    """The URL of a version's archive."""
    return f"{BASE_URL}{version.name}.zip"


def default_cache() -> Path:
    """The cache folder of the data sets.

    ``$RECEVAL_DATA``, else ``$XDG_CACHE_HOME/receval/datasets``, else
    ``~/.cache/receval/datasets``.
    """
    if os.environ.get("RECEVAL_DATA"):
        return Path(os.environ["RECEVAL_DATA"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "receval" / "datasets"


@dataclass(frozen=True)
class Files:
    """A version's files: members of a zip archive (under ``prefix``) or files of a folder.

    Attributes
    ----------
    path : Path
        The archive or the folder.
    prefix : str
        Inside an archive, the folder of the files (``"ml-1m/"``, or ``""`` when they are at
        its root); ``""`` for a folder.
    """

    path: Path
    prefix: str = ""

    @property
    def is_zip(self) -> bool:
        """Whether the files are members of a zip archive."""
        return self.path.is_file()

    def where(self, name: str) -> str:
        """A file's location, for messages: ``archive.zip:ml-1m/u.data`` or its path."""
        return f"{self.path}:{self.prefix}{name}" if self.is_zip else str(self.path / name)

    @contextlib.contextmanager
    def reading(self) -> Iterator[Any]:
        """Open the archive once (a no-op for a folder); yields an ``open(name)`` function.

        Raises
        ------
        DatasetNotFoundError
            A file missing from the folder or the archive.
        CorruptDatasetError
            An archive member that fails its CRC check or cannot be decompressed.
        """
        if not self.is_zip:
            yield self._open_file
            return
        try:
            with zipfile.ZipFile(self.path) as archive:
                yield lambda name: self._open_member(archive, name)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as exc:
            raise CorruptDatasetError(
                f"{self.path}: the archive is damaged ({exc}); download it again "
                f"(delete it first if it is in the cache)", parameter="path",
                examples=[str(self.path)]) from exc

    def _open_file(self, name: str) -> IO[bytes]:
        file = self.path / name
        if not file.is_file():
            raise DatasetNotFoundError(
                f"{self.path}: the folder has no {name}; a MovieLens folder holds the files "
                f"of its archive as GroupLens distributes them", parameter="path",
                examples=[str(file)])
        return file.open("rb")

    def _open_member(self, archive: zipfile.ZipFile, name: str) -> IO[bytes]:
        member = self.prefix + name
        try:
            return archive.open(member)
        except KeyError:
            raise DatasetNotFoundError(
                f"{self.path}: the archive has no {member}", parameter="path",
                examples=[member]) from None


def _folder_files(folder: Path, version: Version) -> Files | None:
    """The version's files in ``folder``: loose, in its subfolder, or as its archive."""
    marker = version.files[0]
    if (folder / marker).is_file():
        return Files(folder)
    if (folder / version.folder / marker).is_file():
        return Files(folder / version.folder)
    archive = folder / f"{version.name}.zip"
    if archive.is_file():
        return _zip_files(archive, version)
    return None


def _zip_files(archive: Path, version: Version) -> Files:
    """The version's files in a zip archive: under its folder, or at the archive's root."""
    marker = version.files[0]
    try:
        with zipfile.ZipFile(archive) as z:
            names = z.namelist()
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise CorruptDatasetError(
            f"{archive}: not a zip archive ({exc}); {version.name} is read from the .zip "
            f"archive GroupLens distributes, or from the folder it extracts to",
            parameter="path", examples=[str(archive)]) from exc
    members = set(names)
    for prefix in (f"{version.folder}/", ""):
        if prefix + marker in members:
            return Files(archive, prefix)
    raise CorruptDatasetError(
        f"{archive}: the archive does not hold {version.name}: no {version.folder}/{marker} "
        f"(nor {marker}) in it; it holds {names[:5]}{' ...' if len(names) > 5 else ''}",
        parameter="path", examples=names[:5])


def locate(version: Version, path: Any, download: bool, cache_dir: Any) -> Files:
    """Find a version's files: at ``path``, else in the cache, else (if asked) downloaded.

    Raises
    ------
    InvalidParameterError
        Both ``path`` and ``download=True``, or a ``download`` that is not a bool.
    DatasetNotFoundError
        Nothing at ``path``, a folder without the files, or nothing in the cache with
        ``download=False``.
    CorruptDatasetError
        A file that is not a zip archive, or an archive of another data set.
    DatasetError
        A failed download.
    """
    download = bool(check_flag(download, "download"))
    if path is not None:
        if download:
            raise InvalidParameterError(
                "path= reads a local copy and download=True fetches into cache_dir: give "
                "one of them", parameter="download")
        where = Path(os.fspath(path)).expanduser()
        if where.is_file():
            return _zip_files(where, version)
        if where.is_dir():
            found = _folder_files(where, version)
            if found is not None:
                return found
            raise DatasetNotFoundError(
                f"{where}: no {version.name} in this folder: looked for "
                f"{version.files[0]}, {version.folder}/{version.files[0]} and "
                f"{version.name}.zip", parameter="path", examples=[str(where)])
        raise DatasetNotFoundError(
            f"{version.name}: no file or folder at {where}; give the path of "
            f"{version.name}.zip or of the folder it extracts to", parameter="path",
            examples=[str(where)])
    cache = default_cache() if cache_dir is None else Path(os.fspath(cache_dir)).expanduser()
    found = _folder_files(cache, version) if cache.is_dir() else None
    if found is not None:
        return found
    if not download:
        raise DatasetNotFoundError(
            f"{version.name} is not in the cache {cache}: pass path= (the archive "
            f"{version.name}.zip or its folder), or download=True to fetch {url_of(version)} "
            f"(about {version.size}) into the cache", parameter="path",
            examples=[str(cache)])
    return _zip_files(fetch(url_of(version), cache / f"{version.name}.zip"), version)


def fetch(url: str, target: Path) -> Path:
    """Download ``url`` to ``target`` through ``target.part``, checking the zip's CRCs.

    Raises
    ------
    DatasetError
        The cache folder cannot be made, or the download fails.
    CorruptDatasetError
        The downloaded file is not a sound zip archive (it is deleted).
    """
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(f"cannot make the cache folder {target.parent}: {exc}",
                           parameter="cache_dir", examples=[str(target.parent)]) from exc
    import urllib.error  # here: urllib.request imports http, email and ssl
    import urllib.request

    part = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response, part.open("wb") as out:
            _copy(response, out, url)
    except (OSError, urllib.error.URLError, ValueError) as exc:
        part.unlink(missing_ok=True)
        raise DatasetError(f"could not download {url} to {target}: {exc}",
                           parameter="download", examples=[url]) from exc
    try:
        with zipfile.ZipFile(part) as z:
            bad = z.testzip()
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        bad = f"not a zip archive ({exc})"
    if bad is not None:
        part.unlink(missing_ok=True)
        raise CorruptDatasetError(
            f"the download of {url} is damaged (first bad member: {bad}); nothing was kept "
            f"in {target.parent}: try again", parameter="download", examples=[url])
    os.replace(part, target)
    return target


def _copy(response: Any, out: IO[bytes], url: str) -> None:
    """Copy the response to ``out``, with a progress bar on a terminal."""
    total = response.headers.get("Content-Length") if hasattr(response, "headers") else None
    from rich.console import Console
    from rich.progress import DownloadColumn, Progress, TransferSpeedColumn

    with Progress(*Progress.get_default_columns(), DownloadColumn(), TransferSpeedColumn(),
                  console=Console(stderr=True), disable=not sys.stderr.isatty(),
                  transient=True) as bar:
        task = bar.add_task(f"downloading {url}", total=int(total) if total else None)
        while chunk := response.read(1 << 20):
            out.write(chunk)
            bar.advance(task, len(chunk))
