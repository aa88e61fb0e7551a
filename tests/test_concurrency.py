"""Concurrency: several processes writing at once while an MCP server reads — no lock errors,
no lost writes."""
from __future__ import annotations

import json
import os
import subprocess

from cli_process import doiget_command
from writer_processes import writer_processes

from doiget import Work, open_library

WRITERS = 4
# 150 writes per writer in the default run: the four still overlap for seconds, as SQLite runs their 600
# write transactions one at a time; the full run: DOIGET_CONCURRENCY_WRITES=1000
WRITES = int(os.environ.get("DOIGET_CONCURRENCY_WRITES", "150"))


def _writer(home: str, worker: int, count: int, errors) -> None:
    lib = open_library(home)
    try:
        for i in range(count):
            ref = f"10.5555/w{worker}.{i // 3}"
            step = i % 3
            try:
                if step == 0:  # import a record
                    lib.add(Work(doi=ref, title=f"Concurrent paper {worker} {i}", year=2000 + i % 20))
                elif step == 1:
                    lib.tag(ref, [f"w{worker}", "all"])
                else:
                    lib.annotate(ref, f"note from worker {worker} step {i}")
            except Exception as exc:  # counted, not swallowed: the test asserts there are none
                errors.append(f"{worker}/{i}: {exc!r}")
    finally:
        lib.close()


def test_four_writers_and_a_reading_mcp_server(tmp_path):
    home = str(tmp_path / "lib")
    open_library(home).close()
    server = subprocess.Popen([*doiget_command(), "serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env={**os.environ, "DOIGET_HOME": home})
    ctx = writer_processes()
    with ctx.Manager() as manager:
        errors = manager.list()
        writers = [ctx.Process(target=_writer, args=(home, w, WRITES, errors)) for w in range(WRITERS)]
        for p in writers:
            p.start()
        frames = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "reader", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}]
        reads, request_id = [], 1
        while any(p.is_alive() for p in writers) or request_id < 5:
            frames.append({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                           "params": {"name": "doiget_search_local", "arguments": {"query": "concurrent"}}})
            for frame in frames:
                server.stdin.write((json.dumps(frame) + "\n").encode())
            server.stdin.flush()
            frames = []
            while True:
                message = json.loads(server.stdout.readline())
                if message.get("id") == request_id:
                    reads.append(message["result"]["structuredContent"])
                    break
            request_id += 1
        for p in writers:
            p.join(300)
        error_list = list(errors)
    server.stdin.close()
    assert server.wait(timeout=30) == 0
    server.stdout.close()
    assert [p.exitcode for p in writers] == [0] * WRITERS
    assert error_list == []
    assert all(r["ok"] for r in reads), [r for r in reads if not r["ok"]][:3]
    per_worker = -(-WRITES // 3)
    lib = open_library(home)
    assert lib.sql("SELECT count(*) FROM entries")["rows"] == [[WRITERS * per_worker]]
    tagged = {t.name: t.count for t in lib.tags()}
    assert tagged == {"all": WRITERS * len(range(1, WRITES, 3)),
                      **{f"w{w}": len(range(1, WRITES, 3)) for w in range(WRITERS)}}
    assert lib.sql("SELECT count(*) FROM notes WHERE kind = 'annotation'")["rows"] == [[WRITERS * len(range(2, WRITES, 3))]]
    assert lib.health().quick_check == "ok"
