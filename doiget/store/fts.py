"""User search text → a safe FTS5 MATCH expression.

Accepted syntax: words (implicit AND), ``"exact phrases"``, ``prefix*``, ``AND`` / ``OR`` / ``NOT``
(upper case), parentheses, and ``column:term`` for the table's columns. Every word is quoted
before it reaches FTS5, so punctuation in ordinary text ("covid-19: a review") never becomes
FTS syntax. Malformed input is ``INVALID_QUERY`` with a message saying what is wrong.
"""
from __future__ import annotations

import re

from doiget.errors import DoigetError, ErrorCode

MAX_QUERY_LENGTH = 1000
_TOKEN = re.compile(r'\s*(?:(?P<phrase>"[^"]*")|(?P<paren>[()])|(?P<word>[^\s()"]+))')
_OPERATORS = {"AND", "OR", "NOT"}
# Plain words hold no quote, parenthesis, star or colon (a column filter), so none is syntax.
_SYNTAX = frozenset('"()*:')


def compile_query(text: str, columns: tuple[str, ...] = ()) -> str:
    """Translate user search text into an FTS5 expression, or raise INVALID_QUERY."""
    if not isinstance(text, str) or not text.strip():
        raise DoigetError(ErrorCode.INVALID_QUERY, "empty search query")
    if len(text) > MAX_QUERY_LENGTH:
        raise DoigetError(ErrorCode.INVALID_QUERY, f"search query longer than {MAX_QUERY_LENGTH} characters")
    if text.count('"') % 2:
        raise DoigetError(ErrorCode.INVALID_QUERY, 'unbalanced double quote in search query')
    text = text.strip()
    if _SYNTAX.isdisjoint(text):  # plain words, the common case, spelled as _compile spells it
        words = text.split()
        if _OPERATORS.isdisjoint(words):
            return '"' + '" AND "'.join(words) + '"'
    return _compile(text, columns)


def _compile(text: str, columns: tuple[str, ...]) -> str:
    """compile_query of the stripped, non-empty ``text`` whose quotes are balanced."""
    parts: list[str] = []
    depth = 0
    expect_operand = True
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            break
        pos = match.end()
        starts_operand = match.group("paren") == "(" or (
            match.group("word") not in _OPERATORS and match.group("paren") is None)
        if starts_operand and not expect_operand:
            parts.append("AND")  # FTS5 only joins adjacent bare phrases implicitly, not groups
        if match.group("paren") == "(":
            depth += 1
            parts.append("(")
            expect_operand = True
        elif match.group("paren") == ")":
            depth -= 1
            if depth < 0 or expect_operand:
                raise DoigetError(ErrorCode.INVALID_QUERY, "unbalanced or empty parentheses in search query")
            parts.append(")")
            expect_operand = False
        elif match.group("word") in _OPERATORS:
            if expect_operand:
                raise DoigetError(ErrorCode.INVALID_QUERY,
                                  f"operator {match.group('word')} needs a term on its left")
            parts.append(match.group("word"))
            expect_operand = True
        else:
            parts.append(_operand(match.group("phrase") or match.group("word"), columns))
            expect_operand = False
    if depth:
        raise DoigetError(ErrorCode.INVALID_QUERY, "unbalanced parentheses in search query")
    if expect_operand:
        raise DoigetError(ErrorCode.INVALID_QUERY, "search query ends with an operator or has no terms")
    return " ".join(parts)


def _operand(token: str, columns: tuple[str, ...]) -> str:
    column = None
    if not token.startswith('"') and ":" in token:
        head, _, rest = token.partition(":")
        if head.lower() in columns and rest:
            column, token = head.lower(), rest
    if token.startswith('"'):
        term = _quote(token[1:-1])
    else:
        prefix = token.endswith("*") and len(token.rstrip("*")) > 0
        term = _quote(token.rstrip("*")) + ("*" if prefix else "")
    if term == '""':
        raise DoigetError(ErrorCode.INVALID_QUERY, f"empty term in search query near {token!r}")
    return f"{column} : {term}" if column else term


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def is_fts_error(exc: BaseException) -> bool:
    """Whether a database error was raised by FTS5 parsing a MATCH expression."""
    message = str(exc).lower()
    return ("fts5" in message or "malformed match" in message or "no such column" in message
            or "unterminated string" in message)
