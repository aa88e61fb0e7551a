"""The extracted Markdown, chunks and page offsets of each real paper equal the stored expected output
(tests/fixtures/papers/pdf-expected, written by the extractor of main at b1d0e26 before the PDF
speed work, and rewritten in session 6 for one intended change: a line-end hyphen before a capital or a
digit is kept without a space, or dropped where the paper prints the word whole — "SciB- ERT" became
"SciBERT", "EF- 1A" "EF-1A", a reference's "s41586- 018" "s41586-018"), and in session 10 for another:
a label with smaller text beside it is no heading part cut out of its block, so SPECTER's "P1 cite −−→P2 and
P2 cite −−→P3" is one line again instead of three pieces): faster extraction must not change a character.

After a deliberate change to PDF extraction, rewrite the expected files with
``python tests/fulltext/test_pdf_expected.py`` and review the diff.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from doiget.fulltext.document import Document
from doiget.fulltext.pdf import extract_pdf

PAPERS = Path(__file__).resolve().parent.parent / "fixtures" / "papers" / "pdf"
EXPECTED = PAPERS.parent / "pdf-expected"
NAMES = sorted(p.stem for p in PAPERS.glob("*.pdf"))


def _layout(doc: Document) -> dict:
    return {"title": doc.title, "page_count": doc.page_count, "page_offsets": doc.page_offsets,
            "empty_pages": doc.empty_pages,
            "chunks": [[c.seq, c.heading, c.page, c.char_start, c.char_end] for c in doc.chunks]}


@pytest.mark.parametrize("name", NAMES)
def test_extracted_text_and_chunks_unchanged(name):
    doc = extract_pdf((PAPERS / f"{name}.pdf").read_bytes())
    assert doc.text == (EXPECTED / f"{name}.md").read_text(encoding="utf-8")
    assert _layout(doc) == json.loads((EXPECTED / f"{name}.json").read_text(encoding="utf-8"))
    assert all(c.text == doc.text[c.char_start:c.char_end] for c in doc.chunks)


def write_expected() -> None:
    EXPECTED.mkdir(exist_ok=True)
    for name in NAMES:
        doc = extract_pdf((PAPERS / f"{name}.pdf").read_bytes())
        (EXPECTED / f"{name}.md").write_text(doc.text, encoding="utf-8")
        (EXPECTED / f"{name}.json").write_text(json.dumps(_layout(doc), ensure_ascii=False, indent=1) + "\n",
                                               encoding="utf-8")


if __name__ == "__main__":
    sys.exit(write_expected())
