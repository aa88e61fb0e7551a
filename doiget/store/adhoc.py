"""User SQL: one statement run on a read-only connection, rows capped, errors named."""
from __future__ import annotations

from typing import Any

from sqlalchemy.exc import DBAPIError

from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.store import deadline
from doiget.store.failures import store_error
from doiget.store.store import Store


def run_readonly(store: Store, query: str, max_rows: int) -> dict[str, Any]:
    """``{columns, rows, truncated}`` of ONE read-only statement, under the store's query time limit;
    READ_ONLY, INVALID_QUERY, QUERY_TIMEOUT or (a damaged file) STORE_ERROR on failure."""
    try:
        with store.readonly().connect() as conn, \
                deadline.time_limit(conn, store.query_seconds, "the SQL statement", cap_values=True):
            result = conn.exec_driver_sql(query)
            if not result.returns_rows:
                return {"columns": [], "rows": [], "truncated": False}
            columns = list(result.keys())
            rows, truncated = _capped_rows(result, max_rows)
    except DBAPIError as exc:
        error = _sql_error(exc)
        raise (error if error.code is ErrorCode.READ_ONLY else store_error(store.path, exc, "read") or error) from exc
    return {"columns": columns, "rows": rows, "truncated": truncated}


def _sql_error(exc: DBAPIError) -> DoigetError:
    message = str(exc.orig)
    lowered = message.lower()
    if "readonly" in lowered or "read-only" in lowered or "not authorized" in lowered or "query_only" in lowered:
        return DoigetError(ErrorCode.READ_ONLY, f"the SQL interface is read-only: {message}")
    return DoigetError(ErrorCode.INVALID_QUERY, f"SQL error: {message}")


def _capped_rows(result: Any, max_rows: int) -> tuple[list[list[Any]], bool]:
    """At most ``max_rows`` rows and ``limits.MAX_SQL_CHARS`` characters of values; whether rows were cut."""
    rows, chars = [], 0
    for row in result:
        values = [_jsonable(v) for v in row]
        chars += sum(len(v) if isinstance(v, str) else 8 for v in values)
        if len(rows) == max_rows or chars > limits.MAX_SQL_CHARS:
            return rows, True
        rows.append(values)
    return rows, False


def _jsonable(value: Any) -> Any:
    return value.hex() if isinstance(value, bytes) else value
