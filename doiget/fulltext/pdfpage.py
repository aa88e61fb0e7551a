"""One page of a PDF as text lines with boxes, font size and weight, read in one cheap pass.

MuPDF builds the page's structured text once; two of its own C writers then serialise it: the JSON
writer gives every block's and line's box, the line's text and its first character's font; the HTML
writer gives every style run of every line (size, bold) in the same order. Both are a fraction of
the cost of PyMuPDF's ``get_text("dict")``, which builds a Python dict per span, and between them
they say everything the layout needs: a line's dominant size (the size most of its characters are
set in, so a superscript or a run-in label does not make a line large or small) and whether all of
it is bold. A line of several characters whose box is much taller than its font size is set at an
angle (a side stamp).
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from html import unescape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pymupdf

SCALE = 100  # the JSON writer prints whole numbers: ask for hundredths of a point
UPRIGHT_HEIGHT = 2.5  # a horizontal line's box is at most this many times its font size tall
MIN_ANGLED_CHARS = 3  # a tall box around one or two characters is a large glyph (a brace), not a turned line
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|medi|[.,-]b$|bd$", re.I)
# One style run of MuPDF's HTML: [<sup>][<tt>][<b>][<i>]<span style="font-family:..;font-size:9.0pt..">text</span>
_RUN = re.compile(r'(<b>)?(<i>)?<span style="font-family:([^;,]*)[^;]*;font-size:([\d.]+)pt[^"]*">([^<]*)</span>')
_ITALIC_FONT = re.compile(r"italic|oblique|[.,]i$", re.I)
_RENAMED = re.compile(r"Times|Arial|Helvetica|Courier|-")  # names MuPDF's HTML shortens to a family


@dataclass(slots=True)
class Line:
    text: str
    size: float
    bbox: tuple[float, float, float, float]
    bold: bool = False
    upright: bool = True
    font: str = ""  # the first character's font
    single: bool = False  # set in that font throughout (see _one_font)


def page_blocks(page: pymupdf.Page) -> list[tuple[tuple[float, float, float, float], list[Line]]]:
    """The page's text blocks in content-stream order, each as (box, lines); blank lines dropped."""
    import pymupdf
    from pymupdf import mupdf

    textpage = page.get_textpage(flags=pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP)
    as_json = _write(mupdf.fz_print_stext_page_as_json, textpage.this, SCALE).decode("utf-8", "replace")
    blocks = [b for b in json.loads(as_json)["blocks"] if b.get("type") == "text"]
    runs = _write(mupdf.fz_print_stext_page_as_html, textpage.this, 0).decode("utf-8", "replace").split("</p>\n")
    if len(runs) - 1 != sum(len(b["lines"]) for b in blocks):
        runs = None  # never seen: the two writers walk the same lines; fall back to first-character fonts
    out = []
    n = 0
    for block in blocks:
        lines = []
        for line in block["lines"]:
            html = runs[n] if runs is not None else None
            n += 1
            text = line["text"]
            if not text.strip() or "font" not in line:
                continue
            lines.append(_line(line, text.strip(), html))
        if lines:
            out.append((_box(block["bbox"]), lines))
    return out


def _line(line: dict, text: str, html: str | None) -> Line:
    font = line["font"]
    size = font["size"] / SCALE
    box = line["bbox"]
    x0, y0 = box["x"] / SCALE, box["y"] / SCALE
    width, height = box["w"] / SCALE, box["h"] / SCALE
    name = font["name"]
    bold = font["weight"] == "bold" or _bold_font(name)
    spans = html.count("<span") if html is not None else 0
    single = spans == 1
    if spans > 1:  # several style runs (blank ones aside): weigh their sizes, check each is bold
        runs = _runs(html)
        blank_first = line["text"][:1].isspace()  # then the JSON's font is a space's
        single = not blank_first and _one_font(runs, name.partition("+")[2] or name)
        if runs:
            size, bold = _weigh(runs, size, bold and not blank_first)
    upright = len(text) < MIN_ANGLED_CHARS or height <= UPRIGHT_HEIGHT * size or width >= height
    return Line(text, size, (x0, y0, x0 + width, y0 + height), bold, upright, name, single)


def _runs(html: str) -> list[tuple[str, str, str, str, int]]:
    """(bold mark, italic mark, font family, size, characters) of each style run of a line's HTML that
    is not blank."""
    return [(b, i, family, size, len(text)) for b, i, family, size, raw in _RUN.findall(html)
            if (text := (unescape(raw) if "&" in raw else raw).strip())]


def _one_font(runs: list[tuple[str, str, str, str, int]], font: str) -> bool:
    """Whether a line is set in ``font`` throughout: runs in its ligature companion (``Font+fb``, an ``fi``
    glyph) and italic runs (a species name) do not count against it. Where MuPDF's HTML names only the
    family (``Avenir-Medium`` becomes ``Avenir``), only a line of one run is."""
    if _RENAMED.search(font):
        return len(runs) == 1
    return bool(runs) and runs[0][2] == font and all(
        family == font or family.startswith(font + "+") or italic or _ITALIC_FONT.search(family)
        for _, italic, family, _, _ in runs)


def _weigh(runs: list[tuple[str, str, str, str, int]], first_size: float, first_bold: bool) -> tuple[float, bool]:
    """Dominant size and all-bold of a line from its runs. A run HTML marks bold is bold; a font only
    its name calls bold (``Avenir-Medium``) counts for a line set in that one run only."""
    weights: Counter[str] = Counter()
    for _, _, _, size, chars in runs:
        weights[size] += chars
    dominant = max(weights, key=weights.__getitem__)
    # HTML rounds sizes to 0.1 pt: keep the JSON's exact size when the first run's size dominates
    size = first_size if dominant == runs[0][3] else float(dominant)
    bold = all(run[0] for run in runs) or (len(runs) == 1 and first_bold)
    return size, bold


def _box(box: dict) -> tuple[float, float, float, float]:
    x, y = box["x"] / SCALE, box["y"] / SCALE
    return x, y, x + box["w"] / SCALE, y + box["h"] / SCALE


@lru_cache(maxsize=1024)
def _bold_font(name: str) -> bool:
    return bool(_BOLD_FONT.search(name))


def _write(writer, textpage, arg) -> bytes:
    from pymupdf import mupdf

    buffer = mupdf.fz_new_buffer(1 << 14)
    out = mupdf.FzOutput(buffer)
    writer(out, textpage, arg)
    out.fz_close_output()
    return mupdf.fz_buffer_extract(buffer)
