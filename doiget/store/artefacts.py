"""Artefact rows (which blob holds which format of which entry) and entry deletion with its blobs."""
from __future__ import annotations

from sqlalchemy import Connection, text

from doiget.store.store import now


def newest_pdf(conn: Connection, entry_id: int) -> str | None:
    """SHA-256 of the entry's newest stored PDF, or None."""
    return conn.execute(text("SELECT sha256 FROM artefacts WHERE entry_id = :e AND kind = 'pdf' "
                             "ORDER BY id DESC LIMIT 1"), {"e": entry_id}).scalar()


def holder(conn: Connection, sha256: str, kind: str) -> int | None:
    """The entry already holding these exact bytes as a ``kind`` artefact, if any."""
    return conn.execute(text("SELECT entry_id FROM artefacts WHERE sha256 = :s AND kind = :k ORDER BY id LIMIT 1"),
                        {"s": sha256, "k": kind}).scalar()


def insert(conn: Connection, entry_id: int, kind: str, sha256: str, size: int, mime: str | None,
           source: str | None, url: str | None) -> int | None:
    """Record an artefact whose blob is already in place; its id, or None when the same row exists."""
    return conn.execute(text(
        "INSERT OR IGNORE INTO artefacts (entry_id, kind, sha256, size, mime, source, url, "
        "created_at) VALUES (:e, :k, :s, :n, :m, :src, :u, :t) RETURNING id"),
        {"e": entry_id, "k": kind, "s": sha256, "n": size, "m": mime, "src": source, "u": url,
         "t": now()}).scalar()


def referenced(conn: Connection) -> set[str]:
    """Every blob some artefact names."""
    return set(conn.execute(text("SELECT DISTINCT sha256 FROM artefacts")).scalars())


def delete_entry(conn: Connection, entry_id: int) -> list[str]:
    """Delete the entry (everything attached cascades); returns the blobs no artefact names any more."""
    shas = conn.execute(text("SELECT DISTINCT sha256 FROM artefacts WHERE entry_id = :id"),
                        {"id": entry_id}).scalars().all()
    conn.execute(text("DELETE FROM entries WHERE id = :id"), {"id": entry_id})
    return [sha for sha in shas if conn.execute(
        text("SELECT 1 FROM artefacts WHERE sha256 = :s LIMIT 1"), {"s": sha}).scalar() is None]
