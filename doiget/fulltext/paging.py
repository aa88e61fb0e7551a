"""Bounded, contiguous pages of a Document's text.

A page is ``text[offset:next_offset]``; reading from 0 and following ``next_offset`` until it is
None returns every character exactly once. A page ends at a paragraph break (else a line
break, else a space) in the second half of its window, so words and paragraphs stay whole.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Any

from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext.document import Document


def text_page(doc: Document, offset: int = 0, max_chars: int = 15000, page: int | None = None) -> dict[str, Any]:
    """One page of ``doc.text`` from ``offset`` (or PDF page ``page``: that page, up to ``max_chars``)."""
    limit = None
    if page is not None:
        if not doc.page_offsets:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"page= needs PDF text; this text comes from {doc.source}")
        if not 1 <= page <= len(doc.page_offsets):
            raise DoigetError(ErrorCode.INVALID_INPUT, f"page must be from 1 to {len(doc.page_offsets)}")
        offset = doc.page_offsets[page - 1]
        limit = doc.page_offsets[page] if page < len(doc.page_offsets) else None
    result = bounded_slice(doc.text, offset, max_chars, limit)
    result.update(source=doc.source, content_sha256=doc.content_sha256)
    if doc.page_offsets:
        end = result["offset"] + len(result["text"])
        result.update(page_count=doc.page_count, page_range=_pages(doc.page_offsets, offset, end, page),
                      empty_pages=doc.empty_pages)
    return result


def bounded_slice(text: str, offset: int, max_chars: int, limit: int | None = None) -> dict[str, Any]:
    """``text[offset:end]`` with ``end`` at most ``max_chars`` on (and not past ``limit``), cut between words."""
    total = len(text)
    if not 0 <= offset <= total:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"offset must be from 0 to {total} (total_chars)")
    end = _cut(text, offset, min(offset + max_chars, total if limit is None else limit))
    return {"text": text[offset:end], "offset": offset, "total_chars": total,
            "next_offset": end if end < total else None}


def _cut(text: str, start: int, end: int) -> int:
    if end >= len(text) or end == start:
        return end
    # A page cut right after a separator keeps the next page starting on content.
    floor = start + (end - start) // 2
    for separator in ("\n\n", "\n", " "):
        found = text.rfind(separator, floor, end)
        if found != -1:
            return found + len(separator)
    return end


def _pages(page_offsets: list[int], start: int, end: int, page: int | None) -> list[int]:
    """[first, last] 1-based PDF pages the span [start, end) touches; [page, page] when a page was asked for
    (a page without text shares its offset with the next one, so offsets alone cannot name it)."""
    if page is not None:
        return [page, page]
    first = max(bisect_right(page_offsets, start), 1)
    return [first, max(bisect_right(page_offsets, max(end - 1, start)), first)]
