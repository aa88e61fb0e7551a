"""Hostile query strings (NUL, lone surrogates, control characters) at every query entry point:
the façade, the CLI and a real MCP stdio server. Each is INVALID_QUERY naming the character; no
SQL text, no raw exception, and the server keeps answering."""
from __future__ import annotations

import subprocess

import pytest

from cli_process import run_doiget
from doiget import open_library
from doiget.demo import load_demo
from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import search as fulltext_search
from stdio_client import RawServer

HOSTILE = {"nul": "cancer\x00 OR 1", "surrogate": "can\ud800cer", "escape": "x\x1b[31mred", "del": "a\x7fb",
           "c1": "a\x9bb", "bell": "\x07"}


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("hostile-query")
    with open_library(home) as lib:
        load_demo(lib)
        lib.note_create("a note about cancer")
    return home


ENTRY_POINTS = {
    "search": lambda lib, q: lib.search(q),
    "search+fulltext": lambda lib, q: lib.search(q, include_fulltext=True),
    "search_text": lambda lib, q: lib.search_text(q),
    "note_search": lambda lib, q: lib.note_search(q),
    "export bibtex": lambda lib, q: lib.export("bibtex", query=q),
    "export csl-json": lambda lib, q: lib.export("csl-json", query=q),
    "resolve_citation": lambda lib, q: lib.resolve_citation(q),
    "paper_search": lambda lib, q: lib.paper_search(q),
    "sql": lambda lib, q: lib.sql(f"SELECT '{q}'"),
}


@pytest.mark.parametrize("kind", HOSTILE)
@pytest.mark.parametrize("entry_point", ENTRY_POINTS)
def test_facade_refuses_hostile_query(demo_home, entry_point, kind):
    with open_library(demo_home) as lib:
        with pytest.raises(DoigetError) as caught:
            ENTRY_POINTS[entry_point](lib, HOSTILE[kind])
    error = caught.value
    assert error.code is ErrorCode.INVALID_QUERY
    hostile_char = next(c for c in HOSTILE[kind] if not c.isalnum() and c not in " [()'")
    assert f"U+{ord(hostile_char):04X}" in error.message
    assert "SELECT" not in error.message and "[SQL" not in error.message


def test_whitespace_controls_are_ordinary_separators(demo_home):
    with open_library(demo_home) as lib:
        assert [h.id for h in lib.search("cancer\tclassification")] == [h.id for h in lib.search(
            "cancer classification")]
        assert lib.note_search("note\nabout").notes


@pytest.mark.parametrize("entry_point", ["search", "search_text", "note_search", "export bibtex"])
def test_fts_parser_error_is_invalid_query_with_a_hint_not_sql(demo_home, entry_point):
    """100 nested parentheses are valid syntax that overflows FTS5's parser stack."""
    with open_library(demo_home) as lib:
        with pytest.raises(DoigetError) as caught:
            ENTRY_POINTS[entry_point](lib, "(" * 100 + "cancer" + ")" * 100)
    assert caught.value.code is ErrorCode.INVALID_QUERY
    assert "stack overflow" in caught.value.message and "prefix*" in caught.value.message
    assert "SELECT" not in caught.value.message


def test_unterminated_match_string_is_invalid_query(demo_home):
    """compile_query never emits an unterminated string; fed one directly, the store still maps it."""
    with open_library(demo_home) as lib, lib.store.read() as conn:
        with pytest.raises(DoigetError) as caught:
            fulltext_search.search_chunks(conn, '"unterminated', 5, [], {})
    assert caught.value.code is ErrorCode.INVALID_QUERY
    assert "prefix*" in caught.value.message and "SELECT" not in caught.value.message


def run_cli(home, *args: str | bytes) -> subprocess.CompletedProcess:
    return run_doiget(None, "--home", str(home), *args, env={"DOIGET_PROFILE": "offline"}, text=False, timeout=60)


CLI_COMMANDS = {
    "search": ["search"], "grep": ["grep"], "note search": ["note", "search"],
    "export --query": ["export", "--query"], "sql": ["sql"], "cite-resolve": ["cite-resolve"],
}


@pytest.mark.parametrize("arg", [b"can\x01cer", b"can\xffcer"], ids=["control", "not-utf8"])
@pytest.mark.parametrize("command", CLI_COMMANDS)
def test_cli_refuses_hostile_query_without_traceback(demo_home, command, arg):
    # bytes that are not UTF-8 reach Python as lone surrogates (surrogateescape)
    result = run_cli(demo_home, *CLI_COMMANDS[command], arg)
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == 1, stderr
    assert stderr.startswith("doiget: INVALID_QUERY: ") and "Traceback" not in stderr
    assert result.stdout == b""


MCP_CALLS = {
    "doiget_search_local": "query", "doiget_search_fulltext": "query", "doiget_note_search": "keyword",
    "doiget_bibtex_export": "query", "doiget_csl_export": "query", "doiget_ris_export": "query",
    "doiget_resolve_citation": "citation",  # doiget_paper_search: not listed offline (CAPABILITY_DENIED)
}


def test_mcp_refuses_hostile_queries_and_keeps_answering(demo_home):
    server = RawServer(demo_home, DOIGET_PROFILE="offline")
    try:
        for tool, field in MCP_CALLS.items():
            for kind, value in HOSTILE.items():
                if kind == "surrogate":
                    continue  # see test_mcp_lone_surrogate_never_reaches_a_tool
                envelope = server.call(tool, {field: value})
                assert envelope["ok"] is False, (tool, kind)
                assert envelope["error"]["code"] == "INVALID_QUERY", (tool, kind, envelope)
                assert "SELECT" not in envelope["error"]["message"]
        assert server.call("doiget_search_local", {"query": "cancer"})["ok"] is True
    except BaseException:
        server.kill()
        raise
    assert "Traceback" not in server.close()


def test_mcp_lone_surrogate_never_reaches_a_tool(demo_home):
    """The SDK's JSON parser refuses a ``\\ud800`` escape as invalid JSON before any tool runs (it
    drops the frame without a JSON-RPC parse error); the server must keep answering."""
    server = RawServer(demo_home, DOIGET_PROFILE="offline")
    try:
        hostile_ids = [server.send("tools/call", {"name": tool, "arguments": {field: HOSTILE["surrogate"]}})
                       for tool, field in MCP_CALLS.items()]
        assert server.call("doiget_search_local", {"query": "cancer"})["ok"] is True
        for request_id in hostile_ids:
            answer = server.answers.get(request_id)
            if answer is not None and "result" in answer:
                assert answer["result"]["structuredContent"]["error"]["code"] == "INVALID_QUERY"
    except BaseException:
        server.kill()
        raise
    assert "Traceback" not in server.close()
