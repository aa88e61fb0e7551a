"""arXiv Atom parsing (2026 and 2016 formats) and requests on recorded arXiv feeds."""
from __future__ import annotations

import pytest
from fakehttp import FakeHttp

from doiget.errors import DoigetError, ErrorCode
from doiget.refs import Ref
from doiget.net import arxiv

QUERY = "https://export.arxiv.org/api/query"


def feed(upstream, name):
    return arxiv.parse_feed((upstream / "arxiv" / name).read_bytes())


def test_current_format_entry(upstream):
    [entry] = feed(upstream, "id_list_1707.08567.xml")
    work = entry.work
    assert (work.arxiv, entry.version) == ("1707.08567", "v1")
    assert work.title == "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications"
    assert work.abstract.startswith('The 10th Asia-Europe workshop in "Concepts in Information Theory')
    assert len(work.authors) == 34
    assert work.authors[0].name == "Kees A. Schouhamer Immink" and work.authors[0].family == "Immink"
    with_particle = next(a for a in work.authors if a.name == "Peter H. N. de With")  # arXiv gives names whole
    assert (with_particle.given, with_particle.particle, with_particle.family) == ("Peter H. N.", "de", "With")
    assert "Dirk WÃ¼bben" in [a.name for a in work.authors]  # mojibake exactly as recorded
    assert (work.year, work.published, entry.updated) == (2017, "2017-07-27", "2017-07-27T08:18:33Z")
    assert (work.type, work.venue, work.doi) == ("preprint", "arXiv", None)
    assert entry.categories == ["cs.IT"] and entry.primary_category == "cs.IT"
    assert entry.comment == "44 pages, editors for the proceedings: Yanling Chen and A. J. Han Vinck"
    assert entry.pdf_link == "https://arxiv.org/pdf/1707.08567v1"
    assert work.oa_url == "https://arxiv.org/pdf/1707.08567v1" and work.url == "https://arxiv.org/abs/1707.08567v1"


def test_legacy_2016_format_with_doi_and_journal_ref(upstream):
    [entry] = feed(upstream, "legacy2016_id_list_1111.2011v2.xml")
    work = entry.work
    assert (work.arxiv, entry.version) == ("1111.2011", "v2")
    assert work.title == "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    assert work.abstract.startswith("Theoretical description of anisotropic systems, such as layered superconductors")
    assert work.abstract.endswith("describing a single node.") and "\n" not in work.abstract
    assert [a.name for a in work.authors] == ["James M. Murray", "Adrian Del Maestro", "Zlatko Tesanovic"]
    assert work.doi == "10.1103/physrevb.85.115117"
    assert entry.journal_ref == work.venue == "Phys. Rev. B 85, 115117 (2012)"
    assert work.type == "article-journal"
    assert (work.year, entry.updated) == (2011, "2012-04-02T12:38:54Z")
    assert entry.categories == ["cond-mat.str-el", "cond-mat.stat-mech"] and entry.primary_category == "cond-mat.str-el"
    assert entry.pdf_link == "http://arxiv.org/pdf/1111.2011v2"


def test_old_style_id_with_affiliations(upstream):
    [entry] = feed(upstream, "id_list_astro-ph_0601001.xml")
    assert entry.work.arxiv == "astro-ph/0601001" and entry.version == "v1"
    assert [(a.name, a.affiliation) for a in entry.work.authors][:2] == [("Andrew Gould", "Ohio State"),
                                                                         ("Susan Dorsher", "Ohio State")]
    assert entry.work.venue == "ActaAstron.56:1-50,2006" and entry.work.doi is None
    assert entry.work.abstract.endswith("to map this distribution in detail.")
    assert "V_max<17.5" in entry.work.abstract  # &lt; decoded by the XML parser


@pytest.mark.parametrize("name", ["search_query_testing_start0_max10.xml", "legacy2016_search_au_del_maestro.xml"])
def test_search_feeds_have_ten_entries(upstream, name):
    entries = feed(upstream, name)
    assert len(entries) == 10 and len({e.work.arxiv for e in entries}) == 10
    assert all(e.work.title and e.work.authors and e.work.year for e in entries)


def test_legacy_search_dois(upstream):
    entries = feed(upstream, "legacy2016_search_au_del_maestro.xml")
    assert sum(1 for e in entries if e.work.doi) == 10
    assert entries[1].work.arxiv == "cond-mat/0412498" and entries[1].work.doi == "10.1103/physrevb.71.184511"


def test_works_many_ids_one_request_one_missing(upstream):
    http = FakeHttp({QUERY: (200, upstream / "arxiv/id_list_0808.05394_1707.08567_one_missing.xml")})
    found = arxiv.works(http, [Ref.parse("0808.05394"), Ref.parse("arXiv:1707.08567")])
    assert list(found) == ["1707.08567"] and len(found["1707.08567"].authors) == 34
    assert len(http.calls) == 1
    assert http.calls[0].params == {"id_list": "0808.05394,1707.08567", "max_results": 2}


def test_versioned_request_and_empty_feed_not_found(upstream):
    http = FakeHttp({QUERY: (200, upstream / "arxiv/legacy2016_id_list_1111.2011v2.xml")})
    assert arxiv.work(http, Ref.parse("1111.2011v2")).doi == "10.1103/physrevb.85.115117"
    assert http.calls[0].params["id_list"] == "1111.2011v2"
    http.routes[QUERY] = (200, upstream / "arxiv/id_list_0000.0000_empty.xml")
    assert feed(upstream, "id_list_0000.0000_empty.xml") == []
    with pytest.raises(DoigetError) as err:
        arxiv.work(http, Ref.parse("0000.0000"))
    assert err.value.code is ErrorCode.NOT_FOUND


def test_error_feed_is_invalid_ref(upstream):
    http = FakeHttp({QUERY: (400, upstream / "arxiv/id_list_abc_error_400.xml")})
    with pytest.raises(DoigetError) as err:
        arxiv.works(http, [Ref("arxiv", "abc")])  # the recorded request; Ref.parse itself refuses "abc"
    assert err.value.code is ErrorCode.INVALID_REF and "incorrect id format for abc" in err.value.message


def test_truncated_and_foreign_xml_are_upstream_errors(upstream):
    body = (upstream / "arxiv/id_list_1605.08386.xml").read_bytes()
    with pytest.raises(DoigetError) as err:
        arxiv.parse_feed(body[:1500])
    assert err.value.code is ErrorCode.UPSTREAM_ERROR and "malformed XML" in err.value.message
    with pytest.raises(DoigetError, match="not an Atom feed"):
        arxiv.parse_feed((upstream.parent / "papers/jats/PMC4113009.xml").read_bytes())


def test_entity_declarations_are_refused_not_expanded(upstream):
    body = (upstream / "arxiv/id_list_1605.08386.xml").read_text()
    hostile = body.replace("<?xml version='1.0' encoding='UTF-8'?>",
                           '<?xml version="1.0"?>\n<!DOCTYPE feed [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>', 1)
    hostile = hostile.replace("Heat-bath random walks", "&b; Heat-bath random walks")
    with pytest.raises(DoigetError) as err:
        arxiv.parse_feed(hostile.encode())
    assert err.value.code is ErrorCode.UPSTREAM_ERROR and "forbidden" in err.value.message


def test_download_urls_and_datacite_doi(monkeypatch):
    assert arxiv.pdf_url(Ref.parse("1707.08567v1")) == "https://arxiv.org/pdf/1707.08567v1"
    assert arxiv.source_url(Ref.parse("astro-ph/0601001")) == "https://arxiv.org/e-print/astro-ph/0601001"
    monkeypatch.setenv("DOIGET_ARXIV_PDF_BASE", "http://127.0.0.1:8123")
    assert arxiv.pdf_url(Ref.parse("2312.07559")) == "http://127.0.0.1:8123/pdf/2312.07559"
    assert arxiv.from_doi("10.48550/arxiv.2312.07559") == Ref("arxiv", "2312.07559")
    assert arxiv.from_doi("10.1103/physrevb.85.115117") is None
