"""Reads that select entry ids without full-text ranking: recent, by filter, by DOI, the citation
matcher's pool, counts."""
from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, text

from doiget.store import filters


def recent_ids(conn: Connection, n: int) -> list[int]:
    """The ``n`` most recently added non-stub entries, newest first."""
    return list(conn.execute(text("SELECT id FROM entries WHERE is_stub = 0 ORDER BY created_at DESC, id DESC "
                                  "LIMIT :n"), {"n": n}).scalars())


def entry_ids(conn: Connection, by: dict[str, Any], *, stubs: bool = True) -> list[int]:
    """Ids of the entries matching the filters ``by`` (see :func:`doiget.store.filters.filter_clauses`), oldest
    first; without stubs when ``stubs`` is False."""
    clauses, params = filters.filter_clauses(**by)
    clauses = ([] if stubs else ["e.is_stub = 0"]) + clauses
    where = f"WHERE {' AND '.join(clauses)} " if clauses else ""
    return list(conn.execute(text(f"SELECT e.id FROM entries e {where}ORDER BY e.id"), params).scalars())


def local_pool(conn: Connection, match: str, limit: int) -> list[int]:
    """Ids of the non-stub entries best matching the compiled FTS ``match`` (plain bm25), best first."""
    return list(conn.execute(text("SELECT e.id FROM entries_fts JOIN entries e ON e.id = entries_fts.rowid "
                                  "WHERE entries_fts MATCH :m AND e.is_stub = 0 ORDER BY bm25(entries_fts) LIMIT :n"),
                             {"m": match, "n": limit}).scalars())


def ids_by_doi(conn: Connection, dois: list[str]) -> list[int]:
    """Ids of the non-stub entries carrying any of ``dois``."""
    if not dois:
        return []
    return list(conn.execute(text("SELECT id FROM entries WHERE doi IN :d AND is_stub = 0").bindparams(
        bindparam("d", expanding=True)), {"d": dois}).scalars())


def entry_count(conn: Connection) -> int:
    return conn.execute(text("SELECT count(*) FROM entries")).scalar_one()


def openalex_id(conn: Connection, entry_id: int) -> str | None:
    """The OpenAlex work id the entry carries, or None."""
    return conn.execute(text("SELECT openalex FROM entries WHERE id = :e"), {"e": entry_id}).scalar()
