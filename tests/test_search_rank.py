"""Library.search ranks exactly as plain bm25 over the same text (a bare FTS5 table built here),
the common-term shortcut keeps to its documented bound, and the external-content index stays
exact through every kind of write (FTS5 integrity-check against its content)."""
from __future__ import annotations

import random
import sqlite3

import pytest
from sqlalchemy import text

from doiget import Author, Work, open_library
from doiget.store import entries as entry_store
from doiget.store import search as search_store

WORDS = ("cancer cell tumour protein gene model network learning graph quantum error survey signal brain "
         "climate ocean carbon soil plant insect virus vaccine trial patient therapy imaging sensor robot "
         "language corpus citation review bayesian inference sparse matrix fluid wave").split()
NAMES = "Smith Müller García Nguyen Kowalski Rossi Tanaka Dubois Novák Silva Cancer".split()
QUERIES = ["cancer", "cell", "tumour protein", '"gene model"', "net*", "qu*", "cancer OR virus", "brain NOT signal",
           "title:cancer", "authors:smith", "soil plant insect", "trial*", "tags:oncology", "ink", "nothingmatches",
           '"cancer cell"', '"protein gene" OR quantum', 'title:"cancer cell"', "cell-cancer", '"no such phrase"']


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, weights=[1 / (i + 1) for i in range(len(WORDS))], k=n))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A 300-entry library (some stubs, tags, notes) and a bare FTS5 table of the same text."""
    rng = random.Random(5)
    lib = open_library(tmp_path_factory.mktemp("rank"))
    with lib.store.write() as conn:
        for i in range(300):
            work = Work(doi=f"10.1000/{i}", title=_words(rng, rng.randint(2, 9)), abstract=_words(rng, rng.randint(0, 60)),
                        venue=rng.choice(["Cancer Research", "Nature", None]), year=rng.randint(1990, 2025),
                        authors=[Author.from_parts(rng.choice(NAMES), "A.") for _ in range(rng.randint(0, 3))])
            entry_store.upsert_work(conn, work, stub=i % 17 == 0)
    for i in range(0, 300, 7):
        lib.tag(f"10.1000/{i}", ["oncology"] if i % 2 else ["oncology", "imaging"])
    for i in range(0, 300, 11):
        lib.note_create("ink and cancer notes " + _words(rng, 5), ref=f"10.1000/{i}")
    bare = sqlite3.connect(":memory:")
    bare.execute("CREATE VIRTUAL TABLE t USING fts5(title, abstract, authors, venue, year, tags, notes, "
                 "tokenize = 'porter unicode61 remove_diacritics 2')")
    with lib.store.read() as conn:
        rows = conn.execute(text(
            "SELECT e.id, e.title, e.abstract, (SELECT group_concat(name, '; ') FROM (SELECT a.name FROM "
            "entry_authors ea JOIN authors a ON a.id = ea.author_id WHERE ea.entry_id = e.id ORDER BY ea.position)), "
            "e.venue, e.year, (SELECT group_concat(name, ' ') FROM (SELECT t.name FROM entry_tags et JOIN tags t "
            "ON t.id = et.tag_id WHERE et.entry_id = e.id ORDER BY t.name)), (SELECT group_concat(body, ' ') FROM "
            "(SELECT body FROM notes WHERE entry_id = e.id ORDER BY id)) FROM entries e")).all()
        stubs = conn.execute(text("SELECT id FROM entries WHERE is_stub = 1")).scalars().all()
    bare.executemany("INSERT INTO t (rowid, title, abstract, authors, venue, year, tags, notes) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    assert stubs
    yield lib, bare, set(stubs)
    lib.close()


def plain_bm25(bare, stubs, match: str, limit: int, offset: int = 0, only: str | None = None):
    weights = ", ".join(map(str, search_store.ENTRY_FTS_WEIGHTS))
    rows = bare.execute(f"SELECT rowid, bm25(t, {weights}) AS s FROM t WHERE t MATCH ? ORDER BY s, rowid",
                        (match,)).fetchall()
    if only is not None:
        allowed = {r for r, in bare.execute("SELECT rowid FROM t WHERE t MATCH ?", (only,))}
        rows = [r for r in rows if r[0] in allowed]
    return [(r, pytest.approx(s)) for r, s in rows if r not in stubs][offset:offset + limit]


@pytest.mark.parametrize("query", QUERIES)
def test_search_returns_plain_bm25_top_page(corpus, query):
    lib, bare, stubs = corpus
    from doiget.store.fts import compile_query

    expected = plain_bm25(bare, stubs, compile_query(query, search_store.ENTRY_FTS_COLUMNS), 20)
    hits = lib.search(query, limit=20)
    assert [(h.id, h.score) for h in hits] == expected
    assert all("**" in h.snippet for h in hits)


@pytest.mark.parametrize("match", ['"cell"', '"fluid"', '"signal" AND "brain"', '"cancer cell"',
                                   '"gene" OR "a b"'])
def test_offset_pages_are_slices_of_the_full_ranking(corpus, match):
    lib, bare, stubs = corpus
    expected = plain_bm25(bare, stubs, match, 1000)
    with lib.store.query_raw("test") as conn:
        pages = [search_store.page(conn, match, 7, offset) for offset in range(0, len(expected) + 7, 7)]
    assert [(hit["id"], hit["score"]) for page in pages for hit in page] == expected
    assert all(hit["ref"] == f"doi:10.1000/{hit['id'] - 1}" and "**" in hit["snippet"] for page in pages for hit in page)


@pytest.mark.parametrize("budget", [0, 1, 3])
def test_phrases_and_several_terms_are_the_same_whether_or_not_the_one_pass_runs_out_of_rows(corpus, monkeypatch,
                                                                                             budget):
    """A query of several terms or holding a phrase is ranked and shown in one pass unless more than
    ONE_PASS_BUDGET pages of rows enter its top; then it is ranked and shown in two passes: the same hits
    either way (filters and stubs too)."""
    lib, bare, stubs = corpus
    monkeypatch.setattr(search_store, "ONE_PASS_BUDGET", budget)
    for query in ('"cancer cell"', '"tumour protein" OR model', "cell-cancer", '"gene model"', "tumour protein",
                  "cancer OR virus", "brain NOT signal", "authors:smith", "soil plant insect", "trial* cell"):
        from doiget.store.fts import compile_query

        expected = plain_bm25(bare, stubs, compile_query(query, search_store.ENTRY_FTS_COLUMNS), 10)
        assert [(h.id, h.score) for h in lib.search(query, limit=10)] == expected, query
        filtered = lib.search(query, limit=50, year_from=2000, tag="oncology")
        assert all(h.year >= 2000 and "oncology" in h.tags for h in filtered)
        assert [h.id for h in filtered] == [h.id for h in lib.search(query, limit=300)
                                            if h.year >= 2000 and "oncology" in h.tags][:50]


@pytest.mark.parametrize("query", ["tumour protein", "cancer OR virus", "brain NOT signal", "authors:smith",
                                   "trial* cell", '"cancer cell"'])
def test_several_terms_in_a_large_library_are_ranked_in_two_passes_alike(corpus, monkeypatch, query):
    """Past COMMON_DF entries several terms skip the one pass: the same hits as plain bm25."""
    lib, bare, stubs = corpus
    from doiget.store.fts import compile_query

    monkeypatch.setattr(search_store, "COMMON_DF", 10)
    expected = plain_bm25(bare, stubs, compile_query(query, search_store.ENTRY_FTS_COLUMNS), 20)
    assert [(h.id, h.score) for h in lib.search(query, limit=20)] == expected


def test_the_library_size_is_checked_by_every_search_of_several_terms(corpus, monkeypatch):
    """Several terms are ranked in one pass only in a library of at most COMMON_DF entries, which the statement
    checks itself (a larger library gets no rows from it); the connection last found large is asked first
    next time, a guess only: as the library is found large, small, large again, every search is plain bm25's."""
    lib, bare, stubs = corpus
    from doiget.store.fts import compile_query

    for common in (10, 10, 10_000, 10_000, 10, 10_000):
        monkeypatch.setattr(search_store, "COMMON_DF", common)
        for query in ("tumour protein", "cancer OR virus", "nothingmatches OR nothingelse"):
            expected = plain_bm25(bare, stubs, compile_query(query, search_store.ENTRY_FTS_COLUMNS), 20)
            assert [(h.id, h.score) for h in lib.search(query, limit=20)] == expected, (common, query)


def test_a_phrase_search_still_stops_at_the_time_limit(tmp_path):
    from doiget.errors import DoigetError, ErrorCode

    (tmp_path / "config.toml").write_text("query_time_limit = 0.000001\n")
    with open_library(tmp_path) as lib:
        with lib.store.write() as conn:
            for i in range(300):
                entry_store.upsert_work(conn, Work(doi=f"10.1/{i}", title=f"cancer cell {i}",
                                                   abstract="cancer cell " * 50))
        with pytest.raises(DoigetError) as caught:
            lib.search('"cancer cell"')
        assert caught.value.code is ErrorCode.QUERY_TIMEOUT


def test_filters_and_stubs(corpus):
    lib, bare, stubs = corpus
    hits = lib.search("cancer", limit=100, year_from=2000, tag="oncology")
    assert hits and all(h.year >= 2000 and "oncology" in h.tags for h in hits)
    assert not {h.id for h in lib.search("cancer OR cell OR gene", limit=100)} & stubs


BOOSTED = "{title authors tags} : "


def test_common_terms_rank_boosted_matches_within_the_documented_bound(corpus, monkeypatch):
    """One word or prefix matching more than COMMON_DF entries: a word in fewer than half the entries is ranked
    by plain bm25 among the entries holding it in a boosted column; a word in at least half (where FTS5 clamps
    its IDF) and a prefix are ranked by bm25 of the query restricted to the boosted columns. Either way, if fewer
    than a page hold it there, by plain bm25."""
    lib, bare, stubs = corpus
    monkeypatch.setattr(search_store, "COMMON_DF", 10)
    entries = bare.execute("SELECT count(*) FROM t").fetchone()[0]
    cases = set()
    for word in ("cancer", "quantum", "signal", "sensor", "matrix", "ink"):
        match = f'"{word}"'
        count = len(plain_bm25(bare, set(), match, entries))
        half = 2 * count >= entries
        # the reason for the line at half: bm25's IDF is clamped to 1e-6 there (k1 + 1 = 2.2 bounds the rest)
        assert all(-2.2e-6 < s for _, s in bare.execute("SELECT rowid, bm25(t) FROM t WHERE t MATCH ?", (match,))
                   ) is half, word
        if half:
            within = plain_bm25(bare, stubs, BOOSTED + match, 10)
        else:
            within = plain_bm25(bare, stubs, match, 10, only=BOOSTED + match)
        got = [(h.id, h.score) for h in lib.search(word, limit=10)]
        assert got == (within if len(within) == 10 else plain_bm25(bare, stubs, match, 10)), word
        side = "at half" if 2 * count == entries else "over half" if half else "under half"
        cases.add((side, len(within) == 10))
    # quantum is in exactly half the entries; matrix and ink in fewer than a page's worth of boosted columns
    assert {("at half", True), ("over half", True), ("under half", True), ("under half", False)} <= cases
    for query, match in (("qu*", '"qu"*'), ("t*", '"t"*'), ("trial*", '"trial"*')):
        within = plain_bm25(bare, stubs, BOOSTED + match, 10)
        assert len(within) == 10 and [(h.id, h.score) for h in lib.search(query, limit=10)] == within, query
    from doiget.store.fts import compile_query

    for query in ("cancer OR virus", "title:cancer", '"gene model"'):  # ranked in full
        match = compile_query(query, search_store.ENTRY_FTS_COLUMNS)
        assert [(h.id, h.score) for h in lib.search(query, limit=10)] == plain_bm25(bare, stubs, match, 10), query


def test_a_term_ranked_by_its_boosted_columns_is_the_query_restricted_to_them(corpus, monkeypatch):
    """A common prefix, or a word in half the entries, returns the hits of its query restricted to the
    boosted columns (scores, snippets and all), filters and offsets too; with fewer such entries than the
    page, the full ranking."""
    from doiget.store.filters import filter_clauses

    lib, bare, stubs = corpus
    monkeypatch.setattr(search_store, "COMMON_DF", 10)
    clauses, params = filter_clauses(year_from=2000)
    with lib.store.query_raw("test") as conn:
        for match in ('"qu"*', '"t"*', '"ca"*', '"cancer"', '"quantum"'):
            for limit, offset, where in ((10, 0, ()), (7, 7, ()), (10, 0, tuple(clauses))):
                values = params if where else None
                got = search_store.page(conn, match, limit, offset, where, values)
                assert len(got) == limit and got == search_store.page(conn, BOOSTED + match, limit, offset, where,
                                                                      values), (match, limit, offset)
            full = search_store.page(conn, match, 250)  # more than hold it in a boosted column
            assert [(hit["id"], hit["score"]) for hit in full] == plain_bm25(bare, stubs, match, 250), match


def _integrity(lib) -> None:
    with lib.store.write() as conn:
        conn.execute(text("INSERT INTO entries_fts(entries_fts, rank) VALUES ('integrity-check', 1)"))


def test_external_content_index_stays_exact_through_every_write(tmp_path):
    lib = open_library(tmp_path)
    one = lib.add(Work(doi="10.1000/a", title="Octopus cognition", abstract="Arms that think.",
                       authors=[Author.from_parts("Godfrey", "Peter"), Author.from_parts("Mather", "Jennifer")]))
    lib.add(Work(doi="10.1000/a", title="Octopus minds", authors=[Author.from_parts("Mather", "Jennifer")]))
    lib.tag("10.1000/a", ["cephalopods", "minds"])
    lib.tag("10.1000/a", ["cephalopods"])  # INSERT OR IGNORE of an existing link
    lib.untag("10.1000/a", ["minds"])
    note = lib.note_create("ink clouds", ref="10.1000/a")
    lib.note_update(note.id, body="ink jets")
    lib.annotate("10.1000/a", "an annotation")
    lib.add(Work(arxiv="2101.00001", title="Squid", authors=[Author.from_parts("Godfrey", "Peter")]))
    lib.add(Work(doi="10.1000/b", arxiv="2101.00001", title="Squid and octopus"))  # merges two entries
    with lib.store.write() as conn:
        conn.execute(text("UPDATE authors SET name = 'Peter Godfrey-Smith' WHERE name LIKE '%Godfrey%'"))
        conn.execute(text("UPDATE tags SET name = 'cephalopoda' WHERE name = 'cephalopods'"))
        conn.execute(text("INSERT OR REPLACE INTO entry_tags (entry_id, tag_id) SELECT :e, id FROM tags"),
                     {"e": one.id})
        conn.execute(text("UPDATE entry_authors SET position = position + 10 WHERE entry_id = :e"), {"e": one.id})
    _integrity(lib)
    assert [h.id for h in lib.search("tags:cephalopoda")] == [one.id]
    assert [h.id for h in lib.search("jets")] == [one.id] and lib.search("clouds") == []
    # The renamed index spelling is what is searched, the entry's own spelling what a hit shows.
    assert [h.authors for h in lib.search("smith")] == [["Peter Godfrey"]]
    lib.note_delete(note.id)
    lib.import_bibliography('[{"id": "x", "type": "article-journal", "title": "Bulk octopus", '
                            '"author": [{"family": "Mather", "given": "J."}]}]', format="csl-json")
    lib.delete("10.1000/a")
    _integrity(lib)
    assert {h.title for h in lib.search("octopus")} == {"Bulk octopus", "Squid and octopus"}
    lib.close()


def test_stubs_crowding_the_top_are_left_out_exactly(tmp_path):
    """Stubs are dropped after ranking, with a margin; when stubs fill more than the margin (short stub
    titles outrank every abstract here), the page is ranked again with stubs left out row by row."""
    with open_library(tmp_path) as lib:
        with lib.store.write() as conn:
            for i in range(80):
                entry_store.upsert_work(conn, Work(doi=f"10.1/s{i}", title=f"zebra {i}"), stub=True)
            for i in range(30):
                entry_store.upsert_work(conn, Work(doi=f"10.1/e{i}", title=f"Paper {i}",
                                                   abstract="about a zebra " + "word " * (i % 7)))
            weights = ", ".join(map(str, search_store.ENTRY_FTS_WEIGHTS))
            expected = [tuple(r) for r in conn.execute(text(
                f"SELECT rowid, bm25(entries_fts, {weights}) AS s FROM entries_fts WHERE entries_fts MATCH :m "
                "AND rowid NOT IN (SELECT id FROM entries WHERE is_stub = 1) ORDER BY s, rowid"), {"m": '"zebra"'})]
        assert len(expected) == 30
        for limit, offset in ((10, 0), (10, 10), (25, 0), (5, 27)):
            with lib.store.query_raw("test") as conn:
                got = search_store.ranked(conn, '"zebra"', limit, offset)
            assert got == expected[offset:offset + limit]
        assert [(h.id, h.score) for h in lib.search("zebra", limit=12)] == expected[:12]


@pytest.mark.parametrize("common_df", [10_000, 10])
def test_stubs_among_a_word_whose_matches_all_fit_are_left_out_before_the_offset(tmp_path, monkeypatch, common_df):
    """Stubs among the matches of a word that all fit on the page (ranked and shown in one pass, in a small library
    and, counted first, a large one) are left out, and the offset and limit count only the entries."""
    monkeypatch.setattr(search_store, "COMMON_DF", common_df)
    with open_library(tmp_path) as lib:
        with lib.store.write() as conn:
            for i in range(12):  # stubs with short titles outrank the entries' longer ones
                stub = i % 3 == 0
                entry_store.upsert_work(conn, Work(doi=f"10.1/{i}", title="okapi" + " word" * (0 if stub else 1 + i % 4)),
                                        stub=stub)
            weights = ", ".join(map(str, search_store.ENTRY_FTS_WEIGHTS))
            expected = [tuple(r) for r in conn.execute(text(
                f"SELECT rowid, bm25(entries_fts, {weights}) AS s FROM entries_fts WHERE entries_fts MATCH :m "
                "AND rowid NOT IN (SELECT id FROM entries WHERE is_stub = 1) ORDER BY s, rowid"), {"m": '"okapi"'})]
        assert len(expected) == 8
        for limit, offset in ((20, 0), (12, 0), (10, 2), (6, 6), (3, 2)):
            with lib.store.query_raw("test") as conn:
                got = search_store.page(conn, '"okapi"', limit, offset)
            assert [(hit["id"], hit["score"]) for hit in got] == expected[offset:offset + limit]


@pytest.mark.parametrize("match", ['"cancer"', '"gene model"', '"qu"*', '"signal" AND "brain"'])
def test_snippets_by_lookup_equal_snippets_by_walk(corpus, match):
    """The page's snippets and summaries are the same whether the matches are walked again or each hit
    is looked up (the search picks by how long ranking took)."""
    lib, _, _ = corpus
    with lib.store.query_raw("test") as conn:
        ids = [entry_id for entry_id, _ in search_store.ranked(conn, match, 20)]
        walked = search_store.shown(conn, match, ids)
        looked_up = search_store.shown(conn, match, ids, seek=True)
    assert ids and len(walked) == len(ids) and walked == looked_up


def test_search_is_the_same_whichever_way_snippets_are_read(corpus, monkeypatch):
    lib, _, _ = corpus
    before = {q: lib.search(q, limit=20) for q in ("cancer", '"gene model"', "net*")}
    monkeypatch.setattr(search_store, "SEEK_AFTER", 0.0)
    assert {q: lib.search(q, limit=20) for q in before} == before



def test_hit_tags_are_in_the_tag_names_collation_order(tmp_path):
    """Hits list their tags as ``ORDER BY tags.name`` (NOCASE: ASCII letters folded, then code points) lists them."""
    names = ["beta", "Alpha", "ärger", "Zeta", "_x", "b", "B2", "éclair", "Ölfeld", "a-b", "A", "zz", "Z1", "日本"]
    with open_library(tmp_path) as lib:
        lib.add(Work(doi="10.1000/t", title="Tagged octopus"))
        lib.tag("10.1000/t", names)
        with lib.store.read() as conn:
            expected = conn.execute(text("SELECT name FROM tags ORDER BY name")).scalars().all()
        assert sorted(expected) != expected  # the collation is not code point order
        assert [h.tags for h in lib.search("octopus")] == [expected]
        assert [h.tags for h in lib.search("octopus OR tagged")] == [expected]


@pytest.mark.parametrize("common_df", [10_000, 10])
def test_one_word_is_the_same_whether_or_not_its_matches_fit_the_page(corpus, monkeypatch, common_df):
    """A word whose matches all fit on the page is ranked and shown by one statement that counts them first
    (in a library of at most COMMON_DF entries); one match more, or a larger library, takes the other paths."""
    lib, bare, stubs = corpus
    monkeypatch.setattr(search_store, "COMMON_DF", common_df)
    counts = {word: len(plain_bm25(bare, set(), f'"{word}"', 1000)) for word in WORDS + ["ink"]}
    for word in sorted((w for w in counts if 2 < counts[w] < 60), key=counts.get)[:4]:
        matches = counts[word]
        for limit in (matches - 1, matches, matches + 1):
            expected = plain_bm25(bare, stubs, f'"{word}"', limit)
            assert [(h.id, h.score) for h in lib.search(word, limit=limit)] == expected, (word, limit)
        assert lib.search(word, year_from=3000) == []
        filtered = lib.search(word, limit=matches, tag="oncology")
        assert [h.id for h in filtered] == [h.id for h in lib.search(word, limit=matches) if "oncology" in h.tags]


def test_a_snippet_read_from_the_one_column_holding_the_matches_is_the_whole_rows(corpus):
    """The ranking statements read a row's snippet from its title, abstract or authors when that column holds all
    its matches: the same snippet as FTS5 choosing among every column, for every matching row of every query."""
    lib, _, _ = corpus
    from doiget.store.fts import compile_query

    columns = ", ".join(search_store._only_in(search_store.ENTRY_FTS_COLUMNS.index(name))
                        for name in ("title", "abstract", "authors"))
    branches = set()
    with lib.store.query_raw("test") as conn:
        for query in QUERIES + ["net* OR smith", "qu* cell", "venue:cancer", "notes:ink", "cancer OR garcía"]:
            rows = conn.execute(f"SELECT {search_store._RANKED_SNIPPET}, {search_store.SNIPPET}, {columns} "
                                "FROM entries_fts WHERE entries_fts MATCH ?",
                                (compile_query(query, search_store.ENTRY_FTS_COLUMNS),)).fetchall()
            assert [ranked for ranked, *_ in rows] == [whole for _, whole, *_ in rows], query
            branches.update(tuple(row[2:]) for row in rows)
    assert {(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 0)} <= branches  # each column alone, and several columns


def test_a_hit_shows_the_tags_pdf_and_update_status_of_its_entry(tmp_path):
    """A hit's tags, PDF and update status (read together as one list of marked items) are its entry's, with
    any of them or none."""
    from fetchenv import pdf_bytes

    from doiget.notices import UpdateNotice, status_of

    notices = [UpdateNotice(direction="updated-by", kind=kind, doi=f"10.1000/{kind}", source="crossref")
               for kind in ("correction", "retraction")]
    with open_library(tmp_path) as lib:
        lib.add(Work(doi="10.1000/all", title="Octopus everything", updates=notices, sources=["crossref"]))
        lib.tag("10.1000/all", ["zeta", "Alpha", "_t"])
        lib.add_artefact("10.1000/all", "pdf", pdf_bytes("Octopus everything"))
        lib.add(Work(doi="10.1000/none", title="Octopus nothing"))
        lib.add(Work(doi="10.1000/pdfs", title="Octopus two PDFs", updates=notices[:1], sources=["crossref"]))
        lib.add_artefact("10.1000/pdfs", "pdf", pdf_bytes("Octopus two PDFs"))
        lib.add_artefact("10.1000/pdfs", "pdf", pdf_bytes("Octopus two PDFs, again"))
        lib.add(Work(doi="10.1000/tag", title="Octopus tagged"))
        lib.tag("10.1000/tag", ["pdf"])
        shown = {h.ref: (h.tags, h.has_pdf, h.update_status) for h in lib.search("octopus")}
        assert shown == {"doi:10.1000/all": (["_t", "Alpha", "zeta"], True, "retracted"),
                         "doi:10.1000/none": ([], False, None), "doi:10.1000/pdfs": ([], True, "corrected"),
                         "doi:10.1000/tag": (["pdf"], False, None)}
        assert shown == {ref: (e.tags, e.has_pdf, status_of(e.updates or [])) for ref in shown
                         for e in [lib.info(ref)]}


@pytest.mark.parametrize(("query", "one_term", "phrase"), [
    ("cancer", True, False), ("canc*", True, False), ("Müller", True, False), ("x²", True, False),
    ("cell-cancer", True, True), ("snake_case", True, True), ('"gene model"', False, True), ('"a""b"', False, False),
    ("tumour protein", False, False), ("cancer OR virus", False, False), ("title:cancer", False, False),
    ('title:"cancer cell"', False, True), ('"protein gene" OR quantum', False, True), ("covid-19 review", False, True),
])
def test_what_a_compiled_query_is_made_of(query, one_term, phrase):
    """The shape ``page`` routes a query by (one word or prefix; a term of several tokens), read from the
    compiled expression without a regex: its terms lie between its quotes."""
    from doiget.store.fts import compile_query

    match = compile_query(query, search_store.ENTRY_FTS_COLUMNS)
    assert (search_store.is_one_term(match), search_store._holds_phrase(match)) == (one_term, phrase)


def _plain_page(conn, match: str) -> list[tuple[int, float]]:
    """Plain bm25's ranking of the non-stub entries matching ``match``, on the library's own index."""
    weights = ", ".join(map(str, search_store.ENTRY_FTS_WEIGHTS))
    return [tuple(r) for r in conn.execute(
        f"SELECT rowid, bm25(entries_fts, {weights}) AS s FROM entries_fts WHERE entries_fts MATCH ? "
        "AND rowid NOT IN (SELECT id FROM entries WHERE is_stub = 1) ORDER BY s, rowid", (match,))]


def _pages(lib, match: str, cases) -> list[tuple[list[dict], list[str], list[dict]]]:
    """For each (limit, offset): page()'s hits, the statements it ran, and the same hits as shown() shows them."""
    out = []
    with lib.store.query_raw("test") as conn:
        for limit, offset in cases:
            statements: list[str] = []
            conn.set_trace_callback(lambda sql: sql.startswith("--") or statements.append(sql))  # (not nested ones)
            try:
                got = search_store.page(conn, match, limit, offset)
            finally:
                conn.set_trace_callback(None)
            shown = search_store.shown(conn, match, [hit["id"] for hit in got])
            out.append((got, statements, [{**shown[hit["id"]], "score": hit["score"]} for hit in got]))
    return out


def _rare_said(conn, word: str, few: int) -> set:
    """What the one-word statement's test says on the rows matching ``word``."""
    return {rare for rare, in conn.execute(f"SELECT {search_store._RARE} FROM entries_fts WHERE entries_fts MATCH "
                                           ":match", {"match": f'"{word}"', "few": few})}


def test_the_idf_test_says_whether_fewer_than_so_many_rows_match(corpus, tmp_path):
    """The one-word statement's test of how many rows match, read off two bm25 scores of each row: in a library
    whose ids have no gaps it says exactly whether fewer than ``few`` rows match, on every row, with SQLite's
    ``ln`` or doiget's own (for SQLite built without it), wherever ``few`` is under half the library (false
    beyond); where entries were deleted it never says so wrongly."""
    lib, bare, _ = corpus
    plain = sqlite3.connect(lib.store.path)
    plain.create_function("ln", 1, search_store.ln, deterministic=True)
    counts = {word: len(plain_bm25(bare, set(), f'"{word}"', 1000)) for word in WORDS + ["ink"]}
    said = set()
    with lib.store.query_raw("test") as conn:
        for word, matches in counts.items():
            for few in {2, 5, 21, max(1, matches - 1), matches + 1, 120}:  # (at few == matches rounding decides)
                for db in (conn, plain):
                    rows = _rare_said(db, word, few)
                    assert rows == {int(matches < few)} if 2 * few < 300 else not any(rows), (word, few)
                said.add(matches < few)
    assert said == {True, False}
    with open_library(tmp_path) as gaps:
        with gaps.store.write() as conn:
            for i in range(120):
                entry_store.upsert_work(conn, Work(doi=f"10.1000/{i}", title=_words(random.Random(i), 6)))
        for i in range(0, 120, 3):
            gaps.delete(f"10.1000/{i}")
        with gaps.store.query_raw("test") as conn:
            for word in WORDS:
                matches = conn.execute("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?",
                                       (f'"{word}"',)).fetchone()[0]
                for few in (2, 5, 21, matches, matches + 1):
                    rows = _rare_said(conn, word, few)
                    assert not (1 in rows and matches >= few), (word, few)


def test_a_rare_word_is_ranked_and_shown_by_one_statement(tmp_path):
    """A word whose matches all fit on the page (stubs among them) is ranked and shown by one statement in a
    small library; with more matches than the page its snippets are read by a second one; short of the page
    (stubs may crowd the first statement's margin) it is counted and ranked again. Every page is plain bm25's,
    offsets counting only the entries, each hit as shown() shows it."""
    with open_library(tmp_path) as lib:
        with lib.store.write() as conn:
            for i in range(100):
                entry_store.upsert_work(conn, Work(doi=f"10.2/{i}", title=f"filler {i}"))
            for i in range(12):  # stubs with short titles outrank the entries' longer ones
                stub = i % 3 == 0
                entry_store.upsert_work(conn, Work(doi=f"10.1/{i}", title="okapi" + " word" * (0 if stub else 1 + i % 4),
                                                   abstract=None if stub else f"an okapi, number {i}"), stub=stub)
        with lib.store.query_raw("test") as conn:
            expected = _plain_page(conn, '"okapi"')
        assert len(expected) == 8
        cases = ((20, 0), (12, 0), (10, 2), (6, 6), (3, 2), (2, 7), (4, 0))
        for (limit, offset), (got, statements, shown) in zip(cases, _pages(lib, '"okapi"', cases)):
            assert [(hit["id"], hit["score"]) for hit in got] == expected[offset:offset + limit], (limit, offset)
            assert got == shown and all("**" in hit["snippet"] for hit in got)
            rare = 12 <= offset + limit  # the matches, stubs too, all fit on the page
            assert (len(statements) == 1) is rare, (limit, offset)
            assert rare or len(got) < limit or len(statements) == 2, (limit, offset)


def test_a_word_whose_top_is_crowded_by_stubs_is_ranked_again(tmp_path):
    """A word with more matches than the page, in a small library: its page is read from its top rows with a
    margin for stubs; where stubs crowd that margin the page is ranked again: plain bm25's either way."""
    with open_library(tmp_path) as lib:
        with lib.store.write() as conn:
            for i in range(60):
                entry_store.upsert_work(conn, Work(doi=f"10.2/{i}", title=f"filler {i}"))
            for i in range(30):
                entry_store.upsert_work(conn, Work(doi=f"10.1/s{i}", title=f"zebra {i}"), stub=True)
                entry_store.upsert_work(conn, Work(doi=f"10.1/e{i}", title=f"Paper {i}",
                                                   abstract="about a zebra " + "word " * (i % 7)))
        with lib.store.query_raw("test") as conn:
            expected = _plain_page(conn, '"zebra"')
        assert len(expected) == 30
        cases = ((6, 0), (10, 0), (4, 2), (20, 5), (7, 25), (5, 40))
        for (limit, offset), (got, statements, shown) in zip(cases, _pages(lib, '"zebra"', cases)):
            assert [(hit["id"], hit["score"]) for hit in got] == expected[offset:offset + limit], (limit, offset)
            assert got == shown and all("**" in hit["snippet"] for hit in got)
            assert len(statements) > 1
