"""arXiv HTML (ar5iv / arxiv.org/html, LaTeXML output) -> sectioned text.

Headings come from ``ltx_title_*`` elements (document title, abstract, section, subsection,
...), paragraphs from block elements, math from ``<math alttext>`` as TeX (``$...$`` inline,
``$$...$$`` for ``display="block"``). Site chrome (head, scripts, navigation, TOC, headers,
footers), anything outside ``ltx_document``, the bibliography, undefined-macro error spans
and equation numbers are skipped.
Uses the stdlib parser: LaTeXML output is regular enough not to need a DOM library. Open
elements are counted by name, so a stray closing tag costs O(1) rather than a scan of the open
stack (unclosed tags followed by stray closers were quadratic); nesting deeper than
:data:`MAX_HTML_DEPTH` is refused.
"""
from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser

from doiget.fulltext import guard
from doiget.fulltext.builder import TextBuilder, clean_inline
from doiget.fulltext.document import Document

_SKIP_TAGS = {"head", "script", "style", "nav", "header", "footer", "dialog", "button", "form", "svg", "noscript"}
_SKIP_CLASSES = {
    "ltx_bibliography", "ltx_TOC", "ltx_page_navbar", "ltx_page_footer", "ltx_page_header", "ltx_ERROR",
    "ltx_rdf", "ltx_authors", "ltx_dates", "ltx_tag_equation", "ltx_eqn_eqno", "ar5iv-footer",
    "ltx_note_mark", "ltx_role_footnote", "ltx_tag_item",
}
_HEADING_LEVELS = {
    "ltx_title_document": 1, "ltx_title_abstract": 2, "ltx_title_section": 2, "ltx_title_appendix": 2,
    "ltx_title_subsection": 3, "ltx_title_subsubsection": 3, "ltx_title_paragraph": 3,
    "ltx_title_acknowledgements": 2,
}
_BLOCK_TAGS = {"p", "div", "section", "article", "li", "figcaption", "table", "tr", "blockquote", "ul", "ol",
               "dl", "dt", "dd", "pre", "figure", "h1", "h2", "h3", "h4", "h5", "h6"}
_VOID_TAGS = {"br", "img", "hr", "meta", "link", "input", "col", "wbr", "area", "base", "source", "track",
              "param", "embed"}
_HEADING_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
MAX_HTML_DEPTH = 1000  # HTML may leave elements unclosed, so more than guard.MAX_DEPTH


def extract_ar5iv(data: bytes) -> Document:
    """Extract an ar5iv / arXiv LaTeXML HTML page."""
    parser = _LatexmlParser()
    parser.feed(data.decode("utf-8", errors="replace"))
    parser.close()
    return parser.finish()


class _LatexmlParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = TextBuilder()
        self.title: str | None = None
        self._stack: list[tuple[str, bool]] = []  # (tag, opened the ltx_document)
        self._open: Counter[str] = Counter()  # tag -> how many are on the stack
        self._skip = 0
        self._in_document = 0
        self._math_depth = 0
        self._buffer: list[str] = []
        self._heading_level: int | None = None
        self._heading_tag: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID_TAGS:
            return
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        is_document = "ltx_document" in classes
        if len(self._stack) >= MAX_HTML_DEPTH:
            raise guard.too_deep("the HTML page", MAX_HTML_DEPTH)
        guard.check()
        self._stack.append((tag, is_document))
        self._open[tag] += 1
        self._in_document += is_document
        if self._skip or tag in _SKIP_TAGS or classes & _SKIP_CLASSES:
            self._skip += 1
            return
        if tag == "math":
            if self._in_document:
                self._math(attributes)
            self._math_depth += 1
        elif self._math_depth:
            return
        elif tag in _HEADING_TAGS and classes & _HEADING_LEVELS.keys():
            self._flush()
            self._heading_tag = tag
            self._heading_level = min(_HEADING_LEVELS[c] for c in classes & _HEADING_LEVELS.keys())
        elif tag in _BLOCK_TAGS:
            self._flush()
        elif tag in ("td", "th") and "".join(self._buffer).strip():
            self._buffer.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID_TAGS or not self._open[tag]:
            return
        while self._stack:
            open_tag, is_document = self._stack.pop()
            self._open[open_tag] -= 1
            self._in_document -= is_document
            if self._skip:
                self._skip -= 1
            elif open_tag == "math":
                self._math_depth -= 1
            elif not self._math_depth and open_tag == self._heading_tag:
                self._end_heading()
            elif not self._math_depth and open_tag in _BLOCK_TAGS:
                self._flush()
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._in_document and not self._skip and not self._math_depth:
            self._buffer.append(data)

    def finish(self) -> Document:
        self._flush()
        return self.builder.build("ar5iv", title=self.title)

    def _math(self, attributes: dict[str, str | None]) -> None:
        tex = (attributes.get("alttext") or "").replace("%\n", "").strip()
        if not tex:
            return
        if attributes.get("display") == "block" and self._heading_level is None:
            self._flush()
            self.builder.paragraph(f"$${tex}$$")
        else:
            self._buffer.append(f"${tex}$")

    def _end_heading(self) -> None:
        text = clean_inline("".join(self._buffer))
        self._buffer = []
        if text:
            if self._heading_level == 1 and self.title is None:
                self.title = text
            self.builder.heading(text, self._heading_level or 2)
        self._heading_tag = self._heading_level = None

    def _flush(self) -> None:
        if self._heading_level is not None:
            return
        text = clean_inline("".join(self._buffer))
        self._buffer = []
        if text:
            self.builder.paragraph(text)
