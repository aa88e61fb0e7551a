"""Unpaywall parsing and requests on recorded Unpaywall responses."""
from __future__ import annotations

import json

import pytest
from fakehttp import FakeHttp

from doiget.errors import DoigetError, ErrorCode
from doiget.refs import Ref
from doiget.net import unpaywall


def load(upstream, name):
    return json.loads((upstream / "unpaywall" / name).read_bytes())


def test_bronze_publisher_pdf(upstream):
    info = unpaywall.parse_oa_info(load(upstream, "v2_10.1073_pnas.1414271111.json"))
    assert (info.doi, info.is_oa, info.oa_status) == ("10.1073/pnas.1414271111", True, "bronze")
    assert info.url_for_pdf == info.url == "https://www.pnas.org/content/pnas/111/45/E4832.full.pdf"
    assert (info.best.host_type, info.best.version, info.best.license) == ("publisher", "publishedVersion", None)
    assert [loc.host_type for loc in info.locations] == ["publisher", "repository"]
    assert info.locations[1].repository_institution == "PubMed Central"
    assert [loc.url_for_pdf for loc in info.locations] == ["https://www.pnas.org/content/pnas/111/45/E4832.full.pdf", None]
    assert info.suggested_arxiv_id is None


def test_gold_without_pdf_url(upstream):
    info = unpaywall.parse_oa_info(load(upstream, "v2_10.1016_j.xgen.2025.100814.json"))
    assert info.oa_status == "gold" and info.best.license == "cc-by"
    assert info.url_for_pdf is None and info.url == "https://doi.org/10.1016/j.xgen.2025.100814"
    assert [loc.url_for_pdf for loc in info.locations] == [None, None]


@pytest.mark.parametrize("name", ["v2_10.1023_a_1007154515475.json", "v2_10.1007_s40278-023-41815-2.json"])
def test_closed(upstream, name):
    info = unpaywall.parse_oa_info(load(upstream, name))
    assert info.is_oa is False and info.oa_status == "closed"
    assert info.best is None and info.locations == [] and info.url_for_pdf is None and info.url is None


def test_arxiv_copy_is_suggested(upstream):
    info = unpaywall.parse_oa_info(load(upstream, "v2_10.1038_nature12373.json"))
    assert info.oa_status == "green" and info.suggested_arxiv_id == "1304.1068"
    assert [loc.arxiv_id for loc in info.locations] == [None, None, None, "1304.1068"]
    assert [loc.url_for_pdf for loc in info.locations] == [
        "https://dash.harvard.edu/bitstream/1/12285462/1/Nanometer-Scale%20Thermometry.pdf",
        "http://europepmc.org/articles/pmc4221854?pdf=render",
        None,
        "http://arxiv.org/pdf/1304.1068",
    ]


def test_request_and_not_found(upstream):
    http = FakeHttp({"https://api.unpaywall.org/v2/10.1023/a:1007154515475": (200, upstream / "unpaywall/v2_10.1023_a_1007154515475.json")})
    assert unpaywall.oa_info(http, Ref.parse("doi:10.1023/A:1007154515475")).is_oa is False
    assert http.calls[0].source == "unpaywall" and http.calls[0].params == {}
    http.routes["https://api.unpaywall.org/v2/10.1371/notarealdoi"] = (404, b"")
    with pytest.raises(DoigetError) as err:
        unpaywall.oa_info(http, Ref.parse("10.1371/notarealdoi"))
    assert err.value.code is ErrorCode.NOT_FOUND and "Unpaywall" in err.value.message


def test_wrong_shape_is_upstream_error(upstream):
    # the search endpoint's answer is not a DOI record
    with pytest.raises(DoigetError) as err:
        unpaywall.parse_oa_info(load(upstream, "v2_search_native_oxide_copper.json"))
    assert err.value.code is ErrorCode.UPSTREAM_ERROR and "unpaywall" in err.value.message
    with pytest.raises(DoigetError):
        unpaywall.parse_oa_info(["not", "an", "object"])
