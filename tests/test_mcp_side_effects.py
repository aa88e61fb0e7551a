"""Annotation honesty: every MCP tool, called over real stdio on a snapshot of a real library,
against the table-by-table diff of the database file it leaves behind.

A tool annotated read-only must change no row of any table and create no file; a tool annotated
non-destructive may only add rows; the destructive ones are shown to remove or overwrite."""
from __future__ import annotations

import base64
import json

import anyio
import pytest
from dbsnapshot import diff, dump
from fetchenv import PNAS_DOI, XGEN_DOI, pdf_bytes, recording, serve_arxiv, serve_pnas, serve_xgen, source_env
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401
from mcp import Client
from test_mcp import server_params

from doiget import open_library
from doiget.demo import load_demo

JSON = {"Content-Type": "application/json"}
MAKRIS = "Makris 2014 Developing functional musculoskeletal tissues PNAS"
BIB = "@article{k1, title={A paper imported over MCP}, author={Doe, Jane}, year={2020}, doi={10.5555/mcp.1}}"


def crossref_query_answer() -> bytes:
    """Crossref's /works?query answer holding the recorded PNAS work (its /works/{doi} record)."""
    work = json.loads(recording("crossref/works_10.1073_pnas.1414271111.json"))["message"]
    return json.dumps({"status": "ok", "message-type": "work-list", "message-version": "1.0.0",
                       "message": {"items": [{**work, "score": 80.0}], "total-results": 1,
                                   "items-per-page": 5, "query": {"start-index": 0}}}).encode()


def serve_upstream(server) -> None:
    serve_pnas(server)
    serve_xgen(server)
    serve_arxiv(server)
    server.route("/openalex/works", Reply(200, recording("openalex/works_filter_title_search_paperqa.json"), JSON))
    server.route("/crossref/works", Reply(200, crossref_query_answer(), JSON))


@pytest.fixture
def snapshot(tmp_path):
    """The demo library (real metadata, PDFs with extracted text) with a tag, a collection, an
    annotation and a note; returns (home, a paper's ref, another's, the note id)."""
    home = tmp_path / "lib"
    with open_library(home) as lib:
        load_demo(lib)
        with_pdf = [e for e in lib.recent(20) if e.has_pdf]
        ref, other = str(with_pdf[0].ref), str(with_pdf[1].ref)
        lib.tag(ref, ["keep"])
        lib.collection_add("reading", [ref, other])
        lib.annotate(ref, "first annotation")
        note = lib.note_create("a note about the method", ref, [{"page": 1, "quote": "method"}], ["idea"])
    return home, ref, other, note.id


def calls_for(ref: str, other: str, note_id: int) -> list[tuple[str, dict]]:
    """One call of every tool: read-only ones first, then the writers (the destructive ones last)."""
    return [
        ("doiget_info", {"ref": ref}),
        ("doiget_search_local", {"query": "method", "include_fulltext": True}),
        ("doiget_list_recent", {"n": 5}),
        ("doiget_paper_pdf_path", {"ref": ref}),
        ("doiget_health", {}),
        ("doiget_capability_profile", {}),
        ("doiget_link", {"ref": PNAS_DOI}),
        ("doiget_paper_search", {"query": "PaperQA"}),
        ("doiget_bibtex_export", {}),
        ("doiget_csl_export", {"collection": "reading"}),
        ("doiget_ris_export", {"refs": [ref]}),
        ("doiget_resolve_citation", {"citation": MAKRIS}),
        ("doiget_batch_resolve_citations", {"citations": [MAKRIS, "Smith 1999 nothing at all"]}),
        ("doiget_note_read", {"id": note_id}),
        ("doiget_note_search", {"keyword": "method"}),
        ("doiget_note_export", {"id": note_id}),
        ("doiget_list_collections", {}),
        ("doiget_cite", {"refs": [ref]}),
        ("doiget_paper_text", {"ref": ref, "max_chars": 500}),
        ("doiget_search_fulltext", {"query": "demonstration"}),
        ("doiget_related", {"refs": [ref]}),
        ("doiget_connect", {"from_ref": ref, "to_ref": other}),
        ("doiget_literature_review", {"seeds": [ref, other], "limit": 3}),
        ("doiget_fetch_paper", {"ref": PNAS_DOI, "dry_run": True}),
        ("doiget_note_create", {"body": "second note", "ref": other}),
        ("doiget_paper_tex_source", {"ref": ref}),
        ("doiget_fetch_fulltext", {"ref": ref}),
        ("doiget_expand_citation_graph", {"ref": ref, "max_requests": 2}),
        ("doiget_resolve_paper", {"ref": XGEN_DOI}),
        ("doiget_metadata_only", {"ref": PNAS_DOI}),
        ("doiget_fetch_paper", {"ref": PNAS_DOI}),
        ("doiget_batch_fetch", {"refs": [PNAS_DOI, XGEN_DOI]}),
        ("doiget_add_pdf", {"content_base64": base64.b64encode(pdf_bytes("An imported PDF")).decode()}),
        ("doiget_batch_from_bibliography", {"content": BIB}),
        ("doiget_tag", {"ref": ref, "remove": ["keep"], "remove_from_collections": ["reading"]}),
        ("doiget_annotate", {"ref": ref, "text": "second annotation"}),
        ("doiget_note_update", {"id": note_id, "body": "rewritten"}),
        ("doiget_note_delete", {"id": note_id}),
    ]


# Calls whose failure is the expected answer here (the upstream has no record of these).
EXPECTED_FAILURES = {"doiget_paper_tex_source", "doiget_expand_citation_graph"}
# Calls above that must be seen removing or changing a row (their destructiveHint is earned).
SHOWN_DESTRUCTIVE = {"doiget_tag", "doiget_annotate", "doiget_note_update", "doiget_note_delete"}


def files_under(home) -> set[str]:
    return {str(p.relative_to(home)) for p in home.rglob("*") if not p.name.endswith(("-wal", "-shm"))}


async def run_and_diff(home, env, calls):
    """Each call's (annotations, result, diff of the database, files created)."""
    params = server_params(home, **env)
    db = home / "library.sqlite3"
    seen = []
    async with Client(params) as client:
        hints = {t.name: t.annotations for t in (await client.list_tools()).tools}
        for name, arguments in calls:
            before, files = dump(db), files_under(home)
            result = (await client.call_tool(name, arguments)).structured_content
            seen.append((name, hints[name], result, diff(before, dump(db)), files_under(home) - files))
    return hints, seen


def test_every_tool_changes_only_what_its_annotations_allow(snapshot, https_server, client_ca):
    home, ref, other, note_id = snapshot
    serve_upstream(https_server)
    calls = calls_for(ref, other, note_id)
    hints, seen = anyio.run(run_and_diff, home, source_env(https_server, client_ca), calls)
    assert {name for name, _ in calls} == set(hints), "every listed tool is exercised"
    for name, hint, result, change, new_files in seen:
        assert result["ok"] or name in EXPECTED_FAILURES, (name, result)
        if hint.read_only_hint or (name == "doiget_fetch_paper" and result.get("dry_run")):
            assert change.empty and not new_files, (name, change, new_files)
        elif not hint.destructive_hint:
            assert not change.removed_outside(ignore=("http_cache",)), (name, change)
        if name in SHOWN_DESTRUCTIVE:
            assert hint.destructive_hint and change.removed_outside(), (name, change)
    assert https_server.hits("/crossref/works") >= 1  # the citation lookups did reach "Crossref"


@pytest.mark.parametrize("profile", ["full", "read-only"])
def test_read_only_tools_on_a_fresh_home_create_nothing(tmp_path, https_server, client_ca, profile):
    home = tmp_path / "never-created"
    serve_upstream(https_server)
    env = {**source_env(https_server, client_ca), "DOIGET_PROFILE": profile}
    listed, _ = anyio.run(run_and_diff, tmp_path, env, [])  # tmp_path exists: only tools/list is wanted
    calls = [(name, args) for name, args in calls_for("10.1000/absent", "10.1000/other", 1)
             if name in listed and listed[name].read_only_hint]
    assert len(calls) == (23 if profile == "full" else 21)  # read-only has no network: no link, paper_search

    async def run():
        params = server_params(home, **env)
        async with Client(params) as client:
            return {name: (await client.call_tool(name, args)).structured_content for name, args in calls}

    results = anyio.run(run)
    assert not home.exists()
    for name, result in results.items():
        assert result["ok"] or result["error"]["code"] == "NOT_FOUND", (name, result)
    assert results["doiget_info"]["error"]["code"] == "NOT_FOUND"
    assert results["doiget_search_local"]["hits"] == [] and results["doiget_list_recent"]["entries"] == []
    assert results["doiget_list_collections"] == {"ok": True, "collections": [], "tags": []}
    if profile == "full":  # the Crossref answer names the paper of issue 11's failing case: it must come back exact
        best = results["doiget_resolve_citation"]["candidates"][0]
        assert (best["doi"], best["confidence"], best["in_library"]) == (PNAS_DOI, "exact", False)
        assert best["matched"] == ["makris", "2014", "developing", "functional", "musculoskeletal", "tissues", "pnas"]
