"""What a PDF says about itself: every identifier it prints (DOI, arXiv id, PMID, PMCID), its title
and authors.

Identifiers come from the XMP packet, the info dictionary and the text of the first pages up to a
reference list's heading (after it they are the ones the document cites). A DOI
that is its own text printed twice over (``10.1/x10.1/x``) is cut back to one copy; one that still
holds a second DOI is rejected. Among several DOIs the one the document repeats most (running heads
print the article's own DOI) wins, the first printed breaking ties. An arXiv id counts when it is
labelled (``arXiv:``, ``arXiv ePrint:``, an arxiv.org URL, a DataCite arXiv DOI) or is an old-style
id like ``hep-ph/9412269`` of a known archive; the arXiv side stamp (``arXiv:ID [cat] date``), wherever
its text falls, beats ids the first page merely cites. The title is the first page's largest text, read from the
lines extraction reads (:mod:`.pdfpage`), else the info dictionary's or XMP title unless that looks like a file
name (``paper.dvi``, ``doi:``, ``*.pdf``). Authors are
the info dictionary's, in the order of given and family names the first pages print them in.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from html import unescape
from itertools import takewhile
from typing import TYPE_CHECKING

from doiget.formats.names import bibtex_author, split_names
from doiget.fulltext.builder import clean_inline
from doiget.fulltext.hyphens import LINE_BREAKS, SOFT_HYPHEN, Vocabulary, join_lines
from doiget.fulltext.pdflayout import numbering_depth
from doiget.fulltext.pdfpage import Line
from doiget.identity import TITLE_AGREEMENT, normalised_title, title_similarity
from doiget.models import Author
from doiget.refs import DOI_IN_TEXT, Ref, trimmed_doi, try_parse

if TYPE_CHECKING:
    import pymupdf
    from pymupdf import mupdf

SNIFF_PAGES = 2
TITLE_SIZE_TOLERANCE = 0.6
TITLE_OVER_BODY = 1.15
MIN_TITLE_CHARS = 8
MAX_TITLE_CHARS = 400
MAX_TOP_LINES = 3  # a manuscript's title is among the page's first lines
HALF_POINT = 0.5
RUN_GAP = 2.2  # font sizes from one line's top to the next's within a title
MANUSCRIPT_RUN_GAP = 2.5  # a manuscript's double spacing is 2.3
_FOOTNOTE_MARKS = " *∗†‡§¶"  # after a title: its footnote's mark

_DOI = re.compile(rf"\b({DOI_IN_TEXT.pattern})")
_DOI_START = re.compile(r"10\.\d{4,9}/")
_OLD_ARCHIVES = (
    "acc-phys|adap-org|alg-geom|ao-sci|astro-ph|atom-ph|bayes-an|chao-dyn|chem-ph|cmp-lg|comp-gas|cond-mat|"
    "cs|dg-ga|funct-an|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math|math-ph|mtrl-th|nlin|nucl-ex|nucl-th|"
    "patt-sol|physics|plasm-ph|q-alg|q-bio|quant-ph|solv-int|supr-con")
_ARXIV_ID = rf"(\d{{4}}\.\d{{4,5}}(?:v\d+)?|(?:{_OLD_ARCHIVES})(?:\.[A-Z]{{2}})?/\d{{7}}(?:v\d+)?)"
#: (pattern, strength): the side stamp beats a labelled id, which beats a bare old-style id.
_ARXIV_PATTERNS = (
    (re.compile(rf"arXiv:\s*{_ARXIV_ID}\s*\[[a-z\-]+(?:\.[A-Za-z\-]+)?\]", re.I), 3),
    (re.compile(rf"arxiv\s*(?:e-?print|preprint)?\s*[:.]?\s*(?:abs/)?{_ARXIV_ID}", re.I), 2),
    (re.compile(rf"arxiv\.org/(?:abs|pdf)/{_ARXIV_ID}", re.I), 2),
    (re.compile(rf"10\.48550/arxiv\.{_ARXIV_ID}", re.I), 2),
    (re.compile(rf"(?<![\w/.-]){_ARXIV_ID}(?=\s*\[[a-z\-]+(?:\.[A-Za-z\-]+)?\])", re.I), 3),
    (re.compile(rf"(?<![\w/.-])(?:arXiv:\s*)?{_ARXIV_ID}(?=\s+\d{{1,2}}\s+[A-Z][a-z]{{2}}\s+\d{{2,4}}\b)", re.I), 3),
    (re.compile(rf"(?<![\w/.-])((?:{_OLD_ARCHIVES})(?:\.[A-Z]{{2}})?/\d{{7}}(?:v\d+)?)\b"), 1),
)
_ARXIV_STAMP = re.compile(
    rf"arXiv:\s*{_ARXIV_ID}\s*\[[a-z\-]+(?:\.[A-Za-z\-]+)?\]\s+\d{{1,2}}\s+[A-Z][a-z]{{2}}\s+\d{{4}}")
_REFERENCES_HEADING = re.compile(
    r"^[ \t]*(?:[\dIVX]+\.?[ \t]*)?(?:references|bibliography|works cited|literature cited|literatur|"
    r"literaturverzeichnis|références|bibliographie|referencias|bibliografia|参考文献)[ \t]*$", re.I | re.M)
_PMID = re.compile(r"\bPMID\s*:?\s*(\d{1,9})\b")
_PMCID = re.compile(r"\b(?:PMCID\s*:?\s*)?(PMC\d{4,9})\b")
_FILE_LIKE = re.compile(
    r"(^(doi|untitled|microsoft word|title)\s*[:\-]?)|(\.(dvi|pdf|tex|ps|eps|docx?|rtf|indd|qxd|fm)\b)"
    r"|^[\w\-. ]{0,8}\d{3,}[\w\-.]*$|^[\w\-]+_[\w\-]+$|^10\.\d{4,9}/", re.I)


@dataclass(frozen=True, slots=True)
class PdfSniff:
    """What a PDF says about itself: canonical ids (via :class:`Ref`), title, authors, pages.

    ``refs`` holds every identifier found, at most one per kind, best first within a kind;
    ``doi``/``arxiv_id`` repeat the DOI and arXiv id among them.
    """

    refs: list[Ref]
    title: str | None
    authors: list[Author]
    page_count: int
    more_authors: bool = False  # the first page names more authors after the info dictionary's last one
    rejected: list[str] = field(default_factory=list)

    @property
    def doi(self) -> str | None:
        return self.id_of("doi")

    @property
    def arxiv_id(self) -> str | None:
        return self.id_of("arxiv")

    def id_of(self, kind: str) -> str | None:
        return next((r.id for r in self.refs if r.kind == kind), None)


def sniff_document(doc: pymupdf.Document, first_pages: list[mupdf.FzStextPage], title: Title | None) -> PdfSniff:
    """Identifiers and authors of an open PyMuPDF document, given MuPDF's text pages of its first
    :data:`SNIFF_PAGES` pages (one text page per page serves the identifiers and extraction), and its
    :func:`pdf_title` (read from page 1's lines, as extraction reads them)."""
    import pymupdf

    info = {k: v for k, v in (doc.metadata or {}).items() if isinstance(v, str)}
    xmp = doc.get_xml_metadata() or ""
    textpages = [pymupdf.TextPage(textpage) for textpage in first_pages]
    texts = [textpage.extractText().replace(SOFT_HYPHEN, "") for textpage in textpages]
    metadata = [xmp, info.get("subject", ""), info.get("keywords", "")]
    rejected: list[str] = []
    own = _before_references(texts)
    refs = [r for r in (_best_doi(metadata, own, rejected), _arxiv_stamp(texts) or _best_arxiv(metadata + own),
                        _labelled(own, _PMID, "pmid"), _labelled(own, _PMCID, "pmcid")) if r is not None]
    authors = info_authors(info.get("author", ""), " ".join(texts))
    return PdfSniff(refs=refs, title=title.text if title else None, authors=authors, page_count=doc.page_count,
                    rejected=rejected, more_authors=names_follow(authors, texts[0] if texts else ""))


def clean_doi(candidate: str) -> str | None:
    """``candidate`` as a canonical DOI: trailing punctuation dropped, a DOI printed twice over itself cut
    to one copy; None when it still holds a second DOI or does not parse."""
    doi = trimmed_doi(candidate)
    starts = [m.start() for m in _DOI_START.finditer(doi)]
    if len(starts) > 1:
        first = doi[:starts[1]]
        if doi[starts[1]:].lower().startswith(first.lower()) and len(doi) == 2 * len(first):
            doi = first
        else:
            return None
    ref = try_parse(f"doi:{doi}")
    return ref.id if ref is not None and ref.kind == "doi" else None


def looks_like_file_name(title: str) -> bool:
    """True for metadata titles that name a file or a bare identifier rather than the paper."""
    text = title.strip()
    return len(text) < MIN_TITLE_CHARS or not re.search(r"[A-Za-z]{3}", text) or bool(_FILE_LIKE.search(text))


@dataclass(frozen=True, slots=True)
class Title:
    """A PDF's title, and the first page's lines it is set in (none where only the metadata states it)."""

    text: str
    lines: tuple[Line, ...] = ()


def pdf_title(doc: pymupdf.Document, first_lines: list[Line]) -> Title | None:
    """The title the first page prints (:func:`first_page_title`), else the one the metadata states."""
    meta = metadata_title(doc)
    return first_page_title(first_lines, meta) or (Title(meta) if meta else None)


def metadata_title(doc: pymupdf.Document) -> str | None:
    """The info dictionary's title, its HTML character references read (Oxford's ``Apollo&rsquo;s``,
    ``&#x2019;``), else the XMP packet's; None when it looks like a file name."""
    info = (doc.metadata or {}).get("title")
    title = clean_inline(_chars(info) if isinstance(info, str) else "")
    title = title or _xmp_title(doc.get_xml_metadata() or "")
    return title if title and not looks_like_file_name(title) else None


_CHAR_REF = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _chars(text: str) -> str:
    """``text`` with its HTML character references read: some publishers write them into the info dictionary."""
    return _CHAR_REF.sub(lambda ref: unescape(ref.group(0)), text) if "&" in text else text


def first_page_title(lines: list[Line], meta_title: str | None = None) -> Title | None:
    """The title the first page's ``lines`` print (footnote marks after it dropped, line-end hyphens undone where
    the page's own words say so), the first found of:

    - the lines after a ``Title`` label (a repository's cover sheet: eScholarship's ``Title``, ``Permalink``,
      ``Journal``, ``Authors`` ...);
    - the largest run of lines set larger than body text that agrees with ``meta_title`` (the PDF's own title:
      a journal's "EDGE ARTICLE" banner can be set larger than the title);
    - the lines that print ``meta_title`` whole (a manuscript's or a meeting abstract's title at body size);
    - the top run of the largest text that reads like a title;
    - with no ``meta_title``, the page's top lines where set bold or larger than body text (a manuscript's).

    Where ``meta_title`` spells the same letters and digits (``neoepi- topes``, ``Acrp30�adiponectin`` on
    the page), its spelling is the title's."""
    upright = [line for line in lines if line.upright and not line.text.isdigit()]  # not a line number
    chars: Counter[float] = Counter()
    for line in upright:
        chars[round(line.size, 1)] += len(line.text)
    body = chars.most_common(1)[0][0] if chars else 0.0
    vocab = cache(lambda: Vocabulary.of(line.text for line in upright))  # built once, for a line-end break
    runs = _larger_runs(upright, body, vocab)
    title = _labelled_title(upright, vocab) or next(
        (t for t in runs if meta_title and _agrees(t.text, meta_title)), None)
    if title is None and meta_title:
        title = _printing(upright, meta_title, vocab)
    if title is None:
        tops = [t for t in runs if t.top]
        title = tops[0] if tops else None if meta_title else _styled_top(upright, body, vocab)
    if title and meta_title and letters_and_digits(title.text) == letters_and_digits(meta_title):
        return Title(meta_title, title.lines)
    return title


def _larger_runs(lines: list[Line], body: float, vocab: Callable[[], Vocabulary]) -> list[_Run]:
    """The runs of lines set larger than ``body`` that read like a title, largest first; each size's top run
    is ``top``."""
    larger: dict[float, list[Line]] = {}
    for line in lines:
        if line.size >= body * TITLE_OVER_BODY:
            larger.setdefault(round(line.size, 1), []).append(line)
    candidates = sorted([size for size, group in larger.items() if any(_title_like(line.text) for line in group)],
                        reverse=True)
    found = []
    for size in candidates:
        picked = sorted((line for line in lines if abs(line.size - size) <= TITLE_SIZE_TOLERANCE),
                        key=lambda line: line.bbox[1])
        for n, run in enumerate(_runs(picked, size)):
            title = _run_title(run, vocab)
            if title:
                found.append(_Run(title.text, title.lines, top=not n))
    return found


def _printing(lines: list[Line], title: str, vocab: Callable[[], Vocabulary]) -> Title | None:
    """The run of whole lines, as the page sets them, whose letters and digits are ``title``'s."""
    want = letters_and_digits(title).casefold()
    keys = [letters_and_digits(line.text).casefold() for line in lines]
    for start, key in enumerate(keys):
        if not key or not want.startswith(key):
            continue
        stop, got = start + 1, key
        while len(got) < len(want) and stop < len(keys) and want.startswith(got + keys[stop]):
            got += keys[stop]
            stop += 1
        if got == want:
            return _run_title(lines[start:stop], vocab)
    return None


def _labelled_title(lines: list[Line], vocab: Callable[[], Vocabulary]) -> Title | None:
    """The lines after a line reading ``Title`` up to the next line set as that label is (bold, size)."""
    label = next((i for i, line in enumerate(lines) if len(line.text) <= 7 and _TITLE_LABEL.fullmatch(line.text)), None)
    if label is None:
        return None
    style = (lines[label].bold, round(lines[label].size, 1))
    run = list(takewhile(lambda line: (line.bold, round(line.size, 1)) != style, lines[label + 1:]))
    return _run_title(run, vocab) if run else None


_TITLE_LABEL = re.compile(r"(?i)title\s*:?")


def _styled_top(lines: list[Line], body: float, vocab: Callable[[], Vocabulary]) -> Title | None:
    """The page's first lines not set smaller than ``body`` (a preprint server's stamp, a running head), where
    they are set bold or larger and read like a title."""
    by_top = sorted(lines, key=lambda line: line.bbox[1])
    ordered = [line for line in by_top if line.size > body - HALF_POINT]
    first = next((line for line in ordered[:MAX_TOP_LINES] if line.bold or line.size >= body + HALF_POINT), None)
    if first is None or not _title_like(first.text):
        return None
    run = [line for line in by_top
           if line.bold == first.bold and abs(line.size - first.size) <= TITLE_SIZE_TOLERANCE
           and line.bbox[1] >= first.bbox[1]]
    return _run_title(_runs(run, first.size, MANUSCRIPT_RUN_GAP)[0], vocab)


def _run_title(run: list[Line], vocab: Callable[[], Vocabulary]) -> Title | None:
    """``run`` as a title, line-end hyphens undone where the page's words (``vocab()``) say so."""
    texts = [line.text for line in run]
    broken = any([text.endswith(LINE_BREAKS) for text in texts[:-1]])
    text = clean_inline(join_lines(texts, vocab() if broken else None))
    text = text.rstrip(_FOOTNOTE_MARKS)
    return Title(text, tuple(run)) if _title_like(text) and MIN_TITLE_CHARS <= len(text) <= MAX_TITLE_CHARS else None


@dataclass(frozen=True, slots=True)
class _Run(Title):
    top: bool = False  # the top run of its size


def _agrees(text: str, title: str) -> bool:
    return normalised_title(text) == normalised_title(title) or title_similarity(text, title) >= TITLE_AGREEMENT


def letters_and_digits(text: str) -> str:
    """``text``'s letters and digits alone (a key comparing titles however they are spaced or punctuated)."""
    return "".join([c for c in text if c.isalnum()])


def _runs(lines: list[Line], size: float, gap: float = RUN_GAP) -> list[list[Line]]:
    """The runs of lines (top first) whose tops sit within ``gap`` font sizes of each other."""
    runs = [[lines[0]]]
    for prev, line in zip(lines, lines[1:]):
        if line.bbox[1] - prev.bbox[1] > gap * size:
            runs.append([])
        runs[-1].append(line)
    return runs


def _title_like(text: str) -> bool:
    words = re.findall(r"[^\W\d_]{2,}", text)
    return (len(words) >= 2 and not looks_like_file_name(text) and not _DOI.search(text)
            and not numbering_depth(text)  # "3.1 Sites and Seasons" is a section's
            and not re.match(r"(?i)arxiv:", text) and "@" not in text)


def _best_doi(metadata: list[str], texts: list[str], rejected: list[str]) -> Ref | None:
    for haystack in metadata:  # a DOI the producer wrote into XMP or the info dict names the article
        for match in _DOI.finditer(haystack):
            doi = clean_doi(match.group(1))
            if doi and not doi.startswith("10.48550/"):
                return Ref("doi", doi)
    counts: Counter[str] = Counter()
    for text in texts:
        for match in _DOI.finditer(text):
            doi = clean_doi(match.group(1))
            if doi is None:
                rejected.append(trimmed_doi(match.group(1)))
            elif not doi.startswith("10.48550/"):  # DataCite's arXiv DOIs stand for the arXiv id
                counts[doi] += 1
    return Ref("doi", counts.most_common(1)[0][0]) if counts else None


def _before_references(texts: list[str]) -> list[str]:
    """The first pages' text up to a reference list's heading: identifiers after it are the ones the
    document cites (a short paper, a poster, a style's sample page), not its own."""
    own = []
    for text in texts:
        heading = _REFERENCES_HEADING.search(text)
        if heading:
            return [*own, text[:heading.start()]]
        own.append(text)
    return own


def _arxiv_stamp(texts: list[str]) -> Ref | None:
    """The id of arXiv's side stamp (``arXiv:2308.08155v2 [cs.AI] 3 Oct 2023``), wherever the page's text
    puts it: a reference list never dates an e-print that way."""
    for text in texts:
        for match in _ARXIV_STAMP.finditer(text):
            ref = try_parse(f"arxiv:{match.group(1)}")
            if ref is not None and ref.kind == "arxiv":
                return Ref("arxiv", ref.id)
    return None


def _best_arxiv(texts: list[str]) -> Ref | None:
    best: tuple[int, int, str] | None = None
    for order, text in enumerate(texts):
        for pattern, strength in _ARXIV_PATTERNS:
            for match in pattern.finditer(text or ""):
                ref = try_parse(f"arxiv:{match.group(1)}")
                rank = (-strength, order * 10**7 + match.start())
                if ref is not None and ref.kind == "arxiv" and (best is None or rank < best[:2]):
                    best = (*rank, ref.id)
    return Ref("arxiv", best[2]) if best else None


def _labelled(texts: list[str], pattern: re.Pattern[str], kind: str) -> Ref | None:
    for text in texts:
        for match in pattern.finditer(text):
            ref = try_parse(f"{kind}:{match.group(1)}")
            if ref is not None and ref.kind == kind:
                return ref
    return None


def _xmp_title(xmp: str) -> str:
    """The first item of the XMP packet's ``dc:title``, its XML entities read; empty for an empty item
    (bioRxiv writes ``<rdf:li xml:lang="x-default"/>``) or none."""
    title = _XMP_TITLE.search(xmp)
    item = _XMP_ITEM.search(title.group(1)) if title else None
    return clean_inline(unescape(item.group(1) or "")) if item else ""


_XMP_TITLE = re.compile(r"<dc:title(?:\s[^>]*[^/>])?>(.*?)</dc:title>", re.S)
_XMP_ITEM = re.compile(r"<rdf:li\b[^>]*?(?:/>|>(.*?)</rdf:li>)", re.S)


def info_authors(raw: str, page_text: str) -> list[Author]:
    """The info dictionary's author list, read as its writer meant it: BibTeX's ``A and B`` with its
    name rules (``Caldas Ramos, Mayk and White, Andrew D``), else names written given name first, cut
    at ``;`` if any, else at ``,``, a last ``and`` or ``with``. A name the first pages print only in
    the other order (``Shahu Sneha`` for Sneha Shahu) is read that way. E-mail addresses and bracketed
    notes are not part of a name; HTML character references are read."""
    raw = clean_inline(_NOT_A_NAME.sub(" ", _chars(raw)))
    if not raw:
        return []
    names = split_names(raw)
    if _bibtex_form(raw, names):
        return [bibtex_author(name, str)[0] for name in names]
    printed = _letters(page_text)
    names = raw.split(";") if ";" in raw else _LIST_SEPARATOR.split(raw)
    return [_as_printed(name.split(), printed) for name in names if name.strip()]


_NOT_A_NAME = re.compile(r"\([^)]*\)|<[^>]*>|\S+@\S+")
_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+(?:and|with)\s+", re.I)
_MIN_SWAP_LETTERS = 6  # shorter names are too likely to be found in other words' letters


def names_follow(authors: list[Author], page_text: str) -> bool:
    """Whether the page prints another person right after the last of ``authors`` (``Zhongyi Lu1,2,4, Runyue
    Xia``, ``Sandrine Legault,a Derek P. Fraser-Halberg``): many journals' PDFs name only the first author
    in their info dictionary, and a list read from it alone would make that author the only one."""
    last = authors[-1].name if authors else ""
    at = page_text.find(last) if last else -1
    if at < 0:
        return False
    after = _AFFILIATION_MARKS.sub("", page_text[at + len(last):at + len(last) + 60])
    person = _NEXT_PERSON.match(_COMMAS.sub(",", after))
    return bool(person) and person.group(1).lower() not in _NOT_PERSONS and not any(
        a.family and a.family in person.group(0) for a in authors)


_AFFILIATION_MARKS = re.compile(r"[\d*†‡§¶]+|(?<=,)[a-z](?=[\s,])")
_COMMAS = re.compile(r"\s*,[\s,]*")  # what is left between marks: 1,2,4, -> ,,, -> ,
_NEXT_PERSON = re.compile(r"\s*(?:,|&|\band\b)\s*([A-Z][\w'-]+)(?:\s+[A-Z][\w.'-]*)+")
_NOT_PERSONS = frozenset({"department", "university", "institute", "school", "faculty", "center", "centre",
                          "laboratory", "college", "hospital", "division", "graduate"})


def _bibtex_form(raw: str, names: list[str]) -> bool:
    """Whether ``raw``, cut at its ``and`` s into ``names``, is ``Family, Given and Family, Given`` (every name
    one comma) or one ``Family, Given``; not a list like ``A, B and C``."""
    if ";" in raw:
        return False
    commas = {name.count(",") for name in names}
    if len(names) > 1:
        return commas == {1} or commas == {0}
    return commas == {1} and " " not in raw.split(",")[1].strip()


def _letters(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalpha())


def _as_printed(words: list[str], printed: str) -> Author:
    letters = _letters("".join(words))
    if len(words) > 1 and letters not in printed and len(letters) >= _MIN_SWAP_LETTERS:
        for cut in range(1, len(words)):
            if _letters("".join(words[cut:] + words[:cut])) in printed:
                return Author.from_parts(given=" ".join(words[cut:]), family=" ".join(words[:cut]))
    return Author.from_parts(name=" ".join(words))
