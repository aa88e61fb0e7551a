"""PDF -> sectioned, page-aware text (PyMuPDF), and a metadata sniffer for importing PDFs.

Reading order: text blocks are grouped into horizontal bands separated by full-width blocks;
inside a band, a left and a right column are read one after the other unless their lines sit
on shared baselines (then it is a table or a form and is read row by row). Headings are lines
whose font is notably larger than the page's body text; heading sizes rank into ``#``/``##``/``###``.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext.builder import TextBuilder, clean_inline
from doiget.fulltext.document import Document
from doiget.fulltext.pdfmeta import PdfSniff, sniff_document

if TYPE_CHECKING:  # PyMuPDF costs ~0.2 s to import; only PDF work pays it
    import pymupdf

HEADING_RATIO = 1.15
MAX_HEADING_CHARS = 150
MAX_HEADING_LINES = 3
MIN_PAGE_CHARS_FOR_OWN_BODY = 300
COLUMN_GUTTER_TOLERANCE = 0.03
CELL_GAP_FACTOR = 1.5



@dataclass(slots=True)
class _Line:
    text: str
    size: float
    bbox: tuple[float, float, float, float]


@dataclass(slots=True)
class _Block:
    lines: list[_Line]
    bbox: tuple[float, float, float, float]
    rows: list[str] = field(default_factory=list)
    is_table: bool = False

    @property
    def size(self) -> float:
        return max(line.size for line in self.lines)

    @property
    def text(self) -> str:
        return "\n".join(self.rows) if self.is_table else _join_lines(self.rows)


def extract_pdf(data: bytes) -> Document:
    """Extract page-aware, sectioned text; pages without a text layer go to ``empty_pages``."""
    with _open(data) as doc:
        pages = [_page_blocks(page) for page in doc]
        page_count = doc.page_count
    doc_body = _body_size([b for blocks in pages for b in blocks])
    page_bodies = [_page_body(blocks, doc_body) for blocks in pages]
    levels = _heading_levels(pages, page_bodies)

    builder = TextBuilder()
    empty_pages: list[int] = []
    title = None
    for number, (blocks, body) in enumerate(zip(pages, page_bodies), start=1):
        builder.page_break(number)
        if not blocks:
            empty_pages.append(number)
            continue
        for block in blocks:
            if _is_heading(block, body):
                level = levels[_size_key(block.size)]
                text = _join_lines(block.rows)
                title = title or (text if level == 1 else None)
                builder.heading(text, level)
            else:
                builder.paragraph(block.text)
    return builder.build("pdf", title=title, page_count=page_count, empty_pages=empty_pages)


def sniff_pdf(data: bytes) -> PdfSniff:
    """Every identifier (DOI, arXiv id, PMID, PMCID), the title and authors a PDF states (see :mod:`.pdfmeta`)."""
    with _open(data) as doc:
        return sniff_document(doc)


def _open(data: bytes) -> pymupdf.Document:
    import pymupdf

    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises several types for unreadable input
        raise DoigetError(ErrorCode.INVALID_INPUT, f"not a readable PDF: {exc}") from exc
    if doc.needs_pass or doc.is_encrypted:
        doc.close()
        raise DoigetError(ErrorCode.INVALID_INPUT, "PDF is encrypted (password protected); cannot extract text")
    if doc.page_count == 0:
        doc.close()
        raise DoigetError(ErrorCode.INVALID_INPUT, "PDF has no pages")
    return doc


def _page_blocks(page: pymupdf.Page) -> list[_Block]:
    import pymupdf

    flags = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    raw = page.get_text("dict", sort=True, flags=flags)["blocks"]
    blocks = []
    for b in raw:
        if b.get("type") != 0:
            continue
        lines = []
        for line in b["lines"]:
            spans = [s for s in line["spans"] if s["text"].strip()]
            if spans:
                text = "".join(s["text"] for s in line["spans"]).strip()
                lines.append(_Line(text, max(s["size"] for s in spans), tuple(line["bbox"])))
        if lines:
            block = _Block(lines, tuple(b["bbox"]))
            block.rows, block.is_table = _rows(lines)
            blocks.append(block)
    return _reading_order(blocks, page.rect.width)


def _rows(lines: list[_Line]) -> tuple[list[str], bool]:
    """Merge lines sharing a baseline into one row; cells far apart are joined with ' | '."""
    rows: list[list[_Line]] = []
    for line in lines:
        if rows and _same_baseline(rows[-1][0], line):
            rows[-1].append(line)
        else:
            rows.append([line])
    texts, has_cells = [], False
    for row in rows:
        row.sort(key=lambda ln: ln.bbox[0])
        text = row[0].text
        for prev, cur in zip(row, row[1:]):
            gap = cur.bbox[0] - prev.bbox[2]
            cell_break = gap > CELL_GAP_FACTOR * cur.size
            has_cells = has_cells or cell_break
            text += (" | " if cell_break else " ") + cur.text
        texts.append(text)
    return texts, has_cells


def _same_baseline(a: _Line, b: _Line) -> bool:
    return abs(a.bbox[3] - b.bbox[3]) < 0.3 * min(a.size, b.size)


def _reading_order(blocks: list[_Block], width: float) -> list[_Block]:
    mid, tol = width / 2, width * COLUMN_GUTTER_TOLERANCE
    ordered: list[_Block] = []
    band: list[_Block] = []
    for block in sorted(blocks, key=lambda b: (round(b.bbox[1], 1), b.bbox[0])):
        x0, _, x1, _ = block.bbox
        if x0 < mid - tol and x1 > mid + tol:  # full width: closes the band above it
            ordered.extend(_order_band(band, mid))
            ordered.append(block)
            band = []
        else:
            band.append(block)
    ordered.extend(_order_band(band, mid))
    return ordered


def _order_band(band: list[_Block], mid: float) -> list[_Block]:
    left = [b for b in band if (b.bbox[0] + b.bbox[2]) / 2 < mid]
    right = [b for b in band if (b.bbox[0] + b.bbox[2]) / 2 >= mid]
    if not left or not right or _aligned(left, right):
        return sorted(band, key=lambda b: (round(b.bbox[1], 1), b.bbox[0]))
    return left + right


def _aligned(left: list[_Block], right: list[_Block]) -> bool:
    """True when most right-side blocks start on the same line as a left-side block (a table)."""
    tops = [b.bbox[1] for b in left]
    hits = sum(1 for b in right if any(abs(b.bbox[1] - t) < 0.5 * b.size for t in tops))
    return hits * 2 > len(right)


def _join_lines(lines: list[str]) -> str:
    """Join wrapped lines into one paragraph, undoing end-of-line hyphenation."""
    out = ""
    for line in lines:
        if out.endswith("-") and len(out) > 1 and out[-2].isalpha() and line[:1].islower():
            out = out[:-1] + line
        else:
            out = f"{out} {line}" if out else line
    return out


def _body_size(blocks: list[_Block]) -> float:
    weights: Counter[float] = Counter()
    for block in blocks:
        for line in block.lines:
            weights[_size_key(line.size)] += len(line.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def _page_body(blocks: list[_Block], doc_body: float) -> float:
    # A title page or a figure page has too little prose to say what body text looks like.
    chars = sum(len(line.text) for b in blocks for line in b.lines)
    return _body_size(blocks) if chars >= MIN_PAGE_CHARS_FOR_OWN_BODY else doc_body


def _is_heading(block: _Block, body: float) -> bool:
    return (
        body > 0
        and block.size >= body * HEADING_RATIO
        and len(block.lines) <= MAX_HEADING_LINES
        and not block.is_table
        and 0 < len(_join_lines(block.rows)) <= MAX_HEADING_CHARS
    )


def _heading_levels(pages: list[list[_Block]], bodies: list[float]) -> dict[float, int]:
    """Rank heading font sizes: the largest is the title (level 1) if it appears on page 1."""
    sizes: set[float] = set()
    first_page_sizes: set[float] = set()
    for number, (blocks, body) in enumerate(zip(pages, bodies), start=1):
        for block in blocks:
            if _is_heading(block, body):
                sizes.add(_size_key(block.size))
                if number == 1:
                    first_page_sizes.add(_size_key(block.size))
    ranked = sorted(sizes, reverse=True)
    first = 1 if ranked and ranked[0] in first_page_sizes else 2
    return {size: min(first + i, 3) for i, size in enumerate(ranked)}


def _size_key(size: float) -> float:
    return round(size * 2) / 2
