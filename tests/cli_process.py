"""Run the ``doiget`` command in tests as a real process, without paying interpreter start-up and
imports each time.

Every call is its own process with its own argv, environment, working directory, standard
streams and exit code, forked from a per-worker server that has only imported doiget's CLI stack
(:mod:`cli_forkserver`). A call then costs a fork instead of ~0.5 s. Tests about start-up itself
(which modules ``--help`` imports), ``doiget serve``, signals and kill -9 start
``python -m doiget`` directly instead.
"""
from __future__ import annotations

import atexit
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
_workdir: Path | None = None
_servers: list[subprocess.Popen] = []


def _server_dir() -> Path:
    """Start this worker's fork server once; the directory holds its socket and a ``doiget`` file."""
    global _workdir
    if _workdir is None:
        workdir = Path(tempfile.mkdtemp(prefix="doiget-cli-"))
        socket_path = workdir / "server.sock"
        server = subprocess.Popen([sys.executable, str(HERE / "cli_forkserver.py"), str(socket_path)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
        if server.stdout.readline().strip() != b"ready":
            raise RuntimeError("the doiget fork server for tests did not start")
        # The server exits when its stdin closes, i.e. when this process ends however it ends
        # (xdist workers may skip atexit); the reference keeps the pipe open until then.
        _servers.append(server)
        atexit.register(shutil.rmtree, workdir, True)
        atexit.register(os.killpg, server.pid, signal.SIGKILL)
        (workdir / "bin").mkdir()
        wrapper = workdir / "bin" / "doiget"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "{HERE / "cli_shim.py"}" "{socket_path}" "$@"\n')
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
        _workdir = workdir
    return _workdir


def doiget_command() -> list[str]:
    """The argv prefix that runs ``doiget`` (for ``subprocess`` calls a test makes itself)."""
    return [str(_server_dir() / "bin" / "doiget")]


def doiget_bin_dir() -> Path:
    """A directory with an executable ``doiget`` in it, to put first on a shell's PATH."""
    return _server_dir() / "bin"


def run_doiget(home: Path | str | None, *args: str | bytes, env: dict[str, str] | None = None,
               stdin: str | bytes | None = None, cwd: Path | None = None, text: bool = True,
               timeout: float = 120) -> subprocess.CompletedProcess:
    """``doiget ARGS`` with stdout and stderr captured, in this test's environment plus ``env``;
    ``home`` (unless None) is the ``DOIGET_HOME``."""
    environment = {**os.environ, **(env or {})}
    if home is not None:
        environment["DOIGET_HOME"] = str(home)
    return subprocess.run([*doiget_command(), *args], capture_output=True, text=text, env=environment,
                          input=stdin, cwd=cwd, timeout=timeout,
                          stdin=subprocess.DEVNULL if stdin is None else None)
