"""A real HTTPS server on 127.0.0.1 for tests, with per-test routes.

Usage (fixtures below)::

    def test_x(https_server, client_ca):
        https_server.route("/a", Reply(200, b"{}", {"Content-Type": "application/json"}))
        https_server.route("/b", redirect("/a"))
        https_server.route("/c", [Reply(503), Reply(200, b"ok")])   # one reply per hit, last repeats
        https_server.route("/d", lambda seen: Reply(200, seen.query.encode()))
        https_server.url("/a")   # https://127.0.0.1:<port>/a

A reply body may be bytes (sent with Content-Length) or an iterable of byte chunks (sent
chunked unless the reply sets Content-Length itself, which allows lying about the length).
Chunks that are floats are pauses in seconds. ``https_server.seen`` lists requests received.
"""
from __future__ import annotations

import contextlib
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import trustme


@dataclass
class Reply:
    status: int = 200
    body: bytes | Iterable[bytes | float] = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before sending the status line
    drop: bool = False  # close the connection without answering


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    query: str
    headers: dict[str, str]


Route = Reply | list[Reply] | Callable[[Seen], Reply]


def redirect(location: str, status: int = 302) -> Reply:
    return Reply(status, b"", {"Location": location})


class LoopbackServer:
    """A threaded HTTPS server whose certificate is valid for 127.0.0.1 and localhost."""

    def __init__(self, ca: trustme.CA) -> None:
        self._routes: dict[str, Route] = {}
        self._lock = threading.Lock()
        self.seen: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._generation = 0  # replies still running from an earlier test must not skew in_flight
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
        self._httpd = _Server(("127.0.0.1", 0), _handler_for(self), context)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"https://{host}:{self.port}{path}"

    def route(self, path: str, route: Route) -> None:
        with self._lock:
            self._routes[path] = list(route) if isinstance(route, list) else route

    def hits(self, path: str) -> int:
        return sum(1 for s in self.seen if s.path == path)

    def reset(self) -> None:
        with self._lock:
            self._routes.clear()
            self.seen.clear()
            self.in_flight = self.max_in_flight = 0
            self._generation += 1

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _reply_for(self, seen: Seen) -> Reply:
        with self._lock:
            self.seen.append(seen)
            route = self._routes.get(seen.path)
            if isinstance(route, list):
                return route.pop(0) if len(route) > 1 else route[0]
        if route is None:
            return Reply(404, b"no route")
        return route(seen) if callable(route) else route

    def _enter(self) -> int:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return self._generation

    def _leave(self, generation: int) -> None:
        with self._lock:
            if generation == self._generation:
                self.in_flight -= 1


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], handler: type, context: ssl.SSLContext) -> None:
        self._context = context
        super().__init__(address, handler)

    def finish_request(self, request, client_address) -> None:  # noqa: ANN001 - socketserver API
        # TLS handshake in the per-connection thread so a stalled client cannot block accept().
        try:
            request = self._context.wrap_socket(request, server_side=True)
        except (OSError, ssl.SSLError):
            return
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001
        pass  # clients hanging up mid-reply is what many tests are about


def _handler_for(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 - http.server API
            parts = urlsplit(self.path)
            seen = Seen("GET", parts.path, parts.query, {k.lower(): v for k, v in self.headers.items()})
            reply = server._reply_for(seen)
            generation = server._enter()
            try:
                self._send(reply)
            except (OSError, ssl.SSLError):
                self.close_connection = True
            finally:
                server._leave(generation)

        def _send(self, reply: Reply) -> None:
            time.sleep(reply.delay)
            if reply.drop:
                self.close_connection = True
                return
            self.send_response(reply.status)
            headers = {k.lower(): v for k, v in reply.headers.items()}
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if isinstance(reply.body, bytes):
                if "content-length" not in headers:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
                return
            chunked = "content-length" not in headers
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in reply.body:
                if isinstance(piece, float):
                    time.sleep(piece)
                    continue
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                self.wfile.flush()
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.close_connection = True  # a lying Content-Length leaves the stream unusable

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    return Handler


def repeat(chunk: bytes, times: int, pause: float = 0.0) -> Iterator[bytes | float]:
    """A streamed body of ``times`` copies of ``chunk``, optionally pausing between them."""
    for _ in range(times):
        yield chunk
        if pause:
            yield pause


@pytest.fixture(scope="session")
def _loopback_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="session")
def client_ca(_loopback_ca: trustme.CA, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA bundle file that trusts the loopback server's certificate."""
    path = tmp_path_factory.mktemp("ca") / "ca.pem"
    _loopback_ca.cert_pem.write_to_path(str(path))
    return path


@pytest.fixture(scope="session")
def _loopback_server(_loopback_ca: trustme.CA) -> Iterator[LoopbackServer]:
    server = LoopbackServer(_loopback_ca)
    yield server
    with contextlib.suppress(Exception):
        server.close()


@pytest.fixture
def https_server(_loopback_server: LoopbackServer) -> LoopbackServer:
    """The session's loopback HTTPS server with no routes and no recorded requests."""
    _loopback_server.reset()
    return _loopback_server


__all__ = ["LoopbackServer", "Reply", "Seen", "client_ca", "https_server", "redirect", "repeat"]
