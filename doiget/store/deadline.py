"""A time limit on SQL that user input shapes: the read-only SQL interface and the searches.

SQLite calls a progress handler every few thousand virtual-machine instructions; ours returns
true once the deadline has passed, which makes SQLite abort the statement ("interrupted") and
roll back its read. That works in any thread (the MCP server runs tools in worker threads, where
signals cannot reach) and costs nothing measurable. The limit is ``query_time_limit`` (seconds)
in ``config.toml``, default :data:`DEFAULT_SECONDS`.
"""
from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from doiget.errors import DoigetError, ErrorCode

if TYPE_CHECKING:
    from sqlalchemy import Connection

DEFAULT_SECONDS = 5.0
CONFIG_KEY = "query_time_limit"
#: Longest string or blob a user statement may build (``zeroblob(1e9)``, a huge ``group_concat``).
MAX_VALUE_BYTES = 10_000_000
_CHECK_EVERY = 1000  # VM instructions between two looks at the clock


def configured_seconds(extra: dict[str, Any]) -> float:
    """The ``query_time_limit`` from config.toml's settings, or the default."""
    value = extra.get(CONFIG_KEY, DEFAULT_SECONDS)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3600:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"config.toml: {CONFIG_KEY} must be a number of seconds "
                          "from 0 (exclusive) to 3600")
    return float(value)


@contextmanager
def time_limit(conn: Connection | sqlite3.Connection, seconds: float, what: str, *, cap_values: bool = False) -> Iterator[None]:
    """Abort whatever ``conn`` runs inside the block once ``seconds`` have passed (QUERY_TIMEOUT; see
    :meth:`Deadline.stopped`). With ``cap_values`` no string or blob it builds or reads may exceed
    :data:`MAX_VALUE_BYTES`."""
    raw = conn if isinstance(conn, sqlite3.Connection) else conn.connection.driver_connection
    deadline = Deadline(raw)
    deadline.at = time.monotonic() + seconds
    longest = raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES) if cap_values else None
    try:
        yield
    except Exception as exc:  # sqlite3's error, or SQLAlchemy's wrapping it (not imported on the search path)
        if deadline.stopped(exc):
            raise timeout_error(what, seconds) from exc
        raise
    else:
        if deadline.stopped(None):
            raise timeout_error(what, seconds)
    finally:
        raw.set_progress_handler(None, 0)
        if longest is not None:
            raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, longest)


class Deadline:
    """The time limit on what one sqlite3 connection runs: its progress handler is installed once (on the search
    path's connection, kept open, once for all its searches: no handler set and no closure built per search), and
    each block sets ``at`` (the ``time.monotonic()`` past which the handler stops the statement) and ends with
    :meth:`stopped`."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.at = math.inf
        conn.set_progress_handler(self._passed, _CHECK_EVERY)

    def _passed(self) -> bool:
        return time.monotonic() > self.at

    def stopped(self, exc: BaseException | None) -> bool:
        """Disarm the deadline, and say whether it stopped the block that ended with ``exc`` (None: normally): a
        statement it interrupted, or statements that ended between two looks at the clock but past it."""
        passed, self.at = time.monotonic() > self.at, math.inf
        return passed if exc is None else interrupted(exc)


def timeout_error(what: str, seconds: float) -> DoigetError:
    return DoigetError(ErrorCode.QUERY_TIMEOUT, f"{what} ran longer than its {seconds:g} s limit and was stopped; "
                       f"narrow it (more specific terms, a LIMIT, fewer joins) or raise {CONFIG_KEY} in config.toml",
                       limit_seconds=seconds)


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite stopping a statement (a progress handler's or ``interrupt()``'s doing)."""
    orig = getattr(exc, "orig", exc)  # SQLAlchemy's DBAPIError wraps the driver's error
    if not isinstance(orig, sqlite3.Error):
        return False
    return getattr(orig, "sqlite_errorcode", None) == sqlite3.SQLITE_INTERRUPT or "interrupted" in str(orig)
