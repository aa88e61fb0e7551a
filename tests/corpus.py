"""The bibliography corpus of tests/fixtures/bib (see fixtures/SOURCES.md), read once per process."""
from __future__ import annotations

import gzip
from functools import cache
from pathlib import Path

from doiget.formats.importer import ImportRecord, parse_bibliography

FIXTURES = Path(__file__).parent / "fixtures"
BIB = FIXTURES / "bib"
CDL = BIB / "cdl.bib.gz"


def _format(path: Path) -> str:
    """A corpus file's format suffix, under its .gz if it has one."""
    return Path(path.stem).suffix if path.suffix == ".gz" else path.suffix

# The citation-js *-csl.json files are the expected CSL of their .bib twins, not exports of their own; every
# gzip-compressed file but cdl.bib.gz (6,315 entries, which the tests that need it name) is small enough.
SMALL_FILES = sorted(p for p in BIB.iterdir() if _format(p) in (".bib", ".json", ".ris") and p != CDL
                     and not p.name.endswith("-csl.json")) + sorted((FIXTURES / "upstream" / "bibtex").glob("*.bib"))
BIBTEX_FILES = [p for p in SMALL_FILES if _format(p) == ".bib"]


def read(path: Path) -> str:
    """A corpus file's text (gzip-compressed ones decompressed)."""
    if path.suffix == ".gz":
        return gzip.decompress(path.read_bytes()).decode("utf-8")
    return path.read_text(encoding="utf-8-sig")


@cache
def records(path: Path) -> tuple[ImportRecord, ...]:
    """Every record of one corpus file, parsed once."""
    return tuple(parse_bibliography(read(path)))
