"""Every MCP tool over a real stdio server, with each hostile value in each of its fields
(tests/hostile_cases.py): an answer for every call (structured error or success — never
INTERNAL_ERROR, which means a raw exception), the server still answering afterwards, and
nothing but JSON-RPC frames on stdout. Network tools run under the offline profile."""
from __future__ import annotations

import json

import pytest

from doiget import open_library
from doiget.demo import load_demo
from doiget.errors import ErrorCode
from doiget.mcp.tools import TOOLS
from hostile_cases import tool_cases
from stdio_client import RawServer

CODES = {code.value for code in ErrorCode}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    home = tmp_path_factory.mktemp("hostile-mcp")
    with open_library(home) as lib:
        load_demo(lib)
    running = RawServer(home, DOIGET_PROFILE="offline")
    yield running
    running.kill()


def test_every_tool_survives_every_hostile_argument(server):
    failures = []
    for tool, case, arguments in tool_cases(TOOLS):
        envelope = server.call(tool, arguments)
        assert envelope["ok"] in (True, False), (tool, case, envelope)
        if not envelope["ok"]:
            error = envelope["error"]
            assert error["code"] in CODES and "Traceback" not in error["message"], (tool, case, error)
            if error["code"] == "INTERNAL_ERROR":
                failures.append((tool, case, error["message"]))
    assert failures == []
    assert server.call("doiget_health", {})["ok"] is True


def test_hostile_frames_leave_the_server_answering(server):
    """Frames no tool ever sees: 100k-deep arguments, a lone surrogate, not JSON, a huge id."""
    deep = "[" * 100_000 + "]" * 100_000
    raw = [
        '{"jsonrpc":"2.0","id":900001,"method":"tools/call","params":{"name":"doiget_info","arguments":{"ref":'
        + deep + "}}}",
        '{"jsonrpc":"2.0","id":900002,"method":"tools/call","params":{"name":"doiget_search_local",'
        '"arguments":{"query":"\\ud800"}}}',
        "this is not json", '{"jsonrpc":"2.0","id":' + "9" * 5000 + ',"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":900003,"method":"tools/call","params":null}',
    ]
    for line in raw:
        server.proc.stdin.write((line + "\n").encode())
        server.proc.stdin.flush()
    assert server.call("doiget_search_local", {"query": "cancer"})["ok"] is True
    for request_id in (900001, 900002, 900003):
        answer = server.answers.get(request_id)
        if answer is not None and "result" in answer:
            assert answer["result"]["structuredContent"]["error"]["code"] in CODES


def test_stdout_carries_only_frames(server):
    server.call("doiget_health", {})
    stderr = server.close()
    assert "Traceback" not in stderr
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in server.lines)
