"""Migration 0005 (entries_fts as an external-content index) on a library made by the previous
schema: the same search results before and after, an exact index, and one Alembic head."""
from __future__ import annotations

import pytest
from alembic.script import ScriptDirectory
from old_library import engines_at
from sqlalchemy import text

from doiget import Author, Work, open_library
from doiget.store import entries as entry_store
from doiget.store import migrate
from doiget.store.fts import compile_query

OLD_SEARCH = ("SELECT e.id, bm25(entries_fts, 10.0, 3.0, 5.0, 2.0, 1.0, 4.0, 2.0) AS score FROM entries_fts "
              "JOIN entries e ON e.id = entries_fts.rowid WHERE entries_fts MATCH :m AND e.is_stub = 0 "
              "ORDER BY score, e.id LIMIT 20")
QUERIES = ["octopus", "cognition OR squid", "authors:mather", "tags:cephalopods", "ink", "arm*", '"octopus minds"']


def _old_library(home):
    """A library at revision 0004 (the previous head) with entries, authors, tags, notes and a stub, written by today's store code."""
    reader, writer = engines_at(home, "0004")
    with writer.begin() as conn:
        for i in range(40):
            entry_id = entry_store.upsert_work(conn, Work(
                doi=f"10.1000/{i}", title=f"Octopus {'minds' if i % 3 else 'cognition'} {i}",
                abstract="Arms that think. " * (i % 4) or None, year=2000 + i,
                authors=[Author.from_parts("Mather", "J."), Author.from_parts("Godfrey", f"P{i}")][: 1 + i % 2]),
                stub=i % 9 == 0)
            if i % 5 == 0:
                for tag_id in entry_store.tag_ids(conn, ["cephalopods"]):
                    conn.execute(text("INSERT INTO entry_tags (entry_id, tag_id) VALUES (:e, :t)"),
                                 {"e": entry_id, "t": tag_id})
            if i % 7 == 0:
                conn.execute(text("INSERT INTO notes (entry_id, body, created_at, updated_at) "
                                  "VALUES (:e, 'ink and squid', '', '')"), {"e": entry_id})
    with reader.connect() as conn:
        before = {q: conn.execute(text(OLD_SEARCH), {"m": compile_query(q, ("title", "abstract", "authors", "venue",
                  "year", "tags", "notes"))}).all() for q in QUERIES}
    reader.dispose()
    writer.dispose()
    return before


def test_upgrade_keeps_search_results_and_drops_the_text_copy(tmp_path):
    before = _old_library(tmp_path / "lib")
    assert all(before[q] for q in QUERIES if q != "ink") and before["ink"]
    with open_library(tmp_path / "lib") as lib:
        assert (lib.store.revision_before, lib.store.revision) == ("0004", migrate.HEAD)
        for query in QUERIES:
            assert [(h.id, pytest.approx(h.score)) for h in lib.search(query)] == [tuple(r) for r in before[query]]
        with lib.store.write() as conn:
            conn.execute(text("INSERT INTO entries_fts(entries_fts, rank) VALUES ('integrity-check', 1)"))
            assert conn.execute(text("SELECT count(*) FROM sqlite_master WHERE name = 'entries_fts_content' "
                                     "AND type = 'table'")).scalar() == 0  # no own copy of the text
        lib.add(Work(doi="10.1000/new", title="Octopus newcomer"))
        assert lib.search("newcomer")[0].title == "Octopus newcomer"


def test_one_alembic_head_equal_to_head_constant():
    heads = ScriptDirectory.from_config(migrate.alembic_config()).get_heads()
    assert heads == [migrate.HEAD]
