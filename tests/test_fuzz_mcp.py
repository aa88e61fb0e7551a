"""Fuzz: hypothesis drives every MCP tool with generated arguments of every shape.

Every reply must be a well-formed ``ok: false`` envelope with a code from the closed set, or a
valid ``ok: true`` envelope; the server must never die, and its stdout must carry nothing but
JSON-RPC frames. Network tools run under the offline profile, so fuzzing never leaves the machine.
"""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cli_process import doiget_command
from doiget import open_library
from doiget.config import load_config
from doiget.demo import load_demo
from doiget.errors import ErrorCode
from doiget.mcp.server import LibraryHolder, call_tool
from doiget.mcp.tools import TOOLS

CODES = {code.value for code in ErrorCode}
# 200 examples in the default run (CI has 3 minutes); the full run: DOIGET_FUZZ_EXAMPLES=10000 pytest -q -m fuzz
FUZZ = settings(max_examples=int(os.environ.get("DOIGET_FUZZ_EXAMPLES", "200")), deadline=None,
                derandomize=os.environ.get("CI") == "true",
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])

tricky_text = st.sampled_from([
    "", " ", "\x00", "NOT", "a AND", '"', "(", ")", "*", "title:", "x:y:z", "NEAR(a b)", "^", "-",
    "10.1000/x", "doi:10.1111/bjhp.12807", "arXiv:1202.4527v1", "PMC0", "W0", "../../etc/passwd",
    "/etc/passwd", "file:///etc/passwd", "https://169.254.169.254/latest", "http://127.0.0.1:1/",
    "%PDF-1.7", "JVBERi0xLjcK", "' OR 1=1 --", "\u202e\ufeff", "🧬" * 50, "x" * 100_001,
])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
                    st.text(max_size=300), tricky_text)
junk = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10),
                                                                                          inner, max_size=5),
                    max_leaves=20)


def plausible(prop: dict) -> st.SearchStrategy:
    """Values of roughly the right type, including out-of-bounds ones."""
    kinds = {prop.get("type")} | {p.get("type") for p in prop.get("anyOf", [])}
    options = [junk]
    if "string" in kinds:
        options += [tricky_text, st.text(max_size=50)]
    if "integer" in kinds:
        options.append(st.integers(-5, 2000))
    if "array" in kinds:
        options.append(st.lists(st.one_of(tricky_text, st.text(max_size=20)), max_size=60))
    if "boolean" in kinds:
        options.append(st.booleans())
    return st.one_of(options)


@st.composite
def tool_calls(draw):
    name = draw(st.sampled_from(sorted(TOOLS) + ["doiget_no_such_tool"]))
    props = TOOLS[name].input_schema().get("properties", {}) if name in TOOLS else {}
    args = {key: draw(plausible(prop)) for key, prop in props.items() if draw(st.booleans())}
    if draw(st.integers(0, 9)) == 0:
        args[draw(st.text(max_size=12))] = draw(junk)
    return name, draw(st.sampled_from([args, args, args, None]))


def check_envelope(envelope) -> None:
    assert isinstance(envelope, dict) and envelope.get("ok") in (True, False), envelope
    json.dumps(envelope)
    if envelope["ok"] is False:
        assert set(envelope) in ({"ok", "error"}, {"ok", "ref", "error"})
        assert envelope["error"]["code"] in CODES and isinstance(envelope["error"]["message"], str)
        assert "Traceback" not in envelope["error"]["message"]


@pytest.fixture(scope="module")
def holder(tmp_path_factory):
    home = tmp_path_factory.mktemp("fuzz")
    with open_library(home) as lib:
        load_demo(lib)
    old = os.environ.get("DOIGET_PROFILE")
    os.environ["DOIGET_PROFILE"] = "offline"
    try:
        held = LibraryHolder(load_config(home))
    finally:
        os.environ.pop("DOIGET_PROFILE") if old is None else os.environ.__setitem__("DOIGET_PROFILE", old)
    yield held
    held.close()


@FUZZ
@given(call=tool_calls())
def test_every_tool_answers_every_argument_set_with_an_envelope(holder, call):
    name, args = call
    check_envelope(call_tool(holder, name, args))


@settings(max_examples=4, deadline=None, derandomize=os.environ.get("CI") == "true",
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                 HealthCheck.data_too_large])
@given(calls=st.lists(tool_calls(), min_size=60, max_size=60))
def test_real_server_survives_fuzz_and_keeps_stdout_clean(tmp_path, calls):
    home = tmp_path / "lib"
    if not home.exists():
        with open_library(home) as lib:
            load_demo(lib)
    proc = subprocess.Popen([*doiget_command(), "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "DOIGET_HOME": str(home), "DOIGET_PROFILE": "offline"})
    try:
        send = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"}]
        send += [{"jsonrpc": "2.0", "id": i, "method": "tools/call",
                  "params": {"name": name, **({"arguments": args} if args is not None else {})}}
                 for i, (name, args) in enumerate(calls, 1)]
        for frame in send:
            proc.stdin.write((json.dumps(frame) + "\n").encode())
            proc.stdin.flush()
            if "id" not in frame:
                continue
            while True:  # every line is a frame; wait for this request's answer
                message = json.loads(proc.stdout.readline())
                assert message["jsonrpc"] == "2.0"
                if message.get("id") == frame["id"]:
                    break
            if frame["id"] and "result" in message:
                check_envelope(message["result"]["structuredContent"])
            else:
                assert "result" in message or "error" in message
        assert proc.poll() is None, "the server died"
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        rest = proc.stdout.read()
        proc.stdout.close()
        for line in rest.splitlines():
            assert json.loads(line)["jsonrpc"] == "2.0"
