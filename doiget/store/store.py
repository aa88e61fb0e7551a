"""The store directory: ``library.sqlite3`` (migrated on open) and the ``blobs/`` it references."""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from doiget.errors import DoigetError, ErrorCode
from doiget.store import migrate
from doiget.store.blobs import BlobStore
from doiget.store.db import open_engines, open_readonly
from doiget.store.deadline import DEFAULT_SECONDS, time_limit
from doiget.store.failures import foreign_database, store_error

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
        if self.path.is_dir():
            raise DoigetError(ErrorCode.STORE_ERROR, f"{self.path} is a directory, not a database file; move it "
                              "away or choose another --home / DOIGET_HOME", path=str(self.path),
                              reason="cannot_open")
        refused = foreign_database(self.path)
        if refused is not None:
            raise refused
        try:
            home.mkdir(parents=True, exist_ok=True)
            self.reader, self.writer = open_engines(self.path)
            self.revision_before, self.revision = migrate.upgrade(self.writer)
        except (OSError, sqlite3.Error, DBAPIError) as exc:
            raise store_error(self.path, exc, "open the library at") or DoigetError(
                ErrorCode.STORE_ERROR, f"cannot open the library at {home}: {exc}", path=str(self.path)) from exc
        self.blobs = BlobStore(home / "blobs")
        self._readonly = None

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self._failures("read"), self.reader.begin() as conn:
            yield conn

    @contextmanager
    def query(self, what: str) -> Iterator[Connection]:
        """A read transaction for SQL shaped by user input (searches): stopped with QUERY_TIMEOUT
        after ``query_seconds``."""
        with self._failures("read"), self.reader.begin() as conn, time_limit(conn, self.query_seconds, what):
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
        """A write transaction; a store failure (disk full, read-only, corrupt) rolls it back entirely
        and is raised as STORE_ERROR."""
        with self._failures("write to"), self.writer.begin() as conn:
            yield conn

    @contextmanager
    def _failures(self, doing: str) -> Iterator[None]:
        """Raise the database's and the disk's failures as STORE_ERROR naming this library."""
        try:
            yield
        except (DBAPIError, OSError) as exc:
            error = store_error(self.path, exc, doing)
            if error is None:
                raise
            raise error from exc

    def readonly(self):
        """An engine whose connections open the file with ``mode=ro`` (for user SQL)."""
        if self._readonly is None:
            self._readonly = open_readonly(self.path)
        return self._readonly

    def close(self) -> None:
        for engine in (self.reader, self.writer, self._readonly):
            if engine is not None:
                engine.dispose()
