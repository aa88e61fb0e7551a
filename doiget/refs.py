"""Identifier parsing: every DOI, arXiv id, PMID, PMCID or OpenAlex id enters doiget here.

``Ref.parse`` is the only place that looks at raw identifier strings; everything else takes
a :class:`Ref`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from doiget.errors import DoigetError, ErrorCode

RefKind = Literal["doi", "arxiv", "pmid", "pmcid", "openalex", "local", "citekey"]
KINDS: tuple[RefKind, ...] = ("doi", "arxiv", "pmid", "pmcid", "openalex")  # the identifiers a work carries
LOCAL = "local"  # ``#<id>``: an entry's id in this library (the only name of an entry without identifiers)
_LOCAL_ID = re.compile(r"#(\d{1,18})")
CITEKEY = "citekey"  # ``@<key>``: an entry's citation key (pandoc's and Better BibTeX's way to name it)
_CITEKEY = re.compile(r"@(\S+)")
IN_LIBRARY: tuple[RefKind, ...] = (LOCAL, CITEKEY)

MAX_REF_LENGTH = 1000

ACCEPTED_SHAPES = (
    "DOI (10.1234/abc, doi:10.1234/abc, https://doi.org/10.1234/abc), "
    "arXiv id (2101.01234, 2101.01234v2, arXiv:2101.01234, hep-th/9901001, "
    "https://arxiv.org/abs/2101.01234), PMID (PMID:12345678 or digits), "
    "PMCID (PMC1234567), OpenAlex work id (W2741809807, https://openalex.org/W2741809807)"
)

_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
# A DOI inside free text (a URL, a note, a reference string): it ends at white space, a quote, a brace or an
# angle bracket, except the <page:code> part of a SICI DOI (Wiley's 10.1002/(SICI)...<50::AID-AR4>3.0.CO;2-W,
# the AMS's 10.1175/1520-0469(1993)050<1865:BCEWAS>2.0.CO;2).
DOI_IN_TEXT = re.compile(r"10\.\d{4,9}/(?:[^\s\"<>{}]|<\d+:[^\s\"<>{}]+>)+")
_LANDING_PAGE = re.compile(r"/(?:abstract|full|pdf|epdf|fulltext|summary|references|citedby|html?)/?$", re.I)
_ARXIV_NEW = re.compile(r"^(\d{4}\.\d{4,5})(v\d+)?$")
_ARXIV_OLD = re.compile(r"^([a-z][a-z\-]*(?:\.[a-z]{2})?/\d{7})(v\d+)?$", re.IGNORECASE)
_PMID = re.compile(r"^\d{1,9}$")
_PMCID = re.compile(r"^pmc(\d{1,9})$", re.IGNORECASE)
_OPENALEX = re.compile(r"^w(\d{1,12})$", re.IGNORECASE)

_URL_PREFIXES: tuple[tuple[str, RefKind], ...] = (  # the first that matches names the kind
    (r"(?:dx\.)?doi\.org/", "doi"),
    (r"(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/", "arxiv"),
    (r"(?:www\.)?ar5iv(?:\.labs)?\.arxiv\.org/(?:abs|html)/", "arxiv"),
    (r"pubmed\.ncbi\.nlm\.nih\.gov/", "pmid"),
    (r"(?:www\.)?ncbi\.nlm\.nih\.gov/pubmed/", "pmid"),
    (r"(?:www\.)?ncbi\.nlm\.nih\.gov/pmc/articles/", "pmcid"),
    (r"pmc\.ncbi\.nlm\.nih\.gov/articles/", "pmcid"),
    (r"europepmc\.org/(?:abstract/)?(?:med|article/med)/", "pmid"),
    (r"europepmc\.org/(?:article/)?pmc/", "pmcid"),
    (r"(?:api\.)?openalex\.org/(?:works/)?", "openalex"),
)
# One pattern for them all (a URL is matched once, not once per prefix): group i+1 is prefix i.
_URL_PREFIX = re.compile("^https?://(?:" + "|".join(f"({prefix})" for prefix, _ in _URL_PREFIXES) + ")", re.I)
_URL_KINDS: tuple[RefKind, ...] = tuple(kind for _, kind in _URL_PREFIXES)
_PDF_SUFFIX = re.compile(r"\.pdf$", re.I)
_SCHEME_PREFIX = re.compile(r"^(doi|arxiv|pmid|pmcid|pmc|openalex)\s*:\s*", re.I)


@dataclass(frozen=True, slots=True)
class Ref:
    """A parsed, normalised identifier of one scholarly work.

    ``kind`` is one of doi, arxiv, pmid, pmcid, openalex; ``id`` is canonical (DOIs lower-case,
    arXiv without version, PMCIDs as ``PMC123``, OpenAlex as ``W123``); ``version`` keeps an
    arXiv version suffix (``v2``) when one was given. ``kind`` "local" names an entry of the
    library by its id (``#12``), ``kind`` "citekey" by its citation key (``@Smith2020``); only the
    façade accepts these two (``parse(..., local=True)``).
    """

    kind: RefKind
    id: str
    version: str | None = None

    @classmethod
    def parse(cls, text: object, *, local: bool = False) -> "Ref":
        """Parse any accepted identifier shape (and ``#<id>``, ``@<key>`` when ``local``); raise
        ``DoigetError(INVALID_REF)`` otherwise."""
        if isinstance(text, Ref) and (local or not text.in_library):
            return text
        accepted = ACCEPTED_SHAPES + (", or a library entry: #<id> (its id) or @<key> (its citation key)"
                                      if local else "")
        if not isinstance(text, str):
            raise DoigetError(ErrorCode.INVALID_REF, f"identifier must be a string; accepted: {accepted}")
        raw = text.strip()
        if not raw:
            raise DoigetError(ErrorCode.INVALID_REF, f"empty identifier; accepted: {accepted}")
        if len(raw) > MAX_REF_LENGTH:
            raise DoigetError(ErrorCode.INVALID_REF, f"identifier longer than {MAX_REF_LENGTH} characters")
        if local and (number := _LOCAL_ID.fullmatch(raw)):
            return cls.local(int(number.group(1)))
        if local and (key := _CITEKEY.fullmatch(raw)):
            return cls(CITEKEY, key.group(1))
        ref = _parse(raw)
        if ref is None:
            shown = raw if len(raw) <= 80 else raw[:77] + "..."
            raise DoigetError(ErrorCode.INVALID_REF, f"not a recognised identifier: {shown!r}; accepted: {accepted}")
        return ref

    @classmethod
    def local(cls, entry_id: int) -> "Ref":
        """The local ref ``#<entry_id>``."""
        return cls(LOCAL, str(entry_id))

    @property
    def in_library(self) -> bool:
        """Whether this names an entry of the library (``#<id>``, ``@<key>``) rather than a work."""
        return self.kind in IN_LIBRARY

    @property
    def entry_id(self) -> int | None:
        """The library id a local ref names; None for the other kinds."""
        return int(self.id) if self.kind == LOCAL else None

    @classmethod
    def of(cls, kind: str, value: str) -> "Ref":
        """Build a Ref from a known kind and a value, normalising the value."""
        if kind not in KINDS:
            raise DoigetError(ErrorCode.INVALID_REF, f"unknown identifier kind {kind!r}; kinds: {', '.join(KINDS)}")
        ref = _parse_as(kind, value.strip())
        if ref is None:
            raise DoigetError(ErrorCode.INVALID_REF, f"not a valid {kind}: {value!r}")
        return ref

    @property
    def versioned_id(self) -> str:
        return self.id + (self.version or "")

    def __str__(self) -> str:
        if self.in_library:
            return ("#" if self.kind == LOCAL else "@") + self.id
        return f"{self.kind}:{self.versioned_id}"


def dois_in(text: str) -> list[str]:
    """The DOIs written in free text (a note, a reference string, a web address), canonical, each once, in
    order: without the punctuation after one (:func:`trimmed_doi`) and, in a web address, without the page's
    own path after it (Wiley's ``/doi/10.1002/ca.20342/abstract``), its query or its fragment, and in a query
    without the parameters after it."""
    found: dict[str, None] = {}
    for match in DOI_IN_TEXT.finditer(text):
        doi = match.group(0)
        word = text[max(text.rfind(space, 0, match.start()) for space in " \t\n\r") + 1:match.start()]
        if "://" in word or word.startswith("www."):
            doi = doi.split("?", 1)[0].split("#", 1)[0]
            if "?" in word:  # a query parameter's value ends where the next begins (Scopus: doi=10.1063/x&partnerID=40)
                doi = doi.split("&", 1)[0]
            doi = _LANDING_PAGE.sub("", trimmed_doi(doi))
        ref = try_parse("doi:" + trimmed_doi(doi))
        if ref is not None:
            found[ref.id] = None
    return list(found)


def trimmed_doi(doi: str) -> str:
    """A DOI found in text without the punctuation written after it: full stops, commas, colons, semicolons,
    quotes, and closing brackets that open nowhere in it (``(doi:10.1/x).`` gives ``10.1/x``, while
    ``10.1016/0370-2693(85)91(1)`` keeps its own)."""
    while True:
        trimmed = doi.rstrip(".,;:'")
        closing = trimmed[-1:]
        if closing in _OPENING and trimmed.count(closing) > trimmed.count(_OPENING[closing]):
            trimmed = trimmed[:-1]
        if trimmed == doi:
            return doi
        doi = trimmed


_OPENING = {")": "(", "]": "["}


def try_parse(text: object) -> Ref | None:
    """``Ref.parse`` that answers None instead of raising."""
    try:
        return Ref.parse(text)
    except DoigetError:
        return None


def _parse(raw: str) -> Ref | None:
    match = _URL_PREFIX.match(raw)
    if match:
        kind = _URL_KINDS[match.lastindex - 1]
        rest = raw[match.end():].split("#", 1)[0]
        if kind != "doi":
            rest = rest.split("?", 1)[0].rstrip("/")
        return _parse_as(kind, rest)
    scheme = _SCHEME_PREFIX.match(raw)
    if scheme:
        kind = scheme.group(1).lower()
        kind = "pmcid" if kind == "pmc" else kind
        rest = raw[scheme.end():]
        if kind == "pmcid" and scheme.group(1).lower() == "pmc":
            rest = "PMC" + rest
        return _parse_as(kind, rest)
    for kind in ("doi", "arxiv", "pmcid", "openalex", "pmid"):
        ref = _parse_as(kind, raw)
        if ref is not None:
            return ref
    return None


def _canonical_arxiv(value: str) -> str:
    """Old-style ids keep arXiv's own casing: lower-case archive, upper-case subject class."""
    if "/" not in value:
        return value
    archive, number = value.split("/", 1)
    name, _, subject = archive.partition(".")
    return f"{name.lower()}.{subject.upper()}/{number}" if subject else f"{name.lower()}/{number}"


def canonical_doi(value: str) -> str | None:
    """A DOI's canonical form (``Ref.of("doi", value).id``: bare, percent-escapes undone, lower-case), without
    making the Ref; None when it is no DOI."""
    doi = value.strip()
    doi = unquote(doi).strip() if "%" in doi else doi
    return doi.lower() if _DOI.match(doi) and "\x00" not in doi else None


def _parse_as(kind: str, value: str) -> Ref | None:
    value = value.strip()
    if kind == "doi":
        doi = canonical_doi(value)
        return Ref("doi", doi) if doi else None
    if kind == "arxiv":
        value = _PDF_SUFFIX.sub("", value)
        match = _ARXIV_NEW.match(value) or _ARXIV_OLD.match(value)
        if match:
            return Ref("arxiv", _canonical_arxiv(match.group(1)), match.group(2))
        return None
    if kind == "pmid":
        return Ref("pmid", str(int(value))) if _PMID.match(value) and int(value) > 0 else None
    if kind == "pmcid":
        match = _PMCID.match(value)
        return Ref("pmcid", f"PMC{int(match.group(1))}") if match and int(match.group(1)) > 0 else None
    if kind == "openalex":
        match = _OPENALEX.match(value)
        return Ref("openalex", f"W{int(match.group(1))}") if match else None
    return None
