"""Text and HTML helpers for notebook reprs (one-line ``__repr__``, ``_repr_html_``)."""
from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

TITLE_CHARS = 70


def short(text: str | None, limit: int = TITLE_CHARS) -> str:
    """``text`` on one line, cut at ``limit`` characters with an ellipsis."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def table_html(columns: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> str:
    head = "".join(f"<th>{escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{escape('' if v is None else str(v))}</td>" for v in row) + "</tr>"
                   for row in rows)
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def entry_html(entry: Any) -> str:
    """An entry as a small HTML card: title, authors, venue and year, ids, tags, abstract."""
    ids = ", ".join(f"{k}:{v}" for k, v in entry.ids().items())
    people = ", ".join(a.name for a in entry.authors[:8]) + (" et al." if len(entry.authors) > 8 else "")
    where = " · ".join(str(x) for x in (entry.venue, entry.year, "PDF" if entry.has_pdf else None) if x)
    tags = " ".join(f"<code>{escape(t)}</code>" for t in entry.tags)
    abstract = f"<p>{escape(short(entry.abstract, 600))}</p>" if entry.abstract else ""
    from doiget.notices import warning  # on use: notices imports pydantic

    said = warning(entry.updates or [])
    notice = f"<p><b>{escape(said)}</b></p>" if said else ""
    return (f"<div>{notice}<b>{escape(entry.title or '(untitled)')}</b><br>{escape(people)}<br>"
            f"<small>{escape(where)} — {escape(ids)} {tags}</small>{abstract}</div>")


def fields_line(name: str, values: Sequence[tuple[str, Any]], limit: int = 160) -> str:
    """``<name k=v k=v ...>`` on one line: strings cut short, lists and mappings as their length."""
    parts = []
    for key, value in values:
        if isinstance(value, str):
            shown = repr(short(value, 40))
        elif isinstance(value, (list, tuple)):
            shown = f"[{len(value)}]"
        elif isinstance(value, dict):
            shown = f"{{{len(value)}}}"
        elif hasattr(value, "model_fields"):
            shown = short(repr(value), 60)
        else:
            shown = repr(value)
        parts.append(f"{key}={shown}")
    return short(f"<{name} {' '.join(parts)}", limit - 1) + ">"
