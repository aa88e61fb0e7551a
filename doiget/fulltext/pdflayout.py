"""Page furniture and heading shape for PDF text: what is not body text, and what reads as a heading.

Furniture is dropped before reading order and chunking: running heads and footers (a line whose middle
is in the top or bottom margin band and whose text, digits aside, recurs on most pages), page numbers (``12``,
``Page 3 of 16``, ``iv``) in those bands, and text set at an angle in the side margins (arXiv's
side stamp, publishers' vertical notices). Captions (``Fig. 2 |``) mark where a figure's own
labels sit: above the caption, with no prose between.
"""
from __future__ import annotations

import re
from collections import Counter

from doiget.fulltext.pdfpage import Line

MARGIN_BAND = 0.1  # top/bottom share of the page height where running heads and folios sit
SIDE_MARGIN = 0.12  # left/right share of the page width where vertical stamps sit
REPEAT_SHARE = 0.4  # a margin line recurring on this share of the pages (at least 2) is a running head
MAX_HEADING_WORDS = 20

_PAGE_NUMBER = re.compile(r"^(?:page\s*)?(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:of|/)\s*\d{1,4})?$", re.I)
_NUMBERING = re.compile(r"^(?:(\d{1,2}(?:\.\d{1,2}){0,3})\.?|([IVX]{1,5})\.|([A-H])\.)\s+(?=\S)")
_WORD = re.compile(r"[^\W\d_]{3,}")
_DIGITS = re.compile(r"\d+")
LIST_MARKS = ("•", "◦", "▪", "‣", "∙", "*", "∗", "†", "‡")  # a list item's bullet, a footnote's mark
_CONTACT = re.compile(r"\S@[\w-]+\.\w|://")  # an e-mail address or a URL: an author's or a publisher's line
_FLOAT_LABEL = re.compile(r"^(fig(ure)?|table|scheme|box|supplementary)\b\.?\s*[\dA-Z]", re.I)
_CAPTION = re.compile(r"^(?:extended data |supplementary )?(?:fig(?:ure)?|table|scheme|chart)\.?\s*S?\d+[a-z]?"
                      r"\s*[.:|\u2013\u2014]", re.I)


def margin_key(text: str) -> str:
    """A margin line's identity across pages: digits (folios, page counts) and spacing ignored."""
    return " ".join(_DIGITS.sub("#", text).split()).lower()


def is_page_number(text: str) -> bool:
    return bool(_PAGE_NUMBER.fullmatch(text.strip()))


def margin_lines(blocks: list[tuple[tuple[float, float, float, float], list[Line]]],
                 height: float) -> list[tuple[int, Line]]:
    """(block index, line) of the lines of a page's (box, lines) blocks that sit in its top or bottom margin band:
    their middle does (Cell Press's "Article" head reaches a point below the band); only blocks whose box reaches
    a band (1 pt of slack) are looked into."""
    top, bottom = height * MARGIN_BAND, height * (1 - MARGIN_BAND)
    return [(i, line) for i, (box, lines) in enumerate(blocks) if box[1] <= top + 1 or box[3] >= bottom - 1
            for line in lines if not top < (line.bbox[1] + line.bbox[3]) / 2 < bottom]


def in_side_margin(x0: float, x1: float, width: float) -> bool:
    return x1 <= width * SIDE_MARGIN or x0 >= width * (1 - SIDE_MARGIN)


def running_keys(page_keys: list[set[str]]) -> set[str]:
    """Margin-line keys that recur on enough pages to be running heads or footers."""
    pages = len(page_keys)
    if pages < 2:
        return set()
    counts = Counter(key for keys in page_keys for key in keys)
    needed = max(2, round(pages * REPEAT_SHARE))
    return {key for key, n in counts.items() if n >= needed}


def numbering_depth(text: str) -> int:
    """1 for ``2 Model`` / ``II.`` / ``A.``, 2 for ``2.1 Overview``, ...; 0 when not numbered."""
    match = _NUMBERING.match(text)
    if not match:
        return 0
    return match.group(1).count(".") + 1 if match.group(1) else 1


def is_caption(text: str) -> bool:
    """Starts like a figure or table caption: ``Fig. 2 |``, ``Figure 1:``, ``Table 3.``."""
    return bool(_CAPTION.match(text))


def heading_shaped(text: str) -> bool:
    """Reads like a section heading: words, not a number, a folio, a journal stamp, a figure label, a sentence
    or a line with an e-mail address or a URL."""
    words = text.split()
    if not words or len(words) > MAX_HEADING_WORDS or not _WORD.search(text) or _FLOAT_LABEL.match(text):
        return False
    if text.startswith((",", "&")):  # the rest of a list of authors (", Asis Palazon", "& H. Eric Xu")
        return False
    if text.endswith(".") and len(words) > 1:  # a sentence: "None declared.", a data availability statement
        return False
    if text.rstrip().endswith((",", ";", ":")) or "=" in text or _CONTACT.search(text):
        return False
    if (text.count(",") > 1 or "," in text and ("&" in text or " and " in text)) and numbering_depth(text) < 2:
        return False  # a list of names; "3.1 Representations, Datasets, and Benchmarks" is numbered as a section
    rest = _NUMBERING.sub("", text, count=1)
    first = next((c for c in rest if c.isalpha()), "")
    return first.isupper() and sum(map(str.isalpha, text)) * 2 >= len(text.replace(" ", ""))
