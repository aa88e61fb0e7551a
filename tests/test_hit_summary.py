"""``entry_hit_summary`` (migration 0009) stays exactly what a search hit would compute from the base tables,
through random mutations of every table that feeds it, made by the Library and by plain SQL; the migration
fills it for an existing library, and bulk import writes what the triggers would."""
from __future__ import annotations

import json
import random

from alembic.script import ScriptDirectory
from old_library import engines_at
from sqlalchemy import text

from doiget import Author, Work, open_library
from doiget.store import entries as entry_store
from doiget.store import migrate

SEP = "\x1f"
_MIGRATION = ScriptDirectory.from_config(migrate.alembic_config()).get_revision("0009").module
COMPUTED = f"SELECT e.id, {_MIGRATION.SUMMARY.format('e.id')} FROM entries e ORDER BY e.id"
STORED = "SELECT id, summary FROM entry_hit_summary ORDER BY id"
TAGS = ["Zebra", "apple", "Émile", "b-side", "APPLE2", "to-read", "Ωmega", "_x"]
KINDS = ["retraction", "correction", "expression_of_concern", "erratum"]


def _shown(conn) -> dict[int, tuple]:
    """Each entry's authors, tags, PDF flag and notice kinds, read from the base tables in Python."""
    out = {entry_id: ([], [], False, []) for entry_id, in conn.execute(text("SELECT id FROM entries"))}
    for entry_id, name in conn.execute(text("SELECT entry_id, name FROM entry_authors WHERE role = 'author' "
                                            "AND name IS NOT NULL ORDER BY entry_id, position")):
        out[entry_id][0].append(name)
    for entry_id, name in conn.execute(text("SELECT et.entry_id, t.name FROM entry_tags et "
                                            "JOIN tags t ON t.id = et.tag_id")):
        out[entry_id][1].append(name)
    pdfs = {entry_id for entry_id, in conn.execute(text("SELECT entry_id FROM artefacts WHERE kind = 'pdf'"))}
    for entry_id, kind in conn.execute(text("SELECT entry_id, kind FROM entry_updates "
                                            "WHERE direction = 'updated-by'")):
        out[entry_id][3].append(kind)
    # SQLite's NOCASE: ASCII letters folded, then code point order
    nocase = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
    return {entry_id: (authors, sorted(tags, key=lambda t: t.translate(nocase)), entry_id in pdfs, sorted(kinds))
            for entry_id, (authors, tags, _, kinds) in out.items()}


def _parsed(summary: str) -> tuple:
    authors, _, marks = summary.partition("\x1e")
    items = marks.split(SEP) if marks else []
    return (authors.split(SEP) if authors else [], [i[1:] for i in items if i[0] == "t"], "p" in items,
            sorted(i[1:] for i in items if i[0] == "u"))


def _check(lib) -> int:
    with lib.store.read() as conn:
        stored = [tuple(r) for r in conn.execute(text(STORED))]
        assert stored == [tuple(r) for r in conn.execute(text(COMPUTED))]
        assert {entry_id: _parsed(summary) for entry_id, summary in stored} == _shown(conn)
    return len(stored)


def _work(rng: random.Random, i: int) -> Work:
    people = [Author.from_parts(rng.choice(["Müller", "van der Berg", "Ng", "O'Brien"]), f"{chr(65 + j)}.")
              for j in range(rng.randint(0, 4))]
    editors = [Author.from_parts("Editor", f"E{i}")] if rng.random() < 0.3 else []
    return Work(doi=f"10.1000/s.{i}", title=f"Octopus arms {i}", year=2000 + i % 20, authors=people,
                contributors={"editor": editors} if editors else {})


def _random_step(lib, rng: random.Random, step: int) -> None:
    with lib.store.read() as conn:
        ids = [i for i, in conn.execute(text("SELECT id FROM entries ORDER BY id"))]
    refs = [f"#{i}" for i in ids]
    action = rng.randrange(14)
    if action == 0 or len(ids) < 4:
        lib.add(_work(rng, 1000 + step), tags=rng.sample(TAGS, rng.randint(0, 3)))
    elif action == 1:
        lib.tag(rng.choice(refs), rng.sample(TAGS, rng.randint(1, 3)))
    elif action == 2:
        ref = rng.choice(refs)
        held = lib.info(ref).tags
        if held:
            lib.untag(ref, rng.sample(held, rng.randint(1, len(held))))
    elif action == 3:
        lib.delete(rng.choice(refs))
    elif action == 4:
        keep, drop = rng.sample(refs, 2)
        lib.merge(keep, drop, force=True)
    elif action == 5:
        items = [{"id": f"k{step}.{j}", "type": "article-journal", "DOI": f"10.1000/imp.{step}.{j}",
                  "title": f"Imported {step} {j}", "author": [{"family": "Ng", "given": f"Q{j}"}][: j % 2],
                  "keyword": rng.sample(TAGS, rng.randint(0, 2))} for j in range(rng.randint(1, 3))]
        if rng.random() < 0.5:  # a record of a stored entry: joins it
            with lib.store.read() as conn:
                doi = _pick(conn, rng, "SELECT doi FROM entries WHERE doi IS NOT NULL ORDER BY id")[0]
            items.append({"id": "again", "type": "article-journal", "DOI": doi, "title": "Again",
                          "author": [{"family": "Late", "given": "L."}], "keyword": [rng.choice(TAGS)]})
        lib.import_bibliography(json.dumps(items), format="csl-json", tags=rng.sample(TAGS, rng.randint(0, 1)),
                                overwrite=rng.random() < 0.5)
    else:
        with lib.store.write() as conn:
            _sql_step(conn, rng, ids, action)


def _pick(conn, rng: random.Random, sql: str) -> tuple | None:
    """One of the rows of ``sql`` (ordered: the test is repeatable), chosen by ``rng``; None when there are none."""
    rows = [tuple(r) for r in conn.execute(text(sql))]
    return rng.choice(rows) if rows else None


def _sql_step(conn, rng: random.Random, ids: list[int], action: int) -> None:
    entry = rng.choice(ids)
    if action == 6:  # rename a tag (cases and spellings that reorder it)
        tag = _pick(conn, rng, "SELECT id, name FROM tags ORDER BY id")
        if tag:
            conn.execute(text("UPDATE OR IGNORE tags SET name = :n WHERE id = :t"),
                         {"n": rng.choice(["a" + tag[1], tag[1].swapcase(), "Zz" + tag[1]]), "t": tag[0]})
    elif action == 7:  # a name added, removed, renamed, re-roled, moved
        row = _pick(conn, rng, "SELECT entry_id, position FROM entry_authors ORDER BY 1, 2")
        choice = rng.randrange(5)
        if choice == 0 or row is None:
            author = conn.execute(text("INSERT OR IGNORE INTO authors (key, name) VALUES (:k, :n) RETURNING id"),
                                  {"k": f"name:new {rng.random()}", "n": "New P."}).scalar()
            conn.execute(text("INSERT OR IGNORE INTO entry_authors (entry_id, position, author_id, name, role) VALUES "
                              "(:e, :p, :a, :n, :r)"), {"e": entry, "p": rng.randint(0, 8), "a": author,
                                                       "n": rng.choice(["New P.", "Ng, Q."]),
                                                       "r": rng.choice(["author", "author", "editor"])})
        elif choice == 1:
            conn.execute(text("DELETE FROM entry_authors WHERE entry_id = :e AND position = :p"),
                         {"e": row[0], "p": row[1]})
        elif choice == 2:
            conn.execute(text("UPDATE entry_authors SET name = :n WHERE entry_id = :e AND position = :p"),
                         {"n": rng.choice(["Renamed R.", None]), "e": row[0], "p": row[1]})
        elif choice == 3:
            conn.execute(text("UPDATE entry_authors SET role = CASE role WHEN 'author' THEN 'editor' ELSE 'author' "
                              "END WHERE entry_id = :e AND position = :p"), {"e": row[0], "p": row[1]})
        else:
            conn.execute(text("UPDATE OR IGNORE entry_authors SET entry_id = :to, position = :q "
                              "WHERE entry_id = :e AND position = :p"),
                         {"to": entry, "q": rng.randint(0, 9), "e": row[0], "p": row[1]})
    elif action == 8:  # a PDF (or another kind) added
        conn.execute(text("INSERT INTO artefacts (entry_id, kind, sha256, size, created_at) VALUES "
                          "(:e, :k, :s, 1, '2026-12-04')"),
                     {"e": entry, "k": rng.choice(["pdf", "pdf", "jats"]), "s": f"{rng.getrandbits(256):064x}"})
    elif action == 9:  # an artefact removed, or moved to another entry
        row = (_pick(conn, rng, "SELECT id FROM artefacts ORDER BY id") or [None])[0]
        if row is not None and rng.random() < 0.5:
            conn.execute(text("DELETE FROM artefacts WHERE id = :i"), {"i": row})
        elif row is not None:
            conn.execute(text("UPDATE OR IGNORE artefacts SET entry_id = :e, kind = :k WHERE id = :i"),
                         {"e": entry, "k": rng.choice(["pdf", "html"]), "i": row})
    elif action == 10:  # a notice added
        conn.execute(text("INSERT INTO entry_updates (entry_id, direction, kind, source, fetched_at) VALUES "
                          "(:e, :d, :k, 'crossref', '2026-12-04')"),
                     {"e": entry, "d": rng.choice(["updated-by", "updated-by", "update-to"]), "k": rng.choice(KINDS)})
    elif action == 11:  # a notice removed, changed or moved
        row = (_pick(conn, rng, "SELECT id FROM entry_updates ORDER BY id") or [None])[0]
        if row is not None and rng.random() < 0.4:
            conn.execute(text("DELETE FROM entry_updates WHERE id = :i"), {"i": row})
        elif row is not None:
            conn.execute(text("UPDATE entry_updates SET entry_id = :e, kind = :k, direction = :d WHERE id = :i"),
                         {"e": entry, "k": rng.choice(KINDS), "d": rng.choice(["updated-by", "update-to"]), "i": row})
    elif action == 12:  # a tag deleted (its links cascade)
        tag = _pick(conn, rng, "SELECT id FROM tags ORDER BY id")
        if tag:
            conn.execute(text("DELETE FROM tags WHERE id = :t"), {"t": tag[0]})
    else:  # a tag link moved to another entry
        link = _pick(conn, rng, "SELECT entry_id, tag_id FROM entry_tags ORDER BY 1, 2")
        if link:
            conn.execute(text("UPDATE OR IGNORE entry_tags SET entry_id = :e WHERE entry_id = :old AND tag_id = :t"),
                         {"e": entry, "old": link[0], "t": link[1]})


def test_stored_summary_equals_the_computed_one_through_random_mutations(tmp_path):
    rng = random.Random(15)
    with open_library(tmp_path / "lib") as lib:
        for i in range(6):
            lib.add(_work(rng, i), tags=rng.sample(TAGS, rng.randint(0, 3)))
        for step in range(400):
            _random_step(lib, rng, step)
            if step % 20 == 0:
                _check(lib)
        assert _check(lib) > 6
        with lib.store.read() as conn:  # every kind of content was there at some point and most still is
            counts = conn.execute(text(
                "SELECT (SELECT count(*) FROM entry_hit_summary WHERE summary LIKE '_%' || char(30) || '%'), "
                "(SELECT count(*) FROM entry_hit_summary WHERE summary LIKE '%' || char(30) || '%' || char(31) || '%'), "
                "(SELECT count(*) FROM artefacts WHERE kind = 'pdf'), "
                "(SELECT count(*) FROM entry_updates WHERE direction = 'updated-by')")).one()
        assert all(counts), counts
        # what a hit shows is what the summary holds
        hits = {h.id: h for h in lib.search("octopus OR imported OR again", limit=100)}
        with lib.store.read() as conn:
            shown = _shown(conn)
        assert hits and all((h.authors, h.tags, h.has_pdf) == shown[i][:3] for i, h in hits.items())


def test_upgrade_fills_the_summary_of_an_existing_library(tmp_path):
    reader, writer = engines_at(tmp_path / "lib", "0008")
    with writer.begin() as conn:
        for i in range(5):
            entry_store.upsert_work(conn, Work(
                doi=f"10.1000/{i}", title=f"Octopus minds {i}",
                authors=[Author.from_parts(f, "J.") for f in ("Mather", "Godfrey", "Anderson")[: i % 4]],
                contributors={"editor": [Author.from_parts("Editor", f"E{i}")]}))
        conn.execute(text("INSERT INTO tags (name) VALUES ('zeta'), ('Alpha'), ('beta')"))
        conn.execute(text("INSERT INTO entry_tags (entry_id, tag_id) SELECT e.id, t.id FROM entries e, tags t "
                          "WHERE e.id % 2 = 1"))
        conn.execute(text("INSERT INTO artefacts (entry_id, kind, sha256, size, created_at) VALUES "
                          "(2, 'pdf', :s, 1, '2026-12-04')"), {"s": "a" * 64})
        conn.execute(text("INSERT INTO entry_updates (entry_id, direction, kind, source, fetched_at) VALUES "
                          "(3, 'updated-by', 'retraction', 'crossref', '2026-12-04')"))
    reader.dispose()
    writer.dispose()
    with open_library(tmp_path / "lib") as lib:
        assert (lib.store.revision_before, lib.store.revision) == ("0008", migrate.HEAD)
        assert _check(lib) == 5
        with lib.store.read() as conn:
            assert conn.execute(text("SELECT summary FROM entry_hit_summary WHERE id = 3")).scalar() == (
                "J. Mather\x1fJ. Godfrey\x1etAlpha\x1ftbeta\x1ftzeta\x1furetraction")
        hits = {h.id: h for h in lib.search("octopus")}
        assert hits[3].tags == ["Alpha", "beta", "zeta"] and hits[3].update_status == "retracted"
        assert hits[2].has_pdf and hits[1].authors == [] and hits[4].authors == ["J. Mather", "J. Godfrey",
                                                                                  "J. Anderson"]


def test_bulk_import_writes_what_the_triggers_would(tmp_path):
    items = [{"id": f"k{i}", "type": "article-journal", "DOI": f"10.1000/b.{i}", "title": f"Octopus {i}",
              "author": [{"family": "Müller", "given": "Ånna"}, {"literal": "World Bank"}][: i % 3],
              "editor": [{"family": "Mather", "given": "J."}] if i % 2 else [],
              "keyword": ["Zebra", "apple", "Émile", "APPLE"][: i % 5]} for i in range(12)]
    with open_library(tmp_path / "lib") as lib:
        lib.add(Work(doi="10.1000/first", title="First"), tags=["apple"])
        lib.import_bibliography(json.dumps(items), format="csl-json", tags=["zotero"])
        assert _check(lib) == 13
        with lib.store.write() as conn:
            bulk = conn.execute(text(STORED)).all()
            conn.execute(text("UPDATE entry_authors SET position = position"))  # the triggers recompute every row
            conn.execute(text("UPDATE entry_tags SET tag_id = tag_id"))
            assert conn.execute(text(STORED)).all() == bulk
        assert bulk[3:5] == [(4, "Ånna Müller\x1fWorld Bank\x1etapple\x1ftZebra\x1ftzotero"),
                             (5, "\x1etapple\x1ftZebra\x1ftzotero\x1ftÉmile")]


def test_one_alembic_head_equal_to_head_constant():
    assert ScriptDirectory.from_config(migrate.alembic_config()).get_heads() == [migrate.HEAD] == ["0009"]
