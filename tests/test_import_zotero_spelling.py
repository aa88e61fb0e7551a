"""One Zotero library, exported as CSL-JSON and as Better BibLaTeX, imports to one spelling of each value:
dates as numbers, keyword lists split on the exporter's separator, names compared as shown, text in NFC."""
from __future__ import annotations

import json
import unicodedata

import pytest
from export_helpers import COOKBOOK_BIB, ZOTERO_BIB, ZOTERO_CSL
from sqlalchemy import text

from doiget.config import Config
from doiget.formats.importer import parse_bibliography
from doiget.formats.record import keywords
from doiget.library import Library


def _by_key(path):
    return {r.key: r for r in parse_bibliography(path.read_text(encoding="utf-8"))}


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """A library that took the CSL-JSON export, and the report of then importing the BibLaTeX one."""
    with Library(Config(home=tmp_path_factory.mktemp("zotero") / "lib", profile="offline")) as lib:
        lib.import_bibliography(ZOTERO_CSL)
        yield lib, lib.import_bibliography(ZOTERO_BIB)


def test_csl_dates_written_as_strings_are_stored_as_numbers():
    raw = {item["id"]: item for item in json.loads(ZOTERO_CSL.read_text(encoding="utf-8"))}
    as_strings = [key for key, item in raw.items() if "accessed" in item
                  and any(type(p) is str for p in item["accessed"]["date-parts"][0])]
    assert len(as_strings) == 70  # Zotero writes the year of "accessed" as a string: [["2014", 9, 9]]
    csl, bib = _by_key(ZOTERO_CSL), _by_key(ZOTERO_BIB)
    assert csl["banay:1948introduction"].work.extra["accessed"] == {"date-parts": [[2014, 9, 9]]}
    shared = [key for key in as_strings if key in bib and "accessed" in bib[key].work.extra]
    assert len(shared) == 55  # those with a urldate in the .bib
    assert all(csl[k].work.extra["accessed"] == bib[k].work.extra["accessed"] for k in shared)


def test_reimport_in_the_other_format_reports_no_date_or_same_name_conflicts(both):
    _, again = both
    fields = {c.field for row in again.report for c in row.conflicts}
    assert "accessed" not in fields
    regenmortel = next(row for row in again.report if row.key == "vanregenmortel:2000relative")
    assert [c.field for c in regenmortel.conflicts] == []  # "M.H. van Regenmortel" in both, split differently
    assert any(c.field == "names" for row in again.report for c in row.conflicts)  # different names still are


def test_keywords_split_on_the_separator_the_exporter_used():
    # latex-cookbook's Better BibLaTeX: comma-separated; the Zotero tag "Handbooks; manuals; etc" is one keyword.
    assert _by_key(COOKBOOK_BIB)["dubbelTaschenbuchFurMaschinenbau2007"].tags == [
        "Handbooks; manuals; etc", "Mechanical engineering"]
    # Scopus' BibTeX export (a record's index keywords, as exported): '; '-separated, a keyword may hold ', '.
    assert keywords("Adolescent; Aged; Child; COVID-19; Diabetes Mellitus, Type 2; Female") == [
        "Adolescent", "Aged", "Child", "COVID-19", "Diabetes Mellitus, Type 2", "Female"]


def test_decomposed_text_is_stored_composed(both):
    source = ZOTERO_BIB.read_text(encoding="utf-8")
    assert "Ribes, Ramo\u0301n" in source  # the file spells it "o" + U+0301
    ribes = next(r for r in _by_key(ZOTERO_BIB).values() if r.work.authors and r.work.authors[0].family == "Ribes")
    assert ribes.work.authors[0].given == "Ram\u00f3n"
    lib, _ = both
    with lib.store.read() as conn:
        stored = [value for sql in ("SELECT title, venue, publisher, json_remove(extra, '$.bibtex') FROM entries",
                                    "SELECT name, family, given, particle FROM entry_authors", "SELECT name FROM tags")
                  for row in conn.execute(text(sql)) for value in row if isinstance(value, str)]
    assert any("Ram\u00f3n" in value for value in stored)
    assert [value for value in stored if not unicodedata.is_normalized("NFC", value)] == []  # bar unread fields


def test_bib_fields_doiget_does_not_read_are_kept_as_written():
    """Zotero names attachments as the file system does (macOS: decomposed); the `file` field, kept under
    extra["bibtex"] and exported back, must name the same file."""
    written = ZOTERO_BIB.read_text(encoding="utf-8")
    record = _by_key(ZOTERO_BIB)["dzuganova:2006negative"]
    raw = record.work.extra["bibtex"]["file"]
    assert not unicodedata.is_normalized("NFC", raw)
    assert raw in written
    assert record.files == [raw]
    assert record.work.title == unicodedata.normalize("NFC", record.work.title)


@pytest.mark.parametrize(("written", "stored"), [
    ("2014/09/09/16:06:39", {"date-parts": [[2014, 9, 9]]}),  # RIS's own Y2 form, with a time
    ("2014-09-09", {"date-parts": [[2014, 9, 9]]}),
    ("autumn 2014", {"raw": "autumn 2014"}),  # not a date the reader knows: kept as written
])
def test_ris_access_dates_are_date_parts_like_the_other_formats(written, stored):
    ris = f"TY  - JOUR\nTI  - Brief outline\nPY  - 2002\nY2  - {written}\nER  - \n"
    [record] = parse_bibliography(ris)
    assert record.work.extra["accessed"] == stored
    bib = _by_key(ZOTERO_BIB)  # the .bib's urldate of the same day is stored the same way
    assert {"date-parts": [[2014, 9, 9]]} in [r.work.extra.get("accessed") for r in bib.values()]
