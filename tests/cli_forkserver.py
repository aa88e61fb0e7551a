"""The fork server behind :mod:`cli_process`: imports doiget's CLI stack once, then forks one
child per ``doiget`` invocation. Run as ``python cli_forkserver.py SOCKET``.

A child takes the caller's stdin/stdout/stderr (passed over the socket), argv, environment and
working directory, runs :func:`doiget.cli.main` as the command would, and reports its exit code.
It starts from the server's freshly imported state: the server runs no doiget code but the demo's
PDF drawing.
"""
from __future__ import annotations

import atexit
import json
import os
import selectors
import shutil
import signal
import socket
import struct
import sys
import traceback

from demo_pdfs import remember_demo_pdfs
from offline import offline_getaddrinfo


def receive(conn: socket.socket) -> tuple[dict, list[int]]:
    header, fds, _, _ = socket.recv_fds(conn, 8, 3)
    (size,) = struct.unpack("!Q", header)
    body = bytearray()
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise EOFError("request cut short")
        body += chunk
    return json.loads(body), fds


def become_the_command(request: dict, fds: list[int]) -> None:
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["doiget", *request["args"]]
    # Fresh standard streams on the received descriptors, configured as a new interpreter would.
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", buffering=1 if os.isatty(1) else -1, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115


def run_child(conn: socket.socket) -> None:
    """In the forked child: report its process id, run one command, report its exit code, never return."""
    code = 1
    try:
        conn.sendall(struct.pack("!i", os.getpid()))
        request, fds = receive(conn)
        become_the_command(request, fds)
        from doiget.cli import main

        code = main(request["args"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
    except BaseException:  # an uncaught exception, reported as the interpreter would
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
    except BrokenPipeError:
        code = code or 120  # what CPython exits with when flushing stdout fails at exit
    try:
        sys.stderr.flush()
        conn.sendall(struct.pack("!i", code))
    finally:
        os._exit(code & 0xFF)


def warm_up() -> None:
    """Import every doiget module and the libraries that commands load on first use (the store's
    SQLAlchemy and Alembic, PyMuPDF, the MCP SDK) and draw the demo's PDFs (:mod:`demo_pdfs`), so
    that a child pays none of it."""
    import importlib
    import pkgutil

    import doiget

    for module in pkgutil.walk_packages(doiget.__path__, "doiget."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    for name in ("alembic.command", "alembic.config", "alembic.runtime.migration", "alembic.script",
                 "pymupdf", "rich.progress"):
        importlib.import_module(name)
    remember_demo_pdfs()


def serve(path: str) -> None:
    warm_up()

    socket.getaddrinfo = offline_getaddrinfo(socket.getaddrinfo)  # conftest's guard, in every child too
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path + ".new")
    listener.listen(64)
    os.rename(path + ".new", path)  # clients wait for the name: it appears ready to connect to
    watch = selectors.DefaultSelector()
    watch.register(listener, selectors.EVENT_READ)
    watch.register(sys.stdin.buffer, selectors.EVENT_READ)  # the test process holds the other end
    while True:
        if any(key.fileobj is sys.stdin.buffer for key, _ in watch.select()):
            shutil.rmtree(os.path.dirname(path), ignore_errors=True)
            os._exit(0)  # stdin closed: the test process that started this server is gone
        conn, _ = listener.accept()
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            listener.close()
            watch.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            run_child(conn)
        conn.close()


if __name__ == "__main__":
    serve(sys.argv[1])
