"""A ``doiget`` process for tests: hands its argv, environment, working directory and standard
streams to the fork server (:mod:`cli_forkserver`) and exits with the command's code.
Run as ``python -I -S cli_shim.py SOCKET ARGS...``; it needs nothing but the standard library."""
import json
import os
import socket
import struct
import sys

conn = socket.socket(socket.AF_UNIX)
conn.connect(sys.argv[1])
body = json.dumps({"args": sys.argv[2:], "env": dict(os.environ), "cwd": os.getcwd()}).encode()
socket.send_fds(conn, [struct.pack("!Q", len(body))], [0, 1, 2])
conn.sendall(body)
reply = b""
while len(reply) < 4:
    chunk = conn.recv(4 - len(reply))
    if not chunk:
        sys.stderr.write("doiget test process ended without an exit code\n")
        os._exit(255)
    reply += chunk
os._exit(struct.unpack("!i", reply)[0] & 0xFF)
