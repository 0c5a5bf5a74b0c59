"""The model of a report page (sections of paragraphs, tables and figures) and its rendering.

Pages are rendered by Jinja2 from the templates in ``receval/report/templates`` (HTML escaped
automatically; only figures' SVG markup is inserted as markup).
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from receval._format import fmt
from receval.exceptions import BackendUnavailableError

__all__ = ["Block", "Figure", "Page", "Section", "Table", "clean_text", "fmt", "fmt_p", "plain",
           "render", "settings_table", "write"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    r"""``text`` with every lone surrogate (``'\ud800'``) replaced by U+FFFD.

    A surrogate code point has no UTF-8 encoding: left in a title or a system name it makes
    the page unwritable (or invalid UTF-8). Names are shown as given otherwise.
    """
    return _SURROGATE.sub("\ufffd", text)


def fmt_p(value: Any) -> str:
    """A p-value as text: 4 decimals, ``1.23e-05`` below 1e-4, ``< 1e-300`` for 0.

    A p-value of exactly 0 is one below the smallest float (or of an infinite statistic),
    never a certainty: it is shown as a bound.
    """
    if value is None:
        return "-"
    v = float(value)
    if math.isnan(v):
        return "nan"
    if v == 0.0:
        return "< 1e-300"
    return f"{v:.2e}" if v < 1e-4 else f"{v:.4f}"


def plain(v: Any) -> Any:
    """A numpy scalar as the Python number it holds (other values unchanged)."""
    item = getattr(v, "item", None)
    if callable(item) and type(v).__module__ == "numpy":
        return item()
    return v


@dataclass
class Table:
    """A real HTML table: headers, rows of text, numeric (right-aligned) columns."""

    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    caption: str = ""
    numeric: Sequence[int] = ()
    row_headers: bool = True
    row_classes: Sequence[str] = ()
    id: str = ""


def settings_table(settings: dict[str, Any], keys: Sequence[str], caption: str) -> Table:
    """Two columns, setting and value, for the ``keys`` present in ``settings``."""
    rows = [[k, "none" if settings[k] is None else str(settings[k])] for k in keys
            if k in settings]
    return Table(["setting", "value"], rows, caption=caption)


@dataclass
class Figure:
    """An inline SVG figure with its caption (its text alternative) and the data behind it."""

    id: str
    svg: Any
    caption: str
    data: Table | None = None


@dataclass
class Block:
    """One item of a section: ``p``, ``h3``, ``table``, ``figure`` or ``grid`` of figures."""

    kind: str
    text: str = ""
    cls: str = ""
    table: Table | None = None
    figure: Figure | None = None
    figures: Sequence[Figure] = ()


@dataclass
class Section:
    """A titled part of the page (one entry of the page's navigation)."""

    id: str
    title: str
    blocks: list[Block] = field(default_factory=list)

    def p(self, text: str, cls: str = "") -> Section:
        """Add a paragraph."""
        self.blocks.append(Block("p", text=text, cls=cls))
        return self

    def h3(self, text: str) -> Section:
        """Add a sub-heading."""
        self.blocks.append(Block("h3", text=text))
        return self

    def table(self, table: Table) -> Section:
        """Add a table."""
        self.blocks.append(Block("table", table=table))
        return self

    def figure(self, figure: Figure) -> Section:
        """Add a figure."""
        self.blocks.append(Block("figure", figure=figure))
        return self

    def grid(self, figures: Sequence[Figure]) -> Section:
        """Add figures side by side."""
        self.blocks.append(Block("grid", figures=list(figures)))
        return self


@dataclass
class Page:
    """A whole report."""

    title: str
    kind: str
    sections: list[Section]
    footer: str
    generated: str = ""


def stamp(generated: str | _dt.datetime | _dt.date | None) -> str:
    """The 'generated' text: given, or the current UTC time to the minute."""
    if generated is None:
        generated = _dt.datetime.now(_dt.timezone.utc).replace(second=0, microsecond=0)
    if isinstance(generated, _dt.datetime):
        return generated.strftime("%Y-%m-%d %H:%M %Z").strip()
    return str(generated)


def render(page: Page) -> str:
    """The page as one standalone HTML document."""
    try:
        import jinja2
        from markupsafe import Markup
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BackendUnavailableError(
            "reports need jinja2 and matplotlib: pip install 'receval[report]'",
            parameter="report") from exc
    from receval._version import __version__

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("receval.report", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
        lstrip_blocks=True, keep_trailing_newline=True)
    for section in page.sections:
        for b in section.blocks:
            for f in [b.figure, *b.figures]:
                if f is not None and not isinstance(f.svg, Markup):
                    f.svg = Markup(f.svg)
    html = env.get_template("report.html.j2").render(
        title=page.title, kind=page.kind, sections=page.sections, footer=page.footer,
        generated=page.generated, version=__version__)
    return clean_text(html)


def write(text: str, path: str | Path | os.PathLike[str]) -> Path:
    """Write ``text`` to ``path`` (UTF-8) whole or not at all, and return the path.

    The path should have been checked first (:func:`receval._paths.check_output`, before any
    work); the text goes to a temporary file beside it, renamed onto it once written.
    """
    from receval._paths import atomic_write

    out = Path(os.fspath(path))
    with atomic_write(out) as tmp:
        tmp.write_text(clean_text(text), encoding="utf-8")
    return out
