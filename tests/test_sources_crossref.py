"""Crossref parsing and requests on recorded Crossref responses."""
from __future__ import annotations

import json

import pytest
from fakehttp import FakeHttp

from doiget.errors import DoigetError, ErrorCode
from doiget.refs import Ref
from doiget.net import crossref
from doiget.net.base import HttpResponse

BASE = "https://api.crossref.org"


def load(upstream, name):
    return json.loads((upstream / "crossref" / name).read_bytes())


def test_full_work_plos_one(upstream):
    work = crossref.parse_work_response(load(upstream, "works_10.1371_journal.pone.0033693.json"))
    assert work.doi == "10.1371/journal.pone.0033693"
    assert work.title == ("Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation "
                          "of Microglia in the Basal Ganglia of Mice")
    assert [a.name for a in work.authors][:2] == ["Shankar Sadasivan", "Brooks B. Pond"]
    assert len(work.authors) == 6 and work.authors[-1].family == "Smeyne"
    assert (work.venue, work.year, work.published) == ("PLoS ONE", 2012, "2012-03-21")
    assert (work.type, work.volume, work.issue, work.pages) == ("article-journal", "7", "3", "e33693")
    assert work.publisher == "Public Library of Science (PLoS)"
    assert work.license == "http://creativecommons.org/licenses/by/4.0/"
    assert work.cited_by_count == 72 and work.language == "en"
    # 70 references, 65 of them with a DOI
    assert len(work.references) == 65
    assert work.references[0] == "doi:10.1038/sj.npp.1301164"
    assert all(r.startswith("doi:10.") for r in work.references)
    assert work.abstract is None and work.sources == ["crossref"]


def test_jats_abstract_and_orcid_pnas(upstream):
    work = crossref.parse_work_response(load(upstream, "works_10.1073_pnas.1414271111.json"))
    assert work.abstract.startswith("Significance The inadequate mechanical properties of engineered tissues")
    assert work.abstract.endswith("are clinically applicable.")
    assert "<" not in work.abstract and "jats" not in work.abstract
    assert [a.orcid for a in work.authors] == [None, None, "0000-0002-1689-6636", None, None]
    assert work.authors[0].affiliation == "Departments of aBiomedical Engineering and"
    assert (work.year, work.issue, work.cited_by_count) == (2014, "45", 129)
    assert len(work.references) == 65


def test_query_result_scores_and_types(upstream):
    hits = crossref.parse_list_response(load(upstream, "works_query_ecology_rows2.json"))
    assert [(h.work.title, h.score) for h in hits] == [("Communicating Ecology", 11.044969),
                                                       ("Chemical Ecology", 10.913344)]
    assert {h.work.type for h in hits} == {"entry"}
    assert hits[1].work.venue == "Ecology" and hits[1].work.year == 2012


def test_query_with_partial_and_missing_dates(upstream):
    hits = crossref.parse_list_response(load(upstream, "works_query_widget_cursor_start.json"))
    assert len(hits) == 20
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and scores[0] == 21.648315
    by_doi = {h.work.doi: h.work for h in hits}
    assert by_doi["10.1007/978-1-4302-0197-7_9"].year is None  # issued [[null]]
    assert by_doi["10.1109/afrcon.2009.5308146"].published == "2009-09"
    assert by_doi["10.1109/afrcon.2009.5308146"].type == "paper-conference"
    assert by_doi["10.32614/cran.package.shinysearchbar"].type == "dataset"
    assert by_doi["10.59350/7mtwq-q3661"].type == "preprint" and by_doi["10.59350/7mtwq-q3661"].venue is None


def test_title_query_and_empty_answer(upstream):
    [hit] = crossref.parse_list_response(load(upstream, "works_query_title_paperqa_rows1.json"))
    assert hit.work.title == "Retrieval augmented scientific claim verification"
    assert hit.work.venue == "JAMIA Open" and len(hit.work.authors) == 11 and hit.score == 28.173157
    assert crossref.parse_list_response(load(upstream, "works_query_title_nonsense_rows1_empty.json")) == []


def test_work_request_url_and_404(upstream, monkeypatch):
    http = FakeHttp({f"{BASE}/works/10.1073%2Fpnas.1414271111": (200, upstream / "crossref/works_10.1073_pnas.1414271111.json"),
                     f"{BASE}/works/10.1371%2Fnotarealdoi": (404, upstream / "crossref/works_notarealdoi_404.txt")})
    assert crossref.work(http, Ref.parse("10.1073/PNAS.1414271111")).volume == "111"
    assert http.calls[0].source == "crossref"
    with pytest.raises(DoigetError) as err:
        crossref.work(http, Ref.parse("10.1371/notarealdoi"))
    assert err.value.code is ErrorCode.NOT_FOUND and "Crossref" in err.value.message


def test_query_request_params_and_base_override(upstream, monkeypatch):
    monkeypatch.setenv("DOIGET_CROSSREF_BASE", "https://crossref.mirror.test/")
    http = FakeHttp({"https://crossref.mirror.test/works": (200, upstream / "crossref/works_query_title_paperqa_rows1.json")})
    hits = crossref.query(http, "PaperQA retrieval", rows=1, field="title")
    assert hits[0].work.doi == "10.1093/jamiaopen/ooae021"
    assert http.calls[0].params == {"query.title": "PaperQA retrieval", "rows": 1}
    with pytest.raises(DoigetError) as err:
        crossref.query(http, "x", field="nonsense")
    assert err.value.code is ErrorCode.INVALID_INPUT


def test_garbled_and_misshapen_bodies_are_upstream_errors(upstream):
    body = (upstream / "crossref/works_10.1371_journal.pone.0033693.json").read_bytes()
    with pytest.raises(DoigetError) as err:
        crossref.parse_work_response(HttpResponse(200, "u", body[: len(body) // 2]).json("crossref"))
    assert err.value.code is ErrorCode.UPSTREAM_ERROR and "crossref" in err.value.message
    # a real Crossref body of the wrong kind: CSL-JSON transform instead of the works envelope
    with pytest.raises(DoigetError) as err:
        crossref.parse_work_response(load(upstream, "transform_csljson_10.1126_science.169.3946.635.json"))
    assert err.value.code is ErrorCode.UPSTREAM_ERROR
    # a work list where a single work was expected
    with pytest.raises(DoigetError, match="expected ok / work"):
        crossref.parse_work_response(load(upstream, "works_query_ecology_rows2.json"))
