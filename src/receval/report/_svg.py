"""A matplotlib figure as inline SVG markup: text kept as text, stable ids, an accessible name."""

from __future__ import annotations

import html
import io
import re
from typing import Any

__all__ = ["to_svg"]

_ID = re.compile(r'\bid="([^"]+)"')


def to_svg(fig: Any, *, alt: str, prefix: str) -> str:
    """Render ``fig`` as an ``<svg>`` element for an HTML page.

    Text stays text (``svg.fonttype='none'``: searchable, selectable, small), the output is
    the same bytes for the same figure (fixed hash salt, no date), every id is prefixed with
    ``prefix`` so several figures share a page, and the root element carries ``role="img"``
    and ``alt`` as its accessible name. The figure is closed afterwards.
    """
    import matplotlib as mpl

    buf = io.StringIO()
    with mpl.rc_context({"svg.fonttype": "none", "svg.hashsalt": prefix}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    for ident in sorted(set(_ID.findall(svg)), key=len, reverse=True):
        new = f"{prefix}-{ident}"
        svg = (svg.replace(f'id="{ident}"', f'id="{new}"')
               .replace(f"#{ident})", f"#{new})").replace(f'#{ident}"', f'#{new}"'))
    label = html.escape(alt, quote=True)
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{label}" ', 1)
    svg = re.sub(r'(<svg[^>]*?) width="([\d.]+)pt" height="([\d.]+)pt"',
                 r'\1 width="100%" style="max-width:\2pt"', svg, count=1)
    return svg.strip()
