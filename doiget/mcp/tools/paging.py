"""Paging for every MCP result that can grow: an opaque ``cursor`` in, ``next_cursor`` out (null on
the last page), and pages cut short to fit the result budget, so a result never fails for size.

A cursor encodes the position and a digest of the query it belongs to (every argument but the
cursor and the page size), so a cursor replayed against another query is refused, not misread.
"""
from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, Field

from doiget import limits
from doiget.errors import DoigetError, ErrorCode

MAX_RESULT_CHARS = 200_000
PAGE_BUDGET = 180_000  # characters of items per page: room left for the envelope around them
MAX_WINDOW = limits.MAX_SEARCH_WINDOW  # results reachable by paging through one query
CURSOR_DESCRIPTION = "a next_cursor, for the next page"
Cursor = Annotated[str | None, Field(max_length=200, description=CURSOR_DESCRIPTION)]
PAGE_FIELDS = ("cursor", "limit", "n")


def scope_of(params: BaseModel) -> str:
    """The digest of the query ``params`` describe, page position and size aside."""
    query = params.model_dump(mode="json", exclude=set(PAGE_FIELDS))
    return hashlib.sha256(json.dumps(query, sort_keys=True).encode()).hexdigest()[:12]


def encode(offset: int, scope: str) -> str:
    raw = json.dumps([offset, scope], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(cursor: str | None, scope: str) -> int:
    """The position a cursor names; INVALID_INPUT for a cursor of another query or not from this server."""
    if cursor is None:
        return 0
    try:
        offset, owner = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        valid = isinstance(offset, int) and 0 <= offset <= MAX_WINDOW * 100
    except (ValueError, TypeError):
        valid, owner = False, None
    if not valid:
        raise DoigetError(ErrorCode.INVALID_INPUT, "cursor is not a next_cursor this server handed out; omit it "
                          "for the first page")
    if owner != scope:
        raise DoigetError(ErrorCode.INVALID_INPUT, "cursor belongs to a different query: repeat the same "
                          "arguments with it, or omit it for the first page")
    return offset


def fitting(items: Sequence[Any], budget: int = PAGE_BUDGET, size: Callable[[Any], int] | None = None) -> int:
    """How many leading ``items`` fit in ``budget`` characters of JSON (at least one)."""
    measure = size or (lambda item: len(json.dumps(item, ensure_ascii=False, default=str)) + 1)
    used = 0
    for count, item in enumerate(items):
        used += measure(item)
        if used > budget:
            return max(count, 1)
    return len(items)


def page(window: Sequence[Any], offset: int, limit: int, scope: str,
         size: Callable[[Any], int] | None = None) -> tuple[list[Any], str | None]:
    """The page at ``offset`` of ``window`` (the results from the start, at least offset + limit + 1 of
    them when more exist), cut to the budget; with the cursor of the next page or None."""
    rest = list(window[offset:])
    shown = rest[:limit][:fitting(rest[:limit], size=size)]
    more = len(rest) > len(shown) and offset + len(shown) < MAX_WINDOW
    return shown, encode(offset + len(shown), scope) if more else None


def window_size(offset: int, limit: int) -> int:
    """How many results to ask the library for to serve the page at ``offset`` (one more tells if more follow)."""
    return min(offset + limit + 1, MAX_WINDOW)
