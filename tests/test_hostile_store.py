"""Store failures — a directory, a corrupt file or another program's database where the library
should be, a full disk, a read-only database — are STORE_ERROR naming the path and what to do, on
the façade, the CLI (no traceback) and over MCP; nothing is half-written and a foreign file is
left byte-for-byte unchanged.

A full disk is simulated with SQLite's ``max_page_count`` (database) and an injected ENOSPC
(blob files); a read-only database with ``PRAGMA query_only`` (tests run as root, where file
permissions do not bind)."""
from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest
from sqlalchemy import event

from cli_process import run_doiget
from doiget import open_library
from doiget.config import load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.mcp.server import LibraryHolder, call_tool
from stdio_client import RawServer


def directory(home):
    (home / "library.sqlite3").mkdir(parents=True)


def corrupt(home):
    home.mkdir()
    (home / "library.sqlite3").write_bytes(b"SQLite format 3\x00" + os.urandom(8000))


def garbage(home):
    home.mkdir()
    (home / "library.sqlite3").write_bytes(os.urandom(8000))


def foreign(home):
    home.mkdir()
    conn = sqlite3.connect(home / "library.sqlite3")
    conn.execute("CREATE TABLE contacts (name TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('Ada')")
    conn.commit()
    conn.close()


BROKEN = {"directory": directory, "corrupt": corrupt, "garbage": garbage, "foreign": foreign}


@pytest.fixture(params=sorted(BROKEN))
def broken_home(request, tmp_path):
    home = tmp_path / "lib"
    BROKEN[request.param](home)
    before = (home / "library.sqlite3").read_bytes() if (home / "library.sqlite3").is_file() else None
    yield home
    if before is not None:  # nothing was written into the file
        assert (home / "library.sqlite3").read_bytes() == before


def test_broken_store_is_a_store_error_naming_the_path(broken_home):
    with pytest.raises(DoigetError) as caught:
        open_library(broken_home)
    assert caught.value.code is ErrorCode.STORE_ERROR
    assert str(broken_home / "library.sqlite3") in caught.value.message
    assert "move it away" in caught.value.message.lower()  # what to do


def test_broken_store_on_the_cli(broken_home):
    result = run_doiget(None, "--home", str(broken_home), "search", "x")
    assert result.returncode == 1
    assert result.stderr.startswith("doiget: STORE_ERROR: ") and "Traceback" not in result.stderr
    assert str(broken_home / "library.sqlite3") in result.stderr
    health = run_doiget(None, "--home", str(broken_home), "--json", "health")
    assert '"status": "error"' in health.stdout and "Traceback" not in health.stderr


def test_broken_store_over_mcp(broken_home):
    server = RawServer(broken_home)
    try:
        envelope = server.call("doiget_search_local", {"query": "x"})
        assert envelope["ok"] is False and envelope["error"]["code"] == "STORE_ERROR"
        assert str(broken_home / "library.sqlite3") in envelope["error"]["message"]
        assert server.call("doiget_health", {})["health"]["status"] == "error"
    except BaseException:
        server.kill()
        raise
    assert "Traceback" not in server.close()


def pages(lib) -> int:
    with lib.store.read() as conn:
        return conn.exec_driver_sql("PRAGMA page_count").scalar()


def inject(lib, pragma: str) -> None:
    """Run ``pragma`` on every new writer connection (the pool is emptied first)."""
    event.listen(lib.store.writer, "connect", lambda dbapi, _record: dbapi.execute(pragma))
    lib.store.writer.dispose()


def check_consistent(lib, entries: int) -> None:
    with lib.store.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM entries").scalar() == entries
        assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"


BIG = {"title": "Big", "abstract": "word " * 200_000}


def test_full_disk_during_a_write_is_a_store_error_and_writes_nothing(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        lib.add({"doi": "10.1/kept", "title": "Kept"})
        inject(lib, f"PRAGMA max_page_count = {pages(lib) + 1}")
        with pytest.raises(DoigetError) as caught:
            lib.add({"doi": "10.1/big", **BIG})
        assert caught.value.code is ErrorCode.STORE_ERROR and caught.value.details["reason"] == "full"
        assert "disk is full" in caught.value.message and str(lib.store.path) in caught.value.message
        check_consistent(lib, 1)
        with pytest.raises(DoigetError) as caught:
            lib.import_bibliography('[{"DOI": "10.1/a", "title": "A", "abstract": "' + "x " * 300_000 + '"}]')
        assert caught.value.code is ErrorCode.STORE_ERROR
        check_consistent(lib, 1)


def test_full_disk_over_the_mcp_tool_boundary(tmp_path):
    holder = LibraryHolder(load_config(tmp_path / "lib"))
    try:
        lib = holder.get()
        inject(lib, f"PRAGMA max_page_count = {pages(lib) + 1}")
        envelope = call_tool(holder, "doiget_batch_from_bibliography",
                             {"content": '[{"DOI": "10.1/a", "title": "A", "abstract": "' + "x " * 300_000 + '"}]'})
        assert envelope["ok"] is False and envelope["error"]["code"] == "STORE_ERROR", envelope
        assert call_tool(holder, "doiget_list_recent", {})["ok"] is True
    finally:
        holder.close()


def test_read_only_database_is_a_store_error(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        inject(lib, "PRAGMA query_only = ON")
        with pytest.raises(DoigetError) as caught:
            lib.add({"doi": "10.1/x", "title": "X"})
        assert caught.value.code is ErrorCode.STORE_ERROR and caught.value.details["reason"] == "read_only"
        assert "DOIGET_PROFILE=read-only" in caught.value.message
        check_consistent(lib, 0)


@pytest.mark.skipif(os.geteuid() == 0, reason="file permissions do not bind root")
def test_read_only_files_are_a_store_error(tmp_path):  # pragma: no cover - runs as a normal user
    home = tmp_path / "lib"
    open_library(home).close()
    for path in (home / "library.sqlite3", home):
        path.chmod(0o500 if path.is_dir() else 0o400)
    with pytest.raises(DoigetError) as caught:
        open_library(home).add({"doi": "10.1/x", "title": "X"})
    assert caught.value.code is ErrorCode.STORE_ERROR


def test_full_disk_while_writing_a_blob_leaves_no_file(tmp_path, monkeypatch):
    from doiget.store import blobs

    def no_space(_fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    with open_library(tmp_path / "lib") as lib:
        entry = lib.add({"doi": "10.1/x", "title": "X"})
        monkeypatch.setattr(blobs.os, "fsync", no_space)
        with pytest.raises(DoigetError) as caught:
            lib.add_artefact(entry.id, "jats", b"<article/>")
        assert caught.value.code is ErrorCode.STORE_ERROR and caught.value.details["reason"] == "full"
        assert str(lib.store.blobs.root) in caught.value.message
        assert [p for p in lib.store.blobs.root.rglob("*") if p.is_file()] == []
        assert lib.info(entry.id).artefacts == []


def test_full_disk_on_the_cli_is_an_error_line(tmp_path):
    """The CLI's own entry point with the full disk injected: one error line, exit 1, no traceback."""
    home = tmp_path / "lib"
    open_library(home).close()
    bib = tmp_path / "big.json"
    bib.write_text('[{"DOI": "10.1/a", "title": "A", "abstract": "' + "x " * 300_000 + '"}]')
    script = textwrap.dedent(f"""
        import sys
        from sqlalchemy import event
        from doiget.store import store
        real_init = store.Store.__init__
        def init(self, *args, **kwargs):
            real_init(self, *args, **kwargs)
            with self.read() as conn:
                n = conn.exec_driver_sql("PRAGMA page_count").scalar()
            event.listen(self.writer, "connect", lambda c, _r: c.execute(f"PRAGMA max_page_count = {{n + 1}}"))
            self.writer.dispose()
        store.Store.__init__ = init
        from doiget.cli import main
        sys.exit(main(["--home", {str(home)!r}, "import", {str(bib)!r}]))
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert any(line.startswith("doiget: STORE_ERROR: ") for line in result.stderr.splitlines())
    assert "Traceback" not in result.stderr
    with open_library(home) as lib:
        check_consistent(lib, 0)


def test_user_sql_on_a_damaged_file_is_a_store_error(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        for i in range(200):
            lib.add({"doi": f"10.1/{i}", "title": f"Paper {i} " + "word " * 50})
        lib.store.close()
        data = bytearray(lib.store.path.read_bytes())
        page = 4096
        data[2 * page:] = os.urandom(len(data) - 2 * page)  # keep the header and the schema page
        lib.store.path.write_bytes(bytes(data))
        with pytest.raises(DoigetError) as caught:
            lib.sql("SELECT count(*), sum(length(title)) FROM entries")
        assert caught.value.code is ErrorCode.STORE_ERROR and caught.value.details["reason"] == "corrupt"
