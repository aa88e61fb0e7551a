"""Fonts a PDF keeps for its section headings, found from how the document uses them.

Some journals set subsection headings neither larger nor bold, only in a font of their own (Nature's
``Phylogenetic analysis`` above its paragraph, BMC's semibold run-in titles). Such a font leads
paragraphs: one to three lines set wholly in it, reading like a heading, then prose in another font
in the same block. A font is a heading font when it leads paragraphs at least twice, more often than
it is used for any other whole line, and is not the body text's font. Figure lettering, table cells
and author lines use their fonts elsewhere too, so they do not qualify.
"""
from __future__ import annotations

from collections import Counter
from itertools import groupby
from operator import attrgetter

from doiget.fulltext import pdflayout
from doiget.fulltext.pdfpage import Line

MIN_LEADS = 2
MAX_LEAD_LINES = 3
MIN_PROSE_CHARS = 25
LEAD_MIN_SIZE_SHARE = 0.9  # a heading is not set much smaller than the paragraph it leads
NOT_HEADING_END = (".", ",", ";", ":", "-")
_FONT = attrgetter("font", "single")


def heading_fonts(blocks: list[list[Line]]) -> frozenset[str]:
    """The heading fonts of a document given its blocks' lines (running heads already dropped)."""
    chars: Counter[str] = Counter()
    leads: Counter[str] = Counter()
    others: Counter[str] = Counter()
    for lines in blocks:
        if len(lines) == 1:  # half the blocks: one run of one line, leading nothing
            line = lines[0]
            chars[line.font] += len(line.text)
            if line.single:
                others[line.font] += 1
            continue
        runs = [list(run) for _, run in groupby(lines, key=_FONT)]
        for i, run in enumerate(runs):
            font = run[0].font  # the lines of a run share their font and whether they are set in it throughout
            chars[font] += sum([len(line.text) for line in run])
            if i + 1 < len(runs) and is_lead(run, runs[i + 1]):
                leads[font] += 1
            elif run[0].single:
                others[font] += len(run)
    body = chars.most_common(1)[0][0] if chars else None
    return frozenset(font for font, n in leads.items() if n >= MIN_LEADS and n > others[font] and font != body)


def is_lead(run: list[Line], after: list[Line]) -> bool:
    """Whether ``run`` (lines of one font) reads as a heading over the prose of ``after``."""
    if not run[0].single or len(run) > MAX_LEAD_LINES or after[0].font == run[0].font:
        return False
    if not any(len(line.text) >= MIN_PROSE_CHARS for line in after):
        return False
    text = " ".join(line.text for line in run)
    return (pdflayout.heading_shaped(text) and not text.endswith(NOT_HEADING_END)
            and min(line.size for line in run) >= LEAD_MIN_SIZE_SHARE * after[0].size)
