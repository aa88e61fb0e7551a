"""The store directory: ``library.sqlite3`` (migrated on open) and the ``blobs/`` it references."""
from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from doiget.errors import DoigetError, ErrorCode
from doiget.store import migrate
from doiget.store.blobs import BlobStore
from doiget.store.deadline import DEFAULT_SECONDS, Deadline, time_limit, timeout_error
from doiget.store.failures import foreign_database, store_error

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

DB_NAME = "library.sqlite3"


def like_literal(text: str) -> str:
    """``text`` escaped for a LIKE pattern with ``ESCAPE '\\'``: its ``%`` and ``_`` match only themselves."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def now() -> str:
    """The current UTC time as ISO 8601 with milliseconds (sorts as text)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Store:
    """One library on disk. ``read()`` and ``write()`` yield connections inside a transaction.

    Opening a library that is already at the head revision reads its revision with plain sqlite3 and
    imports neither SQLAlchemy nor Alembic; the SQLAlchemy engines are made on first use, and the
    search path (:meth:`query_raw`) never needs them."""

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
        self._engines: tuple[Engine, Engine] | None = None
        self._readonly = None
        self._lock = threading.Lock()
        self._raw = threading.local()  # each thread's own sqlite3 connection and its read (query_raw)
        self._raw_all: list[sqlite3.Connection] = []
        try:
            home.mkdir(parents=True, exist_ok=True)
            self.revision_before = migrate.current_revision(self.path)
            self.revision = self.revision_before
            if self.revision_before != migrate.HEAD:
                self.revision = migrate.upgrade(self.writer)
        except Exception as exc:  # noqa: BLE001 - OS, sqlite3 and SQLAlchemy errors alike are classified
            error = store_error(self.path, exc, "open the library at")
            if error is None and not isinstance(exc, (OSError, sqlite3.Error)) and not hasattr(exc, "orig"):
                raise
            raise error or DoigetError(ErrorCode.STORE_ERROR, f"cannot open the library at {home}: {exc}",
                                       path=str(self.path)) from exc
        self.blobs = BlobStore(home / "blobs")

    @property
    def reader(self) -> Engine:
        """The SQLAlchemy engine for reads (deferred transactions), made on first use."""
        return self._open_engines()[0]

    @property
    def writer(self) -> Engine:
        """The SQLAlchemy engine for writes (``BEGIN IMMEDIATE``), made on first use."""
        return self._open_engines()[1]

    def _open_engines(self) -> tuple[Engine, Engine]:
        with self._lock:
            if self._engines is None:
                from doiget.store.db import open_engines  # imports SQLAlchemy

                self._engines = open_engines(self.path)
            return self._engines

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

    def query_raw(self, what: str) -> _RawRead:
        """:meth:`query` on a plain sqlite3 connection of this thread's own, for hot read paths (search)
        where SQLAlchemy's pool, statement and result handling cost more than the query. The
        connection is kept, so sqlite3's statement cache prepares each search statement once."""
        read = getattr(self._raw, "read", None) or self._raw_read()
        read.what = what
        return read

    def _raw_read(self) -> _RawRead:
        from doiget.store import search
        from doiget.store.db import connect

        conn = connect(self.path)
        search.prepare(conn)
        read = self._raw.read = _RawRead(self, conn)
        with self._lock:
            self._raw_all.append(conn)
        return read

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
        except Exception as exc:  # noqa: BLE001 - only the store failures store_error classifies are turned
            error = store_error(self.path, exc, doing)
            if error is None:
                raise
            raise error from exc

    def readonly(self):
        """An engine whose connections open the file with ``mode=ro`` (for user SQL)."""
        if self._readonly is None:
            from doiget.store.db import open_readonly

            self._readonly = open_readonly(self.path)
        return self._readonly

    def close(self) -> None:
        """Close every connection (the store can still be used afterwards: they reopen on demand)."""
        with self._lock:
            raw, self._raw_all, self._raw = self._raw_all, [], threading.local()
        for conn in raw:
            conn.close()
        for engine in (*(self._engines or ()), self._readonly):
            if engine is not None:
                engine.dispose()


class _RawRead:
    """:meth:`Store.query_raw`'s read transaction on one thread's connection, as a context manager yielding the
    connection; made once per thread with it (a class, not a generator: the search path then runs none of
    contextlib's Python steps). Its time limit is a :class:`~doiget.store.deadline.Deadline`, armed on entry."""

    def __init__(self, store: Store, conn: sqlite3.Connection) -> None:
        self.store, self.conn, self.what = store, conn, ""
        self.deadline = Deadline(conn)

    def __enter__(self) -> sqlite3.Connection:
        self.deadline.at = time.monotonic() + self.store.query_seconds
        try:
            self.conn.execute("BEGIN")
        except sqlite3.Error as exc:
            self._end(exc)
            raise
        return self.conn

    def __exit__(self, kind: object, exc: BaseException | None, traceback: object) -> None:
        try:
            if self.conn.in_transaction:  # an interrupted statement may have ended it
                self.conn.execute("COMMIT")
        except sqlite3.Error as failed:
            self._end(failed)
            raise
        self._end(exc)

    def _end(self, exc: BaseException | None) -> None:
        """Disarm the time limit; raise QUERY_TIMEOUT if it stopped the read that ended with ``exc`` (None:
        normally), STORE_ERROR if ``exc`` is a store failure."""
        if self.deadline.stopped(exc):
            raise timeout_error(self.what, self.store.query_seconds) from exc
        error = store_error(self.store.path, exc, "read") if isinstance(exc, sqlite3.Error) else None
        if error is not None:
            raise error from exc
