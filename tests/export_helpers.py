"""Real bibliography fixtures imported once, shared by the export tests."""
from __future__ import annotations

import unicodedata
from pathlib import Path

from doiget.formats.importer import ImportRecord, parse_bibliography
from doiget.models import Work

FIXTURES = Path(__file__).parent / "fixtures"
UPSTREAM = FIXTURES / "upstream"
# One Zotero library exported as Better BibLaTeX and as CSL-JSON, and a second Better BibLaTeX export.
ZOTERO_BIB = FIXTURES / "bib" / "zotero_latin_greek_terminology.bib"
ZOTERO_CSL = FIXTURES / "bib" / "zotero_latin_greek_terminology.csl.json"
COOKBOOK_BIB = FIXTURES / "bib" / "zotero_latex_cookbook.bib"
# Real exports of distinct works: ZOTERO_BIB holds the works of ZOTERO_CSL again, so it is not among them.
BIBLIOGRAPHY_FIXTURES = [*sorted((UPSTREAM / "bibtex").glob("crossref_*.bib")), COOKBOOK_BIB, ZOTERO_CSL]


def imported_fixtures() -> list[ImportRecord]:
    """Every record of every real BibTeX and CSL-JSON fixture, in file order."""
    return [record for path in BIBLIOGRAPHY_FIXTURES for record in parse_bibliography(path.read_text(encoding="utf-8"))]


COMPARED = ("title", "authors", "year", "doi", "venue", "volume", "pages")


def compared_fields(work: Work) -> dict[str, object]:
    """The fields a round trip must keep, text in NFC: the BibTeX export writes the decomposed ``u`` + U+0308
    of a Zotero export as ``{\\"u}``, which reads back composed: the same text."""
    values = {name: getattr(work, name) for name in COMPARED}
    values["authors"] = [(a.family, a.given) for a in work.authors]
    return {name: _nfc(value) for name, value in values.items()}


def _nfc(value):
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, list | tuple):
        return type(value)(_nfc(v) for v in value)
    return value
