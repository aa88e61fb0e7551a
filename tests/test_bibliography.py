"""Library-level import, export and citation resolving on the real Zotero / Better BibTeX / Crossref fixtures."""
from __future__ import annotations

import json

import bibtexparser
import pytest
from export_helpers import BIBLIOGRAPHY_FIXTURES, UPSTREAM, imported_fixtures
from fakehttp import FakeHttp
from test_citations import REFERENCES

from doiget.config import Config
from doiget.errors import DoigetError, ErrorCode
from doiget.formats.importer import parse_bibliography
from doiget.library import Library
from doiget.services import bibliography

BUNGE = UPSTREAM / "bibtex" / "zotero_bbt_export_bunge_collection_901.bib"
ZOTERO_CSL = UPSTREAM / "csl_json" / "zotero_bbt_export_deterministic_ordering_1178.csl.json"
FIELDS = ("title", "authors", "year", "doi", "venue", "volume", "pages")


def library(tmp_path, http=None, profile="full") -> Library:
    return Library(Config(home=tmp_path / "lib", profile=profile), http=http)


@pytest.fixture
def lib(tmp_path):
    # A FakeHttp without routes fails the test on any request: nothing here may touch the network.
    with library(tmp_path, FakeHttp()) as lib:
        yield lib


def _fields(work) -> dict:
    return {**{name: getattr(work, name) for name in FIELDS}, "authors": [(a.family, a.given) for a in work.authors]}


def test_real_exports_import_and_reimport_merges_everything(lib):
    records = {path.name: parse_bibliography(path.read_text(encoding="utf-8")) for path in BIBLIOGRAPHY_FIXTURES}
    total = 0
    for path in BIBLIOGRAPHY_FIXTURES:
        result = lib.import_bibliography(path)
        n = len(records[path.name])
        assert (result.records, result.added, result.merged, result.skipped) == (n, n, 0, 0), path.name
        assert [row.index for row in result.report] == list(range(n))
        total += n
    assert lib.health().counts["entries"] == total == 69
    again = lib.import_bibliography(BUNGE)
    assert (again.added, again.merged) == (0, 36)
    reasons = {row.reason for row in again.report}
    assert "same title and year as an entry of the library without identifiers" in reasons
    assert {r for r in reasons if r.startswith("matches entry #")} and all(
        r.endswith("(same DOI)") for r in reasons if r.startswith("matches entry #"))
    assert all(row.matched.id.startswith("doi:10.") for row in again.report if row.matched)
    assert lib.health().counts["entries"] == 69
    # Better BibTeX keywords became tags; the DOI-carrying ones are offered for fetching.
    assert ("structural realism", 1) in [(t.name, t.count) for t in lib.tags()]
    with_ids = [r for r in records[BUNGE.name] if r.work.ids()]
    assert again.fetchable == [str(r.work.primary_ref()) for r in with_ids] and len(with_ids) == 6


def test_zotero_csl_entry_keeps_metadata_and_tags(lib):
    result = lib.import_bibliography(ZOTERO_CSL.read_text(encoding="utf-8"), tags=["thesis"])
    first = lib.info(result.report[0].id)
    assert first.doi == "10.1177/0193723504268729" and first.title.startswith("Perceptions of disability")
    assert (first.venue, first.year, first.volume, first.issue, first.pages) == (
        "Journal of Sport and Social Issues", 2004, "28", "4", "429-452")
    assert first.tags == ["thesis"] and first.sources == ["import"]
    assert [(t.name, t.count) for t in lib.tags()] == [("thesis", 26)]


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
    lib.import_bibliography(BUNGE, tags=["bunge"])
    lib.collection_add("reading", ["doi:10.1177/0193723504268729"])
    everything = lib.export("csl-json")
    assert len(everything) == 62 and len({item["id"] for item in everything}) == 62
    assert [i["id"] for i in lib.export("csl-json")] == [i["id"] for i in everything]
    tagged = bibtexparser.parse_string(lib.export("bibtex", tag="bunge"))
    assert len(tagged.entries) == 36 and not tagged.failed_blocks
    assert [i["DOI"] for i in lib.export("csl-json", collection="reading")] == ["10.1177/0193723504268729"]
    ris = lib.export("ris", refs=["10.1177/0193723504268729"])
    assert ris.startswith("TY  - JOUR") and ris.count("ER  - ") == 1
    hits = lib.export("csl-json", query="disability", tag=None)
    assert hits and all("disab" in (i["title"] + i.get("container-title", "")).lower() for i in hits)
    assert lib.export("bibtex", query="disability", tag="bunge") == ""
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
        pairs = [(_fields(a)[f], _fields(b)[f]) for a, b in zip(originals, again, strict=True) for f in FIELDS]
        fidelity = sum(x == y for x, y in pairs) / len(pairs)
        print(f"{format} library round-trip field fidelity: {fidelity:.4f} over {len(pairs)} fields")
        assert fidelity == 1.0


# ---- citation strings ---------------------------------------------------------------------

def test_local_match_answers_without_network(lib):
    lib.import_bibliography(ZOTERO_CSL)
    answer = lib.resolve_citation("Brittain I. Perceptions of disability and their impact upon involvement in "
                                  "sport for people with disabilities at all levels. J Sport Soc Issues 2004;28:429")
    assert answer.answered_from == "library" and lib.http.calls == []
    best = answer.candidates[0]
    assert (best.doi, best.confidence, best.in_library) == ("10.1177/0193723504268729", "exact", True)
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
