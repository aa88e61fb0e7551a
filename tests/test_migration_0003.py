"""Migration 0003 (entry and note ids never reused) on a library made by the previous code: a store
migrated to the revision before 0003 holding real rows, plus a column and a trigger another migration
might have added."""
from __future__ import annotations

import sqlite3

from alembic.script import ScriptDirectory
from old_library import engines_at

from doiget import open_library
from doiget.demo import load_demo
from doiget.store import migrate

COUNTED = ("entries", "notes", "entry_tags", "note_tags", "entry_authors", "authors", "collection_entries", "citations")


def previous_revision() -> str:
    """The revision 0003 follows (migrations chain in landing order)."""
    return ScriptDirectory.from_config(migrate.alembic_config()).get_revision("0003").down_revision


def library_before_0003(home):
    """A store at the revision before 0003 with papers, tags, citations, notes and note tags."""
    reader, writer = engines_at(home, previous_revision())
    reader.dispose()
    writer.dispose()
    conn = sqlite3.connect(home / "library.sqlite3")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.executescript("""
        INSERT INTO entries (id, doi, title, year, is_stub, sources, created_at, updated_at) VALUES
            (1, '10.1000/a', 'Alpha cartilage study', 2014, 0, '[]', '2026-01-01', '2026-01-01'),
            (2, '10.1000/b', 'Beta collagen study', 2015, 0, '[]', '2026-01-02', '2026-01-02'),
            (3, '10.1000/c', 'Gamma stub', NULL, 1, '[]', '2026-01-03', '2026-01-03');
        INSERT INTO tags (id, name) VALUES (1, 'keep');
        INSERT INTO entry_tags (entry_id, tag_id) VALUES (1, 1), (2, 1);
        INSERT INTO citations (citing_id, cited_id, source, created_at) VALUES (1, 2, 'test', '2026'), (1, 3, 'test', '2026');
        INSERT INTO notes (id, entry_id, kind, body, created_at, updated_at) VALUES
            (1, 1, 'note', 'first note', 't', 't'), (2, 2, 'annotation', 'an annotation', 't', 't');
        INSERT INTO note_tags (note_id, tag_id) VALUES (1, 1);
        ALTER TABLE entries ADD COLUMN added_by_another_migration TEXT;
        CREATE TRIGGER added_by_another_migration AFTER UPDATE OF added_by_another_migration ON entries
        BEGIN UPDATE entries SET updated_at = 'touched' WHERE id = NEW.id; END;
    """)
    conn.commit()
    conn.close()


def dump(path):
    conn = sqlite3.connect(path)
    try:
        return ({t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in COUNTED},
                {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger', 'view')")})
    finally:
        conn.close()


def test_0003_keeps_rows_columns_triggers_and_stops_id_reuse(tmp_path):
    home = tmp_path / "lib"
    library_before_0003(home)
    rows_before, objects_before = dump(home / "library.sqlite3")
    with open_library(home) as lib:  # opening migrates to the head
        assert lib.store.revision_before == previous_revision() and lib.store.revision == migrate.HEAD
        rows_after, objects_after = dump(home / "library.sqlite3")
        assert rows_after == rows_before
        # indexes, triggers (another migration's too), views; 0008 replaces the role index with a covering one
        assert objects_before - {"ix_entry_authors_role"} <= objects_after
        assert [h.id for h in lib.search("collagen")] == [2]  # the FTS triggers still run
        assert lib.info("10.1000/a").tags == ["keep"]
        lib.delete("10.1000/c")  # the highest id: SQLite would hand 3 out again without AUTOINCREMENT
        assert lib.add({"doi": "10.1000/d", "title": "Delta"}).id == 4
        lib.annotate("10.1000/b", None)  # deletes note 2, the highest note id
        assert lib.note_create("a new note", "10.1000/a").id == 3
        lib.delete("10.1000/b")
    conn = sqlite3.connect(home / "library.sqlite3")
    for table, column in (("entry_tags", "entry_id"), ("notes", "entry_id"), ("citations", "cited_id")):
        assert conn.execute(f"SELECT count(*) FROM {table} WHERE {column} IN (2, 3)").fetchone()[0] == 0  # cascaded
    conn.execute("UPDATE entries SET added_by_another_migration = 'x' WHERE id = 1")
    assert conn.execute("SELECT updated_at FROM entries WHERE id = 1").fetchone()[0] == "touched"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()


def test_ids_of_deleted_entries_and_notes_are_never_handed_out_again(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        load_demo(lib)
        newest = max(e.id for e in lib.recent(20))
        lib.delete(f"#{newest}")
        assert lib.add({"doi": "10.1000/after-delete", "title": "After"}).id == newest + 1
        first = lib.note_create("one")
        lib.note_delete(first.id)
        assert lib.note_create("two").id == first.id + 1


def test_one_alembic_head():
    assert ScriptDirectory.from_config(migrate.alembic_config()).get_heads() == [migrate.HEAD]
