"""Tags, collections and the one free-form annotation of an entry: the rows behind ``services.organise``."""
from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, bindparam, text

from doiget.errors import DoigetError, ErrorCode
from doiget.store import entries as entry_store
from doiget.store.store import now


def add_tags(conn: Connection, entry_id: int, names: Sequence[str]) -> None:
    """Tag the entry with every name in ``names`` (creating missing tags)."""
    for tag_id in entry_store.tag_ids(conn, names):
        conn.execute(text("INSERT OR IGNORE INTO entry_tags (entry_id, tag_id) VALUES (:e, :t)"),
                     {"e": entry_id, "t": tag_id})


def remove_tags(conn: Connection, entry_id: int, names: Sequence[str]) -> None:
    conn.execute(text("DELETE FROM entry_tags WHERE entry_id = :e AND tag_id IN "
                      "(SELECT id FROM tags WHERE name IN :names)").bindparams(
        bindparam("names", expanding=True)), {"e": entry_id, "names": list(names)})


def tag_counts(conn: Connection) -> list[tuple[str, int]]:
    """(name, entries carrying it) for every tag in use, by name."""
    return [tuple(row) for row in conn.execute(text(
        "SELECT t.name, count(et.entry_id) AS n FROM tags t LEFT JOIN entry_tags et "
        "ON et.tag_id = t.id GROUP BY t.id HAVING n > 0 ORDER BY t.name")).all()]


def collection_id(conn: Connection, name: str, *, create: bool = False, description: str | None = None) -> int:
    """The id of the collection ``name``; created when ``create``, else NOT_FOUND."""
    found = conn.execute(text("SELECT id FROM collections WHERE name = :n"), {"n": name}).scalar()
    if found is not None:
        return found
    if not create:
        raise DoigetError(ErrorCode.NOT_FOUND, f"no collection named {name!r}")
    return conn.execute(text("INSERT INTO collections (name, description, created_at) VALUES (:n, :d, :t) "
                             "RETURNING id"), {"n": name, "d": description, "t": now()}).scalar_one()


def add_to_collection(conn: Connection, collection: int, entry_id: int) -> None:
    conn.execute(text("INSERT OR IGNORE INTO collection_entries (collection_id, entry_id, added_at) "
                      "VALUES (:c, :e, :t)"), {"c": collection, "e": entry_id, "t": now()})


def remove_from_collection(conn: Connection, collection: int, entry_id: int) -> None:
    conn.execute(text("DELETE FROM collection_entries WHERE collection_id = :c AND entry_id = :e"),
                 {"c": collection, "e": entry_id})


def delete_collection(conn: Connection, collection: int) -> None:
    conn.execute(text("DELETE FROM collections WHERE id = :c"), {"c": collection})


def collection_rows(conn: Connection) -> list[dict]:
    """Every collection: name, description, count, created_at, by name."""
    rows = conn.execute(text(
        "SELECT c.name, c.description, c.created_at, count(ce.entry_id) AS n FROM collections c "
        "LEFT JOIN collection_entries ce ON ce.collection_id = c.id GROUP BY c.id ORDER BY c.name")).all()
    return [{"name": r.name, "description": r.description, "count": r.n, "created_at": r.created_at} for r in rows]


def collection_entry_ids(conn: Connection, collection: int) -> list[int]:
    """The collection's entries in the order they were added."""
    return list(conn.execute(text("SELECT entry_id FROM collection_entries WHERE collection_id = :c "
                                  "ORDER BY added_at"), {"c": collection}).scalars())


def set_annotation(conn: Connection, entry_id: int, body: str | None) -> None:
    """Store ``body`` as the entry's annotation, or remove the annotation when ``body`` is None."""
    if body is None:
        conn.execute(text("DELETE FROM notes WHERE entry_id = :e AND kind = 'annotation'"), {"e": entry_id})
        return
    stamp = now()
    conn.execute(text(
        "INSERT INTO notes (entry_id, kind, body, created_at, updated_at) "
        "VALUES (:e, 'annotation', :b, :t, :t) "
        "ON CONFLICT (entry_id) WHERE kind = 'annotation' DO UPDATE SET body = :b, updated_at = :t"),
        {"e": entry_id, "b": body, "t": stamp})
