"""The fetching MCP tools over real stdio and the fetch CLI commands as subprocesses, both against
the loopback server (its settings passed to the subprocess in environment variables)."""
from __future__ import annotations

import json
import os
from functools import partial

import anyio
import pytest
from fetchenv import ARXIV_ID, PNAS_DOI, XGEN_DOI, recording, serve_arxiv, serve_pnas, serve_xgen, source_env
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401
from test_mcp import session_calls

from cli_process import run_doiget
from doiget.net.base import DEFAULT_BASES


@pytest.fixture
def upstream_env(https_server, client_ca):
    serve_pnas(https_server)
    serve_xgen(https_server)
    serve_arxiv(https_server)
    return source_env(https_server, client_ca)


def test_mcp_fetching_tools(tmp_path, https_server, upstream_env):
    home = tmp_path / "lib"
    https_server.route("/openalex/works", Reply(200, recording("openalex/works_filter_title_search_paperqa.json"),
                                                {"Content-Type": "application/json"}))
    dry_runs = [("doiget_fetch_paper", {"ref": PNAS_DOI, "dry_run": True}),
                ("doiget_batch_fetch", {"refs": [PNAS_DOI, ARXIV_ID], "dry_run": True})]
    _, (plan, batch_plan) = anyio.run(partial(session_calls, home, dry_runs, **upstream_env))
    assert plan["ok"] and plan["pdf"]["status"] == "planned" and plan["requests"][0]["source"] == "crossref"
    assert [r["pdf"]["status"] for r in batch_plan["results"]] == ["planned", "planned"]
    assert not home.exists() and https_server.hits(f"/crossref/works/{PNAS_DOI.replace('/', '%2F')}") == 0
    calls = [
        ("doiget_resolve_paper", {"ref": XGEN_DOI}),
        ("doiget_metadata_only", {"ref": PNAS_DOI, "include_oa_location": True}),
        ("doiget_fetch_paper", {"ref": PNAS_DOI}),
        ("doiget_batch_fetch", {"refs": [PNAS_DOI, XGEN_DOI, f"arXiv:{ARXIV_ID}", "bogus", XGEN_DOI.upper()]}),
        ("doiget_link", {"ref": PNAS_DOI}),
        ("doiget_paper_search", {"query": "PaperQA", "filters": {"publication_year": "2023"}, "per_page": 5}),
        ("doiget_capability_profile", {}),
        ("doiget_batch_fetch", {"refs": []}),
        ("doiget_paper_search", {"query": "x", "filters": {"year": "1,2"}}),
    ]
    tools, results = anyio.run(partial(session_calls, home, calls, **upstream_env))
    resolved, meta, fetched, batch, link, search, profile, empty, bad_filter = results
    assert resolved["entry"]["doi"] == XGEN_DOI and resolved["entry"]["oa_status"] == "gold"
    assert meta["oa_status"] == "bronze" and meta["oa_url"] == https_server.url("/publisher/pnas.pdf")
    assert fetched["pdf"]["status"] == "fetched" and os.path.isfile(fetched["pdf"]["path"])
    assert fetched["entry"]["ref"] == f"doi:{PNAS_DOI}" and fetched["entry"]["has_pdf"] is True
    assert [r.get("pdf", {}).get("status") for r in batch["results"]] == [
        "already_present", "no_oa_url", "fetched", None, "no_oa_url"]
    assert batch["results"][3]["error"]["code"] == "INVALID_REF" and batch["results"][4]["duplicate_of"] == 1
    assert batch["summary"]["errors"] == 1 and set(batch["results"][0]["entry"]) == {"ref", "title", "year"}
    assert link["identity"]["pmcid"] == "PMC4234579" and link["arxiv"] is None
    assert search["count"] == 1 and search["results"][0]["arxiv"] == "2312.07559" and search["results"][0]["abstract"]
    assert empty["error"]["code"] == bad_filter["error"]["code"] == "INVALID_INPUT"
    policy = profile["network_policy"]
    sources = {s["name"]: s for s in policy["sources"]}
    assert set(sources) == set(DEFAULT_BASES) | {"oa_pdf"} and sources["oa_pdf"]["allowed_hosts"] == "any public host"
    assert sources["crossref"]["overridden"] and sources["crossref"]["base_url"] == https_server.url("/crossref")
    assert "127.0.0.1" in sources["crossref"]["allowed_hosts"] and "api.crossref.org" in sources["crossref"]["allowed_hosts"]
    assert policy["rate_limits"]["enabled"] is False and policy["size_caps"]["pdf_bytes"] == 100 * 1024 * 1024
    assert policy["private_hosts_allowed"] == ["127.0.0.1"] and policy["custom_ca_bundle"] is True
    hints = {t.name: t.annotations for t in tools}
    assert all(hints[name].open_world_hint for name in ("doiget_fetch_paper", "doiget_link", "doiget_paper_search"))
    assert not hints["doiget_fetch_paper"].read_only_hint and hints["doiget_link"].read_only_hint


def test_mcp_offline_profile(tmp_path, upstream_env):
    calls = [("doiget_fetch_paper", {"ref": PNAS_DOI}), ("doiget_capability_profile", {})]
    _, (fetched, profile) = anyio.run(partial(session_calls, tmp_path / "lib", calls, DOIGET_PROFILE="offline",
                                              **upstream_env))
    assert fetched["error"]["code"] == "CAPABILITY_DENIED" and profile["network_policy"] is None
    assert {t["name"]: t["enabled"] for t in profile["tools"]}["doiget_fetch_paper"] is False


def run(home, env, *args, stdin=None):
    return run_doiget(home, *args, env=env, stdin=stdin)


def test_cli_fetch_resolve_and_search(tmp_path, https_server, upstream_env):
    home = tmp_path / "home"
    dry = run(home, upstream_env, "fetch", "--dry-run", PNAS_DOI, f"arXiv:{ARXIV_ID}")
    assert dry.returncode == 0 and "would request  crossref" in dry.stdout and "would try      arxiv_pdf" in dry.stdout
    assert not home.exists() and https_server.seen == []
    fetched = run(home, upstream_env, "fetch", PNAS_DOI)
    assert fetched.returncode == 0, fetched.stderr
    assert f"doi:{PNAS_DOI}  fetched  Developing functional" in fetched.stdout and "bytes from oa_pdf" in fetched.stdout
    again = json.loads(run(home, upstream_env, "--json", "fetch", PNAS_DOI).stdout)
    assert again["results"][0]["pdf"]["status"] == "already_present"
    assert run(home, upstream_env, "--json", "fetch", "--no-cache", XGEN_DOI).returncode == 0
    resolved = run(home, upstream_env, "resolve", XGEN_DOI)
    assert resolved.returncode == 0 and resolved.stdout.startswith("High-throughput screening")
    missing = run(home, upstream_env, "fetch", "10.1371/notarealdoi")
    assert missing.returncode == 1 and "NOT_FOUND" in missing.stderr and missing.stdout == ""
    https_server.route("/openalex/works", Reply(200, recording("openalex/works_filter_title_search_paperqa.json"),
                                                {"Content-Type": "application/json"}))
    search = run(home, upstream_env, "search-remote", "PaperQA", "--filter", "publication_year=2023")
    assert search.returncode == 0 and search.stdout.startswith("1 works\n1. doi:10.48550/arxiv.2312.07559")
    assert "filter=publication_year%3A2023" in https_server.seen[-1].query
    assert run(home, upstream_env, "search-remote", "x", "--filter", "nonsense").returncode == 1


def test_cli_batch_from_stdin(tmp_path, https_server, upstream_env):
    listing = f"# reading list\n{PNAS_DOI}\n\n{XGEN_DOI}  # gold, landing page only\nnot-a-ref\n{ARXIV_ID}\n{PNAS_DOI.upper()}\n"
    result = run(tmp_path / "home", upstream_env, "batch", "-", stdin=listing)
    assert result.returncode == 3, result.stderr  # the batch ran all lines; exit 3: one of them failed
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ref", "status", "detail", "title"]
    assert [line.split()[1] for line in lines[1:6]] == ["fetched", "no_oa_url", "INVALID_REF", "fetched", "fetched"]
    assert "duplicate of line 1" in lines[5]
    assert lines[-1] == "5 refs: 3 fetched, 1 no_oa_url; 1 failed (1 INVALID_REF)"
    assert "5/5" in result.stderr  # the progress bar
    assert https_server.hits("/publisher/pnas.pdf") == 1
    as_json = json.loads(run(tmp_path / "home", upstream_env, "--json", "batch", "-", stdin=listing).stdout)
    assert as_json["summary"]["by_status"] == {"already_present": 3, "no_oa_url": 1}
    empty = run(tmp_path / "home", upstream_env, "batch", "-", stdin="# nothing\n\n")
    assert empty.returncode == 1 and "INVALID_INPUT" in empty.stderr


def test_cli_import_then_fetch_the_open_access_copies(tmp_path, https_server, upstream_env):
    serve_pnas(https_server)
    bibliography = json.dumps([
        {"id": "makris2014", "type": "article-journal", "title": "Developing functional musculoskeletal tissues",
         "DOI": PNAS_DOI, "issued": {"date-parts": [[2014]]}},
        {"id": "noid", "type": "book", "title": "A book without any identifier"}])
    result = run(tmp_path / "home", upstream_env, "--json", "import", "-", "--fetch", stdin=bibliography)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["added"], report["fetchable"]) == (2, [f"doi:{PNAS_DOI}"])
    assert report["fetch"]["by_status"] == {"fetched": 1}
    assert https_server.hits("/publisher/pnas.pdf") == 1
