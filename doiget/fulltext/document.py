"""The extracted-text model every full-text extractor returns."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal

SourceKind = Literal["pdf", "ar5iv", "tex", "jats", "bioc"]


@dataclass(frozen=True, slots=True)
class Chunk:
    """A searchable slice of ``Document.text``: ``text == document.text[char_start:char_end]``.

    ``heading`` is the nearest section heading above the chunk (None before the first one);
    ``page`` is the 1-based PDF page the chunk lies on (None for other sources).
    """

    seq: int
    heading: str | None
    page: int | None
    char_start: int
    char_end: int
    text: str


@dataclass(frozen=True, slots=True)
class Document:
    """Plain text with Markdown headings (``# Title``, ``## Section``, ``### Subsection``) and its chunks.

    ``page_offsets[i]`` is the character offset where PDF page ``i + 1`` starts; ``empty_pages``
    lists 1-based pages that carried no text layer (scanned or blank).
    """

    text: str
    chunks: list[Chunk]
    source: SourceKind
    page_count: int | None = None
    page_offsets: list[int] | None = None
    empty_pages: list[int] = field(default_factory=list)
    title: str | None = None

    @property
    def content_sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()
