"""The store's failures as STORE_ERROR messages that name the path and say what to do.

SQLite result codes and OS errors are classified here (disk full, read-only, corrupt or not a
database, cannot open, I/O error, locked); anything else — a SQL or FTS syntax error, a bug — is
not a store failure and is left to the caller. A failing write transaction is rolled back by
SQLite, so these errors never leave half-written rows.
"""
from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from doiget.errors import DoigetError, ErrorCode

_ADVICE = {
    "full": "the disk is full: free space on it and retry (nothing was written)",
    "read_only": "it is read-only: check its permissions and those of its directory, or run with "
                 "DOIGET_PROFILE=read-only to only read it",
    "corrupt": "it is corrupt or not an SQLite database: restore it from a backup, or move it away "
               "to start a new library",
    "cannot_open": "it cannot be opened: check that the path is a file (not a directory) in a directory "
                   "you can write, or choose another --home / DOIGET_HOME",
    "io": "the disk reported an I/O error: check the disk, then run `doiget health`",
    "locked": "another process holds it locked: retry when that process is done",
}
_SQLITE = {sqlite3.SQLITE_FULL: "full", sqlite3.SQLITE_READONLY: "read_only", sqlite3.SQLITE_PERM: "read_only",
           sqlite3.SQLITE_CORRUPT: "corrupt", sqlite3.SQLITE_NOTADB: "corrupt", sqlite3.SQLITE_CANTOPEN: "cannot_open",
           sqlite3.SQLITE_IOERR: "io", sqlite3.SQLITE_BUSY: "locked", sqlite3.SQLITE_LOCKED: "locked"}
_ERRNO = {errno.ENOSPC: "full", errno.EDQUOT: "full", errno.EROFS: "read_only", errno.EACCES: "read_only",
          errno.EPERM: "read_only", errno.EISDIR: "cannot_open", errno.ENOTDIR: "cannot_open",
          errno.EIO: "io"}


def classify(exc: BaseException) -> str | None:
    """Which store failure ``exc`` is (a key of the advice table), or None if it is none."""
    orig = getattr(exc, "orig", exc)  # SQLAlchemy's DBAPIError wraps the driver's error
    if isinstance(orig, sqlite3.Error):
        code = getattr(orig, "sqlite_errorcode", None)
        return _SQLITE.get(code & 0xFF) if code is not None else None
    if isinstance(orig, OSError):
        return _ERRNO.get(orig.errno)
    return None


def store_error(path: Path, exc: BaseException, doing: str) -> DoigetError | None:
    """STORE_ERROR for ``exc`` raised while ``doing`` something with ``path``, or None."""
    kind = classify(exc)
    if kind is None:
        return None
    return DoigetError(ErrorCode.STORE_ERROR, f"cannot {doing} {path}: {_ADVICE[kind]}", path=str(path),
                       reason=kind)


def foreign_database(path: Path) -> DoigetError | None:
    """STORE_ERROR when ``path`` is an SQLite database with tables but none of doiget's: doiget must
    not write its schema into another program's file."""
    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        finally:
            conn.close()
    except sqlite3.Error:
        return None  # the open that follows reports it
    if tables and "alembic_version" not in tables:
        shown = ", ".join(sorted(tables)[:5]) + (", …" if len(tables) > 5 else "")
        return DoigetError(ErrorCode.STORE_ERROR, f"{path} is the SQLite database of another program (tables: "
                           f"{shown}), not a doiget library; nothing was changed. Move it away or choose another "
                           "--home / DOIGET_HOME", path=str(path), reason="foreign_database")
    return None
