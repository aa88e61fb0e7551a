"""Library full text on real artefacts: indexing on add, paging, search, reindex, add_pdf, fetch_fulltext."""
from __future__ import annotations

import logging

import pymupdf
import pytest
from fakehttp import FakeHttp
from pdfgen import sample_paper

from doiget.config import load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import extract_ar5iv, extract_bioc, extract_jats, extract_pdf
from doiget.fulltext import index as fulltext_index
from doiget.fulltext import pdf
from doiget.fulltext.alternates import ar5iv_url, bioc_url
from doiget.fulltext.jatsmeta import read_jats_article
from doiget.library import Library
from doiget.models import Work
from doiget.refs import Ref
from doiget.net.europepmc import fulltext_xml_url
from test_jats_import import JATS as PAPERS_JATS

JATS = PAPERS_JATS / "PMC5828200.nxml"  # absolute, so ``upstream / fixture`` below is this path too
BIOC = "pmc_bioc/BioC_json_PMC4136787_unicode.json"
HTML = "ar5iv/latexml_0.8.8_shamkanov_companion_trimmed.html"


@pytest.fixture
def http() -> FakeHttp:
    return FakeHttp()


@pytest.fixture
def lib(tmp_path, http):
    with Library(load_config(tmp_path / "lib"), http=http) as library:
        yield library


def read_all(lib, ref, max_chars, **kwargs) -> tuple[str, list[dict]]:
    pages, offset = [], 0
    while offset is not None:
        pages.append(lib.text(ref, offset=offset, max_chars=max_chars, **kwargs))
        assert pages[-1].offset == offset
        offset = pages[-1].next_offset
    return "".join(p.text for p in pages), pages


def chunk_rows(lib, with_ids=True):
    columns = ["id", "entry_id", "artefact_id"] * with_ids + ["seq", "heading", "page", "char_start", "char_end",
                                                              "text"]
    return lib.sql(f"SELECT {', '.join(columns)} FROM chunks ORDER BY artefact_id, seq", max_rows=10_000)["rows"]


@pytest.mark.parametrize("kind, fixture, extractor", [("jats", JATS, extract_jats), ("bioc", BIOC, extract_bioc),
                                                      ("html", HTML, extract_ar5iv)])
def test_stored_artefact_is_indexed_and_reads_page_by_page(lib, upstream, kind, fixture, extractor):
    data = (upstream / fixture).read_bytes()
    doc = extractor(data)
    entry = lib.add(Work(pmcid="PMC5828200", title="x"))
    lib.add_artefact(entry.id, kind, data)
    rows = chunk_rows(lib, with_ids=False)
    assert [tuple(r) for r in rows] == [(c.seq, c.heading, c.page, c.char_start, c.char_end, c.text)
                                        for c in doc.chunks]
    text, pages = read_all(lib, "PMC5828200", 2000)
    assert text == doc.text and len(pages) > 2
    assert all(len(p.text) <= 2000 and p.content_sha256 == doc.content_sha256 for p in pages)
    assert all(p.next_offset == q.offset for p, q in zip(pages, pages[1:]))
    assert pages[-1].next_offset is None and pages[0].format == kind
    assert all(not p.text[-1].isalnum() or p is pages[-1] for p in pages)  # cut between words
    assert pages[0].page_range is None and "page_range" not in pages[0].as_json()


def test_chunk_rows_written_several_inserts_at_a_time(lib, monkeypatch):
    """A document with more chunks than one INSERT takes: every row in order, and an FTS index that
    agrees with them (FTS5's integrity-check against its content table)."""
    monkeypatch.setattr(fulltext_index, "INSERT_ROWS", 5)
    data = JATS.read_bytes()
    doc = extract_jats(data)
    assert len(doc.chunks) % 5 and len(doc.chunks) > 10  # full batches and a short last one
    entry = lib.add(Work(pmcid="PMC5828200", title="x"))
    lib.add_artefact(entry.id, "jats", data)
    assert [tuple(r) for r in chunk_rows(lib, with_ids=False)] == [
        (c.seq, c.heading, c.page, c.char_start, c.char_end, c.text) for c in doc.chunks]
    with lib.store.write() as conn:
        conn.exec_driver_sql("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
    assert lib.search_text("curcuminoid")


def test_pdf_pages_and_page_jumps(lib):
    data = sample_paper()
    doc = extract_pdf(data)
    entry = lib.add(Work(doi="10.1234/test.doc-42", title="Field Methods for Soil Ecology"))
    lib.add_artefact(entry.id, "pdf", data)
    text, pages = read_all(lib, entry.id, 700)
    assert text == doc.text
    assert pages[0].page_range[0] == 1 and pages[-1].page_range[1] == 5
    third = lib.text(entry.id, page=3)
    assert third.text.startswith("## 3 Measurements") and third.page_range == [3, 3]
    assert third.offset == doc.page_offsets[2] and third.next_offset == doc.page_offsets[3]
    empty = lib.text(entry.id, page=4)
    assert empty.text == "" and empty.page_range == [4, 4] and empty.empty_pages == [4]
    assert lib.text(entry.id, page=5).next_offset is None
    for bad in ({"page": 6}, {"page": 2, "offset": 5}, {"offset": len(doc.text) + 1}, {"max_chars": 0},
                {"format": "docx"}):
        with pytest.raises(DoigetError) as err:
            lib.text(entry.id, **bad)
        assert err.value.code is ErrorCode.INVALID_INPUT, bad


def test_auto_prefers_structured_text_and_search_reads_the_same_text(lib):
    entry = lib.add(Work(pmcid="PMC5828200", title="Curcuminoid submicron particle"))
    lib.add_artefact(entry.id, "pdf", sample_paper())
    lib.add_artefact(entry.id, "jats", JATS.read_bytes())
    assert lib.text(entry.id).format == "jats"
    assert lib.text(entry.id, format="pdf").format == "pdf"
    with pytest.raises(DoigetError) as err:
        lib.text(entry.id, format="bioc")
    assert err.value.code is ErrorCode.NOT_FOUND
    # "soil" is only in the PDF: the JATS text is what this paper is read and searched as.
    assert lib.search_text("soil") == []
    hit = lib.search_text('"46 million patients"')[0]
    assert hit.format == "jats" and hit.ref == "pmcid:PMC5828200" and "**46 million patients**" in hit.snippet
    page = lib.text(hit.ref, offset=hit.char_start, max_chars=hit.char_end - hit.char_start)
    assert "46 million patients" in page.text


def test_search_text_syntax_filters_and_errors(lib, upstream):
    jats = lib.add(Work(pmcid="PMC5828200", title="Curcuminoid submicron particle", year=2018), tags=["alzheimer"])
    lib.add_artefact(jats.id, "jats", JATS.read_bytes())
    bioc = lib.add(Work(pmcid="PMC4136787", title="BioC paper", year=2014))
    lib.add_artefact(bioc.id, "bioc", (upstream / BIOC).read_bytes())
    both = {h.ref for h in lib.search_text("group*", limit=100)}
    assert both == {"pmcid:PMC5828200", "pmcid:PMC4136787"}
    assert {h.ref for h in lib.search_text("group*", tag="alzheimer", limit=100)} == {"pmcid:PMC5828200"}
    assert {h.ref for h in lib.search_text("group*", ref="PMC4136787", limit=100)} == {"pmcid:PMC4136787"}
    assert {h.ref for h in lib.search_text("group*", year_from=2016, limit=100)} == {"pmcid:PMC5828200"}
    assert {h.ref for h in lib.search_text('"paste food" OR curcuminoid', limit=100)} == both
    assert lib.search_text("curcumin*")[0].ref == "pmcid:PMC5828200"
    assert lib.search_text("curcuminoid NOT curcuminoid") == []
    hits = lib.search_text("heading:assay", limit=100)
    assert len(hits) > 1 and all("assay" in (h.heading or "") for h in hits)
    hits = lib.search_text("patients", limit=3)
    assert len(hits) == 3 and [h.score for h in hits] == sorted(h.score for h in hits)
    for bad in ('"unbalanced', "AND patients", "(patients"):
        with pytest.raises(DoigetError) as err:
            lib.search_text(bad)
        assert err.value.code is ErrorCode.INVALID_QUERY


def test_reindex_is_idempotent(lib):
    entry = lib.add(Work(pmcid="PMC5828200", title="Curcuminoid submicron particle"))
    lib.add_artefact(entry.id, "jats", JATS.read_bytes())
    lib.add_artefact(entry.id, "pdf", sample_paper())
    before, sha = chunk_rows(lib), lib.text(entry.id).content_sha256
    report = lib.reindex(entry.ref_label)
    assert report.artefacts == report.indexed == 2 and report.changed == 0
    assert chunk_rows(lib) == before  # untouched, ids included
    with lib.store.write() as conn:
        conn.exec_driver_sql("DELETE FROM chunks")
    seen = []
    report = lib.reindex(progress=lambda done, total: seen.append((done, total)))
    assert report.changed == 2 and seen == [(1, 2), (2, 2)] and report.failed == []
    assert chunk_rows(lib, with_ids=False) == [r[3:] for r in before]
    assert lib.text(entry.id).content_sha256 == sha
    fts = lib.sql("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'curcuminoid'")["rows"][0][0]
    assert fts == lib.sql("SELECT count(*) FROM chunks WHERE text LIKE '%curcuminoid%'")["rows"][0][0] > 0


def test_extraction_failure_keeps_the_artefact(lib, caplog):
    entry = lib.add(Work(arxiv="2101.01234", title="Broken"))
    with caplog.at_level(logging.WARNING, logger="doiget.library"):
        sha = lib.add_artefact(entry.id, "jats", b"<article><body>unclosed")
    assert "cannot index jats artefact" in caplog.text
    assert lib.info(entry.id).artefacts[0].sha256 == sha and lib.store.blobs.exists(sha)
    assert lib.sql("SELECT count(*) FROM chunks")["rows"] == [[0]]
    failed = lib.reindex().failed
    assert [(f.kind, f.sha256, f.error.code) for f in failed] == [("jats", sha, "INVALID_INPUT")]
    with pytest.raises(DoigetError) as err:
        lib.text(entry.id)
    assert err.value.code is ErrorCode.INVALID_INPUT and "not well-formed" in err.value.message


def test_text_without_full_text_is_not_found_and_never_fetches(lib, http):
    entry = lib.add(Work(arxiv="2101.01234", title="Nothing stored"))
    with pytest.raises(DoigetError) as err:
        lib.text(entry.id)
    assert err.value.code is ErrorCode.NOT_FOUND and "fetch" in err.value.message
    assert http.calls == []


def test_search_can_include_fulltext(lib):
    jats = lib.add(Work(pmcid="PMC5828200", title="Memory deficits in a mouse model"))
    lib.add_artefact(jats.id, "jats", JATS.read_bytes())
    titled = lib.add(Work(doi="10.1000/curcuminoid", title="Curcuminoid chemistry explained"))
    plain = lib.search("curcuminoid")
    assert [h.id for h in plain] == [titled.id] and plain[0].fulltext is None
    hits = lib.search("curcuminoid", include_fulltext=True)
    assert [h.id for h in hits] == [titled.id, jats.id]
    assert hits[0].fulltext is None and hits[1].fulltext.format == "jats"
    assert "**curcuminoid" in hits[1].snippet.lower() and hits[1].fulltext.char_start >= 0
    assert [h.id for h in lib.search("curcuminoid", include_fulltext=True, limit=1)] == [titled.id]


def test_add_pdf_offline_titles_entry_and_dedupes(tmp_path, monkeypatch):
    monkeypatch.setenv("DOIGET_PROFILE", "offline")
    with Library(load_config(tmp_path / "lib")) as lib:
        data = sample_paper()
        first = lib.add_pdf(data)
        entry = first.entry
        assert (entry.doi, entry.title, first.identified_by) == (
            "10.1234/test.doc-42", "Field Methods for Soil Ecology", "doi")
        assert [a.name for a in entry.authors] == ["Ada Müller", "Bo Ångström"] and not first.resolved
        path = tmp_path / "copy.pdf"
        path.write_bytes(data)
        again = lib.add_pdf(path)
        assert again.duplicate and again.entry.id == entry.id and len(again.entry.artefacts) == 1
        assert lib.search_text("LEFTCOL")[0].ref == "doi:10.1234/test.doc-42"

        anonymous = pymupdf.open()
        anonymous.new_page().insert_text((72, 80), "Notes without any identifier", fontsize=11)
        path = tmp_path / "field-notes.pdf"
        path.write_bytes(anonymous.tobytes())
        added = lib.add_pdf(path)
        assert added.identified_by == "title" and added.entry.title == "field-notes"
        label = added.entry.ref_label
        assert label == f"#{added.entry.id}" and "identifier" in lib.text(label).text
        assert lib.recent(1)[0].ref_label == label

        for bad in (b"GIF89a not a pdf", tmp_path / "missing.pdf"):
            with pytest.raises(DoigetError) as err:
                lib.add_pdf(bad)
            assert err.value.code is ErrorCode.INVALID_INPUT


def test_add_pdf_reads_the_file_once(tmp_path, monkeypatch, caplog):
    """add_pdf's sniff and index come from one opening of the PDF; the chunks are extract_pdf's, and reading
    the text then extracts nothing again. A PDF whose extraction fails is still imported from its sniff,
    stored without chunks, the failure logged."""
    monkeypatch.setenv("DOIGET_PROFILE", "offline")
    opened = []
    open_pdf = pdf._open
    monkeypatch.setattr(pdf, "_open", lambda data: opened.append(len(data)) or open_pdf(data))
    with Library(load_config(tmp_path / "lib")) as lib:
        data = sample_paper()
        added = lib.add_pdf(data)
        assert added.identified_by == "doi" and opened == [len(data)]
        assert "Field Methods for Soil Ecology" in lib.text(added.entry.ref_label).text and opened == [len(data)]
        assert [tuple(r) for r in chunk_rows(lib, with_ids=False)] == [
            (c.seq, c.heading, c.page, c.char_start, c.char_end, c.text) for c in extract_pdf(data).chunks]

        def fails(raw):
            raise RuntimeError("layout bug")

        monkeypatch.setattr(pdf, "_lay_out", fails)
        with caplog.at_level(logging.WARNING, logger="doiget.library"):
            added = lib.add_pdf(sample_paper(doi="10.1234/other", arxiv="2102.00001v1"))
        assert "cannot index pdf artefact" in caplog.text
        assert added.entry.doi == "10.1234/other" and added.entry.title == "Field Methods for Soil Ecology"
        assert len(added.entry.artefacts) == 1
        assert lib.sql(f"SELECT count(*) FROM chunks WHERE entry_id = {added.entry.id}")["rows"] == [[0]]


def test_add_pdf_resolves_the_sniffed_doi(lib, http, upstream):
    crossref = "https://api.crossref.org/works/10.1073%2Fpnas.1414271111"
    http.routes[crossref] = (200, upstream / "crossref/works_10.1073_pnas.1414271111.json")
    http.routes["https://api.openalex.org/works/https://doi.org/10.1073%2Fpnas.1414271111"] = (
        200, upstream / "openalex/works_doi_10.1073_pnas.1414271111.json")
    result = lib.add_pdf(sample_paper(doi="10.1073/pnas.1414271111"))
    assert result.resolved and result.entry.pmcid == "PMC4234579"
    assert result.entry.title != "Field Methods for Soil Ecology"  # Crossref's title, not the PDF's
    assert crossref in http.urls()


def test_fetch_fulltext_stores_and_indexes_alternates(lib, http, upstream):
    paper = lib.add(Work(arxiv="1707.08567", title="arXiv paper"))
    pmc = lib.add(Work(pmcid="PMC4136787", title="PMC paper"))
    http.routes[ar5iv_url("1707.08567")] = (200, upstream / HTML)
    http.routes[fulltext_xml_url(Ref("pmcid", "PMC4136787"))] = (404, b"")
    http.routes[bioc_url(Ref("pmcid", "PMC4136787"))] = (200, upstream / BIOC)

    result = lib.fetch_fulltext(paper.id)
    assert [(a.format, a.status) for a in result.alternates] == [
        ("html", "stored"), ("jats", "missing"), ("bioc", "missing")]
    assert lib.text(paper.id).source == "ar5iv"
    result = lib.fetch_fulltext("PMC4136787")
    assert [(a.format, a.status) for a in result.alternates] == [
        ("html", "missing"), ("jats", "missing"), ("bioc", "stored")] and result.stored == 1
    assert lib.text(pmc.id).format == "bioc"
    calls = len(http.calls)
    again = lib.fetch_fulltext("PMC4136787")
    assert again.alternates[2].status == "already_stored" and len(http.calls) == calls + 1  # JATS retried

    other = lib.add(Work(pmcid="PMC5828200", title="JATS paper"))
    http.routes[fulltext_xml_url(Ref("pmcid", "PMC5828200"))] = (200, JATS)
    outcomes = lib.fetch_fulltext(other.id).alternates
    assert [a.status for a in outcomes] == ["missing", "stored", "skipped"]
    references = read_jats_article(JATS.read_bytes()).references
    assert outcomes[1].citation_edges == len(references) > 0  # the fetched JATS' reference list, as edges
    assert bioc_url(Ref("pmcid", "PMC5828200")) not in http.urls()


def test_fetch_fulltext_reports_unusable_pages(lib, http):
    paper = lib.add(Work(arxiv="1707.08567", title="arXiv paper"))
    http.routes[ar5iv_url("1707.08567")] = (200, b"<html><body><h1>arXiv abstract page</h1></body></html>")
    outcome = lib.fetch_fulltext(paper.id).alternates[0]
    assert outcome.status == "missing" and "without full text" in outcome.reason
    assert lib.info(paper.id).artefacts == []


def test_fetch_fulltext_needs_network(tmp_path, monkeypatch):
    monkeypatch.setenv("DOIGET_PROFILE", "offline")
    with Library(load_config(tmp_path / "lib")) as lib:
        lib.add(Work(arxiv="1707.08567", title="arXiv paper"))
        with pytest.raises(DoigetError) as err:
            lib.fetch_fulltext("arXiv:1707.08567")
        assert err.value.code is ErrorCode.CAPABILITY_DENIED
