"""The one check of user-typed query text (search queries, note keywords, citation strings, SQL)
before it reaches SQLite or an upstream API.

A NUL ends a C string inside SQLite (the FTS5 parser then reports an "unterminated string"), a
lone surrogate cannot be encoded as UTF-8, and other control characters are invisible in every
message that echoes the query. Such text is refused with ``INVALID_QUERY`` naming the character
and its position; it is never silently altered. Whitespace controls (tab, newline, CR, VT, FF)
are ordinary separators and pass.
"""
from __future__ import annotations

import re

from doiget.errors import DoigetError, ErrorCode

QUERY_SYNTAX_HINT = ('use words, "exact phrases", prefix*, AND / OR / NOT (upper case), parentheses and '
                     "column:term; put punctuation inside double quotes")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def query_text(value: object, what: str = "search query") -> str:
    """``value`` itself when it is a string free of NUL, other control characters and lone
    surrogates; else INVALID_QUERY saying which character is where and what to do."""
    if not isinstance(value, str):
        raise DoigetError(ErrorCode.INVALID_QUERY, f"{what} must be a string, not {type(value).__name__}")
    if value.isprintable():  # holds neither (both are non-printable): the common case, without a regex
        return value
    bad = _SURROGATE.search(value)
    if bad:
        raise DoigetError(ErrorCode.INVALID_QUERY, f"{what} contains a lone surrogate (U+{ord(bad.group()):04X} at "
                          f"position {bad.start()}), which is not valid Unicode; send the text as UTF-8")
    bad = _CONTROL.search(value)
    if bad:
        name = "a NUL character" if bad.group() == "\x00" else "a control character"
        raise DoigetError(ErrorCode.INVALID_QUERY, f"{what} contains {name} (U+{ord(bad.group()):04X} at position "
                          f"{bad.start()}); remove it")
    return value


def fts_query_error(what: str, sqlite_message: object) -> DoigetError:
    """INVALID_QUERY for a MATCH expression SQLite's FTS5 parser refused: its message (never the SQL
    statement) and how to write a query that parses."""
    return DoigetError(ErrorCode.INVALID_QUERY, f"cannot {what}: {sqlite_message}; {QUERY_SYNTAX_HINT}")
