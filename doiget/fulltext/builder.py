"""The one place that lays out extracted blocks as text and cuts that text into chunks.

Extractors feed headings, paragraphs and page breaks in reading order; the builder writes
Markdown-headed plain text and chunks that never cross a heading or a page and stay within
``max_chars`` (split at paragraph, then sentence, then word boundaries). A body line that starts
like a Markdown heading (``# of samples``) is written ``\\# of samples``, so only headings read as
headings.
"""
from __future__ import annotations

import re

from doiget.fulltext import guard
from doiget.fulltext.document import Chunk, Document, SourceKind

MAX_CHUNK_CHARS = 1500

_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")
_HEADING_LIKE = re.compile(r"^(?=#{1,6}(?:\s|$))", re.M)
_SENTENCE_END = re.compile(r"[.!?。！？][\"'”’)\]]*\s+")


def clean_inline(text: str) -> str:
    """Collapse all whitespace (newlines included) to single spaces."""
    return " ".join(text.split())


class TextBuilder:
    """Accumulates blocks in reading order and produces a :class:`Document`."""

    def __init__(self, max_chars: int = MAX_CHUNK_CHARS) -> None:
        self._max = max_chars
        self._parts: list[str] = []
        self._length = 0
        self._heading: str | None = None
        self._page: int | None = None
        self._pending: list[tuple[int, int]] = []
        self._pending_part = 0  # index in _parts of the first pending paragraph
        self._chunks: list[Chunk] = []
        self._page_offsets: list[int] = []

    def heading(self, text: str, level: int) -> None:
        """Start a section: ``level`` 1 is the title, 2 a section, 3 a subsection (deeper is 3)."""
        text = clean_inline(text)
        if not text:
            return
        guard.check()
        self._flush()
        self._write("#" * min(max(level, 1), 3) + " " + text)
        self._heading = text

    def paragraph(self, text: str) -> None:
        """Add one paragraph; single newlines inside it (table rows, verse) are kept."""
        if "\n" in text:
            lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
            text = _BLANK_LINES.sub("\n", "\n".join(line for line in lines if line))
        else:  # the pattern costs 40 ns a character: only the rare paragraph with another space character needs it
            if "\u00a0" in text:
                text = text.replace("\u00a0", " ")
            if "\t" in text or "\r" in text or "\f" in text or "\v" in text:
                text = _SPACES.sub(" ", text)
            elif "  " in text:  # runs of plain spaces
                text = " ".join([part for part in text.split(" ") if part])
            text = text.strip()
        if "#" in text:  # a line of body text that would read as a Markdown heading keeps its # escaped
            text = _HEADING_LIKE.sub(r"\\", text)
        if text:
            guard.check()
            start = self._write(text)
            if not self._pending:
                self._pending_part = len(self._parts) - 1
            self._pending.append((start, start + len(text)))

    def page_break(self, page: int) -> None:
        """Mark the start of 1-based PDF page ``page``; chunks never span it.

        The recorded offset is where the page's first block starts (for a page with no
        text, where the next page's text starts).
        """
        self._flush()
        self._page = page
        self._page_offsets.append(self._length + (2 if self._parts else 0))

    def build(self, source: SourceKind, *, title: str | None = None, page_count: int | None = None,
              empty_pages: list[int] | None = None) -> Document:
        self._flush()
        text = "".join(self._parts)
        return Document(
            text=text,
            chunks=list(self._chunks),
            source=source,
            page_count=page_count,
            page_offsets=list(self._page_offsets) if self._page_offsets else None,
            empty_pages=list(empty_pages or []),
            title=clean_inline(title) if title else None,
        )

    def _write(self, block: str) -> int:
        if self._parts:
            self._parts.append("\n\n")
            self._length += 2
        start = self._length
        self._parts.append(block)
        self._length += len(block)
        return start

    def _flush(self) -> None:
        """Turn the paragraphs written since the last heading/page break into chunks."""
        if not self._pending:
            return
        # Only the pending tail is joined (joining all the text here made many short sections quadratic).
        base = self._pending[0][0]
        text = "".join(self._parts[self._pending_part:])
        spans: list[tuple[int, int]] = []
        limit = self._max
        for start, end in self._pending:
            if end - start <= limit:  # most paragraphs: no split to look for
                spans.append((start - base, end - base))
            else:
                spans.extend(_split_long(text, start - base, end - base, limit))
        group_start, group_end = spans[0]
        for start, end in spans[1:]:
            if end - group_start <= self._max:
                group_end = end
            else:
                self._add_chunk(text, base, group_start, group_end)
                group_start, group_end = start, end
        self._add_chunk(text, base, group_start, group_end)
        self._pending = []

    def _add_chunk(self, text: str, base: int, start: int, end: int) -> None:
        self._chunks.append(Chunk(len(self._chunks), self._heading, self._page, base + start, base + end,
                                  text[start:end]))


def _split_long(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` into spans of at most ``limit`` chars at sentence or word ends."""
    spans = []
    while end - start > limit:
        window = text[start:start + limit + 1]
        cut = _last_sentence_end(window, limit)
        if cut is None:
            space = window.rfind(" ", 0, limit + 1)
            cut = space if space > 0 else limit
        piece_end = start + len(window[:cut].rstrip())
        spans.append((start, piece_end))
        start += cut
        while start < end and text[start].isspace():
            start += 1
    if start < end:
        spans.append((start, end))
    return spans


def _last_sentence_end(window: str, limit: int) -> int | None:
    best = None
    for match in _SENTENCE_END.finditer(window):
        if match.end() > limit:
            break
        best = match.end()
    return best if best is not None and best > limit // 3 else None
