"""Fast inserts of many new entries at once (bibliography import): a few executemany round trips per
batch instead of several statements per entry and author."""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence

from sqlalchemy import Connection, bindparam, text

from doiget.models import ID_FIELDS, Work
from doiget.store.entries import SCALAR_FIELDS, dump_extra
from doiget.store.names import replace_names, write_names
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
    write_names(conn, list(zip(entry_ids, works)))
    add_tags(conn, [(entry_id, tag_id) for entry_id, tags in zip(entry_ids, tag_ids) for tag_id in tags])
    stamp = now()
    columns = ("id", *_COLUMNS, "is_stub", "sources", "created_at", "updated_at", "citekey", "extra")
    _insert_many(
        conn, f"INSERT INTO entries ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        [(entry_id, *(getattr(work, c) for c in _COLUMNS), 0, json.dumps(work.sources), stamp, stamp,
          work.citekey, dump_extra(work.extra)) for entry_id, work in zip(entry_ids, works)])
    return entry_ids


def update_works(conn: Connection, updates: Sequence[tuple[int, dict[str, object]]],
                 names: Sequence[tuple[int, Work]]) -> None:
    """Set the given columns of each entry (``(entry id, {column: value})``; the entry stops being a
    stub) and replace the names of the ``(entry id, work)`` pairs in ``names``, batched."""
    stamp = now()
    by_columns: dict[tuple[str, ...], list[tuple]] = defaultdict(list)
    for entry_id, values in updates:
        by_columns[tuple(values)].append((*values.values(), stamp, entry_id))
    for columns, rows in by_columns.items():
        assignments = "".join(f"{c} = ?, " for c in columns)
        _insert_many(conn, f"UPDATE entries SET {assignments}is_stub = 0, updated_at = ? WHERE id = ?", rows)
    replace_names(conn, list(names))


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
