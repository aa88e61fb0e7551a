"""Notebook reprs (one-line ``__repr__``, ``_repr_html_``) and the two plain result containers, ``Hits`` and
``SqlResult``; no pydantic here, so a search imports no result model."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from html import escape
from typing import Any, TypeVar

T = TypeVar("T")
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
    people = ", ".join(a.name for a in entry.authors[:8])
    people += " et al." if len(entry.authors) > 8 or entry.authors_cut_short else ""
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
        elif hasattr(type(value), "model_fields"):
            shown = short(repr(value), 60)
        else:
            shown = repr(value)
        parts.append(f"{key}={shown}")
    return short(f"<{name} {' '.join(parts)}", limit - 1) + ">"


class Hits(list[T]):
    """Search hits, best first: a list, shown in Jupyter as a table."""

    def __repr__(self) -> str:
        return f"<{len(self)} hits>" if len(self) != 1 else "<1 hit>"

    def _repr_html_(self) -> str:
        rows = [(i, h.ref, getattr(h, "year", None), short(h.title), short(h.snippet.replace("**", ""), 120))
                for i, h in enumerate(self, 1)]
        if any(getattr(h, "update_status", None) for h in self):  # retracted, corrected, ...
            return table_html(["#", "ref", "year", "title", "snippet", "status"],
                              [(*row, h.update_status or "") for row, h in zip(rows, self)], repr(self))
        return table_html(["#", "ref", "year", "title", "snippet"], rows, repr(self))


class SqlResult(Sequence[dict[str, Any]]):
    """The rows of one SQL statement: ``["columns"]``, ``["rows"]``, ``["truncated"]`` as before, and
    a sequence of ``{column: value}`` records (so ``pandas.DataFrame(result)`` is the table)."""

    KEYS = ("columns", "rows", "truncated")

    def __init__(self, columns: list[str], rows: list[list[Any]], truncated: bool) -> None:
        self.columns, self.rows, self.truncated = columns, rows, truncated

    def keys(self) -> tuple[str, ...]:
        return self.KEYS

    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, str):
            if key not in self.KEYS:
                raise KeyError(key)
            return getattr(self, key)
        if isinstance(key, slice):
            return [dict(zip(self.columns, row)) for row in self.rows[key]]
        return dict(zip(self.columns, self.rows[key]))

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key) if key in self.KEYS else default

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (dict(zip(self.columns, row)) for row in self.rows)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, dict):
            return dict(self.to_dict()) == other
        return isinstance(other, SqlResult) and self.to_dict() == other.to_dict()

    def to_dict(self) -> dict[str, Any]:
        """The plain ``{columns, rows, truncated}`` dict (JSON-ready)."""
        return {"columns": self.columns, "rows": self.rows, "truncated": self.truncated}

    def to_pandas(self):
        """A ``pandas.DataFrame`` with the statement's columns (pandas is not a doiget dependency)."""
        try:
            import pandas
        except ImportError as exc:
            raise ImportError("to_pandas() needs pandas: pip install pandas") from exc
        return pandas.DataFrame(self.rows, columns=self.columns)

    def __repr__(self) -> str:
        cut = ", truncated" if self.truncated else ""
        return f"<SqlResult {len(self.rows)} rows × {len(self.columns)} columns{cut}: {', '.join(self.columns)}>"

    def _repr_html_(self) -> str:
        return table_html(self.columns, self.rows, repr(self)[1:-1])
