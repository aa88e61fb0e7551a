"""add_pdf keeps every identifier a PDF prints, and asks upstream (the loopback server answering
with recorded responses) to confirm a DOI: one Crossref and OpenAlex both answer 404 for is dropped."""
from __future__ import annotations

import pymupdf
import pytest
from fetchenv import (ARXIV_ID, PNAS_DOI, PNAS_PMCID, crossref_path, openalex_path, recording, serve_arxiv,
                      serve_pnas, source_env)
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401

from doiget.config import load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.library import Library
from doiget.net.http import HttpClient, Throttle

MISREAD_DOI = "10.1073/pnas.14142711119"


@pytest.fixture
def lib(https_server, client_ca, monkeypatch, tmp_path):
    for name, value in source_env(https_server, client_ca).items():
        monkeypatch.setenv(name, value)
    with Library(load_config(tmp_path / "home"), http=HttpClient(throttle=Throttle(), sleep=lambda s: None,
                                                                 read_timeout=5.0, ca_bundle=client_ca)) as lib:
        yield lib


def paper(*lines: str) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Developing Functional Musculoskeletal Tissues", fontsize=18)
    for i, line in enumerate(lines):
        page.insert_text((72, 120 + 14 * i), line, fontsize=9)
    return doc.tobytes()


def test_confirmed_doi_keeps_the_arxiv_id_too(lib, https_server):
    serve_pnas(https_server)
    result = lib.add_pdf(paper(f"doi:{PNAS_DOI}", "arXiv:2101.01234v2 [q-bio.TO] 3 Jan 2021"))
    entry = result.entry
    assert result.resolved and result.identified_by == "doi"
    assert (entry.doi, entry.arxiv, entry.pmcid) == (PNAS_DOI, "2101.01234", PNAS_PMCID)
    assert any(r.path.startswith("/crossref/works/") for r in https_server.seen)


def test_doi_unknown_upstream_is_dropped_and_the_arxiv_id_resolves(lib, https_server):
    https_server.route(crossref_path(MISREAD_DOI), Reply(404, recording("crossref/works_notarealdoi_404.txt")))
    https_server.route(openalex_path(MISREAD_DOI), Reply(404, recording("openalex/works_doi_not_found_404.html"),
                                                         {"Content-Type": "text/html"}))
    serve_arxiv(https_server)
    result = lib.add_pdf(paper(f"https://doi.org/{MISREAD_DOI}", f"arXiv:{ARXIV_ID}v1 [cs.CL] 27 Jul 2017"))
    entry = result.entry
    assert result.resolved and entry.arxiv == ARXIV_ID and entry.doi != MISREAD_DOI
    with pytest.raises(DoigetError) as err:
        lib.info(MISREAD_DOI)
    assert err.value.code is ErrorCode.NOT_FOUND
