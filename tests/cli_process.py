"""Run the ``doiget`` command in tests as a real process, without paying interpreter start-up and
imports each time.

Every call is its own process with its own argv, environment, working directory, standard
streams and exit code, forked from a server that has only imported doiget's CLI stack
(:mod:`cli_forkserver`), one per test run (xdist's workers share it). A call then costs a fork
instead of ~0.5 s. :class:`ForkedDoiget` watches a command from the test itself, with the
command's own process id, for tests that SIGKILL it mid-work. Tests about start-up itself (which
modules ``--help`` imports) and about what a terminal or a signal does to the process start
``python -m doiget`` directly instead.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cli_shim import read_int, start

HERE = Path(__file__).parent
_workdir: Path | None = None
_servers: list[subprocess.Popen] = []


# Set by start_shared_server: the directory of a fork server that this process's subprocesses (xdist workers) use.
SHARED_SERVER_DIR = "DOIGET_TESTS_CLI_SERVER_DIR"


def start_shared_server() -> None:
    """Start the fork server now, without waiting for it, and hand it down to the subprocesses started
    after this (xdist workers): one server warms up (~2.5 s of CPU) instead of one per worker."""
    os.environ[SHARED_SERVER_DIR] = str(_start_server())


def _server_dir() -> Path:
    """This process's fork server, started on first use unless one is shared; the directory holds its
    socket and a ``doiget`` file."""
    global _workdir
    if _workdir is None:
        shared = os.environ.get(SHARED_SERVER_DIR)
        workdir = Path(shared) if shared else _start_server()
        _wait_until_listening(workdir / "server.sock")
        _workdir = workdir
    return _workdir


def _start_server() -> Path:
    workdir = Path(tempfile.mkdtemp(prefix="doiget-cli-"))
    socket_path = workdir / "server.sock"
    server = subprocess.Popen([sys.executable, str(HERE / "cli_forkserver.py"), str(socket_path)],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True)
    # The server exits when its stdin closes, i.e. when this process ends however it ends
    # (xdist workers may skip atexit); the reference keeps the pipe open until then.
    _servers.append(server)
    atexit.register(shutil.rmtree, workdir, True)
    atexit.register(os.killpg, server.pid, signal.SIGKILL)
    (workdir / "bin").mkdir()
    wrapper = workdir / "bin" / "doiget"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "{HERE / "cli_shim.py"}" "{socket_path}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return workdir


def _wait_until_listening(socket_path: Path, timeout: float = 300) -> None:
    """The server names its socket once it listens (a rename, so never half-made)."""
    deadline = time.monotonic() + timeout
    while not socket_path.exists():
        if any(server.poll() is not None for server in _servers) or time.monotonic() > deadline:
            raise RuntimeError("the doiget fork server for tests did not start")
        time.sleep(0.02)


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


class ForkedDoiget:
    """``doiget ARGS`` in the fork server's next child, watched from this process rather than through a
    shim, so that :attr:`pid` is the process running the command. Its stdin and stdout are /dev/null;
    :meth:`stderr` is what it wrote there."""

    def __init__(self, home: Path | str, *args: str, env: dict[str, str] | None = None) -> None:
        self._stderr = tempfile.TemporaryFile()
        environment = {**os.environ, **(env or {}), "DOIGET_HOME": str(home)}
        with open(os.devnull, "r+b") as null:
            self._conn, self.pid = start(str(_server_dir() / "server.sock"), list(args), environment,
                                         os.getcwd(), [null.fileno(), null.fileno(), self._stderr.fileno()])
        # A pidfd: a kill can never reach another process that took the id after this one ended.
        self._pidfd = os.pidfd_open(self.pid)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit code once the command has ended (255 if it was killed), else None."""
        if self.returncode is None and select.select([self._conn], [], [], 0)[0]:
            self._ended()
        return self.returncode

    def wait(self, timeout: float) -> int:
        self._conn.settimeout(timeout)
        self._ended()
        return self.returncode

    def kill(self) -> None:
        """SIGKILL the command's process unless it has already ended."""
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def _ended(self) -> None:
        code = read_int(self._conn)
        self.returncode = 255 if code is None else code & 0xFF
        self._conn.close()
        os.close(self._pidfd)
