"""Argument checks shared by the services: refs, names, bounded integers and entry filters."""
from __future__ import annotations

from typing import Any, Union

from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.refs import Ref

RefLike = Union[Ref, str, int]


def entry_ref(ref: RefLike) -> Ref | int:
    """A Ref (an identifier or an ``@<key>``), or the library id that ``#<id>``, a local Ref or an int names."""
    if isinstance(ref, int) and not isinstance(ref, bool):
        return ref
    parsed = Ref.parse(ref, local=True)
    return parsed if parsed.entry_id is None else parsed.entry_id


def name(value: str, what: str) -> str:
    """A tag or collection name, whitespace collapsed; INVALID_INPUT when empty or too long."""
    if not isinstance(value, str) or not value.strip():
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} name must be a non-empty string")
    value = " ".join(value.split())
    if len(value) > limits.MAX_NAME:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} name longer than {limits.MAX_NAME} characters")
    return value


def optional_name(value: str | None, what: str) -> str | None:
    return None if value is None else name(value, what)


def bounded_int(value: Any, what: str, low: int, high: int) -> int:
    """``value`` if it is an integer (not a bool) from ``low`` to ``high``, else INVALID_INPUT."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} must be an integer from {low} to {high}")
    return value


def entry_filters(*, year_from: int | None = None, year_to: int | None = None, tag: str | None = None,
                  collection: str | None = None, has_pdf: bool | None = None) -> dict[str, Any]:
    """Validated entry filters (see :func:`doiget.store.filters.filter_clauses`)."""
    return {"year_from": None if year_from is None else bounded_int(year_from, "year_from", 0, limits.MAX_YEAR),
            "year_to": None if year_to is None else bounded_int(year_to, "year_to", 0, limits.MAX_YEAR),
            "tag": optional_name(tag, "tag"),
            "collection": optional_name(collection, "collection"),
            "has_pdf": has_pdf}
