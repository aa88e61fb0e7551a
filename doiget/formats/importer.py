"""Bibliography import: CSL-JSON, BibTeX/biblatex and RIS files become :class:`ImportRecord` s.

Identifiers (DOI, arXiv, PMID, PMCID) are looked for in their own fields and, failing that, in
``url``/``note``/``eprint`` fields, and always normalised through :class:`doiget.refs.Ref`. An entry
that cannot be read fully keeps what could be read and says why in ``problems``; only input that is
not a bibliography at all raises ``DoigetError(INVALID_INPUT)``. The readers live in
:mod:`doiget.formats` (``bibtex_read``, ``csl_read``, ``ris_read``).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Literal

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.record import ImportRecord, PlainRecord
from doiget.gcpause import gc_paused

Format = Literal["auto", "csl-json", "bibtex", "ris"]
_RIS_START = re.compile(r"^\s*TY  - ", re.M)
PIECE = 1 << 20  # characters read from a bibliography file at a time

__all__ = ["Format", "ImportRecord", "iter_bibliography", "parse_bibliography"]


def parse_bibliography(text: str, format: Format = "auto") -> list[ImportRecord]:
    """Parse a CSL-JSON, BibTeX or RIS document; ``auto`` decides by its first characters."""
    with gc_paused():
        return list(iter_bibliography(text, format))


def iter_bibliography(source: str | Path, format: Format = "auto",
                      plain: bool = False) -> Iterator[ImportRecord | PlainRecord]:
    """The records of :func:`parse_bibliography` one at a time (CSL-JSON is decoded item by item).
    ``source`` is the document, or a file: a CSL-JSON array is then decoded as the file is read (it is
    never held whole), any other document is read whole first. ``plain``: a CSL-JSON item whose every
    value has a store column comes as a :class:`PlainRecord` (the import's common path)."""
    if isinstance(source, Path):
        pieces = read_pieces(source)
        head = next(pieces, "")
        if format in ("auto", "csl-json") and head.lstrip("\ufeff").lstrip(" \t\r\n").startswith("["):
            from doiget.formats.csl_read import iter_csl
            return iter_csl(chain([head], pieces), plain)
        source = head + "".join(pieces)
    if format == "auto":
        format = _detect(source)
    return _parse(source, format, plain)


def read_pieces(path: Path) -> Iterator[str]:
    """The text of the file ``path`` (UTF-8, a byte-order mark dropped), ``PIECE`` characters at a time;
    a file that cannot be read is INVALID_INPUT."""
    try:
        with path.open(encoding="utf-8-sig") as file:
            while piece := file.read(PIECE):
                yield piece
    except (OSError, UnicodeDecodeError) as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot read {path}: {exc}") from exc


def _parse(text: str, format: Format, plain: bool = False) -> Iterator[ImportRecord | PlainRecord]:
    if format == "csl-json":
        from doiget.formats.csl_read import iter_csl
        return iter_csl(text, plain)
    if format == "bibtex":
        from doiget.formats.bibtex_read import parse_bibtex
        return iter(parse_bibtex(text))
    if format == "ris":
        from doiget.formats.ris_read import parse_ris
        return iter(parse_ris(text))
    raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown bibliography format {format!r}; use auto, csl-json, "
                      "bibtex or ris")


# Bibliography formats doiget does not read, how to tell them (in the first 4,096 characters), and what to
# export instead.
_UNREAD = (
    (re.compile(r"<records>"), "EndNote XML", "in EndNote, export with the output style 'RefMan (RIS) Export' instead"),
    (re.compile(r"zotero\.org/namespaces"), "Zotero RDF", "in Zotero, export as CSL JSON, BibTeX or RIS instead"),
    (re.compile(r"<modsCollection"), "MODS XML", "export as CSL-JSON, BibTeX or RIS instead"),
    (re.compile(r"^%0 ", re.M), "EndNote or Refer tagged text (.enw)", "in EndNote, export as RIS instead"),
    (re.compile(r"^(?:FN .*Web of Science|PT [A-Z]\r?\nAU )", re.M), "Web of Science tagged text",
     "in Web of Science, export as BibTeX or RIS ('Other File Formats') instead"),
    (re.compile(r'\A"?(?:Authors|Author|Title|Article Title|Publication Type|PT|PMID)"?[,;\t]'), "CSV (a Scopus, Web of "
     "Science or PubMed table)", "export as RIS or BibTeX instead"),
    (re.compile(r"^PMID- ?\d", re.M), "PubMed MEDLINE text (.nbib)",
     "in PubMed, save the results in the format 'PMID' and fetch them (doiget batch FILE) instead"),
)
# A BibTeX entry's start, at the start of a line: an e-mail address or a chemical's name ("Fe3O4@SiO2 (core)")
# in another format's text made it "BibTeX" holding no entry.
_BIBTEX_ENTRY = re.compile(r"^[ \t]*@[A-Za-z]+\s*[{(]", re.M)


def _detect(text: str) -> Format:
    head = text.lstrip("\ufeff \t\r\n")[:1]
    if head in ("[", "{"):
        return "csl-json"
    start = text.lstrip("\ufeff")[:4096]
    if _RIS_START.search(start):
        return "ris"
    for marker, name, instead in _UNREAD:
        if marker.search(start):
            raise DoigetError(ErrorCode.INVALID_INPUT, f"{name} is not a format doiget reads: {instead}")
    if _BIBTEX_ENTRY.search(text):
        return "bibtex"
    raise DoigetError(ErrorCode.INVALID_INPUT, "not a bibliography: expected CSL-JSON (starting with '['), "
                      "BibTeX (with @type{key, ...} entries) or RIS (TY  - lines)")
