"""The store: migrations, FTS kept in sync by triggers, atomic blobs, concurrent writers."""
from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import text
from writer_processes import writer_processes

from doiget import DoigetError, ErrorCode, Work, open_library
from doiget.models import Author
from doiget.store import migrate


def fts_ids(lib, match: str) -> set[int]:
    with lib.store.read() as conn:
        return set(conn.execute(text("SELECT rowid FROM entries_fts WHERE entries_fts MATCH :m"), {"m": match}).scalars())


def test_new_store_is_migrated_to_head(tmp_path):
    lib = open_library(tmp_path / "lib")
    assert migrate.HEAD == migrate.script_head()
    assert (lib.store.revision_before, lib.store.revision) == (None, migrate.HEAD)
    conn = sqlite3.connect(tmp_path / "lib" / "library.sqlite3")
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert {"entries", "authors", "entry_authors", "tags", "entry_tags", "collections", "collection_entries",
            "notes", "artefacts", "chunks", "citations", "provenance", "http_cache", "entries_fts", "chunks_fts",
            "v_entries", "v_fetch_log"} <= names
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    lib.close()
    again = open_library(tmp_path / "lib")
    assert again.store.revision_before == migrate.HEAD


def test_fts_follows_updates_tags_notes_and_deletes(tmp_path):
    lib = open_library(tmp_path)
    entry = lib.add(Work(doi="10.1000/one", title="Octopus cognition", authors=[Author.from_parts("Godfrey", "Peter")]))
    assert fts_ids(lib, "octopus") == {entry.id}
    lib.add(Work(doi="10.1000/ONE", title="Squid cognition"))  # same DOI, any case: an update
    assert fts_ids(lib, "octopus") == set() and fts_ids(lib, "squid") == {entry.id}
    assert fts_ids(lib, "authors:godfrey") == {entry.id}
    lib.tag("10.1000/one", ["cephalopods"])
    assert fts_ids(lib, "tags:cephalopods") == {entry.id}
    lib.untag("10.1000/one", ["cephalopods"])
    assert fts_ids(lib, "cephalopods") == set()
    lib.annotate("10.1000/one", "ink escape behaviour")
    assert fts_ids(lib, "ink") == {entry.id}
    lib.annotate("10.1000/one", None)
    assert fts_ids(lib, "ink") == set()
    lib.tag("10.1000/one", ["molluscs"])
    with lib.store.write() as conn:  # renaming a tag or author re-indexes every entry carrying it
        conn.execute(text("UPDATE authors SET name = 'Peter Godfrey-Smith'"))
        conn.execute(text("UPDATE tags SET name = 'mollusca' WHERE name = 'molluscs'"))
    assert fts_ids(lib, '"godfrey smith"') == {entry.id}
    assert fts_ids(lib, "tags:mollusca") == {entry.id} and fts_ids(lib, "molluscs") == set()
    lib.delete("10.1000/one")
    with lib.store.read() as conn:
        assert conn.execute(text("SELECT count(*) FROM entries_fts")).scalar() == 0


def test_entries_found_under_two_ids_are_merged(tmp_path):
    lib = open_library(tmp_path)
    preprint = lib.add(Work(arxiv="1707.08567", title="Preprint title"), tags=["ml"])
    published = lib.add(Work(doi="10.1000/pub", title="Published title", year=2018))
    lib.annotate("10.1000/pub", "good")
    merged = lib.add(Work(doi="10.1000/pub", arxiv="1707.08567", title="Published title"))
    assert merged.id == preprint.id
    assert (merged.doi, merged.arxiv, merged.year, merged.tags, merged.annotation) == (
        "10.1000/pub", "1707.08567", 2018, ["ml"], "good")
    with pytest.raises(DoigetError) as info:
        lib.info(published.id)
    assert info.value.code is ErrorCode.NOT_FOUND


def test_blob_is_never_referenced_before_it_is_complete(tmp_path, monkeypatch):
    lib = open_library(tmp_path)
    lib.add(Work(doi="10.1000/pdf", title="With a PDF"))
    data = b"%PDF-1.7\n" + b"x" * 5000

    def crash(*_a, **_k):
        raise OSError("disk vanished")  # the process dies after the blob is written, before the row commits

    monkeypatch.setattr(lib.store, "write", crash)
    with pytest.raises(OSError):
        lib.add_artefact("10.1000/pdf", "pdf", data)
    monkeypatch.undo()
    with lib.store.read() as conn:
        assert conn.execute(text("SELECT count(*) FROM artefacts")).scalar() == 0
    report = lib.gc(grace_seconds=0)
    assert len(report.orphan_blobs) == 1
    assert list(lib.store.blobs.all()) == []
    sha = lib.add_artefact("10.1000/pdf", "pdf", data)
    assert lib.store.blobs.read(sha) == data and lib.pdf_path("10.1000/pdf").read_bytes() == data
    assert lib.gc(grace_seconds=0).orphan_blobs == []


def test_interrupted_blob_write_never_appears_under_final_name(tmp_path, monkeypatch):
    lib = open_library(tmp_path)
    import os

    def fail_replace(*_a):
        raise OSError("killed during rename")

    monkeypatch.setattr(os, "replace", fail_replace)
    with pytest.raises(OSError):
        lib.store.blobs.put_bytes(b"%PDF-partial")
    monkeypatch.undo()
    assert list(lib.store.blobs.all()) == []
    assert list(lib.store.blobs.tmp.iterdir()) == []


def _writer(home: str, worker: int, count: int) -> None:
    lib = open_library(home)
    for i in range(count):
        ref = f"10.1000/w{worker}-{i}"
        lib.add(Work(doi=ref, title=f"Paper {i} of worker {worker}"))
        lib.tag(ref, [f"worker{worker}", "shared"])
        lib.annotate(ref, f"note {i}")
    lib.close()


def test_two_processes_writing_at_once_do_not_lock_each_other_out(tmp_path):
    home = str(tmp_path / "lib")
    open_library(home).close()
    ctx = writer_processes()
    procs = [ctx.Process(target=_writer, args=(home, w, 60)) for w in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    lib = open_library(home)
    assert lib.sql("SELECT count(*) FROM entries")["rows"] == [[120]]
    assert lib.sql("SELECT count(*) FROM notes WHERE kind = 'annotation'")["rows"] == [[120]]
    assert {t.name: t.count for t in lib.tags()} == {"shared": 120, "worker0": 60, "worker1": 60}
    assert len(lib.search("worker", limit=100)) == 100


def test_provenance_is_append_only(tmp_path):
    lib = open_library(tmp_path)
    with lib.store.write() as conn:
        conn.execute(text("INSERT INTO provenance (time, source, url, outcome) VALUES ('t', 's', 'u', 'ok')"))
    with pytest.raises(Exception, match="append-only"):
        with lib.store.write() as conn:
            conn.execute(text("DELETE FROM provenance"))
    assert lib.sql("SELECT count(*) FROM v_fetch_log")["rows"] == [[1]]
