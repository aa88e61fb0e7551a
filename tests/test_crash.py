"""Crash consistency: ``doiget batch`` of 20 refs SIGKILLed at random points (issue 7).

The batch runs as a real process (forked from the tests' CLI fork server, so that the kill hits the
process running the command) against the loopback server, whose PDFs stream slowly so
that kills land mid-download: each trial kills it once the library holds a random number of
artefact rows (polled; none: as soon as its file exists), while other workers are downloading.
After each kill the library must be intact: the SQLite file passes ``integrity_check``, every
artefact row names a complete blob whose hash matches, the only orphans are the complete blobs of
refs that were in flight, and a re-run fetches the rest.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import random
import sqlite3
import time

import pytest
from cli_process import ForkedDoiget
from fetchenv import PDF, pdf_bytes, serve_pnas, source_env
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401

from sqlalchemy import text

from doiget import open_library
from doiget.services.fetching import BATCH_WORKERS
from doiget.store.blobs import file_sha256

REFS = 20  # more than twice the batch's workers, so a kill can land with some refs done and some not begun
# 3 kill trials in the default run; the full run: DOIGET_CRASH_TRIALS=10 python -m pytest -q tests/test_crash.py
TRIALS = int(os.environ.get("DOIGET_CRASH_TRIALS", "3"))
CHUNKS = 8  # each PDF arrives in CHUNKS pieces with a pause after each


def doi(i: int) -> str:
    return f"10.5555/crash.{i:02d}"


@pytest.fixture
def upstream(https_server, client_ca):
    """Serve REFS distinct works; returns (env, {sha256 of each PDF})."""
    shas = set()
    for i in range(REFS):
        body = pdf_bytes(f"crash paper {i}")
        shas.add(hashlib.sha256(body).hexdigest())
        step = -(-len(body) // CHUNKS)
        slow = [piece for start in range(0, len(body), step) for piece in (body[start:start + step], 0.004)]
        serve_pnas(https_server, Reply(200, slow, PDF), doi=doi(i), pdf_path=f"/pdf/crash/{i}.pdf",
                   openalex=False)  # OpenAlex would tie every copy to the same W id
    return source_env(https_server, client_ca), shas


def start_batch(home, env, listing) -> ForkedDoiget:
    return ForkedDoiget(home, "batch", str(listing), env=env)


def finish(proc: ForkedDoiget) -> None:
    assert proc.wait(timeout=120) == 0, proc.stderr()


def kill_point(home, rows: int, proc: ForkedDoiget, timeout: float = 60) -> None:
    """Poll until the library holds ``rows`` artefact rows (0: until its file exists, mid-migration),
    or the batch ended, or ``timeout`` passed."""
    path = home / "library.sqlite3"
    deadline = time.monotonic() + timeout
    with contextlib.ExitStack() as stack:
        db = None
        while proc.poll() is None and time.monotonic() < deadline:
            if db is None and path.exists():
                db = stack.enter_context(contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)))
            if db is not None and (rows == 0 or artefact_rows(db) >= rows):
                return
            time.sleep(0.02)


def artefact_rows(db: sqlite3.Connection) -> int:
    """Artefact rows the library holds now (0 while it is created or migrated)."""
    try:
        return db.execute("SELECT count(*) FROM artefacts").fetchone()[0]
    except sqlite3.Error:
        return 0


def check_consistent(home, pdf_shas: set[str]) -> list[str]:
    """Assert the library survived; returns the orphan blobs ``gc`` would remove."""
    with sqlite3.connect(home / "library.sqlite3") as raw:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    with open_library(home) as lib:  # a kill during the first migration leaves an empty file: this redoes it
        with lib.store.read() as conn:
            rows = conn.execute(text("SELECT sha256, size FROM artefacts")).all()
        blobs = lib.store.blobs
        for sha, size in rows:  # every row names a complete blob
            assert blobs.path(sha).is_file() and file_sha256(blobs.path(sha)) == sha
            assert blobs.path(sha).stat().st_size == size
        for sha, path in blobs.all():  # nothing under a final name is partial
            assert file_sha256(path) == sha
        orphans = lib.gc(grace_seconds=0, dry_run=True).orphan_blobs
    named = {sha for sha, _ in rows}
    assert len(orphans) <= BATCH_WORKERS and not named & set(orphans)
    assert set(orphans) <= pdf_shas  # whole PDFs of refs in flight, stored before their row
    return orphans


def test_sigkill_mid_batch_loses_and_corrupts_nothing(tmp_path, upstream):
    env, pdf_shas = upstream
    listing = tmp_path / "refs.txt"
    listing.write_text("".join(f"{doi(i)}\n" for i in range(REFS)))

    rng = random.Random(20261202)
    killed = 0
    for trial in range(TRIALS):
        home = tmp_path / f"trial{trial}"
        proc = start_batch(home, env, listing)
        kill_point(home, rng.randint(0, REFS - BATCH_WORKERS), proc)
        if proc.poll() is None:
            proc.kill()
            killed += 1
        proc.wait(timeout=60)
        if not (home / "library.sqlite3").exists():
            continue  # killed before the library was created: nothing to check
        check_consistent(home, pdf_shas)

        finish(start_batch(home, env, listing))  # the re-run completes what the kill interrupted
        assert check_consistent(home, pdf_shas) == []
        with sqlite3.connect(home / "library.sqlite3") as raw:
            stored = {sha for (sha,) in raw.execute("SELECT sha256 FROM artefacts WHERE kind = 'pdf'")}
        assert stored == pdf_shas
    assert killed >= TRIALS - 2  # the kills really landed mid-batch
