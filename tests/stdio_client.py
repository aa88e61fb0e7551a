"""A raw JSON-RPC client for ``doiget serve`` over real stdio, for hostile arguments the SDK client
would refuse to send (lone surrogates are legal ``\\ud800`` escapes in JSON, not in UTF-8).

Every line the server writes to stdout is kept; :meth:`RawServer.close` asserts that each one is a
JSON-RPC frame and that the server exits cleanly on EOF.
"""
from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from queue import Empty, Queue

from cli_process import doiget_command


class RawServer:
    def __init__(self, home: Path, **env: str) -> None:
        self.proc = subprocess.Popen([*doiget_command(), "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**os.environ, "DOIGET_HOME": str(home), **env})
        self.lines: list[bytes] = []
        self.answers: dict[int, dict] = {}
        self._queue: Queue = Queue()
        self._next_id = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "hostile", "version": "0"}})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)
            self._queue.put(line)
        self._queue.put(None)

    def _send(self, frame: dict) -> None:
        # ensure_ascii: a lone surrogate travels as its JSON escape, as a hostile client may send it
        self.proc.stdin.write((json.dumps(frame, ensure_ascii=True) + "\n").encode())
        self.proc.stdin.flush()

    def send(self, method: str, params: dict) -> int:
        """Send one request without waiting; returns its id (answers land in :attr:`answers`)."""
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    def request(self, method: str, params: dict, timeout: float = 60) -> dict:
        """Send one request and return its response frame (``result`` or ``error``)."""
        request_id = self.send(method, params)
        deadline = time.monotonic() + timeout
        while request_id not in self.answers:
            try:
                line = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except Empty:
                raise AssertionError(f"no answer to {method} within {timeout} s") from None
            if line is None:
                raise AssertionError(f"server exited: {self.proc.stderr.read().decode()[-2000:]}")
            message = json.loads(line)
            if message.get("id") is not None:
                self.answers[message["id"]] = message
        return self.answers[request_id]

    def call(self, name: str, arguments: dict | None, timeout: float = 60) -> dict:
        """The structured envelope of one tools/call."""
        params = {"name": name} if arguments is None else {"name": name, "arguments": arguments}
        frame = self.request("tools/call", params, timeout)
        assert "result" in frame, frame
        return frame["result"]["structuredContent"]

    def close(self) -> str:
        """EOF on stdin; asserts a clean exit and JSON-RPC-only stdout. Returns stderr."""
        self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0
        self._reader.join(timeout=10)
        stderr = self.proc.stderr.read().decode(errors="replace")
        self.proc.stderr.close()
        for line in self.lines:
            assert json.loads(line)["jsonrpc"] == "2.0", line
        return stderr

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
