"""Anchored notes in the store: the ``kind = 'note'`` rows of ``notes`` with their tags (an entry's one
annotation, ``kind = 'annotation'``, is kept by :mod:`doiget.store.organise`)."""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, text

from doiget.errors import DoigetError, ErrorCode
from doiget.models import Entry
from doiget.store import entries as entry_store
from doiget.store.fts import compile_query
from doiget.store.store import now

MAX_TAGS = 50


def create(conn: Connection, entry_id: int | None, body_: str, anchors_: list[dict[str, Any]], tags: list[str],
           author_: str | None) -> int:
    stamp = now()
    note_id = conn.execute(text(
        "INSERT INTO notes (entry_id, kind, body, author, anchors, created_at, updated_at) "
        "VALUES (:e, 'note', :b, :a, :anchors, :t, :t) RETURNING id"),
        {"e": entry_id, "b": body_, "a": author_, "anchors": json.dumps(anchors_), "t": stamp}).scalar_one()
    _set_tags(conn, note_id, tags)
    return note_id


def update(conn: Connection, note_id: int, body_: str | None, anchors_: list[dict[str, Any]] | None,
           tags: list[str] | None) -> None:
    require(conn, note_id)
    changes: dict[str, Any] = {"updated_at": now()}
    if body_ is not None:
        changes["body"] = body_
    if anchors_ is not None:
        changes["anchors"] = json.dumps(anchors_)
    conn.execute(text(f"UPDATE notes SET {', '.join(f'{c} = :{c}' for c in changes)} WHERE id = :id"),
                 {**changes, "id": note_id})
    if tags is not None:
        conn.execute(text("DELETE FROM note_tags WHERE note_id = :n"), {"n": note_id})
        _set_tags(conn, note_id, tags)


def delete(conn: Connection, note_id: int) -> None:
    require(conn, note_id)
    conn.execute(text("DELETE FROM notes WHERE id = :id"), {"id": note_id})


def require(conn: Connection, note_id: int) -> None:
    if conn.execute(text("SELECT 1 FROM notes WHERE id = :id AND kind = 'note'"), {"id": note_id}).scalar() is None:
        raise DoigetError(ErrorCode.NOT_FOUND, f"no note with id {note_id}")


def _set_tags(conn: Connection, note_id: int, tags: list[str]) -> None:
    if len(tags) > MAX_TAGS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"at most {MAX_TAGS} tags per note")
    for tag_id in entry_store.tag_ids(conn, tags):
        conn.execute(text("INSERT OR IGNORE INTO note_tags (note_id, tag_id) VALUES (:n, :t)"),
                     {"n": note_id, "t": tag_id})


def load(conn: Connection, note_ids: Sequence[int]) -> list[dict[str, Any]]:
    """Notes as dicts (id, entry ref, entry_id, entry_title, body, author, anchors, tags, timestamps),
    in the order of ``note_ids``."""
    if not note_ids:
        return []
    expanding = bindparam("ids", expanding=True)
    rows = {r.id: r for r in conn.execute(text(
        "SELECT id, entry_id, body, author, anchors, created_at, updated_at FROM notes WHERE id IN :ids"
    ).bindparams(expanding), {"ids": list(note_ids)})}
    tags: dict[int, list[str]] = defaultdict(list)
    for note_id, name in conn.execute(text(
            "SELECT nt.note_id, t.name FROM note_tags nt JOIN tags t ON t.id = nt.tag_id WHERE nt.note_id IN :ids "
            "ORDER BY t.name").bindparams(expanding), {"ids": list(note_ids)}):
        tags[note_id].append(name)
    entries: dict[int, Entry] = {e.id: e for e in entry_store.load(
        conn, [r.entry_id for r in rows.values() if r.entry_id is not None])}
    notes = []
    for note_id in note_ids:
        row = rows[note_id]
        entry = entries.get(row.entry_id)
        notes.append({"id": note_id, "entry": str(entry.ref) if entry and entry.ids() else None,
                      "entry_id": row.entry_id, "entry_title": entry.title if entry else None, "body": row.body,
                      "author": row.author, "anchors": json.loads(row.anchors), "tags": tags[note_id],
                      "created_at": row.created_at, "updated_at": row.updated_at})
    return notes


def search(conn: Connection, keyword: str | None, entry_id: int | None, tag: str | None, since: str | None,
           until: str | None, limit: int, offset: int) -> dict[str, Any]:
    """One page of notes: ranked by bm25 when ``keyword`` is given, else newest first; ``since`` and
    ``until`` are stored-format timestamps."""
    clauses, params = ["n.kind = 'note'"], {"limit": limit + 1, "offset": offset}
    source = "notes n"
    order = "n.created_at DESC, n.id DESC"
    if keyword is not None:
        source = "notes_fts JOIN notes n ON n.id = notes_fts.rowid"
        clauses.append("notes_fts MATCH :match")
        params["match"] = compile_query(keyword, ("body",))
        order = "bm25(notes_fts), n.created_at DESC"
    if entry_id is not None:
        clauses.append("n.entry_id = :entry")
        params["entry"] = entry_id
    if tag is not None:
        clauses.append("n.id IN (SELECT nt.note_id FROM note_tags nt JOIN tags t ON t.id = nt.tag_id "
                       "WHERE t.name = :tag)")
        params["tag"] = tag
    if since is not None:
        clauses.append("n.created_at >= :since")
        params["since"] = since
    if until is not None:
        clauses.append("n.created_at < :until")
        params["until"] = until
    ids = conn.execute(text(f"SELECT n.id FROM {source} WHERE {' AND '.join(clauses)} ORDER BY {order} "
                            "LIMIT :limit OFFSET :offset"), params).scalars().all()
    more = len(ids) > limit
    return {"notes": load(conn, ids[:limit]), "next_offset": offset + limit if more else None}
