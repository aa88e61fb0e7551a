"""Fast inserts of many new entries at once (bibliography import): a few executemany round trips per
batch instead of several statements per entry and author."""
from __future__ import annotations

import json
import string
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from operator import attrgetter, itemgetter
from typing import Any

from sqlalchemy import Connection

from doiget.models import COLUMNS, Author, Work
from doiget.store.entries import dump_extra
from doiget.store.names import replace_names, write_names
from doiget.store.rows import IN_VALUES, insert_rows, rows_for
from doiget.store.search import summary_row
from doiget.store.store import now



def stored_ids(conn: Connection, kind: str, values: Iterable[str]) -> dict[str, int]:
    """``{value: entry id}`` for the ``kind`` identifiers (doi, arxiv, ...) the library already holds."""
    rows = rows_for(conn, f"SELECT {kind}, id FROM entries WHERE {kind} {IN_VALUES}", list(dict.fromkeys(values)))
    return {value.lower() if kind == "doi" else value: entry_id for value, entry_id in rows}  # doi is NOCASE


# A new entry's values: its models.COLUMNS values (in that order), authors, contributors by role, sources, extra.
NewWork = tuple[tuple, Sequence[Author], Mapping[str, Sequence[Author]], Sequence[str], Mapping[str, Any]]


def work_values(work: Work) -> NewWork:
    """``work``'s values as :func:`insert_works` takes them."""
    return _column_values(work.__dict__), work.authors, work.contributors, work.sources, work.extra


def insert_works(conn: Connection, works: Sequence[NewWork], citekeys: Sequence[str],
                 tag_ids: Sequence[Iterable[int]]) -> list[int]:
    """Insert ``works`` (each a :data:`NewWork`), none of which shares an identifier with a stored entry, each with
    its citation key (in place of the work's) and tags; returns their new entry ids in order (never ids a deleted
    entry had)."""
    if not works:
        return []
    first = conn.exec_driver_sql(
        "SELECT max(coalesce((SELECT max(id) FROM entries), 0), "
        "coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'entries'), 0)) + 1").scalar_one()
    entry_ids = list(range(first, first + len(works)))
    stamp = now()
    sources: dict[tuple[str, ...], str] = {}
    rows = []
    for entry_id, (columns, _, _, listed, extra), citekey in zip(entry_ids, works, citekeys):
        listed = tuple(listed)
        rows.append((entry_id, *columns, 0, sources.get(listed) or sources.setdefault(listed, json.dumps(list(listed))),
                     stamp, stamp, citekey, dump_extra(extra) if extra else None))
    tagged = [(entry_id, tag_id) for entry_id, tags in zip(entry_ids, tag_ids) for tag_id in tags]
    with _index_once(conn):
        insert_rows(conn, "entries", _ENTRY_COLUMNS, rows, _ENTRY_DEFAULTS)
        people = write_names(conn, [(entry_id, work[1], work[2]) for entry_id, work in zip(entry_ids, works)])
        add_tags(conn, tagged)
        tags = _tag_names(conn, tagged)
        index_entries(conn, entry_ids, people, {entry_id: " ".join(names) for entry_id, names in tags.items()})
        summarise(conn, [summary_row(entry_id, list(map(_NAME, work[1])), tags.get(entry_id, ()))
                         for entry_id, work in zip(entry_ids, works)])
    return entry_ids


_ENTRY_COLUMNS = ("id", *COLUMNS, "is_stub", "sources", "created_at", "updated_at", "citekey", "extra")
_ENTRY_DEFAULTS = {**dict.fromkeys(COLUMNS + ("extra",)), "is_stub": 0}
_column_values = itemgetter(*COLUMNS)
_NAME = attrgetter("name")
_NOCASE = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)  # SQLite's NOCASE folds ASCII only


def _tag_names(conn: Connection, tagged: list[tuple[int, int]]) -> dict[int, list[str]]:
    """Each tagged entry's tags: their stored names in the order of the tags column (NOCASE), the order the
    search-text and hit-summary triggers join them in."""
    names = dict(rows_for(conn, f"SELECT id, name FROM tags WHERE id {IN_VALUES}", list({t for _, t in tagged})))
    nocase = {tag_id: name.translate(_NOCASE) for tag_id, name in names.items()}
    by_entry: dict[int, list[int]] = defaultdict(list)
    for entry_id, tag_id in tagged:
        by_entry[entry_id].append(tag_id)
    return {entry_id: [names[t] for t in sorted(tags, key=nocase.__getitem__)] for entry_id, tags in by_entry.items()}


# The triggers that index and summarise an entry as it and its author and tag rows are inserted (migrations 0005,
# 0009).
INSERT_TRIGGERS = ("entries_fts_ai", "entry_authors_fts_ai", "entry_tags_fts_ai",
                   "entries_hit_ai", "entry_authors_hit_ai", "entry_tags_hit_ai")


@contextmanager
def _index_once(conn: Connection) -> Iterator[None]:
    """The insert triggers of ``entries_fts`` and ``entry_hit_summary`` dropped for the duration, inside the
    caller's transaction, and re-created from the SQL sqlite_master held; a failed batch leaves them to the
    rollback. A trigger costs ~20 µs per inserted row even when it does nothing; the batch is indexed and
    summarised once by the caller."""
    saved = conn.exec_driver_sql(f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN "
                                 f"({', '.join('?' * len(INSERT_TRIGGERS))})", INSERT_TRIGGERS).all()
    for name, _ in saved:
        conn.exec_driver_sql(f'DROP TRIGGER "{name}"')
    yield  # on an error the caller's transaction is rolled back (SQLite may have done so already)
    for _, sql in saved:
        conn.exec_driver_sql(sql)


IMPORT_CACHE_KIB = 64 * 1024


@contextmanager
def page_cache(conn: Connection) -> Iterator[None]:
    """SQLite's page cache of ``conn`` raised to :data:`IMPORT_CACHE_KIB` while a chunk is written, then set
    back: a chunk's inserts land all over the identifier, name and tag indexes, and with the default 2 MB
    their pages are spilled and read again (100k import -7 % CPU). A failed chunk leaves the larger cap on
    the pooled connection (a cap, not memory) rather than risk a second error."""
    previous = conn.exec_driver_sql("PRAGMA cache_size").scalar()
    conn.exec_driver_sql(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")
    yield
    conn.exec_driver_sql(f"PRAGMA cache_size = {previous}")


def index_entries(conn: Connection, entry_ids: list[int], people: dict[int, str], tags: dict[int, str]) -> None:
    """Store the search text of the new entries ``entry_ids`` (their person and tag text: see
    :func:`doiget.store.names.write_names` and :func:`_tag_names`; new entries have no notes) and index
    them in ``entries_fts`` with one statement: what the insert triggers of migration 0005 do row by row."""
    _insert_many(conn, "INSERT OR REPLACE INTO entry_search_text (id, authors, tags, notes) VALUES (?, ?, ?, NULL)",
                 [(entry_id, people.get(entry_id), tags.get(entry_id)) for entry_id in entry_ids])
    conn.exec_driver_sql(
        "INSERT INTO entries_fts (rowid, title, abstract, authors, venue, year, tags, notes) "
        "SELECT e.id, e.title, e.abstract, x.authors, e.venue, e.year, x.tags, x.notes "
        "FROM entries e JOIN entry_search_text x ON x.id = e.id WHERE e.id BETWEEN ? AND ?",
        (entry_ids[0], entry_ids[-1]))


def summarise(conn: Connection, rows: list[tuple[int, str]]) -> None:
    """Store the hit summaries (:func:`doiget.store.search.summary_row`) of new entries: what the insert
    triggers of migration 0009 do row by row."""
    _insert_many(conn, "INSERT OR REPLACE INTO entry_hit_summary (id, summary) VALUES (?, ?)", rows)


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


def _insert_many(conn: Connection, sql: str, rows: list[tuple]) -> None:
    if rows:  # an empty parameter list would run the statement once, unbound
        conn.exec_driver_sql(sql, rows)
