"""OpenAlex parsing and requests on recorded OpenAlex responses."""
from __future__ import annotations

import json

import pytest
from fakehttp import FakeHttp

from doiget.errors import DoigetError, ErrorCode
from doiget.refs import Ref
from doiget.net import crossref, openalex
from doiget.net.base import HttpResponse

BASE = "https://api.openalex.org"
PNAS = "works_doi_10.1073_pnas.1414271111.json"


def load(upstream, name):
    return json.loads((upstream / "openalex" / name).read_bytes())


def test_ids_and_bibliographic_fields(upstream):
    work = openalex.parse_work(load(upstream, PNAS))
    assert work.ids() == {"doi": "10.1073/pnas.1414271111", "pmid": "25349395", "pmcid": "PMC4234579",
                          "openalex": "W2109415576"}
    assert (work.venue, work.year, work.published) == ("Proceedings of the National Academy of Sciences", 2014, "2014-10-27")
    assert (work.type, work.volume, work.issue, work.pages) == ("article-journal", "111", "45", None)
    assert (work.cited_by_count, work.oa_status, work.language) == (138, "bronze", "en")
    assert [a.name for a in work.authors] == ["Eleftherios Makris", "Donald J. Responte", "Nikolaos K. Paschos",
                                              "Jerry C. Hu", "Kyriacos A. Athanasiou"]
    assert work.authors[0].orcid == "0000-0003-4136-4620"
    assert len(work.references) == 73 and work.references[0] == "openalex:W1490897467"
    assert all(r.startswith("openalex:W") for r in work.references)


def test_abstract_reconstructed_in_order(upstream):
    data = load(upstream, PNAS)
    abstract = openalex.parse_work(data).abstract
    words = abstract.split(" ")
    assert len(words) == 126 and words[:4] == ["Significance", "The", "inadequate", "mechanical"]
    assert words[41] == "The" and words[111] == "The" and words[-1] == "applicable."
    # the same abstract Crossref serves as JATS, word for word
    registered = crossref.parse_work_response(json.loads((upstream / "crossref/works_10.1073_pnas.1414271111.json").read_bytes()))
    assert abstract == registered.abstract


def test_work_without_abstract_single_page(upstream):
    work = openalex.parse_work(load(upstream, "works_doi_10.1016_j.xgen.2025.100814.json"))
    assert work.abstract is None and work.pages == "100814" and work.pmcid is None
    assert (work.pmid, work.openalex, work.license) == ("40120586", "W4408732759", "cc-by")
    assert len(work.references) == 59 and work.publisher == "Elsevier BV"


def test_page_based_list_and_arxiv_location(upstream):
    works, next_cursor, count = openalex.parse_list(load(upstream, "works_filter_title_search_paperqa.json"))
    assert (next_cursor, count) == (None, 1)
    [work] = works
    assert work.title == "PaperQA: Retrieval-Augmented Generative Agent for Scientific Research"
    assert work.ids() == {"doi": "10.48550/arxiv.2312.07559", "arxiv": "2312.07559", "openalex": "W4389761608"}
    assert work.type == "preprint" and work.venue == "arXiv (Cornell University)"
    assert len(work.authors) == 6 and work.authors[-1].name == "Andrew Dickson White"


def test_work_request_urls_per_identifier_kind(upstream):
    item = json.dumps(load(upstream, "works_filter_title_search_paperqa.json")["results"][0]).encode()
    http = FakeHttp({
        f"{BASE}/works/https://doi.org/10.1073%2Fpnas.1414271111": (200, upstream / "openalex" / PNAS),
        f"{BASE}/works/pmid:25349395": (200, upstream / "openalex" / PNAS),
        f"{BASE}/works/pmcid:PMC4234579": (200, upstream / "openalex" / PNAS),
        f"{BASE}/works/W2109415576": (200, upstream / "openalex" / PNAS),
        # /works/{id} answers with the same work object a list carries in results[]
        f"{BASE}/works/https://doi.org/10.48550%2Farxiv.2312.07559": (200, item),
    })
    for text in ("10.1073/pnas.1414271111", "PMID:25349395", "PMC4234579", "W2109415576"):
        assert openalex.work(http, Ref.parse(text)).openalex == "W2109415576"
    assert openalex.work(http, Ref.parse("arXiv:2312.07559")).openalex == "W4389761608"
    assert {c.source for c in http.calls} == {"openalex"}
    assert openalex.identity(http, Ref.parse("2312.07559")) == [
        Ref("doi", "10.48550/arxiv.2312.07559"), Ref("arxiv", "2312.07559"), Ref("openalex", "W4389761608")]


def test_not_found_html_and_wrong_bodies(upstream):
    key = f"{BASE}/works/https://doi.org/10.1046%2Fj.1365-2699.2003.00795"
    http = FakeHttp({key: (404, upstream / "openalex/works_doi_not_found_404.html")})
    with pytest.raises(DoigetError) as err:
        openalex.work(http, Ref.parse("10.1046/j.1365-2699.2003.00795"))
    assert err.value.code is ErrorCode.NOT_FOUND and "OpenAlex" in err.value.message
    # the same HTML served with 200 is not JSON
    http.routes[key] = (200, upstream / "openalex/works_doi_not_found_404.html")
    with pytest.raises(DoigetError) as err:
        openalex.work(http, Ref.parse("10.1046/j.1365-2699.2003.00795"))
    assert err.value.code is ErrorCode.UPSTREAM_ERROR
    # a select=open_access,doi answer lacks the work id
    with pytest.raises(DoigetError, match="without an OpenAlex id"):
        openalex.parse_work(load(upstream, "works_doi_10.1093_nar_gkw1164_select_open_access_doi.json"))
    body = (upstream / "openalex" / PNAS).read_bytes()
    with pytest.raises(DoigetError) as err:
        openalex.parse_work(HttpResponse(200, "u", body[:5000]).json("openalex"))
    assert err.value.code is ErrorCode.UPSTREAM_ERROR
    with pytest.raises(DoigetError, match="without meta and results"):
        openalex.parse_list(load(upstream, PNAS))


def test_search_and_cited_by_params(upstream):
    http = FakeHttp({f"{BASE}/works": (200, upstream / "openalex/works_filter_title_search_paperqa.json")})
    works, next_cursor, count = openalex.search(http, "retrieval agents", filters={"title.search": "PaperQA", "type": "preprint"})
    assert works[0].arxiv == "2312.07559" and next_cursor is None and count == 1
    assert http.calls[0].params == {"search": "retrieval agents", "filter": "title.search:PaperQA,type:preprint",
                                    "cursor": "*", "per-page": 25}


def test_abstract_from_index_edge_cases():
    assert openalex.abstract_from_index(None) is None
    assert openalex.abstract_from_index({}) is None
    assert openalex.abstract_from_index({"b": [1, 3], "a": [0, 2]}) == "a b a b"
