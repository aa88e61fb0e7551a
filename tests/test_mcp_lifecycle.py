"""stdin EOF while a call is stuck on a stalled upstream: the server answers every request (the stuck
one with a cancellation envelope) and exits, instead of waiting out the upstream's timeouts."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from fetchenv import crossref_path, openalex_path, source_env
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401

STALLED_DOI = "10.5555/stalled"


def test_eof_answers_in_flight_calls_and_exits(tmp_path, https_server, client_ca):
    https_server.route(crossref_path(STALLED_DOI), Reply(200, b"{}", delay=12))
    https_server.route(openalex_path(STALLED_DOI), Reply(200, b"{}", delay=12))
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "doiget_resolve_paper", "arguments": {"ref": STALLED_DOI}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "doiget_health", "arguments": {}}},
    ]
    env = {**os.environ, "DOIGET_HOME": str(tmp_path / "lib"), **source_env(https_server, client_ca)}
    proc = subprocess.Popen([sys.executable, "-m", "doiget.cli", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdin.write(b"".join(json.dumps(f).encode() + b"\n" for f in frames[:2]))
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    proc.stdin.write(b"".join(json.dumps(f).encode() + b"\n" for f in frames[2:]))
    proc.stdin.flush()
    deadline = time.monotonic() + 30
    while https_server.hits(crossref_path(STALLED_DOI)) == 0 and proc.poll() is None:
        if time.monotonic() > deadline:  # a hang here would hold CI for its whole budget
            proc.stdin.close()
            out, err = proc.communicate(timeout=30)
            pytest.fail(f"the call never reached the upstream:\n{out.decode()[-3000:]}\n{err.decode()[-3000:]}")
        time.sleep(0.05)  # until the call is stuck upstream
    proc.stdin.close()
    assert proc.wait(timeout=11) == 0, proc.stderr.read().decode()[-2000:]  # generous, yet below the 12 s stall
    replies = {m["id"]: m for m in map(json.loads, proc.stdout.read().splitlines()) if "id" in m}
    proc.stdout.close()
    proc.stderr.close()
    assert replies[3]["result"]["structuredContent"]["ok"] is True
    stuck = replies[2]["result"]["structuredContent"]
    assert stuck["ok"] is False and stuck["ref"] == STALLED_DOI
    assert stuck["error"]["code"] == "FETCH_TIMEOUT" and "shutting down" in stuck["error"]["message"]
