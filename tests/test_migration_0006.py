"""Migration 0006 (update notices, v_retracted) on a library made by the previous schema (0003):
entries, their people, tags and notes survive; the new tables start empty; the library then stores
and lists notices."""
from __future__ import annotations

from old_library import close_returning_entries, engines_at
from sqlalchemy import text

from doiget import Author, Work, open_library
from doiget.notices import UpdateNotice
from doiget.store import entries as entry_store
from doiget.store import migrate


def _old_library(home) -> list[tuple]:
    """A library at revision 0003 with entries, authors, a tag and a note; returns its v_entries rows."""
    reader, writer = engines_at(home, "0003")
    with writer.begin() as conn:
        for i in range(12):
            entry_id = entry_store.upsert_work(conn, Work(doi=f"10.1000/{i}", title=f"Paper {i}", year=2000 + i,
                                                          authors=[Author.from_parts("Mather", "J.")]))
            if i % 4 == 0:
                for tag_id in entry_store.tag_ids(conn, ["old"]):
                    conn.execute(text("INSERT INTO entry_tags (entry_id, tag_id) VALUES (:e, :t)"),
                                 {"e": entry_id, "t": tag_id})
        conn.execute(text("INSERT INTO notes (entry_id, body, created_at, updated_at) VALUES (1, 'kept', '', '')"))
    return close_returning_entries(reader, writer)


def test_upgrade_from_0003_keeps_rows_and_adds_notices(tmp_path):
    before = _old_library(tmp_path / "lib")
    assert len(before) == 12
    with open_library(tmp_path / "lib") as lib:
        assert (lib.store.revision_before, lib.store.revision) == ("0003", migrate.HEAD)
        with lib.store.read() as conn:
            assert conn.execute(text("SELECT * FROM v_entries ORDER BY id")).all() == before
            assert conn.execute(text("SELECT count(*) FROM entry_updates")).scalar() == 0
            assert conn.execute(text("SELECT count(*) FROM update_checks")).scalar() == 0
        assert lib.info("doi:10.1000/3").updates is None  # an old entry was never asked
        assert lib.sql("SELECT count(*) FROM v_retracted").rows == [[0]]
        lib.add(Work(doi="10.1000/3", sources=["crossref"], updates=[UpdateNotice(
            direction="updated-by", kind="retraction", doi="10.1000/3.r", date="2020-01-02", source="crossref")]))
        assert [tuple(r) for r in lib.sql("SELECT ref, title, notice_doi FROM v_retracted").rows] == [
            ("doi:10.1000/3", "Paper 3", "10.1000/3.r")]
        lib.delete("doi:10.1000/3")  # notices go with their entry
        assert lib.sql("SELECT count(*) FROM entry_updates").rows == [[0]]
