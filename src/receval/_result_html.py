"""Rich HTML of a result for Jupyter (``_repr_html_``): no jinja2 or matplotlib needed."""

from __future__ import annotations

import html
from typing import Any

from receval._format import fmt

__all__ = ["evaluation_html", "html_table"]


def html_table(headers: list[str], rows: list[list[str]], numeric: set[int]) -> str:
    """A small HTML table (escaped), numbers right-aligned."""
    def cell(tag: str, text: str, j: int) -> str:
        align = ' style="text-align:right"' if j in numeric else ' style="text-align:left"'
        return f"<{tag}{align}>{html.escape(text)}</{tag}>"

    head = "".join(cell("th", h, j) for j, h in enumerate(headers))
    body = "".join("<tr>" + "".join(cell("td", c, j) for j, c in enumerate(r)) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def evaluation_html(ev: Any) -> str:
    """The metric table, the convention and the user accounting of one evaluation.

    ``ev`` is an :class:`~receval.EvaluationResult` (typed ``Any``: results import this
    module, never the other way round).
    """
    conv = ev.settings.get("convention")
    names = ev.settings.get("metrics") or {}
    headers = ["metric", "value", "aggregation", "users"] + ([f"{conv} name"] if conv else [])
    rows = []
    for label, s in ev.summaries.items():
        row = [label, fmt(s.value), s.aggregation, fmt(s.n_users)]
        if conv:
            row.append(str(names.get(label, {}).get("library_name") or "-"))
        rows.append(row)
    u = ev.users
    counts = [f"{int(r['count']):,} {name} ({r['handling']})"
              for name, r in u.summary().iloc[1:].iterrows() if int(r["count"])]
    setting = (f"convention {conv}" if conv else
               f"no convention: ties={ev.settings.get('ties')!r}, relevance_threshold="
               f"{ev.settings.get('relevance_threshold')!r}")
    return (f"<div><p><b>EvaluationResult</b>: {u.n_evaluated:,} users evaluated of "
            f"{u.n_users:,}; {html.escape(setting)}</p>"
            + html_table(headers, rows, {1, 3})
            + f"<p style=\"font-size:smaller\">users: {html.escape('; '.join(counts))}</p>"
            + "</div>")
