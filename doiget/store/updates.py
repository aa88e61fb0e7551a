"""Update notices per entry (``entry_updates``) and when each source was last asked (``update_checks``)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy import Connection, bindparam, text

from doiget.models import ID_FIELDS
from doiget.notices import UpdateNotice
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


def targets(conn: Connection, entry_ids: list[int] | None) -> list[tuple[int, dict[str, str]]]:
    """(entry id, its identifiers kind -> id) of the given entries (all non-stub entries when None), in id order."""
    columns = ", ".join(ID_FIELDS)
    rows = (conn.execute(text(f"SELECT id, {columns} FROM entries WHERE is_stub = 0 ORDER BY id")) if entry_ids is None
            else _in(conn, f"SELECT id, {columns} FROM entries WHERE id IN :ids ORDER BY id", entry_ids))
    return [(row[0], {kind: value for kind, value in zip(ID_FIELDS, row[1:]) if value}) for row in rows]


def _in(conn: Connection, sql: str, ids: list[int]):
    return conn.execute(text(sql).bindparams(bindparam("ids", expanding=True)), {"ids": ids})
