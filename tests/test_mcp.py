"""The MCP server over real stdio: the SDK's client spawns ``doiget serve`` as a subprocess."""
from __future__ import annotations

import json
import os
import subprocess
from functools import partial

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from cli_process import doiget_command

from doiget import open_library
from doiget.demo import load_demo
from doiget.errors import ErrorCode

SECTIONS = ("WHEN TO USE:", "INPUTS:", "OUTPUTS:", "COSTS:", "SIDE EFFECTS:", "LIMITS:")
CODES = {code.value for code in ErrorCode}


def server_params(home, **env) -> StdioServerParameters:
    return StdioServerParameters(command=doiget_command()[0], args=["serve"], env={"DOIGET_HOME": str(home), **env})


async def session_calls(home, calls, **env):
    """Run (tool, arguments) calls in one session; returns (tools, [structured results])."""
    async with Client(server_params(home, **env)) as client:
        tools = (await client.list_tools()).tools
        results = []
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            assert json.loads(result.content[0].text) == result.structured_content
            assert result.is_error == (not result.structured_content["ok"])
            results.append(result.structured_content)
        return tools, results


def _demo_home(directory):
    home = directory / "lib"
    with open_library(home) as lib:
        load_demo(lib)
    return home


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory):
    """The module's demo library, shared by the tests whose calls only read."""
    return _demo_home(tmp_path_factory.mktemp("demo"))


@pytest.fixture
def own_demo_home(tmp_path):
    """A demo library of the test's own, for tests whose calls write (or try to)."""
    return _demo_home(tmp_path)


def walk_schema(schema):
    yield schema
    for value in schema.values():
        if isinstance(value, dict):
            yield from walk_schema(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    yield from walk_schema(item)


def effective_hints(annotations) -> dict:
    """The four hints as a client reads them: an absent one takes the MCP default (readOnly false,
    destructive true, idempotent false, openWorld true); destructive/idempotent mean nothing for read-only."""
    read_only = bool(annotations.read_only_hint)
    return {"read_only": read_only,
            "destructive": None if read_only else annotations.destructive_hint is not False,
            "idempotent": None if read_only else bool(annotations.idempotent_hint),
            "open_world": annotations.open_world_hint is not False}


def test_tool_table_is_well_formed(demo_home):
    tools, _ = anyio.run(session_calls, demo_home, [])
    names = {t.name for t in tools}
    assert {"doiget_info", "doiget_search_local", "doiget_list_recent", "doiget_paper_pdf_path", "doiget_tag",
            "doiget_annotate", "doiget_health", "doiget_capability_profile"} <= names
    for tool in tools:
        assert tool.name.startswith("doiget_") and tool.name == tool.name.lower()
        positions = [tool.description.index(s) for s in SECTIONS]
        assert positions == sorted(positions), tool.name
        assert tool.input_schema["additionalProperties"] is False
        for node in walk_schema(tool.input_schema):
            if node.get("type") == "string":
                assert "maxLength" in node, (tool.name, node)
            if node.get("type") == "array":
                assert "maxItems" in node, (tool.name, node)
        hints = effective_hints(tool.annotations)
        assert hints["read_only"] or hints["destructive"] is not None, tool.name
    read_only = {t.name for t in tools if t.annotations.read_only_hint}
    assert "doiget_tag" not in read_only and "doiget_annotate" not in read_only
    assert {"doiget_info", "doiget_search_local", "doiget_health"} <= read_only


def test_every_tool_with_good_input(own_demo_home):
    with open_library(own_demo_home) as lib:
        ref = str(lib.search("fuzzing")[0].ref)
        key = lib.info(ref).citekey
    calls = [
        ("doiget_search_local", {"query": "fuzzing", "limit": 3}),
        ("doiget_info", {"ref": ref}),
        ("doiget_info", {"ref": f"@{key}"}),  # the same entry by its citation key
        ("doiget_list_recent", {"n": 2}),
        ("doiget_paper_pdf_path", {"ref": ref}),
        ("doiget_tag", {"ref": ref, "add": ["security"], "add_to_collections": ["reading"]}),
        ("doiget_annotate", {"ref": ref, "text": "threat model in section 3"}),
        ("doiget_search_local", {"query": "threat", "tag": "security", "collection": "reading"}),
        ("doiget_annotate", {"ref": ref, "text": None}),
        ("doiget_health", {}),
        ("doiget_capability_profile", {}),
    ]
    _, results = anyio.run(session_calls, own_demo_home, calls)
    assert all(r["ok"] for r in results), results
    search, info, by_key, recent, pdf, tag, annotate, search2, clear, health, profile = results
    assert search["hits"][0]["ref"] == ref and info["entry"]["title"].startswith("Active Fuzzing")
    assert by_key["entry"] == info["entry"]
    assert recent["count"] == 2
    assert pdf["has_pdf"] is True and os.path.isfile(pdf["pdf_path"])  # the demo's generated PDF
    assert tag["tags"] == ["demo", "security", "software-testing"] and tag["collections"] == ["demo", "reading"]
    assert annotate["annotation"] == "threat model in section 3"
    assert [h["ref"] for h in search2["hits"]] == [ref]
    assert clear["annotation"] is None
    assert health["health"]["status"] == "ok" and health["health"]["counts"]["entries"] == 13
    assert profile["profile"] == "full" and all(t["enabled"] for t in profile["tools"])


BAD_CALLS = [
    ("doiget_info", {}, "INVALID_INPUT"),
    ("doiget_info", {"ref": "10.1000/x", "extra": 1}, "INVALID_INPUT"),
    ("doiget_info", {"ref": 42}, "INVALID_INPUT"),
    ("doiget_info", {"ref": "x" * 5000}, "INVALID_INPUT"),
    ("doiget_info", {"ref": "not an identifier"}, "INVALID_REF"),
    ("doiget_info", {"ref": "10.9999/absent"}, "NOT_FOUND"),
    ("doiget_info", {"ref": "@NoSuchKey2020"}, "NOT_FOUND"),
    ("doiget_search_local", {"query": '"unbalanced'}, "INVALID_QUERY"),
    ("doiget_search_local", {"query": "x", "limit": 0}, "INVALID_INPUT"),
    ("doiget_search_local", {"query": "x", "limit": "5"}, "INVALID_INPUT"),
    ("doiget_tag", {"ref": "10.9999/absent", "add": ["x"]}, "NOT_FOUND"),
    ("doiget_tag", {"ref": "10.1000/x", "add": ["t"] * 51}, "INVALID_INPUT"),
    ("doiget_list_recent", {"n": "5"}, "INVALID_INPUT"),
    ("doiget_nonexistent", {}, "INVALID_INPUT"),
]


def test_bad_input_is_an_envelope_never_an_exception(demo_home):
    _, results = anyio.run(session_calls, demo_home, [(name, args) for name, args, _ in BAD_CALLS])
    for (name, args, code), result in zip(BAD_CALLS, results):
        assert result["ok"] is False and result["error"]["code"] == code, (name, args, result)
        assert "Traceback" not in result["error"]["message"]


def test_inspector_cli_style_string_and_null_arguments(demo_home):
    """The Inspector CLI sends null for unset optionals and converts strings by the schema's type: an
    optional number is a plain integer in the schema, null means its default, a string is refused
    with a message that says to send the number."""
    calls = [("doiget_search_local", {"query": "fuzzing", "limit": None, "year_from": None, "tag": None,
                                      "cursor": None, "has_pdf": None}),
             ("doiget_list_recent", {"n": None}),
             ("doiget_search_local", {"query": "fuzzing", "year_from": "2010"}),
             ("doiget_fetch_paper", {"ref": "10.1000/x", "dry_run": "true"})]
    tools, (search, recent, as_string, bool_string) = anyio.run(session_calls, demo_home, calls)
    assert search["ok"] and search["count"] >= 1 and recent["ok"] and recent["count"] == 10
    for failure, field, kind in ((as_string, "year_from", "an integer"), (bool_string, "dry_run", "a boolean (true/false)")):
        assert failure["error"]["code"] == "INVALID_INPUT"
        assert f"{field}: expected {kind}, got the string" in failure["error"]["message"]
    schema = {t.name: t.input_schema for t in tools}["doiget_search_local"]["properties"]
    assert schema["year_from"]["type"] == "integer" and schema["has_pdf"]["type"] == "boolean"
    assert not any("anyOf" in prop for t in tools for prop in t.input_schema.get("properties", {}).values())


def test_read_only_profile_denies_writes(own_demo_home):
    calls = [("doiget_tag", {"ref": "arxiv:1202.4527", "add": ["x"]}), ("doiget_capability_profile", {})]
    _, (tag, profile) = anyio.run(partial(session_calls, own_demo_home, calls, DOIGET_PROFILE="read-only"))
    assert tag["error"]["code"] == "CAPABILITY_DENIED"
    enabled = {t["name"]: t["enabled"] for t in profile["tools"]}
    assert enabled["doiget_tag"] is False and enabled["doiget_search_local"] is True


def test_health_creates_nothing_on_disk(tmp_path):
    home = tmp_path / "never-created"
    _, (health,) = anyio.run(session_calls, home, [("doiget_health", {})])
    assert health["ok"] and health["health"]["exists"] is False
    assert not home.exists()


def test_stdout_carries_only_jsonrpc_frames_and_eof_shuts_down(demo_home):
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "doiget_search_local", "arguments": {"query": "cancer"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "doiget_info", "arguments": {"ref": ["not", "a", "string"]}}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "doiget_health"}},
    ]
    proc = subprocess.Popen([*doiget_command(), "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "DOIGET_HOME": str(demo_home), "DOIGET_LOG": "DEBUG"})
    responses, raw_lines = {}, []
    for frame in frames:
        proc.stdin.write((json.dumps(frame) + "\n").encode())
        proc.stdin.flush()
        while "id" in frame and frame["id"] not in responses:
            raw_lines.append(proc.stdout.readline())
            message = json.loads(raw_lines[-1])
            if message.get("id") is not None:
                responses[message["id"]] = message
    proc.stdin.write(b"this is not json\n")
    proc.stdin.close()  # EOF: the server must exit cleanly
    assert proc.wait(timeout=30) == 0, proc.stderr.read().decode()[-2000:]
    raw_lines += proc.stdout.read().splitlines(keepends=True)
    proc.stdout.close()
    proc.stderr.close()
    for line in raw_lines:
        assert json.loads(line)["jsonrpc"] == "2.0"  # every byte on stdout belongs to a JSON-RPC frame
    assert responses[2]["result"]["tools"]
    assert responses[3]["result"]["structuredContent"]["ok"] is True
    assert responses[4]["result"]["structuredContent"]["error"]["code"] in CODES
    assert responses[5]["result"]["structuredContent"]["ok"] is True
