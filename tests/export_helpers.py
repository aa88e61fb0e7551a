"""Real bibliography fixtures imported once, shared by the export tests."""
from __future__ import annotations

from pathlib import Path

from doiget.formats.importer import ImportRecord, parse_bibliography

UPSTREAM = Path(__file__).parent / "fixtures" / "upstream"
BIBLIOGRAPHY_FIXTURES = sorted((UPSTREAM / "bibtex").glob("*.bib")) + sorted((UPSTREAM / "csl_json").glob("*.json"))


def imported_fixtures() -> list[ImportRecord]:
    """Every record of every real BibTeX and CSL-JSON fixture, in file order."""
    return [record for path in BIBLIOGRAPHY_FIXTURES for record in parse_bibliography(path.read_text(encoding="utf-8"))]
