"""Migration 0008 (a hit's authors read from one covering index) on a library at 0007: the same rows and
search hits after, the old role index replaced, every name query served. One Alembic head."""
from __future__ import annotations

from alembic.script import ScriptDirectory
from old_library import engines_at
from sqlalchemy import text

from doiget import Author, Work, open_library
from doiget.store import entries as entry_store
from doiget.store import migrate

AUTHORS = "SELECT name FROM entry_authors WHERE entry_id = :e AND role = 'author' ORDER BY position"


def _old_library(home) -> list[tuple]:
    """A library at revision 0007 whose entries have authors and editors; returns its v_entries rows."""
    reader, writer = engines_at(home, "0007")
    with writer.begin() as conn:
        for i in range(6):
            entry_store.upsert_work(conn, Work(
                doi=f"10.1000/{i}", title=f"Octopus minds {i}", year=2000 + i,
                authors=[Author.from_parts(family, "J.") for family in ("Mather", "Godfrey", "Anderson")[: 1 + i % 3]],
                contributors={"editor": [Author.from_parts("Editor", f"E{i}")]}))
    with reader.connect() as conn:
        rows = conn.execute(text("SELECT * FROM v_entries ORDER BY id")).all()
    reader.dispose()
    writer.dispose()
    return rows


def test_upgrade_replaces_the_role_index_with_a_covering_one(tmp_path):
    before = _old_library(tmp_path / "lib")
    with open_library(tmp_path / "lib") as lib:
        assert (lib.store.revision_before, lib.store.revision) == ("0007", migrate.HEAD)
        with lib.store.read() as conn:
            assert conn.execute(text("SELECT * FROM v_entries ORDER BY id")).all() == before
            names = {name for name, in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'index' "
                                                         "AND tbl_name = 'entry_authors'"))}
            assert "ix_entry_authors_role" not in names
            assert [c for _, _, c in conn.execute(text("PRAGMA index_info(ix_entry_authors_shown)"))] == [
                "entry_id", "role", "position", "name"]
            plan = " ".join(r[3] for r in conn.execute(text(f"EXPLAIN QUERY PLAN {AUTHORS}"), {"e": 1}))
            assert "COVERING INDEX ix_entry_authors_shown" in plan and "TEMP B-TREE" not in plan
            roles = " ".join(r[3] for r in conn.execute(text(  # the old index's query (store/entries.py)
                "EXPLAIN QUERY PLAN SELECT DISTINCT role FROM entry_authors WHERE entry_id = :e"), {"e": 1}))
            assert "COVERING INDEX ix_entry_authors_shown" in roles
        hits = {h.id: h.authors for h in lib.search("octopus")}
        assert hits == {i + 1: ["J. Mather", "J. Godfrey", "J. Anderson"][: 1 + i % 3] for i in range(6)}
