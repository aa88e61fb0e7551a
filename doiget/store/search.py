"""The entry search query: FTS5 MATCH over entry metadata, filtered, ranked by weighted bm25."""
from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, text

from doiget.store import entries as entry_store

ENTRY_FTS_COLUMNS = ("title", "abstract", "authors", "venue", "year", "tags", "notes")
# bm25 column weights, in ENTRY_FTS_COLUMNS order: a title hit counts most.
ENTRY_FTS_WEIGHTS = (10.0, 3.0, 5.0, 2.0, 1.0, 4.0, 2.0)


def search_entries(conn: Connection, match: str, limit: int, filters: dict[str, Any]) -> list[Any]:
    """Rows ``(id, score, snippet)`` of the non-stub entries matching the compiled FTS ``match`` and
    ``filters`` (see :func:`doiget.store.entries.filter_clauses`), best first. An FTS syntax error
    raises ``OperationalError`` (the caller names it)."""
    clauses, params = entry_store.filter_clauses(**filters)
    clauses = ["entries_fts MATCH :match", "e.is_stub = 0", *clauses]
    params.update(match=match, limit=limit)
    weights = ", ".join(str(w) for w in ENTRY_FTS_WEIGHTS)
    sql = (f"SELECT e.id, bm25(entries_fts, {weights}) AS score, "
           "snippet(entries_fts, -1, '**', '**', '…', 16) AS snippet "
           "FROM entries_fts JOIN entries e ON e.id = entries_fts.rowid "
           f"WHERE {' AND '.join(clauses)} ORDER BY score LIMIT :limit")
    return conn.execute(text(sql), params).all()


def recent_ids(conn: Connection, n: int) -> list[int]:
    """The ``n`` most recently added non-stub entries, newest first."""
    return list(conn.execute(text("SELECT id FROM entries WHERE is_stub = 0 ORDER BY created_at DESC, id DESC "
                                  "LIMIT :n"), {"n": n}).scalars())
