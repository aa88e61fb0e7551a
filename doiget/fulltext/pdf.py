"""PDF -> sectioned, page-aware text (PyMuPDF), and a metadata sniffer for importing PDFs.

Reading order: text blocks are grouped into horizontal bands separated by full-width blocks;
inside a band, a left and a right column are read one after the other unless their lines sit
on shared baselines (then it is a table or a form and is read row by row). Running heads and
footers, page numbers and side stamps are dropped first (:mod:`.pdflayout`). Headings are short
heading-shaped blocks whose font is notably larger than the page's body text (sizes rank into
``##``/``###``), or set in bold at body size, or wholly in one of the document's heading fonts
(:mod:`.pdffonts`; numbering depth gives these two their level); consecutive heading lines of one
size make one heading, and a heading wrapped onto a line set otherwise (an italic word, a run-in
heading's last words before its paragraph) takes that line, or its part in the heading's font, along.
Heading-like text above a caption with no prose between is a figure's label, and a label with smaller
text beside it a row's first cell, not a heading; past page 1, a page with little prose and most of its
text in short lines is a page of figures or tables, and none of its text is a heading. The title is the one :mod:`.pdfmeta` reads from page
1's lines (as the sniff does): those lines are the only level-1 heading, wherever the page sets them; a
heading that prints the title again (a summary page's, a cover's) is text. On page 1, headings above the
title are the journal's masthead, and before the first paragraph centred ones not followed by prose are
authors, addresses and dates. Pages are read in one pass each (:mod:`.pdfpage`). Line-end hyphens are undone where
the document's own vocabulary says the word was split, kept where it says the word is a compound
(:mod:`.hyphens`).
"""
from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from typing import TYPE_CHECKING

import msgspec

from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import pdffonts, pdflayout, pdfpage
from doiget.fulltext.builder import TextBuilder
from doiget.fulltext.document import Document
from doiget.fulltext.hyphens import LINE_BREAKS, Vocabulary, join_lines
from doiget.fulltext.pdfpage import Line
from doiget.fulltext.pdfmeta import SNIFF_PAGES, PdfSniff, Title, letters_and_digits, pdf_title, sniff_document

if TYPE_CHECKING:  # PyMuPDF costs ~0.2 s to import; only PDF work pays it
    import pymupdf
    from pymupdf import mupdf

HEADING_RATIO = 1.15
MAX_HEADING_CHARS = 150
MAX_HEADING_LINES = 4
MIN_PAGE_CHARS_FOR_OWN_BODY = 300
MIN_FIGURE_PAGE_CHARS = 150  # a page with less text (a keyword list, a closing note) says too little to be judged
MIN_PROSE_LINE_CHARS = 25
PROSE_LINES = 2
PROSE_LINE_SPACES = 4
FLUSH_TOLERANCE = 2  # font sizes: a heading starting further in from the page's left text edge is set in
MIN_PAGE_BODY_SHARE = 0.8
COLUMN_GUTTER_TOLERANCE = 0.03
CELL_GAP_FACTOR = 1.5
BOLD_MIN_RATIO = 0.95
WORD_SPACE = 0.25  # font sizes: the space before a word
MAX_BOLD_HEADING_CHARS = 120
_HEAD_MARK = object()


class _Block(msgspec.Struct, gc=False):  # made in C, like pdfpage.Line
    lines: list[Line]
    bbox: tuple[float, float, float, float]
    rows: list[str]
    is_table: bool
    size: float  # the largest line's
    bold: bool  # every line bold


class _Page(msgspec.Struct, gc=False):
    blocks: list[tuple[tuple[float, float, float, float], list[Line]]]  # (box, lines) as read
    width: float
    height: float


def extract_pdf(data: bytes) -> Document:
    """Extract page-aware, sectioned text; pages without a text layer go to ``empty_pages``."""
    raw, title, _ = _read(data, sniff=False)
    return _lay_out(raw, title)


def sniff_pdf(data: bytes) -> PdfSniff:
    """Every identifier (DOI, arXiv id, PMID, PMCID), the title and authors a PDF states (see :mod:`.pdfmeta`)."""
    from pymupdf import mupdf

    with _open(data) as doc:
        pages = [mupdf.fz_load_page(doc.this, number) for number in range(min(SNIFF_PAGES, doc.page_count))]
        textpages = [pdfpage.text_page(page) for page in pages]
        return sniff_document(doc, textpages, pdf_title(doc, _first_lines(_page_lines(pages[0], textpages[0]))))


def read_pdf(data: bytes) -> tuple[Document, PdfSniff]:
    """:func:`extract_pdf` and :func:`sniff_pdf` from one opening of the file: the sniff reads the text pages
    extraction builds."""
    raw, title, sniff = _read(data, sniff=True)
    return _lay_out(raw, title), sniff


def _read(data: bytes, sniff: bool) -> tuple[list[_Page], Title | None, PdfSniff | None]:
    """Each page's text blocks as read, the PDF's title (:func:`~.pdfmeta.pdf_title`), and with ``sniff`` what
    the PDF says about itself."""
    from pymupdf import mupdf

    with _open(data) as doc:
        raw, first = [], []
        for number in range(doc.page_count):
            page = mupdf.fz_load_page(doc.this, number)
            textpage = pdfpage.text_page(page)
            raw.append(_page_lines(page, textpage))
            if sniff and number < SNIFF_PAGES:
                first.append(textpage)
        title = pdf_title(doc, _first_lines(raw[0]))
        return raw, title, sniff_document(doc, first, title) if sniff else None


def _lay_out(raw: list[_Page], title: Title | None) -> Document:
    """The Document of the pages as read: furniture dropped, reading order, headings, hyphens, chunks. Where
    page 1 prints ``title``, its lines are the level-1 heading, spelt as ``title`` spells it."""
    kept, fonts = _drop_furniture(raw)
    title_lines = {id(line) for line in title.lines} if title else set()
    if title_lines and kept:
        kept[0] = [part for block in kept[0] for part in _cut_out(block, title_lines)]
    pages = [_reading_order(blocks, page.width) for blocks, page in zip(kept, raw)]
    vocab = Vocabulary.of(line.text for blocks in pages for b in blocks for line in b.lines)
    prose = [_prose_sizes(blocks) for blocks in pages]
    doc_body = _dominant(sum([weights for weights, _ in prose], Counter()))
    page_bodies = [_page_body(weights, doc_body) for weights, _ in prose]
    kinds = [[_heading_kind(b, body, fonts) for b in blocks] for blocks, body in zip(pages, page_bodies)]
    for number, (blocks, page_kinds, (weights, chars)) in enumerate(zip(pages, kinds, prose)):
        if number and _figure_page(weights, chars):  # page 1's title and front matter are judged below
            page_kinds[:] = [None] * len(page_kinds)
        else:
            _demote_figure_labels(blocks, page_kinds)
    if pages and pages[0]:
        largest = max([b.size for blocks, page_kinds in zip(pages, kinds)
                       for b, kind in zip(blocks, page_kinds) if kind == "size"], default=0.0)
        _demote_front_matter(pages[0], kinds[0], _size_key(largest), title_lines)
    levels = _heading_levels(pages, kinds)

    builder = TextBuilder()
    empty_pages: list[int] = []
    title_key = letters_and_digits(title.text.casefold()) if title and title.lines else ""
    for number, (blocks, page_kinds) in enumerate(zip(pages, kinds), start=1):
        builder.page_break(number)
        if not blocks:
            empty_pages.append(number)
            continue
        for start, stop, kind in _merge_headings(blocks, page_kinds):
            if kind == "title":
                if title_lines:  # the first of the title's blocks
                    builder.heading(title.text, 1)
                    title_lines = set()
                continue
            if kind is None:
                block = blocks[start]
                builder.paragraph("\n".join(block.rows) if block.is_table else join_lines(block.rows, vocab))
                continue
            text = " ".join(join_lines(b.rows, vocab) for b in blocks[start:stop])
            if title_key and _repeats(text, title_key):
                builder.paragraph(text)
                continue
            level = levels[_size_key(blocks[start].size)] if kind == "size" else _bold_level(text)
            builder.heading(text, level)
    return builder.build("pdf", title=title.text if title and title.lines else None, page_count=len(raw),
                         empty_pages=empty_pages)


def _repeats(heading: str, title: str) -> bool:
    """Whether ``heading`` prints the title again (letters and digits ``title``): whole, or its first line or lines
    (a summary page before the article's first page, a cover sheet, a last page's citation box)."""
    key = letters_and_digits(heading.casefold())
    return key == title or (title.startswith(key) and len(key) * 2 >= len(title))


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


def _page_lines(page: mupdf.FzPage, textpage: mupdf.FzStextPage) -> _Page:
    """The page's text blocks in content-stream order (no images, no sorting: reading order comes later)."""
    from pymupdf import mupdf

    rect = mupdf.fz_bound_page(page)  # pymupdf.Page.rect's sides
    width = max(0, rect.x1 - rect.x0)
    blocks = []
    for bbox, lines in pdfpage.page_blocks(textpage):
        # text at an angle in a side margin: arXiv's stamp, a publisher's notice
        kept = [line for line in lines
                if line.upright or not pdflayout.in_side_margin(line.bbox[0], line.bbox[2], width)]
        if kept:
            blocks.append((bbox, kept))
    return _Page(blocks, width, max(0, rect.y1 - rect.y0))


def _first_lines(page: _Page) -> list[Line]:
    return [line for _, lines in page.blocks for line in lines]


def _drop_furniture(pages: list[_Page]) -> tuple[list[list[_Block]], frozenset[str]]:
    """Each page's blocks without running heads/footers and page numbers (see :mod:`.pdflayout`), cut
    where heading lines sit inside them; and the document's heading fonts (see :mod:`.pdffonts`)."""
    margins = [[(i, line, pdflayout.margin_key(line.text))
                for i, line in pdflayout.margin_lines(page.blocks, page.height)] for page in pages]
    running = pdflayout.running_keys([{key for _, _, key in lines} for lines in margins])
    kept_lines = []
    for page, lines in zip(pages, margins):
        drop: dict[int, set[int]] = {}  # block index -> ids of its lines to drop
        for i, line, key in lines:
            if key in running or pdflayout.is_page_number(line.text):
                drop.setdefault(i, set()).add(id(line))
        kept_lines.append([[line for line in block if id(line) not in drop[i]] if i in drop else block
                           for i, (_, block) in enumerate(page.blocks)])
    fonts = pdffonts.heading_fonts([lines for page in kept_lines for lines in page])
    out = []
    for page, page_lines in zip(pages, kept_lines):
        blocks = []
        for (bbox, read), lines in zip(page.blocks, page_lines):
            if len(lines) == 1:  # half the blocks: nothing to cut
                blocks.append(_block(lines, bbox if len(read) == 1 else lines[0].bbox))
                continue
            for part in _split_leading_heading(lines, fonts):
                blocks.append(_block(part, _union(line.bbox for line in part) if len(part) < len(read) else bbox))
        out.append(blocks)
    return out, fonts


def _cut_out(block: _Block, ids: set[int]) -> list[_Block]:
    """``block`` cut where it passes between lines whose ids are in ``ids`` (the title's) and other lines."""
    inside = [id(line) in ids for line in block.lines]
    if all(inside) or not any(inside):
        return [block]
    parts: list[list[Line]] = []
    for i, line in enumerate(block.lines):
        if i and inside[i] == inside[i - 1]:
            parts[-1].append(line)
        else:
            parts.append([line])
    return [_block(part, _union(line.bbox for line in part)) for part in parts]


def _block(lines: list[Line], bbox: tuple[float, float, float, float]) -> _Block:
    if len(lines) == 1:
        line = lines[0]
        return _Block(lines, bbox, [line.text], False, line.size, line.bold)
    rows, is_table = _rows(lines)
    return _Block(lines, bbox, rows, is_table, max([line.size for line in lines]), all([line.bold for line in lines]))


def _split_leading_heading(lines: list[Line], fonts: frozenset[str]) -> list[list[Line]]:
    """A block cut where heading lines sit inside it: a run of at most three lines of one style (bold,
    larger than the rest of the block, or wholly in a heading font) that reads as a heading becomes a
    part of its own. A heading wrapped onto a line set otherwise (an italic gene name, a run-in heading's
    end before its paragraph) takes that line, or the line's part in its font, along (:func:`_continues`)."""
    if len(lines) < 2:
        return [lines] if lines else []
    first = lines[0]
    if not fonts and all([line.bold == first.bold and line.size == first.size for line in lines]):
        return [lines]  # most blocks: one style throughout (the test below, without a style per line)
    styles = [(line.bold, round(line.size * 2), line.single and line.font in fonts) for line in lines]
    if styles.count(styles[0]) == len(styles):
        return [lines]
    right = max([line.bbox[2] for line in lines])
    smallest = min(size for _, size, _ in styles)
    for i in range(1, len(lines)):
        bold, size, in_font = styles[i - 1]
        if styles[i] != styles[i - 1] and (bold or in_font or size > smallest) and _continues(
                lines[i - 1], lines[i], right):
            styles[i] = styles[i - 1]
            _restyle(lines[i], lines[i - 1])
            if i + 1 < len(lines) and lines[i].text.endswith((".", ":")) and _beside(lines[i], lines[i + 1]):
                lines[i].lead = len(lines[i].text)  # a run-in heading's last words, its paragraph beside them
    runs: list[list[Line]] = []
    for i, line in enumerate(lines):
        if i and styles[i - 1] == styles[i]:
            runs[-1].append(line)
        else:
            runs.append([line])
    body = min(_size_key(line.size) for line in lines)
    parts: list[list[Line]] = []
    for k, run in enumerate(runs):
        cut = _run_in_end(run[-1]) if len(run) > 1 and run[-1].font == run[-2].font else None
        last = cut[0] if cut else run[-1]
        text = " ".join([line.text for line in run[:-1]] + [last.text.rstrip(".:") if _run_in(last) else last.text])
        head = (len(run) <= MAX_HEADING_LINES
                and (run[0].bold or run[0].size >= body * HEADING_RATIO or _in_heading_font(run[0], fonts))
                and pdflayout.heading_shaped(text) and not text.endswith((".", "-"))
                # a label with text beside it is a row's first cell (ACS's "ACCESS | Metrics & More")
                and (k + 1 == len(runs) or _run_in(last) or not _level_with(last, runs[k + 1][0])))
        if head and cut:
            parts.extend([[_HEAD_MARK, *run[:-1], cut[0]], [cut[1]]])
        elif head or not parts or parts[-1][0] is _HEAD_MARK:
            parts.append([_HEAD_MARK, *run] if head else list(run))
        else:
            parts[-1].extend(run)
    return [part[1:] if part[0] is _HEAD_MARK else part for part in parts]


def _continues(line: Line, then: Line, right: float) -> bool:
    """Whether ``then`` carries on the heading line ``line`` wrapped: the same size, starting no further in, not
    bolder, set in ``line``'s font (or another of its family, bold alike), and ``line`` ends in a broken word or is
    too long for ``then``'s first word to have fitted after it within the block's ``right`` edge."""
    if (round(then.size * 2) != round(line.size * 2) or then.bbox[0] > line.bbox[0] + line.size / 2
            or (then.bold and not line.bold) or line.text.endswith((".", ":")) or not then.text):
        return False
    if then.font != line.font and (then.bold != line.bold or _family(then.font) != _family(line.font)):
        return False
    if line.text.endswith(LINE_BREAKS):
        return True
    word = then.text.split(maxsplit=1)[0]
    width = (then.bbox[2] - then.bbox[0]) * len(word) / len(then.text)
    return line.bbox[2] + WORD_SPACE * line.size + width > right


def _family(font: str) -> str:
    """A font's family: ``UniversLTStd`` of ``AFFCMH+UniversLTStd-Obl``."""
    return font.partition("+")[2].partition("-")[0] if "+" in font else font.partition("-")[0]


def _restyle(line: Line, heading: Line) -> None:
    """Set ``line`` as the rest of ``heading`` is (bold, font), in place: the title's lines are known by identity."""
    line.bold, line.font, line.single = heading.bold, heading.font, heading.single


def _run_in_end(line: Line) -> tuple[Line, Line] | None:
    """A wrapped heading's last ``line`` cut in two where its font changes after a full stop, a colon or a wide
    space and a capital starts the rest (``Complementation. We next ...``): the heading's words, their full stop
    kept (a :func:`_run_in` line), and its paragraph's first line. None where the line is not so cut."""
    if line.lead <= 0:
        return None
    head, rest = line.text[:line.lead].rstrip(), line.text[line.lead:]
    stop = rest[:1] if rest[:1] in (".", ":") else ""  # a full stop set in the paragraph's font
    rest = rest[len(stop):].lstrip()
    head += stop
    if not (head.endswith((".", ":")) or line.text[line.lead:line.lead + 2].startswith(("\u2002", "  "))
            ) or not rest[:1].isupper():
        return None
    return (Line(head, line.size, line.bbox, line.bold, line.upright, line.font, line.single, len(head)),
            Line(rest, line.size, line.bbox, False, line.upright, "", False))


def _run_in(line: Line) -> bool:
    """Whether ``line`` holds a run-in heading's last words (:func:`_run_in_end`): its full stop is no sentence's."""
    return line.lead == len(line.text)


def _level_with(line: Line, then: Line) -> bool:
    """Whether ``then`` sits to the right of ``line`` within its height, on another baseline (a smaller label beside
    a larger one; a paragraph run in after its heading shares the heading's baseline)."""
    middle = (then.bbox[1] + then.bbox[3]) / 2
    return then.bbox[0] >= line.bbox[2] and line.bbox[1] <= middle <= line.bbox[3] and not _beside(line, then)


def _beside(line: Line, then: Line) -> bool:
    """Whether ``then`` sits on ``line``'s baseline (bottoms less than 0.3 of the smaller size apart)."""
    return abs(line.bbox[3] - then.bbox[3]) < 0.3 * min(line.size, then.size)


def _in_heading_font(line: Line, fonts: frozenset[str]) -> bool:
    return line.single and line.font in fonts


def _union(boxes) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = zip(*boxes)
    return min(x0), min(y0), max(x1), max(y1)


def _rows(lines: list[Line]) -> tuple[list[str], bool]:
    """Merge lines sharing a baseline (bottoms less than 0.3 of the smaller size apart) into one row; cells
    far apart are joined with ' | '."""
    # the common case first: no line shares the baseline of the line before it, so each is its own row
    prev = lines[0]
    for line in lines[1:]:
        if _beside(prev, line):
            break
        prev = line
    else:
        return [line.text for line in lines], False
    rows = [[lines[0]]]
    for line in lines[1:]:
        if _beside(rows[-1][0], line):
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


def _reading_order(blocks: list[_Block], width: float) -> list[_Block]:
    mid, tol = width / 2, width * COLUMN_GUTTER_TOLERANCE
    ordered: list[_Block] = []
    band: list[_Block] = []
    for block in sorted(blocks, key=_top_left):
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
    """The band's blocks (in :func:`_top_left` order) as two columns, or as they are."""
    left: list[_Block] = []
    right: list[_Block] = []
    for b in band:
        (left if (b.bbox[0] + b.bbox[2]) / 2 < mid else right).append(b)
    if not left or not right or _aligned(left, right):
        return band
    return left + right


def _top_left(block: _Block) -> tuple[float, float]:
    """Sort key: top edge, then where the first line starts (a run-in heading before its paragraph)."""
    return round(block.bbox[1], 1), block.lines[0].bbox[0]


def _aligned(left: list[_Block], right: list[_Block]) -> bool:
    """True when the two sides are a table or a form, not two columns of prose: most right-side
    blocks start on the same line as a left-side block, and most lines are in blocks of one or two."""
    tops = sorted(b.bbox[1] for b in left)
    hits = 0
    for block in right:
        # the left tops nearest this top, one on either side, are the closest of all
        top, near, i = block.bbox[1], 0.5 * block.size, bisect_left(tops, block.bbox[1])
        if (i < len(tops) and abs(top - tops[i]) < near) or (i > 0 and abs(top - tops[i - 1]) < near):
            hits += 1
    lines = [len(b.lines) for b in left + right]
    return hits * 2 > len(right) and sum(n for n in lines if n <= 2) * 2 >= sum(lines)


def _prose_sizes(blocks: list[_Block]) -> tuple[Counter[float], int]:
    """Characters per font size (rounded to half points) in the lines long enough to be prose (figure labels and
    table cells say nothing of body text), and the characters of all lines."""
    exact: dict[float, int] = {}  # summed per size as read, then rounded once per size (a page sets few)
    chars = 0
    for block in blocks:
        for line in block.lines:
            n = len(line.text)
            chars += n
            if n >= MIN_PROSE_LINE_CHARS:
                exact[line.size] = exact.get(line.size, 0) + n
    weights: Counter[float] = Counter()
    for size, n in exact.items():  # in the order sizes first occur, as a count line by line would hold them
        weights[round(size * 2) / 2] += n
    return weights, chars


def _figure_page(weights: Counter[float], chars: int) -> bool:
    """Whether a page of ``chars`` characters, ``weights`` (:func:`_prose_sizes`) of them in prose lines, is a page
    of figures or tables: little prose, most of its text in short lines (labels, cells). Their text is no heading
    (a preprint's figures at its end, with their legends pages before)."""
    prose = weights.total()
    return prose < MIN_PAGE_CHARS_FOR_OWN_BODY and prose * 2 < chars and chars >= MIN_FIGURE_PAGE_CHARS


def _dominant(weights: Counter[float]) -> float:
    return max(weights, key=weights.__getitem__) if weights else 0.0


def _page_body(weights: Counter[float], doc_body: float) -> float:
    # A title page or a figure page has too little prose to say what body text looks like, and a page
    # of tiny figure text (sequence alignments, tick labels) does not make its labels headings.
    own = _dominant(weights) if weights.total() >= MIN_PAGE_CHARS_FOR_OWN_BODY else doc_body
    return max(own, doc_body * MIN_PAGE_BODY_SHARE)


def _heading_kind(block: _Block, body: float, fonts: frozenset[str]) -> str | None:
    """``"size"`` for a heading set larger than body text, ``"bold"`` for one set bold at body size,
    ``"font"`` for one set wholly in one of the document's heading fonts (its bold lines may set a word in italics:
    a gene's or a species' name)."""
    if body <= 0 or block.is_table or len(block.lines) > MAX_HEADING_LINES or not block.lines[0].upright:
        return None
    text = " ".join(block.rows)
    if _run_in(block.lines[-1]):
        text = text.rstrip(".:")
    if not 0 < len(text) <= MAX_HEADING_CHARS:
        return None
    first = block.lines[0]
    if block.size >= body * HEADING_RATIO:
        kind = "size"
    elif (block.bold and block.size >= body * BOLD_MIN_RATIO and len(block.rows) <= 2
            and len(text) <= MAX_BOLD_HEADING_CHARS and not text.endswith(".")):
        kind = "bold"
    elif (first.font in fonts and all([line.font == first.font and (line.single or line.bold) for line in block.lines])
            and block.size >= body * pdffonts.LEAD_MIN_SIZE_SHARE and not text.endswith(pdffonts.NOT_HEADING_END)):
        kind = "font"
    else:
        return None
    if text.startswith(pdflayout.LIST_MARKS):  # a list item or a note, however it is set
        return None
    return kind if pdflayout.heading_shaped(text) else None  # the costliest test last


def _bold_level(text: str) -> int:
    """Body-size bold headings: ``2 Model`` is a section, ``2.1 Overview`` or an unnumbered one a subsection."""
    return 2 if pdflayout.numbering_depth(text) == 1 else 3


def _merge_headings(blocks: list[_Block], kinds: list[str | None]):
    """Yield (start, stop, kind): each body block alone with kind None, and consecutive heading blocks of one
    kind and size (a title set on two lines) merged into one; in a heading set larger than body text a line
    that mixes fonts goes with a bold one after it (``AutoGen:`` in typewriter, the rest of the title bold);
    a heading set in a heading font takes only lines set in that font (not the paragraph it leads)."""
    i = 0
    while i < len(blocks):
        start, kind = i, kinds[i]
        first = blocks[i]
        while (kind not in (None, "title") and i + 1 < len(blocks) and not blocks[i + 1].is_table
               and len(blocks[i + 1].lines) <= MAX_HEADING_LINES
               and (blocks[i + 1].bold == first.bold or kind == "size" and _partly_bold(first, blocks[i + 1]))
               and (kind != "font" or _set_in(blocks[i + 1], first.lines[0].font))
               and _size_key(blocks[i + 1].size) == _size_key(first.size)
               and 0 <= blocks[i + 1].bbox[1] - blocks[i].bbox[3] < first.size
               and _numbering_free(blocks[i + 1])):
            i += 1
        i += 1
        yield start, i, kind


def _set_in(block: _Block, font: str) -> bool:
    return all([line.single and line.font == font for line in block.lines])


def _partly_bold(first: _Block, then: _Block) -> bool:
    """Whether ``first`` mixes fonts, so may be bold in part, and ``then`` is bold: one heading (a bold heading
    and a lighter line after it are a heading and its text)."""
    return then.bold and not all([line.single for line in first.lines])


def _numbering_free(block: _Block) -> bool:
    return pdflayout.numbering_depth(" ".join(block.rows)) == 0


def _demote_figure_labels(blocks: list[_Block], kinds: list[str | None]) -> None:
    """Heading-like text inside a figure is a label (``Domain 2``, an axis title): a heading candidate with
    a caption below it and no prose between them in its own horizontal span."""
    captions = [b for b in blocks if pdflayout.is_caption(b.rows[0] if b.rows else "")]
    if not captions:
        return
    prose = [b for b in blocks if any(len(line.text) >= MIN_PROSE_LINE_CHARS for line in b.lines)]
    for i, (head, kind) in enumerate(zip(blocks, kinds)):
        if kind is None:
            continue
        x0, _, x1, bottom = head.bbox
        for caption in captions:
            top = caption.bbox[1]
            if top < bottom - 1 or not any(_overlaps(b, x0, x1) for b in blocks if abs(b.bbox[1] - top) <= 2):
                continue  # the caption's row (a caption set across both columns) must reach under the candidate
            if not any(b is not caption and bottom - 1 <= b.bbox[1] < top and _overlaps(b, x0, x1) for b in prose):
                kinds[i] = None
                break


def _overlaps(block: _Block, x0: float, x1: float) -> bool:
    return block.bbox[0] < x1 and x0 < block.bbox[2]


def _demote_front_matter(blocks: list[_Block], kinds: list[str | None], largest: float, title: set[int]) -> None:
    """Page 1: its blocks set in the ``title`` lines (ids) become the title; before its first prose, headings
    above the title are masthead text (journal name, article type, "View Article Online"); below it, an
    unnumbered heading set in from the left edge (centred, as title pages set them) and not followed by prose
    is an author, an address or a date, unless it names a section ("Abstract"). Where the page prints no
    title, the first heading there set in the document's ``largest`` heading size stands for it."""
    at = [i for i, block in enumerate(blocks) if id(block.lines[0]) in title]
    for i in at:
        kinds[i] = "title"
    end = next((i for i, block in enumerate(blocks) if kinds[i] is None and _is_prose(block)), len(blocks))
    groups = [(start, stop, kind) for start, stop, kind in _merge_headings(blocks[:end], kinds[:end])
              if kind is not None]
    title_start, title_stop = (at[0], at[-1] + 1) if at else next(
        ((start, stop) for start, stop, kind in groups if kind == "size" and _size_key(blocks[start].size) == largest),
        (0, 0))
    kinds[:title_start] = [None] * title_start
    left = _left_edge(blocks)
    for start, stop, kind in groups:
        head = blocks[start]
        if (start >= title_stop and stop < len(blocks) and kind != "title"
                and not _is_prose(blocks[stop])
                and head.bbox[0] > left + FLUSH_TOLERANCE * head.size
                and not pdflayout.numbering_depth(" ".join(head.rows))
                and not _SECTION_NAME.fullmatch(" ".join(head.rows).strip())):
            kinds[start:stop] = [None] * (stop - start)


# What a title page centres that is a section, not an author, address or date (LaTeX centres "Abstract").
_SECTION_NAME = re.compile(r"(?i)abstract|summary|r[ée]sum[ée]|zusammenfassung|introduction|keywords|contents")


def _left_edge(blocks: list[_Block]) -> float:
    """Where the page's paragraphs start: the leftmost edge shared by two prose blocks (an example set out in
    the margin is not the text's edge)."""
    edges = Counter(round(b.bbox[0]) for b in blocks if _is_prose(b))
    return min([x for x, n in edges.items() if n > 1] or edges or [round(b.bbox[0]) for b in blocks])


def _is_prose(block: _Block) -> bool:
    """Two or more lines of words long enough to be prose: a paragraph, not names, an address, a URL or a date."""
    return sum([len(line.text) >= MIN_PROSE_LINE_CHARS and line.text.count(" ") >= PROSE_LINE_SPACES
                for line in block.lines]) >= PROSE_LINES


def _heading_levels(pages: list[list[_Block]], kinds: list[list[str | None]]) -> dict[float, int]:
    """Rank size-headings' font sizes from level 2 (level 1 is the title)."""
    sizes = {_size_key(block.size) for blocks, page_kinds in zip(pages, kinds)
             for block, kind in zip(blocks, page_kinds) if kind == "size"}
    return {size: min(2 + i, 3) for i, size in enumerate(sorted(sizes, reverse=True))}


def _size_key(size: float) -> float:
    return round(size * 2) / 2
