"""Fast inserts of many new entries at once (bibliography import): a few executemany round trips per
batch instead of several statements per entry and author."""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence

from sqlalchemy import Connection, bindparam, text

from doiget.models import ID_FIELDS, Work
from doiget.store.entries import SCALAR_FIELDS, author_key
from doiget.store.store import now

_COLUMNS = ID_FIELDS + SCALAR_FIELDS
_IN_BATCH = 500  # values per IN (...) list, well under SQLite's variable limit


def stored_ids(conn: Connection, kind: str, values: Iterable[str]) -> dict[str, int]:
    """``{value: entry id}`` for the ``kind`` identifiers (doi, arxiv, ...) the library already holds."""
    rows = rows_for(conn, f"SELECT {kind}, id FROM entries WHERE {kind} IN :ids", list(dict.fromkeys(values)))
    return {value.lower() if kind == "doi" else value: entry_id for value, entry_id in rows}  # doi is NOCASE


def insert_works(conn: Connection, works: Sequence[Work], tag_ids: Sequence[Iterable[int]]) -> list[int]:
    """Insert ``works``, none of which shares an identifier with a stored entry, each with its tags;
    returns their new entry ids in order."""
    first = conn.execute(text("SELECT coalesce(max(id), 0) + 1 FROM entries")).scalar_one()
    entry_ids = list(range(first, first + len(works)))
    # Children first and the entries last, with foreign keys checked at commit: the FTS triggers
    # then build each entry's entries_fts row once (on the entries insert, authors and tags
    # included) instead of rebuilding it after every author and tag row.
    conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
    _link_authors(conn, list(zip(entry_ids, works)))
    add_tags(conn, [(entry_id, tag_id) for entry_id, tags in zip(entry_ids, tag_ids) for tag_id in tags])
    stamp = now()
    columns = ("id", *_COLUMNS, "is_stub", "sources", "created_at", "updated_at")
    _insert_many(
        conn, f"INSERT INTO entries ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        [(entry_id, *(getattr(work, c) for c in _COLUMNS), 0, json.dumps(work.sources), stamp, stamp)
         for entry_id, work in zip(entry_ids, works)])
    return entry_ids


def update_works(conn: Connection, updates: Sequence[tuple[int, Work]]) -> None:
    """For ``(entry id, work)`` pairs, each work matching only that entry: what
    :func:`doiget.store.entries.upsert_work` does (the work's fields replace the stored ones, its
    authors the stored authors, the entry stops being a stub), batched."""
    ids = [entry_id for entry_id, _ in updates]
    sources = dict(rows_for(conn, "SELECT id, sources FROM entries WHERE id IN :ids", ids))
    stored: dict[int, list[tuple[str, str | None]]] = defaultdict(list)
    for entry_id, key, affiliation in rows_for(
            conn, "SELECT ea.entry_id, a.key, ea.affiliation FROM entry_authors ea JOIN authors a "
                  "ON a.id = ea.author_id WHERE ea.entry_id IN :ids ORDER BY ea.entry_id, ea.position", ids):
        stored[entry_id].append((key, affiliation))
    assignments = ", ".join(f"{c} = coalesce(nullif(?, ''), {c})" for c in _COLUMNS)
    stamp = now()
    _insert_many(conn, f"UPDATE entries SET {assignments}, sources = ?, is_stub = 0, updated_at = ? WHERE id = ?",
                 [(*(getattr(work, c) for c in _COLUMNS),
                   json.dumps(list(dict.fromkeys(json.loads(sources[entry_id]) + work.sources))), stamp, entry_id)
                  for entry_id, work in updates])
    changed = [(entry_id, work) for entry_id, work in updates if work.authors
               and stored[entry_id] != [(author_key(a), a.affiliation) for a in work.authors]]
    _insert_many(conn, "DELETE FROM entry_authors WHERE entry_id = ?", [(entry_id,) for entry_id, _ in changed])
    _link_authors(conn, changed)


def _link_authors(conn: Connection, pairs: list[tuple[int, Work]]) -> None:
    authors = {author_key(a): a for _, work in pairs for a in work.authors}
    _insert_many(conn, "INSERT OR IGNORE INTO authors (key, name, family, given, orcid) VALUES (?, ?, ?, ?, ?)",
                 [(key, a.name, a.family, a.given, a.orcid) for key, a in authors.items()])
    author_ids = dict(rows_for(conn, "SELECT key, id FROM authors WHERE key IN :ids", list(authors)))
    _insert_many(
        conn, "INSERT INTO entry_authors (entry_id, position, author_id, affiliation) VALUES (?, ?, ?, ?)",
        [(entry_id, position, author_ids[author_key(a)], a.affiliation)
         for entry_id, work in pairs for position, a in enumerate(work.authors)])


def add_tags(conn: Connection, pairs: list[tuple[int, int]]) -> None:
    """Tag entries: ``(entry id, tag id)`` pairs (already tagged pairs are left alone)."""
    _insert_many(conn, "INSERT OR IGNORE INTO entry_tags (entry_id, tag_id) VALUES (?, ?)", pairs)


def rows_for(conn: Connection, sql: str, values: list) -> list[tuple]:
    """Rows of ``sql`` (with an ``IN :ids`` list) for all ``values``, queried in batches."""
    rows: list[tuple] = []
    for start in range(0, len(values), _IN_BATCH):
        rows += conn.execute(text(sql).bindparams(bindparam("ids", expanding=True)),
                             {"ids": values[start:start + _IN_BATCH]}).all()
    return rows


def _insert_many(conn: Connection, sql: str, rows: list[tuple]) -> None:
    if rows:  # an empty parameter list would run the statement once, unbound
        conn.exec_driver_sql(sql, rows)
