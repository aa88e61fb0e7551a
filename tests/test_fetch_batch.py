"""Library.batch_fetch: 100 refs with 10 failures and duplicates, against the loopback server."""
from __future__ import annotations

import threading

import pytest
from fetchenv import JSON, PDF, crossref_path, openalex_path, pdf_bytes, recording, serve_pnas, source_env
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401

from doiget.config import load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.services.fetching import run_batch
from doiget.library import Library
from doiget.refs import Ref
from doiget.net.http import HttpClient
from doiget.net.throttle import Throttle
from doiget.store.netlog import ProvenanceLog, SqliteCache
from doiget.store.store import Store


@pytest.fixture
def lib(https_server, client_ca, monkeypatch, tmp_path):
    for name, value in source_env(https_server, client_ca).items():
        monkeypatch.setenv(name, value)
    store = Store(tmp_path / "home")
    client = HttpClient(record=ProvenanceLog(store), cache=SqliteCache(store), throttle=Throttle(), sleep=lambda s: None)
    library = Library(load_config(tmp_path / "home"), http=client)
    yield library
    library.close()
    store.close()


def doi(i: int) -> str:
    return f"10.5555/batch.{i:03d}"


def test_hundred_refs_ten_failures_duplicates_once_in_input_order(lib, https_server):
    server = https_server
    for i in range(85):  # the PNAS recordings under 85 DOIs, each with its own PDF
        serve_pnas(server, Reply(200, pdf_bytes(f"paper {i}"), PDF), doi=doi(i), pdf_path=f"/pdf/{i}.pdf",
                   openalex=False)  # OpenAlex would tie every copy to the same W id
    for i in range(85, 89):  # neither Crossref nor OpenAlex knows these
        server.route(crossref_path(doi(i)), Reply(404, recording("crossref/works_notarealdoi_404.txt")))
        server.route(openalex_path(doi(i)), Reply(404, recording("openalex/works_doi_not_found_404.html")))
    for i in range(89, 92):  # Crossref's answer is cut short
        server.route(crossref_path(doi(i)), Reply(200, recording("crossref/works_10.1073_pnas.1414271111.json")[:300],
                                                  JSON))
    refs = [doi(i) for i in range(92)]
    refs += ["not an identifier", "10.5555", "arXiv:99"]  # 3 INVALID_REF: 4 + 3 + 3 = 10 failures
    refs += [f"https://doi.org/{doi(3)}", f"doi:{doi(4).upper()}", doi(5), f"DOI: {doi(6)}", doi(3)]  # 5 duplicates
    assert len(refs) == 100

    seen_progress: list[tuple[int, int]] = []
    threads: set[int] = set()
    run = lib.batch_fetch(refs, progress=lambda done, total, r: (seen_progress.append((done, total)),
                                                                  threads.add(threading.get_ident())))
    results, summary = run.results, run.summary

    assert [r.input for r in results] == refs  # input order
    assert summary.as_json() == {"total": 100, "ok": 90, "errors": 10, "duplicates": 5, "by_status": {"fetched": 90},
                       "by_error": {"NOT_FOUND": 4, "UPSTREAM_ERROR": 3, "INVALID_REF": 3}}
    for i in range(85):
        assert results[i].ok and results[i].pdf.status == "fetched", results[i]
        assert results[i].ref == f"doi:{doi(i)}" and results[i].entry.doi == doi(i)
    assert [results[i].error.code for i in range(85, 95)] == ["NOT_FOUND"] * 4 + ["UPSTREAM_ERROR"] * 3 + [
        "INVALID_REF"] * 3
    assert [r.duplicate_of for r in results[95:]] == [3, 4, 5, 6, 3]
    assert all(results[95 + k].pdf.sha256 == results[j].pdf.sha256 for k, j in enumerate((3, 4, 5, 6, 3)))
    for i in range(85):  # each work resolved and downloaded exactly once
        assert server.hits(f"/pdf/{i}.pdf") == 1 and server.hits(crossref_path(doi(i))) == 1
    assert seen_progress == [(n, 100) for n in range(1, 101)] and threads == {threading.get_ident()}
    assert lib.sql("SELECT count(*) FROM artefacts")["rows"] == [[85]]
    assert lib.sql("SELECT count(*) FROM entries WHERE is_stub = 0")["rows"] == [[85]]
    assert list(lib.store.blobs.tmp.iterdir()) == []
    assert server.max_in_flight > 1  # the batch really ran concurrently


def test_a_bug_in_one_ref_never_fails_the_batch():
    def one(ref: Ref) -> dict:
        if ref.id.endswith("2"):
            raise ValueError("boom")
        return {"ref": str(ref), "pdf": {"status": "planned"}}

    run = run_batch(["10.1000/a1", "10.1000/a2", "10.1000/a3"], one)
    assert [r["ok"] for r in run["results"]] == [True, False, True]
    assert run["results"][1]["error"]["code"] == "INTERNAL_ERROR" and "boom" not in run["results"][1]["error"]["message"]


@pytest.mark.parametrize("refs", [[], ["10.1000/x"] * 101, "10.1000/x"])
def test_batch_size_is_bounded(lib, refs):
    with pytest.raises(DoigetError) as err:
        lib.batch_fetch(refs, dry_run=True)
    assert err.value.code is ErrorCode.INVALID_INPUT


def test_dry_run_batch_plans_without_requests(lib, https_server):
    run = lib.batch_fetch(["10.1000/a", "arXiv:1707.08567", "10.1000/A"], dry_run=True)
    assert https_server.seen == [] and run.summary.by_status == {"planned": 3}
    assert run.results[2].duplicate_of == 0
    assert run.results[1].candidates[0].source == "arxiv_pdf"
