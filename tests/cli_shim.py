"""A ``doiget`` process for tests: hands its argv, environment, working directory and standard
streams to the fork server (:mod:`cli_forkserver`) and exits with the command's code.
Run as ``python -I -S cli_shim.py SOCKET ARGS...``; it needs nothing but the standard library
(:mod:`cli_process` imports :func:`start` and :func:`read_int` to watch a command itself)."""
from __future__ import annotations

import json
import os
import socket
import struct
import sys


def start(socket_path: str, args: list[str], env: dict[str, str], cwd: str,
          fds: list[int]) -> tuple[socket.socket, int | None]:
    """Hand one command to the fork server, with ``fds`` as its stdin, stdout and stderr; returns the
    connection its exit code will come on and the process id of the command."""
    conn = socket.socket(socket.AF_UNIX)
    conn.connect(socket_path)
    body = json.dumps({"args": args, "env": env, "cwd": cwd}).encode()
    socket.send_fds(conn, [struct.pack("!Q", len(body))], fds)
    conn.sendall(body)
    return conn, read_int(conn)


def read_int(conn: socket.socket) -> int | None:
    """The next number the command's process sends; None if it ended without sending it."""
    data = b""
    while len(data) < 4:
        chunk = conn.recv(4 - len(data))
        if not chunk:
            return None
        data += chunk
    return struct.unpack("!i", data)[0]


if __name__ == "__main__":
    connection, _ = start(sys.argv[1], sys.argv[2:], dict(os.environ), os.getcwd(), [0, 1, 2])
    code = read_int(connection)
    if code is None:
        sys.stderr.write("doiget test process ended without an exit code\n")
        os._exit(255)
    os._exit(code & 0xFF)
