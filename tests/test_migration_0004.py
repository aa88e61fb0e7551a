"""Migration 0004 carries a library made by the previous schema forward: nothing lost, names copied
into each entry's own spelling, every entry given a citation key once."""
from __future__ import annotations

import sqlite3

from alembic.script import ScriptDirectory
from old_library import engines_at

from doiget.models import Author, Work
from doiget.store import migrate
from doiget.store.store import Store

OLD_ROWS = """
INSERT INTO entries (id, doi, title, year, venue, sources, created_at, updated_at)
VALUES (1, '10.1000/a', 'Deep learning', 2016, 'Nature', '["crossref"]', '2026-01-01', '2026-01-01'),
       (2, NULL, 'Grey literature', NULL, NULL, '["import"]', '2026-01-02', '2026-01-02'),
       (3, '10.1000/b', 'Deep learning', 2016, NULL, '["import"]', '2026-01-03', '2026-01-03');
INSERT INTO authors (id, key, name, family, given) VALUES
       (1, 'name:ian goodfellow', 'Ian Goodfellow', 'Goodfellow', 'Ian'),
       (2, 'name:sonia van de krol', 'Sònia van de Krol', 'van de Krol', 'Sònia');
INSERT INTO entry_authors (entry_id, position, author_id, affiliation) VALUES
       (1, 0, 1, 'Google'), (1, 1, 2, NULL), (3, 0, 1, NULL);
INSERT INTO tags (id, name) VALUES (1, 'ml');
INSERT INTO entry_tags (entry_id, tag_id) VALUES (1, 1), (2, 1);
INSERT INTO notes (id, entry_id, kind, body, created_at, updated_at)
VALUES (1, 1, 'annotation', 'seminal', '2026-01-01', '2026-01-01');
"""


def _old_library(home) -> None:
    """A library at revision 0002 (the schema before 0004) with rows shaped as that code wrote them."""
    reader, writer = engines_at(home, "0002")
    raw = sqlite3.connect(home / "library.sqlite3")
    raw.executescript(OLD_ROWS)
    raw.commit()
    raw.close()
    reader.dispose()
    writer.dispose()


def test_one_head_only():
    assert len(ScriptDirectory.from_config(migrate.alembic_config()).get_heads()) == 1


def test_old_library_is_carried_forward_without_loss(tmp_path):
    home = tmp_path / "lib"
    _old_library(home)
    before = sqlite3.connect(home / "library.sqlite3")
    counts = {t: before.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
              for t in ("entries", "authors", "entry_authors", "entry_tags", "notes")}
    before.close()
    store = Store(home)
    assert (store.revision_before, store.revision) == ("0002", migrate.HEAD)
    db = sqlite3.connect(home / "library.sqlite3")
    assert {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in counts} == counts
    rows = db.execute("SELECT entry_id, position, role, name, family, given, affiliation FROM entry_authors "
                      "ORDER BY entry_id, position").fetchall()
    assert rows == [(1, 0, "author", "Ian Goodfellow", "Goodfellow", "Ian", "Google"),
                    (1, 1, "author", "Sònia van de Krol", "van de Krol", "Sònia", None),
                    (3, 0, "author", "Ian Goodfellow", "Goodfellow", "Ian", None)]
    keys = dict(db.execute("SELECT id, citekey FROM entries"))
    assert keys == {1: "goodfellowDeepLearning2016", 2: "anonGreyLiterature", 3: "goodfellowDeepLearning2016a"}
    view = db.execute("SELECT id, citekey, authors, tags, annotation FROM v_entries ORDER BY id").fetchall()
    assert view[0] == (1, "goodfellowDeepLearning2016", "Ian Goodfellow; Sònia van de Krol", "ml", "seminal")
    assert db.execute("SELECT rowid FROM entries_fts WHERE entries_fts MATCH 'krol'").fetchall() == [(1,)]
    db.close()
    from doiget.store import entries

    with store.write() as conn:
        (entry,) = entries.load(conn, [1])
        assert [(a.family, a.given, a.affiliation) for a in entry.authors] == [
            ("Goodfellow", "Ian", "Google"), ("van de Krol", "Sònia", None)]
        # A new entry after the upgrade: its own spelling, editors with their role, a key given once.
        new_id = entries.upsert_work(conn, Work(doi="10.1000/c", title="Deep learning", year=2016, authors=[
            Author(name="Sonia van de Krol", family="Krol", given="Sonia", particle="van de")],
            contributors={"editor": [Author(name="Ian Goodfellow", family="Goodfellow", given="Ian")]}))
        (new,) = entries.load(conn, [new_id])
        assert new.citekey == "krolDeepLearning2016" and new.contributors["editor"][0].family == "Goodfellow"
        assert new.authors[0].particle == "van de" and new.authors[0].name == "Sonia van de Krol"
    store.close()
