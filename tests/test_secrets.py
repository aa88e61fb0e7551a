"""The contact email is sent upstream yet never leaks (issue 7): not in an MCP reply, CLI output,
debug log line, provenance row, HTTP cache row, or any byte of the library home.

No source takes an API key (doiget/net/http.py only knows the contact email), so the email
is the one secret to trace. Everything runs as real subprocesses against the loopback server.
"""
from __future__ import annotations

import sqlite3
from functools import partial
from urllib.parse import quote

import anyio
from fetchenv import ARXIV_ID, JSON, PNAS_DOI, XGEN_DOI, recording, serve_arxiv, serve_pnas, serve_xgen, source_env
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from test_cli import run

from cli_process import doiget_command

SECRET = "a-unique-secret@example.org"
FORMS = (SECRET, quote(SECRET, safe=""), SECRET.split("@")[0])  # plain, percent-encoded, the local part alone
PAPERQA = "PaperQA: Retrieval-Augmented Generative Agent for Scientific Research"


def leaks(text: str | bytes) -> list[str]:
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    return [form for form in FORMS if form.lower() in text.lower()]


async def mcp_replies(home, log, calls, env) -> list[str]:
    """The raw text of each tool reply, with the server's stderr sent to ``log``."""
    command = f'exec "{doiget_command()[0]}" serve 2>"{log}"'
    params = StdioServerParameters(command="/bin/sh", args=["-c", command], env={"DOIGET_HOME": str(home), **env})
    replies = []
    async with Client(params) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            assert result.structured_content["ok"], (name, result.structured_content)
            replies.append("".join(c.text for c in result.content) + repr(result.structured_content))
    return replies


def assert_home_clean(home) -> None:
    with sqlite3.connect(home / "library.sqlite3") as db:
        log = db.execute("SELECT * FROM v_fetch_log").fetchall()
        cache = db.execute("SELECT key, url, headers, body FROM http_cache").fetchall()
    assert log and cache and not leaks(repr(log)) and not leaks(repr(cache))
    assert any("mailto=REDACTED" in row[4] for row in log)  # the request was logged, its secret redacted
    files = [p for p in home.rglob("*") if p.is_file()]
    assert home / "library.sqlite3" in files
    assert [str(p) for p in files if leaks(p.read_bytes())] == []


def test_contact_email_is_sent_but_never_shown_logged_or_stored(tmp_path, https_server, client_ca):
    serve_pnas(https_server)
    serve_xgen(https_server)
    serve_arxiv(https_server)
    https_server.route("/openalex/works", Reply(200, recording("openalex/works_filter_title_search_paperqa.json"), JSON))
    https_server.route("/crossref/works", Reply(200, recording("crossref/works_query_title_paperqa_rows1.json"), JSON))
    env = {**source_env(https_server, client_ca), "DOIGET_CONTACT_EMAIL": SECRET, "DOIGET_LOG": "DEBUG"}

    mcp_home, log = tmp_path / "mcp", tmp_path / "serve.log"
    calls = [("doiget_fetch_paper", {"ref": PNAS_DOI, "dry_run": True}),
             ("doiget_fetch_paper", {"ref": PNAS_DOI}),
             ("doiget_resolve_paper", {"ref": XGEN_DOI}),
             ("doiget_paper_search", {"query": "PaperQA"}),
             ("doiget_batch_fetch", {"refs": [PNAS_DOI, XGEN_DOI, f"arXiv:{ARXIV_ID}"]}),
             ("doiget_resolve_citation", {"citation": PAPERQA}),
             ("doiget_capability_profile", {})]
    replies = anyio.run(partial(mcp_replies, mcp_home, log, calls, env))
    assert [name for (name, _), reply in zip(calls, replies, strict=True) if leaks(reply)] == []
    assert "DEBUG" in log.read_text() and not leaks(log.read_text())
    assert_home_clean(mcp_home)

    sent = {s.path.split("/")[1] for s in https_server.seen if quote(SECRET, safe="") in s.query}
    assert sent == {"crossref", "openalex", "unpaywall"}  # each API that asks for it got it...
    agents = {s.path.split("/")[1] for s in https_server.seen if SECRET in s.headers.get("user-agent", "")}
    assert "publisher" not in agents and "crossref" in agents  # ...and no publisher host did

    https_server.seen.clear()
    cli_home = tmp_path / "cli"
    outputs = [run(cli_home, *args, stdin=stdin, env=env) for *args, stdin in (
        ("fetch", "--dry-run", PNAS_DOI, None),
        ("fetch", PNAS_DOI, None),
        ("--json", "resolve", XGEN_DOI, None),
        ("search-remote", "PaperQA", None),
        ("--json", "batch", "-", f"{PNAS_DOI}\n{XGEN_DOI}\n{ARXIV_ID}\n"),
        ("cite-resolve", PAPERQA, None),
        ("--json", "fetch", "--no-cache", "10.1371/notarealdoi", None))]
    assert [o.returncode for o in outputs] == [0] * 6 + [1]
    assert [o.args for o in outputs if leaks(o.stdout) or leaks(o.stderr)] == []
    assert any(quote(SECRET, safe="") in s.query for s in https_server.seen)
    assert_home_clean(cli_home)
