"""Migration 0007 (person-index keys that keep every script) on a library as the previous code left
it: names in Cyrillic and Greek had all been keyed ``name:`` and shared one ``authors`` row, so
each such entry's search text showed the first one's spelling and a search for the real author
found nothing. After the upgrade every person has a row of their own and is found; nothing else
changes."""
from __future__ import annotations

from old_library import close_returning_entries, engines_at
from sqlalchemy import text

from doiget import Author, Work, open_library
from doiget.store import entries as entry_store
from doiget.store import migrate
from doiget.text import ascii_fold

WORKS = [
    Work(doi="10.1000/ru", title="Квантовая механика", year=2001, authors=[Author(name="Иван Иванов")]),
    Work(doi="10.1000/el", title="Θεωρία αριθμών", year=2002, authors=[Author(name="Γιώργος Παπαδόπουλος")]),
    Work(doi="10.1000/uk", title="Теорія чисел", year=2003,
         authors=[Author(name="Олена Коваленко"), Author(name="J. Smith")]),
    Work(doi="10.1000/zh", title="量子力学", year=2004, authors=[Author(name="张三")]),
    Work(doi="10.1000/es", title="Física", year=2005, authors=[Author(name="José Núñez"), Author(name="J. Smith")]),
]


def _old_key(name: str) -> str:
    """The person-index key before 0007 (ASCII fold; what it could not spell was dropped)."""
    return "name:" + " ".join((ascii_fold(name) or name).split()).lower()


def _old_library(home) -> list[tuple]:
    """A library at 0006 whose person index is keyed as the old code keyed it; returns v_entries."""
    reader, writer = engines_at(home, "0006")
    with writer.begin() as conn:
        for work in WORKS:
            entry_store.upsert_work(conn, work)
        # Re-key as before: rows that now share a key collapse into the first (oldest) of them.
        first: dict[str, int] = {}
        for author_id, name in conn.execute(text("SELECT id, name FROM authors ORDER BY id")).all():
            old = _old_key(name)
            if old in first:
                conn.execute(text("UPDATE entry_authors SET author_id = :to WHERE author_id = :id"),
                             {"to": first[old], "id": author_id})
                conn.execute(text("DELETE FROM authors WHERE id = :id"), {"id": author_id})
            else:
                first[old] = author_id
                conn.execute(text("UPDATE authors SET key = :k WHERE id = :id"), {"k": old, "id": author_id})
    return close_returning_entries(reader, writer)


def test_people_written_in_any_script_get_their_own_index_row_and_are_found(tmp_path):
    before = _old_library(tmp_path / "lib")
    with open_library(tmp_path / "lib") as lib:
        assert (lib.store.revision_before, lib.store.revision) == ("0006", migrate.HEAD)
        keys = dict(lib.sql("SELECT name, key FROM authors").rows)
        with lib.store.read() as conn:
            assert conn.execute(text("SELECT * FROM v_entries ORDER BY id")).all() == before
            searched = dict(conn.execute(text(
                "SELECT e.doi, x.authors FROM entries e JOIN entry_search_text x ON x.id = e.id")).all())
        for doi in ("10.1000/el", "10.1000/uk", "10.1000/ru"):  # the old index had them all as "Иван Иванов"
            assert [h.ref for h in lib.search(lib.info(doi).authors[0].name.split()[-1])] == [f"doi:{doi}"]
        assert sorted(h.ref for h in lib.search("Smith")) == ["doi:10.1000/es", "doi:10.1000/uk"]
    assert searched == {"10.1000/ru": "Иван Иванов", "10.1000/el": "Γιώργος Παπαδόπουλος",
                        "10.1000/uk": "Олена Коваленко; J. Smith", "10.1000/zh": "张三",
                        "10.1000/es": "José Núñez; J. Smith"}
    assert keys == {"Иван Иванов": "name:иван иванов", "Γιώργος Παπαδόπουλος": "name:γιωργοσ παπαδοπουλοσ",
                    "Олена Коваленко": "name:олена коваленко", "J. Smith": "name:j. smith",
                    "张三": "name:张三", "José Núñez": "name:jose nunez"}


def test_new_imports_keep_people_of_any_script_apart(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        for work in WORKS:
            lib.add(work)
        assert len(lib.sql("SELECT * FROM authors").rows) == 6
        assert [h.ref for h in lib.search("Παπαδόπουλος")] == ["doi:10.1000/el"]

