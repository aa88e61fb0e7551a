"""Europe PMC search parsing, many-ids lookups and id conversion on recorded Europe PMC responses."""
from __future__ import annotations

import json

import pytest
from fakehttp import FakeHttp

from doiget.errors import DoigetError, ErrorCode
from doiget.refs import Ref
from doiget.net import europepmc

SEARCH = "https://www.ebi.ac.uk/europepmc/webservices/rest/search"
CORE = "search_query_cancer_resultType_core_page1.json"


def load(upstream, name):
    return json.loads((upstream / "europepmc" / name).read_bytes())


def test_core_results(upstream):
    works, next_cursor, count = europepmc.parse_search(load(upstream, CORE))
    assert (len(works), next_cursor, count) == (25, "AoIIP4ZawSg1MzEyODI1MA==", 5059039)
    first = works[0]
    assert (first.pmid, first.pmcid, first.doi) == ("39709209", None, "10.1016/s0140-6736(24)02600-x")
    assert first.title == "Abscopal response in a patient with fibrolamellar hepatocellular carcinoma following radiotherapy"
    assert [a.name for a in first.authors] == ["Jonathan D Schoenfeld", "Daphne A Haas-Kogan", "Allison F O'Neill"]
    assert (first.venue, first.volume, first.issue, first.pages) == ("Lancet (London, England)", "404", "10471", "2603-2604")
    assert (first.year, first.published, first.oa_url, first.abstract) == (2025, "2025-12-01", None, None)
    oa = works[5]
    assert (oa.pmid, oa.pmcid, oa.license) == ("40437959", "PMC12120539", "cc by-nc-nd")
    assert oa.oa_url == "https://europepmc.org/articles/PMC12120539?pdf=render"
    assert oa.abstract.startswith("Issue addressed Despite national cancer screening programs in Australia")
    assert "<h4>" not in oa.abstract and "Methods A culturally tailored" in oa.abstract
    assert oa.authors[1].orcid == "0000-0001-6913-0549"
    # free-to-read (availabilityCode F), not open access
    assert works[1].oa_url == "https://europepmc.org/articles/PMC12124214?pdf=render"
    assert sum(1 for w in works if w.abstract) == 21
    assert sum(1 for w in works if w.pmcid) == 9
    assert works[21].doi is None and works[21].pmid == "39038316"


def test_lite_results_and_no_hits(upstream):
    works, next_cursor, count = europepmc.parse_search(load(upstream, "search_query_cancer_resultType_lite_pageSize5.json"))
    assert len(works) == 5 and next_cursor == "AoIIP4lkIig1MzE0NTMwOA==" and count == 5059039
    assert [(a.family, a.given) for a in works[0].authors] == [("Schoenfeld", "JD"), ("Haas-Kogan", "DA"), ("O'Neill", "AF")]
    assert works[0].venue == "Lancet" and works[0].volume == "404"
    assert europepmc.parse_search(load(upstream, "search_no_results_lite.json")) == ([], None, 0)


def test_search_request_and_cursor(upstream):
    http = FakeHttp({SEARCH: (200, upstream / "europepmc/search_query_cancer_resultType_lite_pageSize5.json")})
    works, next_cursor, _ = europepmc.search(http, "cancer", page_size=5, result_type="lite")
    assert len(works) == 5 and next_cursor == "AoIIP4lkIig1MzE0NTMwOA=="
    assert http.calls[0].params == {"query": "cancer", "format": "json", "resultType": "lite",
                                    "pageSize": 5, "cursorMark": "*"}
    # Europe PMC repeats the cursor it was sent on the last page
    _, next_cursor, _ = europepmc.search(http, "cancer", page_size=5, cursor="AoIIP4lkIig1MzE0NTMwOA==", result_type="lite")
    assert next_cursor is None
    http.routes[SEARCH] = (200, upstream / "europepmc/search_no_results_lite.json")
    assert europepmc.search(http, "asdkfjhasdkfjhasdfasdasdasdfgsagsd") == ([], None, 0)


def test_many_ids_in_one_request(upstream):
    # The recorded body answers "cancer", not this query; it carries the three records asked for among others.
    http = FakeHttp({SEARCH: (200, upstream / "europepmc" / CORE)})
    refs = [Ref.parse("PMID:40437959"), Ref.parse("PMC12174270"), Ref.parse("10.1111/VRU.70051")]
    works = europepmc.works_by_ids(http, refs)
    assert len(http.calls) == 1
    params = http.calls[0].params
    assert params["query"] == '(EXT_ID:40437959 AND SRC:MED) OR PMCID:PMC12174270 OR DOI:"10.1111/vru.70051"'
    assert (params["resultType"], params["pageSize"]) == ("core", 6)
    picked = {ref: next(w for w in works if europepmc.matches(w, ref)) for ref in refs}
    assert picked[refs[1]].pmid == "40377773" and picked[refs[2]].pmcid == "PMC12106854"


def test_many_ids_are_chunked(upstream):
    http = FakeHttp({SEARCH: (200, upstream / "europepmc/search_no_results_lite.json")})
    refs = [Ref.of("pmid", str(n)) for n in range(1, 251)]
    assert europepmc.works_by_ids(http, refs, result_type="lite") == []
    assert [c.params["query"].count(" OR ") + 1 for c in http.calls] == [100, 100, 50]
    with pytest.raises(DoigetError) as err:
        europepmc.ids_query([Ref.parse("arXiv:1707.08567")])
    assert err.value.code is ErrorCode.INVALID_REF


def test_urls():
    assert europepmc.fulltext_xml_url(Ref.parse("PMC2329613")) == \
        "https://www.ebi.ac.uk/europepmc/webservices/rest/PMC2329613/fullTextXML"
    assert europepmc.pdf_url(Ref.parse("pmc4234579")) == "https://europepmc.org/articles/PMC4234579?pdf=render"


def test_garbled_and_misshapen_bodies(upstream):
    body = (upstream / "europepmc/search_query_cancer_resultType_lite_pageSize5.json").read_bytes()
    http = FakeHttp({SEARCH: (200, body[:-40])})
    with pytest.raises(DoigetError) as err:
        europepmc.search(http, "cancer")
    assert err.value.code is ErrorCode.UPSTREAM_ERROR and "europepmc" in err.value.message
    with pytest.raises(DoigetError, match="without hitCount"):
        europepmc.parse_search(json.loads((upstream / "openalex/works_filter_title_search_paperqa.json").read_bytes()))
