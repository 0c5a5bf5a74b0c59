"""Output paths: checked before any work is done, written whole or not at all.

Every door that writes a file (``report(path)``, the CLI's ``--output`` / ``--per-user`` /
``-o`` options, ``receval run``'s folder) checks its paths with :func:`check_outputs` before
reading any data, and writes them with :func:`atomic_write`, so that a bad path is a clear
:class:`~receval.exceptions.OutputPathError` up front and an error half-way leaves no
partial file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from receval.exceptions import OutputPathError

__all__ = ["atomic_write", "check_output", "check_outputs"]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def check_output(path: str | os.PathLike[str], *, parameter: str,
                 inputs: Mapping[str, Any] | None = None) -> Path:
    """One output file path, checked before any work is done.

    Its directory exists, it is not a directory, it does not lie under a file, and it is not
    one of the ``inputs`` (name -> path or other value; values that are not paths are
    ignored).

    Raises
    ------
    OutputPathError
        Naming the parameter, the path and the rule it breaks.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise OutputPathError(f"{parameter} must be a file path (a str or a pathlib.Path); got "
                              f"{type(path).__name__} {path!r}", parameter=parameter,
                              examples=[repr(path)])
    out = Path(os.fspath(path)).expanduser()
    text = str(path)
    if text == "" or out.name in ("", ".", ".."):
        raise OutputPathError(f"{parameter}: {text!r} is not a file path", parameter=parameter,
                              examples=[text])
    if out.is_dir():
        raise OutputPathError(f"{parameter}: {text!r} is a directory; give a file path "
                              f"inside it, e.g. {str(out / 'out.html')!r}",
                              parameter=parameter, examples=[text])
    parent = out.parent
    for above in (parent, *parent.parents):
        if above.exists() and not above.is_dir():
            raise OutputPathError(f"{parameter}: {text!r} lies under {str(above)!r}, which is "
                                  "a file, not a directory", parameter=parameter,
                                  examples=[text])
        if above.exists():
            break
    if not parent.exists():
        raise OutputPathError(f"{parameter}: the directory {str(parent)!r} of {text!r} does "
                              "not exist; create it first", parameter=parameter,
                              examples=[text])
    if not os.access(parent, os.W_OK):
        raise OutputPathError(f"{parameter}: the directory {str(parent)!r} is not writable",
                              parameter=parameter, examples=[text])
    for name, value in (inputs or {}).items():
        if isinstance(value, (str, os.PathLike)) and _same_file(out, Path(os.fspath(value))):
            raise OutputPathError(f"{parameter}: {text!r} is the input {name} ({str(value)!r}); "
                                  "writing it would destroy the input", parameter=parameter,
                                  examples=[text])
    return out


def check_outputs(outputs: Mapping[str, str | os.PathLike[str] | None], *,
                  inputs: Mapping[str, Any] | None = None) -> dict[str, Path]:
    """Several output paths (parameter -> path; None skipped), no two the same file.

    Each is checked by :func:`check_output`.
    """
    checked: dict[str, Path] = {}
    for parameter, path in outputs.items():
        if path is None:
            continue
        out = check_output(path, parameter=parameter, inputs=inputs)
        for other, seen in checked.items():
            if _same_file(out, seen):
                raise OutputPathError(
                    f"{parameter} and {other} are the same file ({str(path)!r}); one would "
                    "overwrite the other", parameter=parameter, examples=[str(path)])
        checked[parameter] = out
    return checked


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` on success.

    On an error the temporary file is removed and ``path`` is left as it was (absent, or
    its previous content): no half-written output. The file gets the permissions a plain
    ``open(path, "w")`` would give (``0o666`` less the umask; ``mkstemp`` makes it ``0o600``).
    """
    out = Path(os.fspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, out)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
