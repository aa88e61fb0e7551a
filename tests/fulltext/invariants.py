"""Checks every extracted Document must pass, whatever its source."""
from __future__ import annotations

import re

from doiget.fulltext.builder import MAX_CHUNK_CHARS
from doiget.fulltext.document import Document

_HEADING_LINE = re.compile(r"^#{1,3} ", re.M)


def assert_well_formed(doc: Document) -> None:
    """Offsets index the text, chunks are ordered, bounded and never contain a heading line."""
    assert doc.chunks, "no chunks"
    previous_end = 0
    for seq, chunk in enumerate(doc.chunks):
        assert chunk.seq == seq
        assert doc.text[chunk.char_start:chunk.char_end] == chunk.text
        assert chunk.text == chunk.text.strip() and chunk.text
        assert len(chunk.text) <= MAX_CHUNK_CHARS
        assert chunk.char_start >= previous_end
        assert not _HEADING_LINE.search(chunk.text), chunk.text[:80]
        previous_end = chunk.char_end
    if doc.page_offsets is not None:
        assert len(doc.page_offsets) == doc.page_count
        bounds = [*doc.page_offsets, len(doc.text) + 2]
        for chunk in doc.chunks:
            assert bounds[chunk.page - 1] <= chunk.char_start and chunk.char_end <= bounds[chunk.page]
