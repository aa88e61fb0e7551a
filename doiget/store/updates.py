"""Update notices per entry (``entry_updates``) and when each source was last asked (``update_checks``)."""
from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy import Connection, bindparam, text

from doiget.notices import UpdateNotice, status_of_kinds
from doiget.store.store import now

# The sources whose records state update notices; a work from one of them replaces what that source
# said before about the entry.
SOURCES = ("crossref", "openalex")
_FIELDS = ("direction", "kind", "doi", "date", "label", "asserted_by", "source")


def save(conn: Connection, entry_id: int, notices: list[UpdateNotice], sources: Iterable[str]) -> None:
    """Record what ``sources`` (those of them that state notices) now say about the entry: their
    notices replace the ones they stated before (rows left alone when nothing changed, so
    ``fetched_at`` is when a notice was first read), and the check time is set."""
    timestamp = now()
    for source in (s for s in dict.fromkeys(sources) if s in SOURCES):
        fresh = [n for n in notices if n.source == source]
        held = conn.execute(text(f"SELECT {', '.join(_FIELDS)} FROM entry_updates WHERE entry_id = :e "
                                 "AND source = :s ORDER BY id"), {"e": entry_id, "s": source}).all()
        if [tuple(r) for r in held] == [tuple(getattr(n, f) for f in _FIELDS) for n in fresh]:
            fresh = []  # unchanged: the stored rows (and when they were first read) stay
        else:
            conn.execute(text("DELETE FROM entry_updates WHERE entry_id = :e AND source = :s"),
                         {"e": entry_id, "s": source})
        for notice in fresh:
            conn.execute(text(f"INSERT INTO entry_updates (entry_id, {', '.join(_FIELDS)}, fetched_at) "
                              f"VALUES (:e, {', '.join(':' + f for f in _FIELDS)}, :t)"),
                         {"e": entry_id, **notice.model_dump(include=set(_FIELDS)), "t": timestamp})
        conn.execute(text("INSERT OR REPLACE INTO update_checks (entry_id, source, checked_at) VALUES (:e, :s, :t)"),
                     {"e": entry_id, "s": source, "t": timestamp})


def load(conn: Connection, entry_ids: list[int]) -> dict[int, list[UpdateNotice]]:
    """The stored notices of each entry (in the order stored); entries never checked are absent."""
    found: dict[int, list[UpdateNotice]] = defaultdict(list)
    if not entry_ids:
        return found
    checked = _in(conn, "SELECT DISTINCT entry_id FROM update_checks WHERE entry_id IN :ids", entry_ids)
    for (entry_id,) in checked:
        found[entry_id] = []
    rows = _in(conn, f"SELECT entry_id, {', '.join(_FIELDS)}, fetched_at FROM entry_updates "
                     "WHERE entry_id IN :ids ORDER BY id", entry_ids)
    for row in rows.mappings():
        found[row["entry_id"]].append(UpdateNotice(**{k: v for k, v in row.items() if k != "entry_id"}))
    return found


def statuses(conn: sqlite3.Connection, entry_ids: list[int]) -> dict[int, str]:
    """Each entry's update status (retracted, corrected, ...) for the entries that have one; on the raw
    connection of a search (``Store.query_raw``), where it adds one small indexed query."""
    kinds: dict[int, set[str]] = defaultdict(set)
    marks = ", ".join("?" * len(entry_ids))
    for entry_id, kind in conn.execute("SELECT entry_id, kind FROM entry_updates WHERE direction = 'updated-by' "
                                       f"AND entry_id IN ({marks})", entry_ids):
        kinds[entry_id].add(kind)
    return {entry_id: status_of_kinds(found) for entry_id, found in kinds.items()}


def dois(conn: Connection, entry_ids: list[int] | None) -> list[tuple[int, str]]:
    """(entry id, DOI) of the given entries (all when None) that have a DOI, in id order."""
    if entry_ids is None:
        return [tuple(r) for r in conn.execute(text("SELECT id, doi FROM entries WHERE doi IS NOT NULL "
                                                    "AND is_stub = 0 ORDER BY id"))]
    return [tuple(r) for r in _in(conn, "SELECT id, doi FROM entries WHERE id IN :ids AND doi IS NOT NULL "
                                        "ORDER BY id", entry_ids)]


def _in(conn: Connection, sql: str, ids: list[int]):
    return conn.execute(text(sql).bindparams(bindparam("ids", expanding=True)), {"ids": ids})
