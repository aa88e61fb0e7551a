"""Ranked passages from ``chunks_fts``, over the text each paper is read from.

Only the chunks of each entry's reading artefact (the one ``text(format="auto")`` returns, see
:func:`doiget.fulltext.index.reading_artefacts_sql`) are searched, so a paper stored as both
PDF and JATS answers once, and a hit's ``char_start`` is an offset into that text.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, text
from sqlalchemy.exc import OperationalError

from doiget.fulltext.index import reading_artefacts_sql
from doiget.models import TextHit
from doiget.store import entries as entry_store
from doiget.sanitize import fts_query_error
from doiget.store.fts import is_fts_error

COLUMNS = ("text", "heading")
WEIGHTS = "1.0, 2.0"  # bm25 weights in COLUMNS order: a match in a section heading counts double
SNIPPET_TOKENS = 24


def search_chunks(conn: Connection, match: str, limit: int, clauses: list[str], params: dict[str, Any], *,
                  best_per_entry: bool = False) -> list[TextHit]:
    """Passages matching the compiled FTS5 expression ``match``, best first; ``clauses`` filter the
    entry aliased ``e`` (and may use ``c``, the chunk). ``best_per_entry`` keeps one passage per paper."""
    where = " AND ".join(["chunks_fts MATCH :match", f"c.artefact_id IN ({reading_artefacts_sql()})", *clauses])
    ranked = (f"SELECT c.id, c.entry_id, bm25(chunks_fts, {WEIGHTS}) AS score FROM chunks_fts "
              f"JOIN chunks c ON c.id = chunks_fts.rowid JOIN entries e ON e.id = c.entry_id WHERE {where}")
    if best_per_entry:
        ranked = ("SELECT id, entry_id, score FROM (SELECT id, entry_id, score, row_number() OVER "
                  f"(PARTITION BY entry_id ORDER BY score, id) AS r FROM ({ranked})) WHERE r = 1")
    try:
        rows = conn.execute(text(f"SELECT id, entry_id, score FROM ({ranked}) ORDER BY score, id LIMIT :limit"),
                            {**params, "match": match, "limit": limit}).all()
        details = {r.id: r for r in conn.execute(text(
            "SELECT c.id, c.heading, c.page, c.char_start, c.char_end, a.kind, "
            f"snippet(chunks_fts, 0, '**', '**', '…', {SNIPPET_TOKENS}) AS snippet FROM chunks_fts "
            "JOIN chunks c ON c.id = chunks_fts.rowid JOIN artefacts a ON a.id = c.artefact_id "
            "WHERE chunks_fts MATCH :match AND chunks_fts.rowid IN :ids").bindparams(
                bindparam("ids", expanding=True)), {"match": match, "ids": [r.id for r in rows]})} if rows else {}
    except OperationalError as exc:
        if is_fts_error(exc.orig):
            raise fts_query_error("search the full text", exc.orig) from exc
        raise
    entries = {e.id: e for e in entry_store.load(conn, [r.entry_id for r in rows])}
    return [TextHit(id=r.entry_id, ref=entries[r.entry_id].ref_label, title=entries[r.entry_id].title,
                    year=entries[r.entry_id].year, format=details[r.id].kind, heading=details[r.id].heading,
                    page=details[r.id].page, char_start=details[r.id].char_start, char_end=details[r.id].char_end,
                    score=r.score, snippet=details[r.id].snippet) for r in rows]
