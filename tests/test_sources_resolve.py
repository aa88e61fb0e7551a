"""resolve() and oa_plan() flows through a fake Http serving recorded upstream responses."""
from __future__ import annotations

import json

import pytest
from fakehttp import FakeHttp

from doiget.errors import DoigetError, ErrorCode
from doiget.models import Work
from doiget.refs import Ref
from doiget.net import arxiv
from doiget.net.resolve import Candidate, oa_plan, resolve

CROSSREF = "https://api.crossref.org/works/"
OPENALEX = "https://api.openalex.org/works/"
UNPAYWALL = "https://api.unpaywall.org/v2/"
ARXIV = "https://export.arxiv.org/api/query"
EPMC = "https://www.ebi.ac.uk/europepmc/webservices/rest/search"
PNAS_CROSSREF = CROSSREF + "10.1073%2Fpnas.1414271111"
PNAS_OPENALEX = OPENALEX + "https://doi.org/10.1073%2Fpnas.1414271111"


@pytest.fixture
def pnas(upstream):
    return FakeHttp({
        PNAS_CROSSREF: (200, upstream / "crossref/works_10.1073_pnas.1414271111.json"),
        PNAS_OPENALEX: (200, upstream / "openalex/works_doi_10.1073_pnas.1414271111.json"),
        OPENALEX + "W2109415576": (200, upstream / "openalex/works_doi_10.1073_pnas.1414271111.json"),
        UNPAYWALL + "10.1073/pnas.1414271111": (200, upstream / "unpaywall/v2_10.1073_pnas.1414271111.json"),
    })


def test_doi_is_crossref_enriched_from_openalex(pnas):
    work = resolve(pnas, Ref.parse("https://doi.org/10.1073/pnas.1414271111"))
    assert pnas.urls() == [PNAS_CROSSREF, PNAS_OPENALEX]
    assert work.sources == ["crossref", "openalex"]
    assert work.ids() == {"doi": "10.1073/pnas.1414271111", "pmid": "25349395", "pmcid": "PMC4234579",
                          "openalex": "W2109415576"}
    assert work.cited_by_count == 129 and work.publisher == "Proceedings of the National Academy of Sciences"
    assert work.oa_status == "bronze"  # only OpenAlex knows it
    assert len(work.references) == 65 + 73
    assert work.abstract.startswith("Significance The inadequate")


@pytest.mark.parametrize("status, body", [(404, b""), (200, b'{"id": "https://openalex.org/W2109415576", "ti')])
def test_openalex_failure_never_sinks_crossref(pnas, status, body):
    pnas.routes[PNAS_OPENALEX] = (status, body)
    work = resolve(pnas, Ref.parse("10.1073/pnas.1414271111"))
    assert work.sources == ["crossref"] and work.openalex is None and len(work.references) == 65


def test_crossref_outage_is_reported(pnas):
    pnas.routes[PNAS_CROSSREF] = (503, b"")
    with pytest.raises(DoigetError) as err:
        resolve(pnas, Ref.parse("10.1073/pnas.1414271111"))
    assert err.value.code is ErrorCode.UPSTREAM_ERROR


def test_datacite_doi_falls_back_to_openalex(upstream):
    item = json.dumps(json.loads((upstream / "openalex/works_filter_title_search_paperqa.json").read_bytes())["results"][0])
    http = FakeHttp({
        CROSSREF + "10.48550%2Farxiv.2312.07559": (404, upstream / "crossref/works_10.48550_arxiv.2312.07559_404.txt"),
        OPENALEX + "https://doi.org/10.48550%2Farxiv.2312.07559": (200, item.encode()),
    })
    work = resolve(http, Ref.parse("10.48550/arXiv.2312.07559"))
    assert work.sources == ["openalex"] and work.arxiv == "2312.07559" and work.type == "preprint"
    http.routes[OPENALEX + "https://doi.org/10.48550%2Farxiv.2312.07559"] = (404, upstream / "openalex/works_doi_not_found_404.html")
    with pytest.raises(DoigetError) as err:
        resolve(http, Ref.parse("10.48550/arXiv.2312.07559"))
    assert err.value.code is ErrorCode.NOT_FOUND and "Crossref nor OpenAlex" in err.value.message


def test_arxiv_with_doi_tries_crossref_and_survives_its_absence(upstream):
    http = FakeHttp({ARXIV: (200, upstream / "arxiv/legacy2016_id_list_1111.2011v2.xml"),
                     CROSSREF + "10.1103%2Fphysrevb.85.115117": (404, b"")})
    work = resolve(http, Ref.parse("arXiv:1111.2011v2"))
    assert http.urls() == [ARXIV, CROSSREF + "10.1103%2Fphysrevb.85.115117"]
    assert (work.arxiv, work.doi, work.sources) == ("1111.2011", "10.1103/physrevb.85.115117", ["arxiv"])


def test_arxiv_without_doi_is_one_request(upstream):
    http = FakeHttp({ARXIV: (200, upstream / "arxiv/id_list_1605.08386.xml")})
    assert resolve(http, Ref.parse("1605.08386")).title == "Heat-bath random walks with Markov bases"
    assert len(http.calls) == 1


def test_pmid_and_pmcid_go_to_europe_pmc(upstream):
    http = FakeHttp({EPMC: (200, upstream / "europepmc/search_query_cancer_resultType_core_page1.json")})
    assert resolve(http, Ref.parse("PMID:40437959")).pmcid == "PMC12120539"
    assert resolve(http, Ref.parse("PMC12170467")).pmid == "40524053"
    assert [c.params["query"] for c in http.calls] == ["(EXT_ID:40437959 AND SRC:MED)", "PMCID:PMC12170467"]
    http.routes[EPMC] = (200, upstream / "europepmc/search_no_results_lite.json")
    with pytest.raises(DoigetError) as err:
        resolve(http, Ref.parse("PMID:1"))
    assert err.value.code is ErrorCode.NOT_FOUND


def test_openalex_id_adds_crossref_which_wins(pnas):
    work = resolve(pnas, Ref.parse("https://openalex.org/W2109415576"))
    assert pnas.urls() == [OPENALEX + "W2109415576", PNAS_CROSSREF]
    assert work.sources == ["crossref", "openalex"] and work.cited_by_count == 129 and work.pmid == "25349395"


def test_plan_publisher_pdf_then_europe_pmc(pnas):
    work = resolve(pnas, Ref.parse("10.1073/pnas.1414271111"))
    plan = oa_plan(pnas, work)
    assert pnas.urls()[-1] == UNPAYWALL + "10.1073/pnas.1414271111"
    assert plan.candidates == [
        Candidate(source="oa_pdf", url="https://www.pnas.org/content/pnas/111/45/E4832.full.pdf"),
        Candidate(source="europepmc_pdf", url="https://europepmc.org/articles/PMC4234579?pdf=render"),
    ]
    assert (plan.oa_status, plan.reason, plan.suggested_arxiv_id) == ("bronze", None, None)


def test_plan_puts_suggested_arxiv_copy_first(upstream):
    http = FakeHttp({UNPAYWALL + "10.1038/nature12373": (200, upstream / "unpaywall/v2_10.1038_nature12373.json")})
    plan = oa_plan(http, Work(doi="10.1038/nature12373"))
    assert plan.suggested_arxiv_id == "1304.1068" and plan.oa_status == "green"
    assert [(c.source, c.url) for c in plan.candidates] == [
        ("arxiv_pdf", "https://arxiv.org/pdf/1304.1068"),
        ("oa_pdf", "https://dash.harvard.edu/bitstream/1/12285462/1/Nanometer-Scale%20Thermometry.pdf"),
        ("oa_pdf", "https://europepmc.org/articles/pmc4221854?pdf=render"),  # asked for over https
    ]


def test_plan_reasons(upstream):
    http = FakeHttp({
        UNPAYWALL + "10.1023/a:1007154515475": (200, upstream / "unpaywall/v2_10.1023_a_1007154515475.json"),
        UNPAYWALL + "10.1016/j.xgen.2025.100814": (200, upstream / "unpaywall/v2_10.1016_j.xgen.2025.100814.json"),
        UNPAYWALL + "10.1371/notarealdoi": (404, b""),
    })
    closed = oa_plan(http, Work(doi="10.1023/a:1007154515475"))
    assert (closed.candidates, closed.reason, closed.oa_status) == ([], "closed", "closed")
    gold = oa_plan(http, Work(doi="10.1016/j.xgen.2025.100814", pmid="40120586"))
    assert (gold.candidates, gold.reason, gold.oa_status) == ([], "no_pdf_url", "gold")
    unknown = oa_plan(http, Work(doi="10.1371/notarealdoi"))
    assert (unknown.candidates, unknown.reason) == ([], "no_pdf_url")


def test_plan_for_arxiv_and_europe_pmc_works_without_unpaywall(upstream):
    http = FakeHttp({EPMC: (200, upstream / "europepmc/search_query_cancer_resultType_core_page1.json")})
    preprint = arxiv.parse_feed((upstream / "arxiv/id_list_1707.08567.xml").read_bytes())[0].work
    plan = oa_plan(http, preprint)
    assert plan.candidates == [Candidate(source="arxiv_pdf", url="https://arxiv.org/pdf/1707.08567")]
    assert http.calls == [] and plan.suggested_arxiv_id is None
    pmc_work = resolve(http, Ref.parse("PMID:40437959")).model_copy(update={"doi": None})
    plan = oa_plan(http, pmc_work)
    assert plan.candidates == [Candidate(source="europepmc_pdf", url="https://europepmc.org/articles/PMC12120539?pdf=render")]
    closed_pmc = resolve(http, Ref.parse("PMID:39709209")).model_copy(update={"doi": None})
    assert oa_plan(http, closed_pmc).reason == "no_pdf_url"


def test_oa_location_as_unpaywall_states_it(pnas, upstream):
    from doiget.net.resolve import oa_location

    assert oa_location(pnas, Work(doi="10.1073/pnas.1414271111")) == (
        "https://www.pnas.org/content/pnas/111/45/E4832.full.pdf", "bronze")
    http = FakeHttp({
        UNPAYWALL + "10.1023/a:1007154515475": (200, upstream / "unpaywall/v2_10.1023_a_1007154515475.json"),
        UNPAYWALL + "10.1016/j.xgen.2025.100814": (200, upstream / "unpaywall/v2_10.1016_j.xgen.2025.100814.json"),
        UNPAYWALL + "10.1371/notarealdoi": (404, b""),
    })
    assert oa_location(http, Work(doi="10.1023/a:1007154515475", oa_url="https://x.org/a.pdf")) == (None, "closed")
    assert oa_location(http, Work(doi="10.1016/j.xgen.2025.100814")) == (
        "https://doi.org/10.1016/j.xgen.2025.100814", "gold")  # no PDF: the landing page
    # without an Unpaywall record, what the metadata said
    assert oa_location(http, Work(doi="10.1371/notarealdoi", oa_url="https://x.org/a.pdf", oa_status="green")) == (
        "https://x.org/a.pdf", "green")
    assert oa_location(http, Work(doi="10.1371/notarealdoi", oa_url="https://x.org/a.pdf", oa_status="closed")) == (
        None, "closed")
