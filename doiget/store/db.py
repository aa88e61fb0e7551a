"""SQLite engines for the store: WAL, foreign keys, busy timeout, immediate write transactions.

Two engines share one file: ``reader`` opens deferred transactions (WAL readers never block),
``writer`` opens ``BEGIN IMMEDIATE`` so concurrent writers queue on the busy timeout instead of
failing with "database is locked" when a read transaction tries to upgrade. ``open_readonly``
opens the file with ``mode=ro`` for user SQL. ``connect`` opens a plain sqlite3 connection set up the
same way, for the search path (no SQLAlchemy: this module imports it only when an engine is made).
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine

BUSY_TIMEOUT_MS = 30_000


def _configure(dbapi_conn: sqlite3.Connection) -> None:
    dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (pysqlite's own is deferred)
    cursor = dbapi_conn.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.close()


def connect(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection to the store file, set up as the engines' connections are (autocommit
    mode: the caller emits BEGIN). It may be closed from another thread than the one using it."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    _configure(conn)
    return conn


def _engine(url: str, *, begin: str) -> Engine:
    from sqlalchemy import create_engine, event

    # Pooled: a fresh connection costs ~1 ms of schema reading, more than a typical search.
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        _configure(dbapi_conn)

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        conn.exec_driver_sql(begin)

    return engine


def open_engines(path: Path) -> tuple[Engine, Engine]:
    """(reader, writer) engines over the store file at ``path``, which is switched to WAL mode
    (a persistent property of the file, so it is set once here rather than per connection)."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
    finally:
        conn.close()
    url = f"sqlite:///{path}"
    return _engine(url, begin="BEGIN"), _engine(url, begin="BEGIN IMMEDIATE")


def open_readonly(path: Path) -> Engine:
    """An engine whose connections cannot write: the file is opened with ``mode=ro``."""
    from sqlalchemy import event

    url = f"sqlite:///file:{path}?mode=ro&uri=true"
    engine = _engine(url, begin="BEGIN")

    @event.listens_for(engine, "connect")
    def _query_only(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        dbapi_conn.execute("PRAGMA query_only = ON")
        dbapi_conn.set_authorizer(_deny_escapes)

    return engine


_READ_PRAGMAS = {"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
                 "foreign_key_list", "database_list", "compile_options", "function_list", "pragma_list",
                 "data_version"}  # FTS5 reads data_version internally


def _deny_escapes(action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None) -> int:
    """Refuse what could write around ``mode=ro``: ATTACH/DETACH and PRAGMAs that set anything."""
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() not in _READ_PRAGMAS | {"query_only"}:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() == "query_only" and arg2 is not None:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK
