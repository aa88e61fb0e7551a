"""The store's side of the HTTP client: the SQLite response cache and the provenance log.

Both write in their own short transactions, so network code must never call the client while
holding a write transaction.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict

from sqlalchemy import Connection, text

from doiget.net.base import HttpResponse
from doiget.net.base import ProvenanceRecord
from doiget.store.store import Store, now


class SqliteCache:
    """``ResponseCache`` over the ``http_cache`` table (keys carry no secrets)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, key: str) -> HttpResponse | None:
        with self.store.read() as conn:
            row = conn.execute(text("SELECT status, url, headers, body FROM http_cache "
                                    "WHERE key = :k AND expires_at > :t"), {"k": key, "t": time.time()}).first()
        if row is None:
            return None
        return HttpResponse(status=row.status, url=row.url, content=row.body, headers=json.loads(row.headers),
                            from_cache=True)

    def put(self, key: str, response: HttpResponse, ttl_seconds: float) -> None:
        source = key.split(" ", 1)[0]
        with self.store.write() as conn:
            conn.execute(text(
                "INSERT OR REPLACE INTO http_cache (key, source, url, status, headers, body, fetched_at, expires_at) "
                "VALUES (:k, :s, :u, :st, :h, :b, :f, :e)"),
                {"k": key, "s": source, "u": response.url, "st": response.status,
                 "h": json.dumps(response.headers), "b": response.content, "f": now(),
                 "e": time.time() + ttl_seconds})


class ProvenanceLog:
    """Appends every :class:`ProvenanceRecord` to the ``provenance`` table."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def __call__(self, record: ProvenanceRecord) -> None:
        values = asdict(record)
        values["from_cache"] = int(values["from_cache"])
        with self.store.write() as conn:
            conn.execute(text(
                "INSERT INTO provenance (time, source, method, url, status, bytes, sha256, duration_ms, outcome, "
                "from_cache, detail) VALUES (:time, :source, :method, :url, :status, :bytes, :sha256, :duration_ms, "
                ":outcome, :from_cache, :detail)"), values)


def expire_cache(conn: Connection) -> int:
    """Delete the expired ``http_cache`` rows; returns how many."""
    return conn.execute(text("DELETE FROM http_cache WHERE expires_at < :t"), {"t": time.time()}).rowcount
