"""One page of a PDF as text lines with boxes, font size and weight, read in one cheap pass.

MuPDF builds the page's structured text once; two of its own C writers then serialise it: the JSON
writer gives every block's and line's box, the line's text and its first character's font; the HTML
writer gives every style run of every line (size, bold) in the same order. Both are a fraction of
the cost of PyMuPDF's ``get_text("dict")``, which builds a Python dict per span, and between them
they say everything the layout needs: a line's dominant size (the size most of its characters are
set in, so a superscript or a run-in label does not make a line large or small) and whether all of
it is bold. A line of several characters whose box is much taller than its font size is set at an
angle (a side stamp). Where a line's spaces are glyphs in a font of their own, its words are re-read
from MuPDF and those with no visible gap between them joined (a typesetter's space that takes no room).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from html import unescape
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from pymupdf import mupdf

SCALE = 100  # the JSON writer prints whole numbers: ask for hundredths of a point
OUTPUT_BUFFER = 1 << 14  # bytes: a page's JSON or HTML is ~20 KB
UPRIGHT_HEIGHT = 2.5  # a horizontal line's box is at most this many times its font size tall
MIN_ANGLED_CHARS = 3  # a tall box around one or two characters is a large glyph (a brace), not a turned line
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|medi|[.,-]b$|bd$", re.I)
# One style run of MuPDF's HTML: [<sup>][<tt>][<b>][<i>]<span style="font-family:..;font-size:9.0pt..">text</span>
# (written to start with "<", which the regex engine skips to, rather than with an optional group)
_RUN = re.compile(r'<(?:(b)><)?(?:(i)><)?span style="font-family:([^;,]*)[^;]*;font-size:([\d.]+)pt[^"]*">([^<]*)</span>')
_SPACE_RUN = "> </span>"
_FAMILY_TEXT = re.compile(r'font-family:([^;,"]*)[^>]*>([^<]*)</span>')
GAPLESS = 0.1  # font sizes: words closer than this are not parted by a space
_ITALIC_FONT = re.compile(r"italic|oblique|[.,]i$", re.I)
_RENAMED = re.compile(r"Times|Arial|Helvetica|Courier|-")  # names MuPDF's HTML shortens to a family


class Line(msgspec.Struct, gc=False):  # made in C: a third of a slotted dataclass's cost, one per line read
    text: str
    size: float
    bbox: tuple[float, float, float, float]
    bold: bool = False
    upright: bool = True
    font: str = ""  # the first character's font
    single: bool = False  # set in that font throughout (see _weigh)
    lead: int = -1  # how many characters of ``text`` the first font's family sets, where another follows (see _weigh)


class _Box(msgspec.Struct, gc=False):
    x: int
    y: int
    w: int
    h: int


class _Font(msgspec.Struct, gc=False):
    name: str
    weight: str
    size: int


class _JsonLine(msgspec.Struct, gc=False):
    bbox: _Box
    text: str
    font: _Font | None = None  # none on a line without characters


class _JsonBlock(msgspec.Struct, gc=False):
    type: str
    bbox: _Box
    lines: list[_JsonLine] = []  # an image block has none


class _JsonPage(msgspec.Struct, gc=False):
    """The parts of MuPDF's page JSON the layout reads (wmode, line flags, font family and style, origin
    are skipped unread)."""

    blocks: list[_JsonBlock]


_decode = msgspec.json.Decoder(_JsonPage).decode


def page_blocks(textpage: mupdf.FzStextPage) -> list[tuple[tuple[float, float, float, float], list[Line]]]:
    """The text blocks of a page's :func:`text_page` in content-stream order, each as (box, lines); blank
    lines dropped."""
    from pymupdf import mupdf

    blocks = [b for b in _parse(_write(mupdf.ll_fz_print_stext_page_as_json, textpage, SCALE)).blocks
              if b.type == "text"]
    runs = _write(mupdf.ll_fz_print_stext_page_as_html, textpage, 0).decode("utf-8", "replace").split("</p>\n")
    if len(runs) - 1 != sum([len(b.lines) for b in blocks]):
        runs = None  # never seen: the two writers walk the same lines; fall back to first-character fonts
    out = []
    spaced: list[tuple[int, int, Line]] = []  # (block, line) of the lines whose spaces are set in a font of their own
    n = -1
    for block_no, block in enumerate(blocks):
        lines = []
        for line_no, line in enumerate(block.lines):
            n += 1
            text = line.text.strip()
            if text and line.font is not None:
                html = runs[n] if runs is not None else ""
                spans = html.count("<span")
                lines.append(_line(line, text, html, spans))
                # a space run between two runs of another font: three runs at least
                if spans > 2 and _SPACE_RUN in html and _foreign_spaces(html):
                    spaced.append((block_no, line_no, lines[-1]))
        if lines:
            out.append((_box(block.bbox), lines))
    if spaced:
        _drop_gapless_spaces(textpage, spaced)
    return out


def _foreign_spaces(html: str) -> bool:
    """Whether a line has a space set as a run in a font of its own between runs of one font (a typesetter's
    space glyphs, which may take no room: Oxford journals set ``Gr aphical abstr act`` so)."""
    runs = _FAMILY_TEXT.findall(html)
    return any(not text.strip() and family != before and before == after
               for (before, _), (family, text), (after, _) in zip(runs, runs[1:], runs[2:]))


def _drop_gapless_spaces(textpage: mupdf.FzStextPage, lines: list[tuple[int, int, Line]]) -> None:
    """Rewrite ``lines`` (block and line numbers in the page, the Line read there) from MuPDF's words, joining
    words with no visible gap between them: a space glyph that takes no room does not part words."""
    import pymupdf

    words: dict[tuple[int, int], list[tuple[float, float, str]]] = {}
    for x0, _, x1, _, word, block_no, line_no, _ in pymupdf.TextPage(textpage).extractWORDS():
        words.setdefault((block_no, line_no), []).append((x0, x1, word))
    for block_no, line_no, line in lines:
        found = words.get((block_no, line_no))
        if not found or "".join(w for _, _, w in found) != "".join(line.text.split()):
            continue  # not the line read (never seen): keep its text
        text = found[0][2]
        for (_, end, _), (start, _, word) in zip(found, found[1:]):
            text += ("" if start - end < GAPLESS * line.size else " ") + word
        line.text = text


def text_page(page: mupdf.FzPage) -> mupdf.FzStextPage:
    """MuPDF's structured text of ``page`` as PyMuPDF's ``Page.get_textpage`` builds it with flags
    ``TEXT_PRESERVE_WHITESPACE | TEXT_MEDIABOX_CLIP`` (a rotated page read unrotated; ligatures split), without
    PyMuPDF's page and text-page objects (~0.3 ms a page: 8 % of extracting the real papers)."""
    from pymupdf import mupdf

    page_dict = mupdf.pdf_page_from_fz_page(page).obj()
    rotate = mupdf.pdf_to_int(mupdf.pdf_dict_get_inheritable(page_dict, mupdf.PDF_ENUM_NAME_Rotate))
    if rotate % 360 and not rotate % 90:  # PyMuPDF's test of a turned page (not turned back: read once)
        mupdf.pdf_dict_put_int(page_dict, mupdf.PDF_ENUM_NAME_Rotate, 0)
    options, identity = _run_arguments()
    textpage = mupdf.FzStextPage(mupdf.fz_bound_page(page))
    device = mupdf.fz_new_stext_device(textpage, options)
    mupdf.fz_run_page(page, device, identity, mupdf.FzCookie())  # annotations too (a stamp, a comment)
    mupdf.fz_close_device(device)
    return textpage


@lru_cache(maxsize=1)
def _run_arguments() -> tuple[mupdf.FzStextOptions, mupdf.FzMatrix]:
    """The text device's options and the identity matrix, made once (~13 µs a page): MuPDF copies both."""
    from pymupdf import mupdf

    return mupdf.FzStextOptions(mupdf.FZ_STEXT_PRESERVE_WHITESPACE | mupdf.FZ_STEXT_CLIP), mupdf.FzMatrix()


def _line(line: _JsonLine, text: str, html: str, spans: int) -> Line:
    """The Line of a line as read (``text``: stripped), given its style runs (``html``, ``spans`` of them)."""
    font = line.font
    size = font.size / SCALE
    box = line.bbox
    x0, y0 = box.x / SCALE, box.y / SCALE
    width, height = box.w / SCALE, box.h / SCALE
    name = font.name
    bold = font.weight == "bold" or _bold_font(name)
    if spans > 1:  # several style runs (blank ones aside): weigh their sizes, check each is bold
        blank_first = line.text[:1].isspace()  # then the JSON's font is a space's
        size, bold, single, lead = _weigh(html, name.partition("+")[2] or name, size, bold, blank_first)
        if lead > 0:  # counted in the line as read: its leading blanks are not in ``text``
            lead = max(0, lead - (len(line.text) - len(line.text.lstrip())))
    else:
        single, lead = spans == 1, -1
    upright = len(text) < MIN_ANGLED_CHARS or height <= UPRIGHT_HEIGHT * size or width >= height
    return Line(text, size, (x0, y0, x0 + width, y0 + height), bold, upright, name, single, lead)


def _weigh(html: str, font: str, first_size: float, first_bold: bool,
           blank_first: bool) -> tuple[float, bool, bool, int]:
    """Dominant size, all-bold, one-font and lead of a line from its style runs that are not blank (``blank_first``:
    the line starts with a space, whose font the JSON gave as the line's).

    Size: the size most characters are set in; HTML rounds sizes to 0.1 pt, so the JSON's exact size is
    kept when the first run's size dominates. Bold: a run HTML marks bold is bold; a font only its name
    calls bold (``Avenir-Medium``) counts for a line set in that one run only. One font: set in ``font``
    throughout, runs in its ligature companion (``Font+fb``, an ``fi`` glyph) and italic runs (a species
    name) aside; where MuPDF's HTML names only the family (``Avenir-Medium`` becomes ``Avenir``), only a
    line of one run is. Lead: the characters (blanks counted) set in the first run's family before the rest of the
    line is set in others (a run-in heading's end, ``Complementation.``, before its paragraph); -1 where the line
    is not so cut in two.
    """
    weights: dict[str, int] = {}
    first = ""
    first_family = ""
    runs = 0
    read = 0  # characters of the runs so far
    lead = -1
    all_bold = True
    same_font = not _renamed(font)  # then checked run by run; a renamed font is one run or not single
    companion = font + "+"
    for b, italic, family, size, raw in _RUN.findall(html):
        text = unescape(raw) if "&" in raw else raw
        chars = len(text.strip())
        read += len(text)
        if not chars:
            continue
        if not runs:
            first, first_family = size, family
            same_font = same_font and family == font
        elif lead < 0 and family != first_family:
            lead = read - len(text)
        elif lead >= 0 and family == first_family:
            lead = -2  # the first family again: a word set apart (a gene name), not what it leads
        runs += 1
        weights[size] = weights.get(size, 0) + chars
        if not b:
            all_bold = False
        if same_font and family != font and not family.startswith(companion) and not italic:
            same_font = bool(_ITALIC_FONT.search(family))
    if not runs:
        return first_size, first_bold, False, -1
    lead = max(lead, -1)
    single = not blank_first and (runs == 1 if _renamed(font) else same_font)
    dominant = first if len(weights) == 1 else max(weights, key=weights.__getitem__)
    size = first_size if dominant == first else float(dominant)
    return size, all_bold or (runs == 1 and first_bold and not blank_first), single, lead


def _box(box: _Box) -> tuple[float, float, float, float]:
    x, y = box.x / SCALE, box.y / SCALE
    return x, y, x + box.w / SCALE, y + box.h / SCALE


@lru_cache(maxsize=1024)
def _bold_font(name: str) -> bool:
    return bool(_BOLD_FONT.search(name))


@lru_cache(maxsize=1024)
def _renamed(font: str) -> bool:
    return bool(_RENAMED.search(font))


def _parse(as_json: bytes) -> _JsonPage:
    """MuPDF's page JSON, decoded by msgspec straight into the structs above (about half the time of orjson
    and its dicts, read and freed); json reads what msgspec refuses (text MuPDF wrote as invalid UTF-8 or
    a lone surrogate), replacing what is not UTF-8."""
    try:
        return _decode(as_json)
    except msgspec.DecodeError:
        return msgspec.convert(json.loads(as_json.decode("utf-8", "replace")), _JsonPage)


def _write(writer, textpage: mupdf.FzStextPage, arg) -> bytes:
    """What ``writer`` (MuPDF's ``ll_fz_print_stext_page_as_*``) prints of ``textpage``. The output buffers what it
    is given: MuPDF's own output to a buffer passes on every character by itself (a call chain per byte, 40 % of
    the two writers' time)."""
    from pymupdf import mupdf

    buffer = mupdf.fz_new_buffer(OUTPUT_BUFFER)
    out = mupdf.ll_fz_new_output(OUTPUT_BUFFER, buffer.m_internal, _append_to_buffer(), None, None)
    try:
        writer(out, textpage.m_internal, arg)
        mupdf.ll_fz_close_output(out)  # writes what is still buffered
    finally:
        mupdf.ll_fz_drop_output(out)  # leaves the buffer to us: the output has no drop function
    return mupdf.fz_buffer_extract(buffer)


@lru_cache(maxsize=1)
def _append_to_buffer():
    """The write function of MuPDF's output to a buffer (it appends what it is given to the buffer that is its
    state), read from one such output: MuPDF does not export it."""
    from pymupdf import mupdf

    out = mupdf.ll_fz_new_output_with_buffer(mupdf.fz_new_buffer(0).m_internal)
    try:
        return out.write
    finally:
        mupdf.ll_fz_drop_output(out)
