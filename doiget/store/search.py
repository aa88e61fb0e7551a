"""Entry search: the bm25 top page of ``entries_fts`` and what each hit shows, in one or two queries.

Per matching row only the rank is computed (bm25 with the column weights, the stub filter as a
lookup in the small set of stub ids); snippets, summaries and the join to ``entries`` are done for
the returned page only. A query whose matches all fit on the page (counted, stopping one past it)
is ranked and shown in one pass: a second walk over the matches costs more than the count. Runs on a
plain sqlite3 connection, kept open, so sqlite3's statement cache prepares each statement once; no
SQLAlchemy is imported here (the search path of the CLI and the MCP server needs none).

Very common terms: ranking every row that holds a word found in most of the library is what makes
such a query slow (bm25 costs ~3 µs per row; merely walking the term's row list ~0.1 µs). A query
that is ONE word or prefix (no phrase, operator or column filter) and matches more than
:data:`COMMON_DF` entries is therefore ranked among the entries holding it in a boosted column
(:data:`BOOSTED`: title, authors, tags — the columns whose weight outranks the abstract's), each
scored by its full bm25, identical to plain bm25's score for that entry. Bound, tested in
tests/test_search_rank.py: the page returned is plain bm25's ranking restricted to those entries;
an entry that holds the word only in its abstract, venue, year or notes can be missing from it
even where plain bm25 would rank it on the page. When fewer than ``offset + limit`` entries hold
it in a boosted column, the query is ranked in full.
"""
from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from typing import Any

from doiget.notices import status_of_kinds
from doiget.present import label

ENTRY_FTS_COLUMNS = ("title", "abstract", "authors", "venue", "year", "tags", "notes")
# bm25 column weights, in ENTRY_FTS_COLUMNS order: a title hit counts most.
ENTRY_FTS_WEIGHTS = (10.0, 3.0, 5.0, 2.0, 1.0, 4.0, 2.0)
BOOSTED = ("title", "authors", "tags")
COMMON_DF = 20_000
SNIPPET = "snippet(entries_fts, -1, '**', '**', '…', 16)"
_BM25 = f"bm25(entries_fts, {', '.join(map(str, ENTRY_FTS_WEIGHTS))})"
# Stubs out: for a long list of matches, one pass over the (partially indexed) stub ids; for a page's worth, a
# lookup per row.
_NOT_STUB = "entries_fts.rowid NOT IN (SELECT id FROM entries WHERE is_stub = 1)"  # partial index ix_entries_stub
_NOT_STUB_ROW = "NOT EXISTS (SELECT 1 FROM entries s WHERE s.id = entries_fts.rowid AND s.is_stub = 1)"
_ONE_TERM = re.compile(r'"[^"\s]+"\*?')  # what doiget.store.fts.compile_query makes of one word or prefix
_SEP = "\x1f"
# What page() raises for a malformed MATCH expression (tell it apart with doiget.store.fts.is_fts_error).
Error = sqlite3.OperationalError


def page(conn: sqlite3.Connection, match: str, limit: int, offset: int, id_fields: Sequence[str],
         clauses: Sequence[str] = (), params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The hits ``offset``..``offset + limit`` among non-stub entries matching the compiled FTS5 expression
    ``match``, best first: each a dict of id, score (bm25) and what :func:`shown` gives; ``clauses``
    filter the entry aliased ``e``."""
    values = {**(params or {}), "match": match, "limit": limit, "offset": offset}
    # A word can only be common in a library of more than COMMON_DF entries (and entries <= max id)
    one_term = _ONE_TERM.fullmatch(match) is not None and (
        conn.execute("SELECT max(id) FROM entries").fetchone()[0] or 0) > COMMON_DF
    matches = _count(conn, match, COMMON_DF + 1 if one_term else offset + limit + 1)
    if matches <= offset + limit:  # the page holds every match: rank and show them in one pass
        where = ["entries_fts MATCH :match", _NOT_STUB_ROW, *clauses]
        rows = conn.execute(f"SELECT e.id, {_BM25} AS score, {_shown_columns(id_fields)} FROM entries_fts "
                            f"JOIN entries e ON e.id = entries_fts.rowid WHERE {' AND '.join(where)} "
                            "ORDER BY score, e.id LIMIT :limit OFFSET :offset", values).fetchall()
        return [{"id": row[0], "score": row[1], **_shown(row[2:], row[0], id_fields)} for row in rows]
    ranked_rows = ranked(conn, match, limit, offset, clauses, params, common=one_term and matches > COMMON_DF)
    shown_rows = shown(conn, match, [entry_id for entry_id, _ in ranked_rows], id_fields)
    return [{"id": entry_id, "score": score, **shown_rows[entry_id]} for entry_id, score in ranked_rows]


def ranked(conn: sqlite3.Connection, match: str, limit: int, offset: int = 0, clauses: Sequence[str] = (),
           params: dict[str, Any] | None = None, *, common: bool | None = None) -> list[tuple[int, float]]:
    """``(entry id, bm25 score)`` of the page ``offset``..``offset + limit`` of non-stub entries matching
    ``match``, best first. ``common`` (default: counted) takes the common-term shortcut (module doc)."""
    where = ["entries_fts MATCH :match", _NOT_STUB]
    if clauses:
        where.append(f"EXISTS (SELECT 1 FROM entries e WHERE e.id = entries_fts.rowid AND {' AND '.join(clauses)})")
    values = {**(params or {}), "match": match, "limit": limit, "offset": offset}
    if common is None:
        common = _ONE_TERM.fullmatch(match) is not None and _count(conn, match, COMMON_DF + 1) > COMMON_DF
    if common:
        boosted = where + ["+entries_fts.rowid IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH :boosted)"]
        rows = _ranked(conn, boosted, {**values, "boosted": f"{{{' '.join(BOOSTED)}}} : {match}"})
        if len(rows) == limit:
            return rows
    return _ranked(conn, where, values)


def _ranked(conn: sqlite3.Connection, where: list[str], values: dict[str, Any]) -> list[tuple[int, float]]:
    return conn.execute(f"SELECT entries_fts.rowid, {_BM25} AS score FROM entries_fts WHERE {' AND '.join(where)} "
                        "ORDER BY score, entries_fts.rowid LIMIT :limit OFFSET :offset", values).fetchall()


def _count(conn: sqlite3.Connection, match: str, cap: int) -> int:
    """How many rows ``match`` matches, counting no further than ``cap``."""
    return conn.execute("SELECT count(*) FROM (SELECT 1 FROM entries_fts WHERE entries_fts MATCH ? LIMIT ?)",
                        (match, cap)).fetchone()[0]


def _shown_columns(id_fields: Sequence[str]) -> str:
    return f"{_SHOWN}, {', '.join('e.' + k for k in id_fields)}"


_SHOWN = ("(SELECT group_concat(name, char(31)) FROM (SELECT a.name FROM entry_authors ea JOIN authors a "
          " ON a.id = ea.author_id WHERE ea.entry_id = e.id ORDER BY ea.position)), "
          "(SELECT group_concat(name, char(31)) FROM (SELECT t.name FROM entry_tags et JOIN tags t "
          " ON t.id = et.tag_id WHERE et.entry_id = e.id ORDER BY t.name)), "
          "EXISTS (SELECT 1 FROM artefacts x WHERE x.entry_id = e.id AND x.kind = 'pdf'), "
          f"{SNIPPET}, e.title, e.year, e.venue")


def shown(conn: sqlite3.Connection, match: str, ids: Sequence[int], id_fields: Sequence[str]) -> dict[int, dict]:
    """What a search hit shows of each of ``ids`` (ref, title, authors, year, venue, tags, has_pdf and
    the snippet of ``match``), in one query."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    rows = conn.execute(f"SELECT e.id, {_shown_columns(id_fields)} FROM entries_fts "
                        f"JOIN entries e ON e.id = entries_fts.rowid WHERE entries_fts MATCH ? "
                        f"AND +entries_fts.rowid IN ({marks})", (match, *ids)).fetchall()
    return {row[0]: _shown(row[1:], row[0], id_fields) for row in rows}


def _shown(row: Sequence[Any], entry_id: int, id_fields: Sequence[str]) -> dict[str, Any]:
    authors, tags, has_pdf, snippet, title, year, venue, *refs = row
    return {"ref": label(dict(zip(id_fields, refs)), entry_id), "title": title,
            "authors": authors.split(_SEP) if authors else [], "year": year, "venue": venue,
            "tags": tags.split(_SEP) if tags else [], "has_pdf": bool(has_pdf), "snippet": snippet}


def statuses(conn: sqlite3.Connection, entry_ids: list[int]) -> dict[int, str]:
    """Each entry's update status (retracted, corrected, ...) for the entries that have one: one small
    indexed query on the search's connection (the notices are in ``entry_updates``, store/updates.py)."""
    if not entry_ids:
        return {}
    kinds: dict[int, set[str]] = {}
    marks = ", ".join("?" * len(entry_ids))
    for entry_id, kind in conn.execute("SELECT entry_id, kind FROM entry_updates WHERE direction = 'updated-by' "
                                       f"AND entry_id IN ({marks})", entry_ids):
        kinds.setdefault(entry_id, set()).add(kind)
    return {entry_id: status_of_kinds(found) for entry_id, found in kinds.items()}
