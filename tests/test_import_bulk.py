"""The bulk import's write path and streamed input: each batch is indexed once (store/bulk.py), its
search text and entries_fts rows equal what the per-row triggers build, the triggers are back
afterwards, new entries never take the id of a deleted one; CSL-JSON is decoded item by item with
json.loads' values and errors; an import that fails, is stopped or is killed part way adds nothing."""
from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys

import pytest
from sqlalchemy import text

from doiget import Author, Work, open_library, safejson
from doiget.errors import DoigetError
from doiget.formats.csl_read import iter_csl
from doiget.store.bulk import INSERT_TRIGGERS

ITEMS = [
    {"id": f"k{i}", "type": "article-journal", "DOI": f"10.1000/idx.{i}", "title": f"Octopus arms {i}",
     "abstract": "Arms that think." if i % 2 else None,
     "author": [{"family": "Müller", "given": "Ånna"}, {"family": "van der Berg", "given": "Jan"},
                {"literal": "World Bank"}][: 1 + i % 3],
     "editor": [{"family": "Mather", "given": "J."}] if i % 4 == 0 else [],
     "keyword": ["Zebra", "apple", "Émile"][: i % 4], "container-title": "Cephalopod Letters",
     "issued": {"date-parts": [[2000 + i]]}}
    for i in range(12)
]


def _search_text(conn) -> list[tuple]:
    return conn.execute(text("SELECT id, authors, tags, notes FROM entry_search_text ORDER BY id")).all()


def test_batch_index_equals_the_triggers_index(tmp_path):
    with open_library(tmp_path) as lib:
        lib.add(Work(doi="10.1000/first", title="Apple octopus", authors=[Author.from_parts("Müller", "Anna")]))
        lib.tag("10.1000/first", ["APPLE"])  # the stored tag spelling is the first one seen
        lib.import_bibliography(json.dumps(ITEMS), format="csl-json")
        with lib.store.write() as conn:
            triggers = {name for (name,) in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'"))}
            assert set(INSERT_TRIGGERS) <= triggers
            bulk = _search_text(conn)
            # Make the triggers rebuild every entry's joined text and index rows, then compare.
            conn.execute(text("UPDATE entry_authors SET position = position"))
            conn.execute(text("UPDATE entry_tags SET tag_id = tag_id"))
            assert _search_text(conn) == bulk
            conn.execute(text("INSERT INTO entries_fts(entries_fts, rank) VALUES ('integrity-check', 1)"))
        assert len(bulk) == 13 and any(row[2] and "APPLE" in row[2] for row in bulk[1:])
        assert {h.id for h in lib.search("authors:muller")} == {row[0] for row in bulk}
        assert len(lib.search("authors:mather")) == 3  # editors are in the person text too
        assert len(lib.search("bank")) == len([i for i in range(12) if i % 3 == 2])
        assert len(lib.search("tags:emile")) == 3


def test_import_after_delete_does_not_reuse_ids(tmp_path):
    with open_library(tmp_path) as lib:
        lib.import_bibliography(json.dumps(ITEMS[:3]), format="csl-json")
        with lib.store.read() as conn:
            last = conn.execute(text("SELECT max(id) FROM entries")).scalar()
        lib.delete("10.1000/idx.2")
        result = lib.import_bibliography(json.dumps(ITEMS[3:5]), format="csl-json")
        assert [row.id for row in result.report] == [last + 1, last + 2]


ARRAYS = ['[]', ' [ ] ', '[1, {"a": [2]}, "x"]\n', '[1 2]', '[1,]', '[1] x', '[', '[1,\n 2', '[NaN]',
          '[' * 100_000 + ']' * 100_000, '[1, [' + '[' * 100_000 + ']' * 100_000 + ']]']


def _outcome(read):
    try:
        return "ok", read()
    except DoigetError as exc:
        return "error", exc.code, exc.message


def test_streamed_array_reads_as_json_loads_does():
    """CSL-JSON arrays are decoded item by item: same values, same errors (with line and column)."""
    for array in ARRAYS:
        assert _outcome(lambda: list(safejson.items(array, "CSL-JSON"))) == \
            _outcome(lambda: safejson.loads(array, "CSL-JSON")), array[:20]


PIECED = ARRAYS + [
    '[1.5, 12345, -0.5e10, 1E+2, "caf\\u00e9 \\"q\\"", {"a": [true, false, null]}]',
    json.dumps(ITEMS, indent=1),
    json.dumps(ITEMS, indent=1)[:-40] + ' x\n  ]',  # an error on a late line
    '[\n  1,\n  2\n]\n\n  ,',  # extra data after the array, lines on
    '[1, 2]\n \n',
]


def test_array_read_in_pieces_reads_as_json_loads_does():
    """A file is decoded as it is read: cut into pieces anywhere (inside numbers, strings, escapes,
    between lines), the same values and the same errors, line and column counted from the start."""
    for array in PIECED:
        whole = _outcome(lambda: safejson.loads(array, "CSL-JSON"))
        for size in (1, 2, 3, 7, 64, 4096):
            pieces = [array[i:i + size] for i in range(0, len(array), size)]
            assert _outcome(lambda: list(safejson.items(pieces, "CSL-JSON"))) == whole, (array[:30], size)


def test_a_broken_csl_file_imports_nothing(tmp_path, monkeypatch):
    """The reader raises a syntax error when it reaches it; the import, one transaction over all its
    chunks (here of 5 records), then adds nothing, and the library is as it was (triggers included)."""
    from doiget.services import bibliography
    monkeypatch.setattr(bibliography, "CHUNK_SIZE", 5)
    with pytest.raises(DoigetError, match="Extra data at line 2, column 1"):
        list(iter_csl(json.dumps(ITEMS) + "\n,"))
    with open_library(tmp_path) as lib:
        lib.import_bibliography(json.dumps(ITEMS[:2]), format="csl-json")
        before = lib.export("csl-json")
        with pytest.raises(DoigetError, match="Expecting ',' delimiter"):
            lib.import_bibliography(json.dumps(ITEMS * 50)[:-1] + " 7]", format="csl-json")
        assert lib.export("csl-json") == before and len(lib.search("octopus")) == 2
        with lib.store.read() as conn:
            triggers = {name for (name,) in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'"))}
        assert set(INSERT_TRIGGERS) <= triggers


_TABLES = ("entries", "entry_authors", "authors", "entry_tags", "tags", "entry_search_text")


def test_an_import_stopped_after_written_chunks_adds_nothing(tmp_path, monkeypatch):
    """A failure after some chunks were written (here the progress callback raising, as a Ctrl-C would)
    leaves no entry, name, tag or index row of the file behind."""
    from doiget.services import bibliography
    monkeypatch.setattr(bibliography, "CHUNK_SIZE", 3)
    written = []

    def progress(done, total):
        written.append(done)
        if len(written) == 2:
            raise KeyboardInterrupt

    with open_library(tmp_path) as lib:
        with pytest.raises(KeyboardInterrupt):
            lib.import_bibliography(json.dumps(ITEMS), format="csl-json", progress=progress)
        assert written == [3, 6]
        with lib.store.read() as conn:
            counts = [conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() for table in _TABLES]
        assert counts == [0] * len(_TABLES) and lib.search("octopus") == []
        assert lib.import_bibliography(json.dumps(ITEMS), format="csl-json").added == 12


def test_a_file_is_decoded_as_it_is_read_and_stores_what_its_text_stores(tmp_path, monkeypatch):
    """A CSL-JSON file is read a piece at a time (here 100 characters): the library and the report equal
    those of importing its text; a broken or unreadable file fails before any record, naming where."""
    from doiget.formats import importer
    monkeypatch.setattr(importer, "PIECE", 100)
    document = "\ufeff \n" + json.dumps(ITEMS, indent=2, ensure_ascii=False)
    path = tmp_path / "items.json"
    path.write_text(document, encoding="utf-8")
    outcomes = []
    for source in (document, path):
        with open_library(tmp_path / str(len(outcomes))) as lib:
            result = lib.import_bibliography(source).as_json()
            outcomes.append(({k: v for k, v in result.items() if k not in ("seconds", "records_per_second")},
                             lib.export("csl-json")))
    assert outcomes[0] == outcomes[1] and outcomes[0][0]["added"] == 12
    broken = tmp_path / "broken.json"
    broken.write_text(document[:-2] + "}\n]\n", encoding="utf-8")
    bad_bytes = tmp_path / "latin1.json"
    bad_bytes.write_bytes(document.encode("utf-8")[:-300] + "é".encode("latin-1") + b"}]")
    with open_library(tmp_path / "broken") as lib:
        with pytest.raises(DoigetError, match=f"Expecting ',' delimiter at line {document.count(chr(10))}, column 4"):
            lib.import_bibliography(broken)
        with pytest.raises(DoigetError, match="cannot read .*latin1.json: 'utf-8' codec can't decode"):
            lib.import_bibliography(bad_bytes)
        assert lib.recent() == []


_KILLED_IMPORT = """
import json, os, signal, sys
from doiget import open_library
from doiget.services import bibliography
bibliography.CHUNK_SIZE = 3

def progress(done, total):
    if done >= 6:  # two chunks written, not committed
        os.kill(os.getpid(), signal.SIGKILL)

with open_library(sys.argv[1]) as lib:
    lib.import_bibliography(sys.argv[2], format="csl-json", progress=progress)
"""


def test_an_import_killed_after_written_chunks_leaves_the_library_as_it_was(tmp_path):
    """A process killed (SIGKILL) in the middle of an import: the library opens, passes SQLite's and FTS5's
    integrity checks and holds only what it held before."""
    home = tmp_path / "lib"

    def state(lib):
        with lib.store.read() as conn:
            counts = [conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() for table in _TABLES]
        return lib.export("csl-json"), counts

    with open_library(home) as lib:
        lib.import_bibliography(json.dumps(ITEMS[:2]), format="csl-json")
        before = state(lib)
    killed = subprocess.run([sys.executable, "-c", _KILLED_IMPORT, str(home), json.dumps(ITEMS[2:])],
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    with sqlite3.connect(home / "library.sqlite3") as raw:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    with open_library(home) as lib:
        assert state(lib) == before and len(lib.search("octopus")) == 2
        with lib.store.write() as conn:
            conn.execute(text("INSERT INTO entries_fts(entries_fts, rank) VALUES ('integrity-check', 1)"))


DUPLICATES = [
    {"id": "lead1", "type": "article-journal", "URL": "https://arxiv.org/abs/2101.00001", "title": "Octopus arms",
     "author": [{"family": "Mather", "given": "J."}], "keyword": "ink"},
    {"id": "lead2", "type": "book", "DOI": "10.1000/dup.2", "title": "Squid minds", "publisher": "P"},
    {"id": "other", "type": "article-journal", "DOI": "10.1000/dup.3", "title": "Cuttlefish"},
    {"id": "known", "type": "article-journal", "DOI": "10.1000/known", "title": "Known paper", "volume": "9"},
    # repeats of the works above, with more fields, another key, tags, editors, a new DOI
    {"id": "again1", "type": "article-journal", "URL": "https://arxiv.org/abs/2101.00001", "DOI": "10.1000/dup.1",
     "title": "Octopus arms", "abstract": "Arms that think.", "author": [{"family": "Other", "given": "A."}],
     "keyword": "cephalopods"},
    {"id": "lead2", "type": "book", "DOI": "10.1000/DUP.2", "title": "Squid minds", "publisher": "Q",
     "editor": [{"family": "Godfrey", "given": "P."}], "volume": "3"},
    {"id": "again3", "type": "article-journal", "DOI": "10.1000/dup.3", "title": "Cuttlefish", "page": "1-9"},
    {"id": "known2", "type": "article-journal", "DOI": "10.1000/known", "title": "Known paper", "issue": "4"},
    {"id": "clash", "type": "article-journal", "URL": "https://arxiv.org/abs/2101.00001", "DOI": "10.1000/dup.9",
     "title": "A different paper entirely"},
]


def _import_with_chunks(tmp_path, monkeypatch, size):
    from doiget.services import bibliography
    monkeypatch.setattr(bibliography, "CHUNK_SIZE", size)
    with open_library(tmp_path / str(size)) as lib:
        lib.add(Work(doi="10.1000/known", title="Known paper", year=2001))
        result = lib.import_bibliography(json.dumps(DUPLICATES), format="csl-json")
        exported = lib.export("csl-json")
        for item in exported:  # the aliases a repeat adds may come in another order: compare them as sets
            bibtex = item.get("custom", {}).get("bibtex", {})
            if "ids" in bibtex:
                bibtex["ids"] = sorted(bibtex["ids"].split(","))
        tags = {hit.id: sorted(lib.info(f"#{hit.id}").tags) for hit in lib.search("octopus OR squid OR known")}
    data = result.as_json()
    return data["report"], exported, tags, {k: data[k] for k in ("records", "added", "merged", "skipped", "conflicts")}


def test_a_year_too_large_to_store_is_a_problem_of_its_record_not_of_the_import(tmp_path):
    huge = {"title": "Far future", "issued": {"date-parts": [[10**30, 1]]}}
    with open_library(tmp_path) as lib:  # the year once reached SQLite and failed the whole import (OverflowError)
        result = lib.import_bibliography(json.dumps([huge, ITEMS[0]]))
        assert result.added == 2
        assert result.report[0].problems == [f"unreadable issued date {huge['issued']!r}"]
        entry = lib.info(f"#{result.report[0].id}")
        assert entry.year is None and entry.extra["issued"] == huge["issued"]


def test_records_repeating_a_written_work_merge_as_within_a_chunk(tmp_path, monkeypatch):
    """With chunks of 2 every repeat meets an entry already written; the library and the report come out
    the same as when the whole file is one chunk."""
    whole = _import_with_chunks(tmp_path, monkeypatch, 1000)
    assert ["known", "known2"] in [item.get("custom", {}).get("bibtex", {}).get("ids") for item in whole[1]]
    # conflicts: the clash, and the repeats giving another author and another publisher than the record kept
    assert whole[3] == {"records": 9, "added": 4, "merged": 5, "skipped": 0, "conflicts": 3}
    assert _import_with_chunks(tmp_path, monkeypatch, 2) == whole


@pytest.mark.parametrize("rows", [
    [(1, "a", None, 0), (2, "b", None, 0)],  # both optional columns hold their defaults: left out
    [(1, "a", None, 0), (2, "b", "x", 0)],  # one row says something: kept
    [(1, "a", "", 1), (2, None, None, False)],  # "" is not NULL, 1 is not 0, False is 0
])
def test_insert_rows_stores_what_a_full_insert_stores(rows):
    from sqlalchemy import create_engine

    from doiget.store.rows import insert_rows

    engine = create_engine("sqlite://")
    with engine.begin() as conn:
        for table in ("full", "sparse"):
            conn.exec_driver_sql(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, name TEXT, note TEXT, "
                                 "flag INTEGER NOT NULL DEFAULT 0)")
        conn.exec_driver_sql("INSERT INTO full (id, name, note, flag) VALUES (?, ?, ?, ?)", rows)
        insert_rows(conn, "sparse", ("id", "name", "note", "flag"), rows, {"note": None, "flag": 0})
        dump = "SELECT id, name, typeof(name), note, typeof(note), flag, typeof(flag) FROM {} ORDER BY id"
        assert conn.exec_driver_sql(dump.format("sparse")).all() == conn.exec_driver_sql(dump.format("full")).all()


@pytest.mark.parametrize("spellings", [["Müller", "Muller", "Müller"], ["Muller", "Müller", "Muller"],
                                       ["MULLER", "Müller", "Muller", "Müller"]])
def test_a_batch_indexes_each_person_under_the_spelling_it_names_last(tmp_path, spellings):
    """Names folding to one person-index key take the spelling of the batch's last name under that key, the
    key its first name's place; each entry keeps its own spelling, in its own order."""
    items = [{"id": f"k{i}", "DOI": f"10.1000/fold.{i}", "title": f"Arms {i}",
              "author": [{"family": "Aalto", "given": "Ai"}, {"family": family, "given": "Jan"}],
              "editor": [{"family": "Berg", "given": "Bo"}] if i % 2 else []} for i, family in enumerate(spellings)]
    path = tmp_path / "fold.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    with open_library(tmp_path / "lib") as lib:
        lib.import_bibliography(path)
        with lib.store.read() as conn:
            index = conn.execute(text("SELECT key, name FROM authors ORDER BY id")).all()
            own = conn.execute(text("SELECT entry_id, position, role, family FROM entry_authors "
                                    "ORDER BY entry_id, position")).all()
            search = conn.execute(text("SELECT authors FROM entry_search_text ORDER BY id")).scalars().all()
    assert index[:2] == [("name:ai aalto", "Ai Aalto"), ("name:jan muller", f"Jan {spellings[-1]}")]
    assert own == [(i + 1, position, role, family) for i, spelt in enumerate(spellings)
                   for position, (role, family) in enumerate([("author", "Aalto"), ("author", spelt)]
                                                              + [("editor", "Berg")] * (i % 2))]
    assert search == [f"Ai Aalto; Jan {spellings[-1]}" + "; Bo Berg" * (i % 2) for i in range(len(spellings))]
