"""User SQL: one statement run on a read-only connection, rows capped, errors named."""
from __future__ import annotations

from typing import Any

from sqlalchemy.exc import DBAPIError

from doiget.errors import DoigetError, ErrorCode
from doiget.store.store import Store


def run_readonly(store: Store, query: str, max_rows: int) -> dict[str, Any]:
    """``{columns, rows, truncated}`` of ONE read-only statement; READ_ONLY or INVALID_QUERY on failure."""
    try:
        with store.readonly().connect() as conn:
            result = conn.exec_driver_sql(query)
            if not result.returns_rows:
                return {"columns": [], "rows": [], "truncated": False}
            columns = list(result.keys())
            rows = [list(row) for row in result.fetchmany(max_rows + 1)]
    except DBAPIError as exc:
        raise _sql_error(exc) from exc
    truncated = len(rows) > max_rows
    return {"columns": columns, "rows": [[_jsonable(v) for v in r] for r in rows[:max_rows]],
            "truncated": truncated}


def _sql_error(exc: DBAPIError) -> DoigetError:
    message = str(exc.orig)
    lowered = message.lower()
    if "readonly" in lowered or "read-only" in lowered or "not authorized" in lowered or "query_only" in lowered:
        return DoigetError(ErrorCode.READ_ONLY, f"the SQL interface is read-only: {message}")
    return DoigetError(ErrorCode.INVALID_QUERY, f"SQL error: {message}")


def _jsonable(value: Any) -> Any:
    return value.hex() if isinstance(value, bytes) else value
