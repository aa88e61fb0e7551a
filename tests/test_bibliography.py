"""Library-level import, export and citation resolving on the real Zotero / Better BibTeX / Crossref fixtures."""
from __future__ import annotations

import json

import bibtexparser
import pytest
from export_helpers import (BIBLIOGRAPHY_FIXTURES, COMPARED, COOKBOOK_BIB, UPSTREAM, ZOTERO_BIB, ZOTERO_CSL,
                            compared_fields, imported_fixtures)
from fakehttp import FakeHttp
from test_citations import REFERENCES

from doiget.config import Config
from doiget.errors import DoigetError, ErrorCode
from doiget.formats.importer import parse_bibliography
from doiget.library import Library
from doiget.services import bibliography

GOBEE_DOI = "10.1002/ca.21185"  # an article of the Zotero library, in both its exports


def library(tmp_path, http=None, profile="full") -> Library:
    return Library(Config(home=tmp_path / "lib", profile=profile), http=http)


@pytest.fixture
def lib(tmp_path):
    # A FakeHttp without routes fails the test on any request: nothing here may touch the network.
    with library(tmp_path, FakeHttp()) as lib:
        yield lib


def test_real_exports_import_and_the_same_library_in_another_format_merges(lib):
    records = {path.name: parse_bibliography(path.read_text(encoding="utf-8")) for path in BIBLIOGRAPHY_FIXTURES}
    total = 0
    for path in BIBLIOGRAPHY_FIXTURES:
        result = lib.import_bibliography(path)
        n = len(records[path.name])
        assert (result.records, result.added, result.merged, result.skipped) == (n, n, 0, 0), path.name
        assert [row.index for row in result.report] == list(range(n))
        total += n
    assert lib.health().counts["entries"] == total == 225
    # The CSL-JSON's library again, as Better BibLaTeX: each of its 208 works merges into its own entry (one
    # each; 135 under the same key, the rest under keys that still agree on the year), 32 works are new.
    again = lib.import_bibliography(ZOTERO_BIB)
    twins = {row.key: lib.info(row.id).citekey for row in again.report if row.status == "merged"}
    assert (again.added, len(twins), len(set(twins.values()))) == (32, 208, 208)
    assert sum(key == csl_key for key, csl_key in twins.items()) == 135
    assert all(key.split(":")[1][:4] == csl_key.split(":")[1][:4] for key, csl_key in twins.items())
    reasons = {row.reason for row in again.report if row.status == "merged"}
    assert "same title and year as an entry of the library without identifiers" in reasons
    assert {r for r in reasons if r.startswith("matches entry #")} and all(
        r.endswith(("(same DOI)", "agreeing titles)")) for r in reasons if r.startswith("matches entry #"))
    assert all(row.matched.id.startswith(("doi:10.", "pmid:")) for row in again.report if row.matched)
    assert lib.health().counts["entries"] == 257
    # Better BibTeX keywords became tags; the records with identifiers are offered for fetching.
    assert ("history of medicine", 10) in [(t.name, t.count) for t in lib.tags()]
    with_ids = [r for r in parse_bibliography(ZOTERO_BIB.read_text(encoding="utf-8")) if r.work.ids()]
    assert again.fetchable == [str(r.work.primary_ref()) for r in with_ids] and len(with_ids) == 126


def test_zotero_csl_entry_keeps_metadata_and_tags(lib):
    result = lib.import_bibliography(ZOTERO_CSL.read_text(encoding="utf-8"), tags=["thesis"])
    (row,) = [row for row in result.report if row.key == "gobée:2011anatomicalterms"]
    entry = lib.info(row.id)
    assert entry.doi == GOBEE_DOI and entry.title.startswith("AnatomicalTerms.info: Heading for an online solution")
    assert (entry.venue, entry.year, entry.volume, entry.issue, entry.pages) == ("Clinical Anatomy", 2011, "24", "7",
                                                                              "817-830")
    assert entry.tags == ["thesis"] and entry.sources == ["import"]
    assert [(t.name, t.count) for t in lib.tags()] == [("thesis", 208)]


def test_two_records_of_a_file_merged_into_one_entry_report_what_they_give_differently(lib):
    # Scopus lists one DOI twice: a book chapter (CHAP) and the same paper as a volume of a NATO series (SER).
    # The first record's values were kept and the second's dropped without a word, and its "SER" RIS type
    # filled the entry, which then exported as SER with the type chapter.
    document = ("TY  - CHAP\nTI  - Quantum information technology based on diamond\nT2  - Nanoscience Advances in "
                "CBRN Agents Detection, Information and Energy Security\nPY  - 2015\nDO  - 10.1007/978-94-017-9697-2_54\n"
                "AU  - Popov, C.\nAU  - Schnabel, F.\nER  - \n\n"
                "TY  - SER\nTI  - Quantum information technology based on diamond\nT2  - NATO Science for Peace and "
                "Security Series A: Chemistry and Biology\nPY  - 2015\nDO  - 10.1007/978-94-017-9697-2_54\n"
                "AU  - Popov, C.\nAU  - Schnable, F.\nER  - \n")
    result = lib.import_bibliography(document)
    assert [row.status for row in result.report] == ["added", "merged"] and result.conflicts == 1
    differ = {c.field: (c.record, c.library, c.file) for c in result.report[1].conflicts}
    assert differ["venue"] == (0, "Nanoscience Advances in CBRN Agents Detection, Information and Energy Security",
                               "NATO Science for Peace and Security Series A: Chemistry and Biology")
    assert differ["type"] == (0, "chapter", "document")
    assert differ["names"] == (0, ["C. Popov", "F. Schnabel"], ["C. Popov", "F. Schnable"])
    entry = lib.info("doi:10.1007/978-94-017-9697-2_54")
    assert entry.type == "chapter" and "ris-type" not in entry.extra
    assert lib.export("ris").startswith("TY  - CHAP")


def test_duplicates_within_a_file_merge_and_unusable_records_are_skipped(lib):
    document = json.dumps([
        {"type": "article-journal", "title": "First copy", "DOI": "10.1000/same", "keyword": "alpha"},
        {"type": "book"},
        {"type": "article-journal", "URL": "https://doi.org/10.1000/SAME", "volume": "7", "keyword": "beta"},
        {"type": "report", "title": "Grey literature without any identifier", "issued": {"date-parts": [[2001]]}},
    ])
    result = lib.import_bibliography(document)
    assert [row.status for row in result.report] == ["added", "skipped", "merged", "added"]
    assert result.report[1].reason == "no identifier and no title"
    # The second copy's DOI is only in its URL, so it joins the first because nothing else differs
    # and it has no title to disagree with; the report names the id and both titles.
    assert result.report[2].reason == "same work as record 0 of this file (same doi and agreeing titles)"
    assert result.report[2].matched.as_json() == {"id": "doi:10.1000/same", "entry_title": "First copy",
                                              "record_title": None}
    entry = lib.info("doi:10.1000/same")
    assert (entry.title, entry.volume, entry.tags) == ("First copy", "7", ["alpha", "beta"])
    assert result.fetchable == ["doi:10.1000/same"]
    assert lib.import_bibliography(document).added == 0


def test_import_rejects_what_is_not_a_bibliography(lib):
    with pytest.raises(DoigetError) as err:
        lib.import_bibliography("hello world")
    assert err.value.code is ErrorCode.INVALID_INPUT


def test_large_import_writes_in_chunks_with_progress(lib, monkeypatch):
    monkeypatch.setattr(bibliography, "CHUNK_SIZE", 500)
    items = [{"type": "article-journal", "title": f"Paper number {i}", "DOI": f"10.5555/bench.{i}",
              "author": [{"family": f"Author{i % 50}", "given": "A"}, {"family": "Shared", "given": "B"}]}
             for i in range(1200)]
    calls = []
    result = lib.import_bibliography(json.dumps(items), progress=lambda done, total: calls.append((done, total)))
    assert calls == [(500, None), (1000, None), (1200, 1200)]  # the total is known once the input is read
    assert result.added == 1200
    hit = lib.search("authors:Author7 number", limit=100)
    assert {h.title for h in hit} >= {"Paper number 7", "Paper number 57"}
    assert lib.info("10.5555/bench.1199").authors[1].name == "B Shared"


def test_export_selectors_and_stable_keys(lib):
    lib.import_bibliography(ZOTERO_CSL)
    lib.import_bibliography(COOKBOOK_BIB, tags=["cookbook"])
    lib.collection_add("reading", [f"doi:{GOBEE_DOI}"])
    everything = lib.export("csl-json")
    assert len(everything) == 222 and len({item["id"] for item in everything}) == 222
    assert [i["id"] for i in lib.export("csl-json")] == [i["id"] for i in everything]
    tagged = bibtexparser.parse_string(lib.export("bibtex", tag="cookbook"))
    assert len(tagged.entries) == 14 and not tagged.failed_blocks
    assert [i["DOI"] for i in lib.export("csl-json", collection="reading")] == [GOBEE_DOI]
    ris = lib.export("ris", refs=[GOBEE_DOI])
    assert ris.startswith("TY  - JOUR") and ris.count("ER  - ") == 1
    hits = lib.export("csl-json", query="title:etymology", tag=None)
    assert hits and all("etymolog" in i["title"].lower() for i in hits)
    assert lib.export("bibtex", query="title:etymology", tag="cookbook") == ""
    with pytest.raises(DoigetError) as err:
        lib.export("bibtex", collection="no such")
    assert err.value.code is ErrorCode.NOT_FOUND
    with pytest.raises(DoigetError) as err:
        lib.export("endnote")
    assert err.value.code is ErrorCode.INVALID_INPUT


def test_stub_entries_are_not_exported(lib):
    from doiget.models import Work
    from doiget.store import entries as entry_store

    lib.import_bibliography(ZOTERO_CSL)
    with lib.store.write() as conn:
        entry_store.upsert_work(conn, Work(doi="10.1000/cited-only", title="Only cited"), stub=True)
    assert "10.1000/cited-only" not in json.dumps(lib.export("csl-json"))


def test_library_round_trip_field_fidelity(lib):
    originals = [record.work for record in imported_fixtures()]
    for path in BIBLIOGRAPHY_FIXTURES:
        lib.import_bibliography(path)
    for format in ("bibtex", "csl-json"):
        exported = lib.export(format)
        text = exported if format == "bibtex" else json.dumps(exported)
        again = [record.work for record in parse_bibliography(text, format)]
        pairs = [(compared_fields(a)[f], compared_fields(b)[f]) for a, b in zip(originals, again, strict=True)
                 for f in COMPARED]
        fidelity = sum(x == y for x, y in pairs) / len(pairs)
        print(f"{format} library round-trip field fidelity: {fidelity:.4f} over {len(pairs)} fields")
        assert fidelity == 1.0


# ---- citation strings ---------------------------------------------------------------------

def test_local_match_answers_without_network(lib):
    lib.import_bibliography(ZOTERO_CSL)
    answer = lib.resolve_citation("Gobée OP, Jansma D, DeRuiter MC. AnatomicalTerms.info: heading for an online "
                                  "solution to the anatomical synonym problem. Clin Anat 2011;24:817")
    assert answer.answered_from == "library" and lib.http.calls == []
    best = answer.candidates[0]
    assert (best.doi, best.confidence, best.in_library) == (GOBEE_DOI, "exact", True)
    assert {"title", "author", "year"} <= set(best.matched_fields)


def _crossref(upstream_name: str) -> FakeHttp:
    return FakeHttp({"https://api.crossref.org/works": (200, UPSTREAM / "crossref" / upstream_name)})


def test_crossref_is_asked_when_the_library_has_no_good_match(tmp_path):
    citation, doi = REFERENCES[0]
    http = _crossref("works_query_widget_cursor_start.json")
    with library(tmp_path, http) as lib:
        lib.import_bibliography(ZOTERO_CSL)
        answer = lib.resolve_citation(citation, limit=3)
    assert [call.params for call in http.calls] == [{"query.bibliographic": citation, "rows": 3}]
    assert answer.answered_from == "crossref"
    best = answer.candidates[0]
    assert (best.doi, best.in_library, best.year) == (doi, False, 2009)
    assert best.confidence in ("exact", "probable") and best.authors[0].endswith("Mendes")
    assert all(c.score >= 0.5 for c in answer.candidates)


def test_crossref_candidate_already_in_the_library_is_marked(tmp_path):
    citation, doi = REFERENCES[0]
    with library(tmp_path, _crossref("works_query_widget_cursor_start.json")) as lib:
        lib.add({"doi": doi, "title": "A review"})  # too little metadata to match locally
        best = lib.resolve_citation(citation).candidates[0]
    assert (best.doi, best.in_library, best.id) == (doi, True, 1)


def test_offline_profile_answers_locally_with_a_note(tmp_path):
    with library(tmp_path, FakeHttp(), profile="offline") as lib:
        answer = lib.resolve_citation("Widget Detection Network: widget detection in mobile screenshots")
    assert answer.candidates == [] and "network access is disabled" in answer.note


def test_batch_resolution_reports_failures_per_citation(tmp_path):
    http = _crossref("works_query_title_nonsense_rows1_empty.json")
    with library(tmp_path, http) as lib:
        results = lib.resolve_citations(["askldjrq3rjaw938h", "..."])
        with pytest.raises(DoigetError):
            lib.resolve_citations([])
    assert results[0].candidates == [] and results[0].answered_from == "crossref"
    assert results[1].error.code == "INVALID_INPUT"
