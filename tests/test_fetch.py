"""Library.resolve / metadata_only / fetch against the loopback server answering with recorded
upstream responses and a real PDF; every failure mode ends in the right code or status, with
nothing partial in blobs/ and a provenance row written."""
from __future__ import annotations

import hashlib
import json

import pytest
from fetchenv import (ARXIV_ID, PDF, PNAS_DOI, PNAS_PMCID, XGEN_DOI, arxiv_pdf_path, crossref_path,
                      openalex_path, pdf_bytes, recording, serve_arxiv, serve_pnas, serve_xgen,
                      source_env, unpaywall_path)
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server, redirect  # noqa: F401

from doiget.config import load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.library import Library
from doiget.net.http import HttpClient
from doiget.net.throttle import Throttle
from doiget.store.netlog import ProvenanceLog, SqliteCache
from doiget.store.store import Store


@pytest.fixture
def env(https_server, client_ca, monkeypatch):
    for name, value in source_env(https_server, client_ca).items():
        monkeypatch.setenv(name, value)
    return https_server


@pytest.fixture
def make_lib(env, tmp_path, client_ca):
    """Libraries whose client has its own throttle (cool-downs stay in the test), a recorded no-op
    sleep and short timeouts; provenance and cache go to the library's store as in production."""
    opened = []

    def make(**options) -> Library:
        home = tmp_path / "home"
        store = Store(home)
        sleeps: list[float] = []
        settings = dict(record=ProvenanceLog(store), cache=SqliteCache(store), throttle=Throttle(),
                        sleep=sleeps.append, read_timeout=5.0, ca_bundle=client_ca)
        settings.update(options)
        lib = Library(load_config(home), http=HttpClient(**settings))
        lib.sleeps = sleeps
        opened.append((lib, store))
        return lib

    yield make
    for lib, store in opened:
        lib.close()
        store.close()


@pytest.fixture
def lib(make_lib) -> Library:
    return make_lib()


def fetch_log(lib: Library) -> list[tuple]:
    """(source, url path, outcome, from_cache) of every provenance row, oldest first."""
    rows = lib.sql("SELECT source, url, outcome, from_cache FROM v_fetch_log ORDER BY id")["rows"]
    return [(s, "/" + u.split("/", 3)[3], o, c) for s, u, o, c in rows]


def assert_nothing_partial(lib: Library) -> None:
    blobs = lib.store.blobs
    assert list(blobs.all()) == [], "no blob may be left by a failed fetch"
    assert not blobs.tmp.exists() or list(blobs.tmp.iterdir()) == []
    assert lib.sql("SELECT count(*) FROM artefacts")["rows"] == [[0]]


# ---- the paths that work ----------------------------------------------------------------------

def test_fetch_also_stores_the_structured_full_text(lib, env, upstream):
    serve_pnas(env)
    jats = (upstream.parent / "papers" / "jats" / "PMC4113009.xml").read_bytes()  # a Europe PMC JATS answer
    env.route(f"/europepmc/{PNAS_PMCID}/fullTextXML", Reply(200, jats, {"Content-Type": "application/xml"}))
    result = lib.fetch(PNAS_DOI)
    assert result.pdf.status == "fetched"
    outcomes = {a.format: a.status for a in result.fulltext.alternates}
    assert outcomes == {"html": "missing", "jats": "stored", "bioc": "skipped"}
    assert lib.text(PNAS_DOI).source == "jats"  # the structured text is preferred for reading


def test_fetch_stores_the_pdf_from_the_unpaywall_link(lib, env):
    pdf_url = serve_pnas(env)
    result = lib.fetch(f"https://doi.org/{PNAS_DOI}", fulltext=False)
    pdf = result.pdf
    assert (pdf.status, pdf.source, pdf.url) == ("fetched", "oa_pdf", pdf_url)
    assert pdf.sha256 == hashlib.sha256(pdf_bytes()).hexdigest() and pdf.size == len(pdf_bytes())
    assert open(pdf.path, "rb").read() == pdf_bytes()
    assert [a.as_json() for a in pdf.attempts] == [{"source": "oa_pdf", "url": pdf_url, "outcome": "ok"}]
    assert (result.ref, result.oa_status, result.suggested_arxiv_id) == (f"doi:{PNAS_DOI}", "bronze", None)
    entry = result.entry
    assert entry.has_pdf and entry.pmcid == PNAS_PMCID and entry.title.startswith("Developing functional")
    assert [(a.kind, a.source, a.sha256) for a in entry.artefacts] == [("pdf", "oa_pdf", pdf.sha256)]
    assert lib.pdf_path(f"pmid:{entry.pmid}") == lib.store.blobs.path(pdf.sha256)
    assert [(s, o) for s, _, o, _ in fetch_log(lib)] == [
        ("crossref", "ok"), ("openalex", "ok"), ("unpaywall", "ok"), ("oa_pdf", "ok")]
    assert list(lib.store.blobs.tmp.iterdir()) == []


def test_second_fetch_is_already_present_without_a_request(lib, env):
    serve_pnas(env)
    first = lib.fetch(PNAS_DOI, fulltext=False)
    requests = len(env.seen)
    again = lib.fetch(f"PMC{PNAS_PMCID[3:]}", fulltext=False)  # another identifier of the same stored work
    assert again.pdf.status == "already_present" and again.pdf.sha256 == first.pdf.sha256
    assert again.pdf.path == first.pdf.path and len(env.seen) == requests


def test_repeated_resolve_is_served_from_the_cache(lib, env):
    serve_pnas(env)
    entry = lib.resolve(PNAS_DOI)
    requests = len(env.seen)
    assert lib.resolve(PNAS_DOI).id == entry.id and len(env.seen) == requests
    assert [(s, c) for s, _, _, c in fetch_log(lib)] == [("crossref", 0), ("openalex", 0), ("crossref", 1),
                                                          ("openalex", 1)]
    assert not entry.has_pdf and lib.sql("SELECT count(*) FROM entries WHERE is_stub = 0")["rows"] == [[1]]


def test_no_cache_asks_upstream_again(make_lib, env):
    serve_pnas(env)
    make_lib().resolve(PNAS_DOI)
    fresh = make_lib(no_cache=True)
    fresh.resolve(PNAS_DOI)
    assert env.hits(crossref_path(PNAS_DOI)) == 2


def test_arxiv_ids_fetch_from_arxiv_the_version_asked_for(lib, env):
    serve_arxiv(env)
    env.route(arxiv_pdf_path(ARXIV_ID + "v1"), Reply(200, pdf_bytes("v1"), PDF))
    result = lib.fetch(f"arXiv:{ARXIV_ID}v1", fulltext=False)
    assert (result.pdf.status, result.pdf.source) == ("fetched", "arxiv_pdf")
    assert result.pdf.url.endswith(arxiv_pdf_path(ARXIV_ID + "v1")) and result.oa_status == "green"
    assert [s for s, *_ in fetch_log(lib)] == ["arxiv", "arxiv_pdf"]  # no Unpaywall for an arXiv id


def test_no_open_access_copy_is_a_status_not_an_error(lib, env):
    serve_xgen(env)
    result = lib.fetch(XGEN_DOI)
    assert result.pdf.status == "no_oa_url" and result.pdf.reason == "no_pdf_url"
    assert result.pdf.attempts == [] and result.oa_status == "gold"
    assert result.entry.title.startswith("High-throughput screening") and not result.entry.has_pdf
    assert_nothing_partial(lib)


def test_closed_paper_has_reason_closed(lib, env):
    serve_pnas(env)
    closed = recording("unpaywall/v2_10.1023_a_1007154515475.json", {"10.1023/a:1007154515475": PNAS_DOI})
    env.route(unpaywall_path(PNAS_DOI), Reply(200, closed, {"Content-Type": "application/json"}))
    result = lib.fetch(PNAS_DOI)
    # Europe PMC's render is only tried for an open-access work
    assert (result.pdf.status, result.pdf.reason, result.oa_status) == ("no_oa_url", "closed", "closed")


def test_falls_through_to_europe_pmc_when_the_publisher_copy_fails(lib, env):
    serve_pnas(env, pdf=Reply(404), epmc_pdf=Reply(200, pdf_bytes("PMC"), PDF))
    result = lib.fetch(PNAS_DOI)
    assert result.pdf.status == "fetched" and result.pdf.source == "europepmc_pdf"
    assert [a.outcome for a in result.pdf.attempts] == ["NOT_FOUND", "ok"]


def test_metadata_only_saves_metadata_and_reports_oa_location(lib, env):
    pdf_url = serve_pnas(env)
    result = lib.metadata_only(PNAS_DOI, include_oa_location=True)
    assert (result.oa_url, result.oa_status) == (pdf_url, "bronze")
    assert result.entry.doi == PNAS_DOI and env.hits("/publisher/pnas.pdf") == 0
    assert lib.info(PNAS_DOI).id == result.entry.id
    assert "oa_url" not in lib.metadata_only(PNAS_DOI)
    serve_xgen(env)
    gold = lib.metadata_only(XGEN_DOI, include_oa_location=True)
    assert (gold.oa_url, gold.oa_status) == (f"https://doi.org/{XGEN_DOI}", "gold")  # landing page


def test_fetch_and_resolve_fill_an_imported_entry_and_keep_its_fields(lib, env):
    """README: import "never overwrites your fields"; nor does fetching the imported papers afterwards."""
    serve_pnas(env)
    mine = {"type": "article-journal", "DOI": PNAS_DOI, "title": "My own careful TITLE", "volume": "999",
            "author": [{"family": "Makris", "given": "Eleftherios A. (Lefteris)"}], "note": "my note"}
    lib.import_bibliography(json.dumps([mine]), tags=["mine"])
    lib.fetch(PNAS_DOI)
    lib.resolve(PNAS_DOI)
    entry = lib.info(PNAS_DOI)
    assert (entry.title, entry.volume, [a.name for a in entry.authors], entry.extra["note"], entry.tags) == (
        "My own careful TITLE", "999", ["Eleftherios A. (Lefteris) Makris"], "my note", ["mine"])
    assert entry.venue and entry.abstract and entry.issue == "45" and entry.has_pdf  # filled from upstream
    assert entry.oa_status == "bronze" and entry.sources == ["import", "crossref", "openalex"]
    replaced = lib.add(lib.resolve(PNAS_DOI).model_copy(update={"title": "Set on purpose"}))
    assert replaced.title == "Set on purpose"  # Library.add of a work is still an explicit update


def test_dry_run_touches_neither_network_nor_disk(lib, env):
    serve_pnas(env)
    files_before = sorted(p.name for p in lib.home.rglob("*"))
    plan = lib.fetch(PNAS_DOI, dry_run=True)
    assert env.seen == [] and sorted(p.name for p in lib.home.rglob("*")) == files_before
    assert lib.sql("SELECT count(*) FROM provenance")["rows"] == [[0]]
    assert [r.source for r in plan.requests] == ["crossref", "openalex", "unpaywall"]
    assert plan.requests[0].url == env.url(crossref_path(PNAS_DOI)) and plan.candidates == []
    arxiv_plan = lib.fetch(f"arXiv:{ARXIV_ID}", dry_run=True)
    assert [(c.source, c.url) for c in arxiv_plan.candidates] == [("arxiv_pdf", env.url(arxiv_pdf_path(ARXIV_ID)))]
    lib.fetch(PNAS_DOI)
    assert lib.fetch(PNAS_DOI, dry_run=True).pdf.status == "already_present"


def test_link_gives_the_openalex_identity_cluster(lib, env):
    serve_pnas(env)
    linked = lib.link(PNAS_DOI)
    assert linked.identity == {"doi": PNAS_DOI, "pmid": "25349395", "pmcid": PNAS_PMCID, "openalex": "W2109415576"}
    assert linked.arxiv is None and lib.sql("SELECT count(*) FROM entries")["rows"] == [[0]]
    preprint = "10.48550/arxiv.2312.07559"
    item = recording("openalex/works_filter_title_search_paperqa.json")
    env.route(openalex_path(preprint), Reply(200, json.dumps(json.loads(item)["results"][0]).encode()))
    assert lib.link(preprint).arxiv == "2312.07559"


def test_paper_search_pages_with_abstracts_and_validates(lib, env):
    env.route("/openalex/works", lambda seen: Reply(200, recording("openalex/works_filter_title_search_paperqa.json"),
                                                    {"Content-Type": "application/json"}))
    page = lib.paper_search("PaperQA", {"publication_year": "2023"}, per_page=5)
    assert page.count == 1 and page.next_cursor is None
    assert page.results[0].arxiv == "2312.07559" and page.results[0].abstract
    query = env.seen[-1].query
    assert "filter=publication_year%3A2023" in query and "per-page=5" in query and "cursor=%2A" in query
    for bad in (dict(query=None), dict(query="x", filters={"a,b": "1"}), dict(query="x", filters={"year": "1,2"}),
                dict(query="x", per_page=0), dict(query="x", cursor="")):
        with pytest.raises(DoigetError) as err:
            lib.paper_search(**bad)
        assert err.value.code is ErrorCode.INVALID_INPUT


def test_profiles_deny_network_and_writes(env, tmp_path, monkeypatch):
    monkeypatch.setenv("DOIGET_PROFILE", "offline")
    with Library(load_config(tmp_path / "off")) as offline:
        with pytest.raises(DoigetError) as err:
            offline.fetch(PNAS_DOI)
        assert err.value.code is ErrorCode.CAPABILITY_DENIED
        assert offline.fetch(PNAS_DOI, dry_run=True).pdf.status == "planned"  # no network needed
    assert env.seen == []


# ---- what fails, and how ----------------------------------------------------------------------

def pdf_attempts(result) -> list[tuple[str, str, str | None]]:
    return [(a.source, a.outcome, a.reason) for a in result.pdf.attempts]


@pytest.mark.parametrize("name, reply, status, outcome, reason", [
    ("private address", redirect("https://10.0.0.1/paper.pdf"), "blocked", "BLOCKED", "private_address"),
    ("http downgrade", None, "blocked", "BLOCKED", "not_https"),
    ("oversize", Reply(200, b"%PDF-1.7\n", {**PDF, "Content-Length": str(100 * 1024 * 1024 + 1)}),
     "failed", "TOO_LARGE", None),
    ("html as pdf", Reply(200, b"<html><body>Sign in</body></html>", {"Content-Type": "text/html"}),
     "failed", "UPSTREAM_ERROR", "not_pdf"),
    ("html labelled pdf", Reply(200, b"<!DOCTYPE html><html>captcha</html>" * 40, PDF),
     "failed", "UPSTREAM_ERROR", "not_pdf"),
    ("timeout", Reply(200, pdf_bytes(), PDF, delay=1.5), "failed", "FETCH_TIMEOUT", None),
    ("truncated pdf", Reply(200, [pdf_bytes()[:200]], {**PDF, "Content-Length": str(len(pdf_bytes()))}),
     "failed", "NETWORK_ERROR", None),
])
def test_pdf_failures_leave_nothing_partial(make_lib, env, name, reply, status, outcome, reason):
    lib = make_lib(read_timeout=0.5)
    if reply is None:  # http:// downgrade of the publisher link
        reply = redirect(f"http://127.0.0.1:{env.port}/publisher/plain.pdf")
    serve_pnas(env, pdf=reply, epmc_pdf=reply)  # both candidates fail the same way
    result = lib.fetch(PNAS_DOI)
    assert result.pdf.status == status, result.pdf
    attempts = pdf_attempts(result)
    assert attempts[0] == ("oa_pdf", outcome, reason)  # Europe PMC's own allowlist may refuse first
    assert [a[:2] for a in attempts] == [("oa_pdf", outcome), ("europepmc_pdf", outcome)]
    assert result.pdf.reason == (reason or outcome.lower()) and result.pdf.sha256 is None
    assert result.entry.title and not result.entry.has_pdf  # the metadata is kept
    assert_nothing_partial(lib)
    log = fetch_log(lib)
    assert ("oa_pdf", "/publisher/pnas.pdf", "ok" if reply.status == 302 else outcome, 0) in log
    assert any(s == "oa_pdf" and o == outcome for s, _, o, _ in log)


def test_redirect_outside_the_allowlist_is_blocked(lib, env):
    serve_arxiv(env, pdf=redirect(env.url("/elsewhere.pdf", host="localhost")))
    result = lib.fetch(ARXIV_ID, fulltext=False)
    assert result.pdf.status == "blocked" and result.pdf.reason == "host_not_allowed"
    assert pdf_attempts(result) == [("arxiv_pdf", "BLOCKED", "host_not_allowed")]
    assert env.hits("/elsewhere.pdf") == 0
    assert_nothing_partial(lib)
    assert [(s, o) for s, _, o, _ in fetch_log(lib)][-2:] == [("arxiv_pdf", "ok"), ("arxiv_pdf", "BLOCKED")]


def test_429_with_retry_after_is_honoured(lib, env):
    serve_pnas(env, pdf=[Reply(429, b"slow down", {"Retry-After": "2"}), Reply(200, pdf_bytes(), PDF)])
    assert lib.fetch(PNAS_DOI).pdf.status == "fetched"
    assert lib.sleeps == [2.0]
    assert [o for s, _, o, _ in fetch_log(lib) if s == "oa_pdf"] == ["RATE_LIMITED", "ok"]


def test_503_then_success(lib, env):
    serve_pnas(env)
    env.route(crossref_path(PNAS_DOI), [Reply(503), Reply(200, recording("crossref/works_10.1073_pnas.1414271111.json"),
                                                          {"Content-Type": "application/json"})])
    assert lib.fetch(PNAS_DOI).pdf.status == "fetched"
    assert lib.sleeps == [1.0]  # backoff before the retry
    assert [o for s, _, o, _ in fetch_log(lib) if s == "crossref"] == ["UPSTREAM_ERROR", "ok"]


def test_truncated_metadata_is_an_upstream_error(lib, env):
    serve_pnas(env)
    env.route(crossref_path(PNAS_DOI), Reply(200, recording("crossref/works_10.1073_pnas.1414271111.json")[:500],
                                             {"Content-Type": "application/json"}))
    with pytest.raises(DoigetError) as err:
        lib.fetch(PNAS_DOI)
    assert err.value.code is ErrorCode.UPSTREAM_ERROR and "crossref" in err.value.message
    assert env.hits("/publisher/pnas.pdf") == 0 and lib.sql("SELECT count(*) FROM entries")["rows"] == [[0]]
    assert_nothing_partial(lib)
    assert fetch_log(lib)[0][0] == "crossref"
    serve_pnas(env)  # upstream recovers: the broken answer must not have been cached
    assert lib.fetch(PNAS_DOI, fulltext=False).pdf.status == "fetched"
    assert env.hits(crossref_path(PNAS_DOI)) == 2


def test_unknown_identifier_is_not_found(lib, env):
    env.route(crossref_path("10.1371/notarealdoi"), Reply(404, recording("crossref/works_notarealdoi_404.txt")))
    with pytest.raises(DoigetError) as err:
        lib.fetch("10.1371/notarealdoi")
    assert err.value.code is ErrorCode.NOT_FOUND
    assert [(s, o) for s, _, o, _ in fetch_log(lib)] == [("crossref", "NOT_FOUND"), ("openalex", "NOT_FOUND")]


def test_add_artefact_takes_bytes_paths_and_downloads(lib, env, tmp_path):
    serve_pnas(env)
    entry = lib.resolve(PNAS_DOI)
    mine = tmp_path / "mine.pdf"
    mine.write_bytes(pdf_bytes("my copy"))
    assert lib.add_artefact(entry.id, "pdf", mine) == hashlib.sha256(mine.read_bytes()).hexdigest()
    assert mine.exists()  # a user's file is copied, never moved
    download = lib.http.download("oa_pdf", env.url("/publisher/pnas.pdf"), lib.store.blobs.temp_dir())
    with pytest.raises(DoigetError):
        lib.add_artefact("10.9999/absent", "pdf", download)
    assert not download.path.exists()  # a refused Download does not leave its temp file
    assert lib.add_artefact(entry.id, "text", b"plain") == hashlib.sha256(b"plain").hexdigest()
