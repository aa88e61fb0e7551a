"""The store directory: ``library.sqlite3`` (migrated on open) and the ``blobs/`` it references."""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Connection
from sqlalchemy.exc import OperationalError

from doiget.errors import DoigetError, ErrorCode
from doiget.store import migrate
from doiget.store.blobs import BlobStore
from doiget.store.db import open_engines, open_readonly
from doiget.store.deadline import DEFAULT_SECONDS, time_limit

DB_NAME = "library.sqlite3"


def now() -> str:
    """The current UTC time as ISO 8601 with milliseconds (sorts as text)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Store:
    """One library on disk. ``read()`` and ``write()`` yield connections inside a transaction."""

    def __init__(self, home: Path, *, query_seconds: float = DEFAULT_SECONDS) -> None:
        self.home = home
        self.path = home / DB_NAME
        self.query_seconds = query_seconds
        try:
            home.mkdir(parents=True, exist_ok=True)
            self.reader, self.writer = open_engines(self.path)
            self.revision_before, self.revision = migrate.upgrade(self.writer)
        except (OSError, OperationalError) as exc:
            raise DoigetError(ErrorCode.STORE_ERROR, f"cannot open the library at {home}: {exc}") from exc
        self.blobs = BlobStore(home / "blobs")
        self._readonly = None

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self.reader.begin() as conn:
            yield conn

    @contextmanager
    def query(self, what: str) -> Iterator[Connection]:
        """A read transaction for SQL shaped by user input (searches): stopped with QUERY_TIMEOUT
        after ``query_seconds``."""
        with self.reader.begin() as conn, time_limit(conn, self.query_seconds, what):
            yield conn

    @contextmanager
    def query_raw(self, what: str) -> Iterator[sqlite3.Connection]:
        """:meth:`query` on the pooled reader's own sqlite3 connection, for hot read paths (search)
        where SQLAlchemy's statement and result handling costs more than the query."""
        pooled = self.reader.raw_connection()
        try:
            conn = pooled.driver_connection
            with time_limit(conn, self.query_seconds, what):
                conn.execute("BEGIN")
                try:
                    yield conn
                finally:
                    if conn.in_transaction:  # an interrupted statement may have ended it
                        conn.execute("COMMIT")
        finally:
            pooled.close()

    @contextmanager
    def write(self) -> Iterator[Connection]:
        with self.writer.begin() as conn:
            yield conn

    def readonly(self):
        """An engine whose connections open the file with ``mode=ro`` (for user SQL)."""
        if self._readonly is None:
            self._readonly = open_readonly(self.path)
        return self._readonly

    def close(self) -> None:
        for engine in (self.reader, self.writer, self._readonly):
            if engine is not None:
                engine.dispose()
