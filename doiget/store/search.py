"""Entry search: the bm25 top page of ``entries_fts`` and what each hit shows, in one or a few queries.

One pass: ranking a query and showing its page in ONE statement costs one walk over the matches: per
row only bm25 (and the stub test) is computed, a snippet only for the rows that enter the top
``offset + limit`` as the walk goes (SQLite's sorter with a LIMIT keeps the other columns of a row out until
it enters) — about ``k·(1 + ln(matches/k))`` rows for a page of k — and the summary (ref, authors, tags,
has_pdf, update status) only for the page. That is cheapest when the matches are few, or costly to walk: a
query holding a phrase, or of several terms in a library of at most :data:`COMMON_DF` entries (whose count
would cost a walk too), is answered so unless more than :data:`ONE_PASS_BUDGET` pages' worth of rows enter its
top; one word or prefix in a larger library when its count (a cheap walk of one row list, stopping one past the
page) says all its matches fit on the page. A word in a small library is ranked by one statement that is not
preceded by a count: it shows the rows entering its top only if bm25's IDF says all its matches fit on the page
(:data:`_RARE`); otherwise its page's snippets are read by a second statement (:func:`shown`).

Two passes: other queries are ranked by bm25 alone (stubs dropped from the top rows afterwards,
:func:`_ranked`), then the page's hits are shown by walking the matches again or looking each hit up
(:func:`shown`). Runs on a plain sqlite3 connection, kept open, so sqlite3's statement cache prepares each
statement once; no SQLAlchemy is imported here (the search path of the CLI and the MCP server needs none).

Very common terms: ranking every row that holds a word found in most of the library is what makes
such a query slow (bm25 costs ~1.5-3 µs per row; merely walking the term's row list ~0.04 µs). A query
that is ONE word or prefix (no phrase, operator or column filter) and matches more than
:data:`COMMON_DF` entries is therefore answered from the entries holding it in a boosted column
(:data:`BOOSTED`: title, authors, tags — the columns whose weight outranks the abstract's); when fewer than
``offset + limit`` entries hold it there, it is ranked in full. Bounds, tested in tests/test_search_rank.py:

- A word in fewer than half the library's entries: the page is plain bm25's ranking restricted to those
  entries, each with its full bm25 score (identical to plain bm25's). An entry holding the word only in its
  abstract, venue, year or notes can be missing from it even where plain bm25 would rank it on the page.
- A word in at least half the entries, and a prefix: the page is that of the query restricted to the boosted
  columns (``{title authors tags} : term``: its bm25 ranking, scores and snippets), so the order can differ
  from plain bm25's too, which also weighs the term's occurrences in the other columns. Such a word's plain
  bm25 says little: FTS5 clamps the IDF of a term in at least half the rows to 1e-6, so every plain score lies
  within 2.2e-6 of zero and orders by term frequency and length alone; ranking it exactly costs a probe of the
  boosted set per match and bm25 of each boosted entry (``controlling``, 70,828 matches at 100k entries: 28 ms
  against 18). A prefix is expanded again by every statement walking its matches (the row lists of all the
  words it stands for merged: ~5-9 ms at 100k entries for ``syst*``): ranked exactly among the boosted it
  cost two more (its walk, bm25's count of it) and a probe of the boosted set per match (``syst*`` 44 ms
  against 21, ``impl*`` 25 against 13); restricted to the boosted columns it is ranked and shown by one
  statement (as the one pass above) expanding only the short boosted row lists.
"""
from __future__ import annotations

import functools
import math
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

from doiget.notices import status_of_kinds
from doiget.present import REF_SQL

ENTRY_FTS_COLUMNS = ("title", "abstract", "authors", "venue", "year", "tags", "notes")
# bm25 column weights, in ENTRY_FTS_COLUMNS order: a title hit counts most.
ENTRY_FTS_WEIGHTS = (10.0, 3.0, 5.0, 2.0, 1.0, 4.0, 2.0)
BOOSTED = ("title", "authors", "tags")
COMMON_DF = 10_000
_BM25 = f"bm25(entries_fts, {', '.join(map(str, ENTRY_FTS_WEIGHTS))})"


def _snippet(column: int) -> str:
    return f"snippet(entries_fts, {column}, '**', '**', '…', 16)"


def _only_in(column: int) -> str:
    """SQL: whether every match in the row lies in ``column`` (bm25 weighing it 0 and the others 1 is then 0)."""
    weights = ", ".join("0" if i == column else "1" for i in range(len(ENTRY_FTS_COLUMNS)))
    return f"bm25(entries_fts, {weights}) = 0"


SNIPPET = _snippet(-1)
# SNIPPET, read from the one column holding all the row's matches where that is the title, abstract or authors:
# snippet(-1) tokenizes every column to pick the best passage, snippet(c) column c alone, and they pick the same
# one when no other column holds a match (SQLite's fts5_aux.c; a row without a match takes the title either way,
# so the title is tested first); tests/test_search_rank.py checks every row of its queries. Only in a statement
# ranking by bm25 already: bm25's IDF walk over each phrase's matches is done once per statement.
_RANKED_SNIPPET = ("CASE " + " ".join(f"WHEN {_only_in(c)} THEN {_snippet(c)}" for c in map(
    ENTRY_FTS_COLUMNS.index, ("title", "abstract", "authors"))) + f" ELSE {SNIPPET} END")
# Stubs out (see _ranked): dropped from a ranked margin, else one pass over the (partially indexed) stub ids;
# for a page's worth, a lookup per row.
_NOT_STUB = "entries_fts.rowid NOT IN (SELECT id FROM entries WHERE is_stub = 1)"  # partial index ix_entries_stub
_NO_STUB = ("NOT EXISTS (SELECT 1 FROM entries s INDEXED BY ix_entries_stub WHERE s.id = entries_fts.rowid "
            "AND s.is_stub = 1)")  # one probe of the partial index per row (the entry's row is not read)
# Snippets by index lookups, one per hit, rather than a second walk over the matches, when ranking took
# longer than this (CPU seconds) per hit: a lookup costs ~0.1-0.15 ms, a walk about half the ranking.
# The choice changes only the cost, never the hits.
SEEK_AFTER = 0.000375
_MARGIN = 20  # rows ranked beyond twice the page, for the stubs among them
# A phrase, and several terms in a library of at most COMMON_DF entries: counting their matches costs a walk
# (of several row lists; a phrase checks positions too), so they are ranked and shown in one pass without
# counting first, unless more than ONE_PASS_BUDGET pages' worth of rows enter the top page as the walk goes
# (each costs its snippet; in bm25 order unrelated to rowid, 10 pages' worth is ~160,000 matches for a page of
# 20, 3 pages' worth ~150); then they are ranked and shown in two passes: the same hits either way. For
# phrases 3 stopped the mid-sized ones of common words (10^2-10^3 matches at 100k) after most of a walk, which
# then cost two more: 10 measured 1.33-1.36x the bare table on scripts/bench_search.py's phrase class at 100k
# against 2.32-2.44x. Several terms in a larger library are ranked in two passes at once: their one pass
# (a snippet per row entering the top, each reading its entry) lost to two passes past ~40 matches, and at
# the class median (two-word ANDs, interleaved, same process: 100k 2.08 vs 1.90 ms, 1M 9.25 vs 7.18 ms).
# (A quoted term with a separator inside is several tokens.)
ONE_PASS_BUDGET = 10
_ROW_BUDGET = "doiget_row_budget"
# This thread's one-pass statement (its connection, how many more rows may enter its top) and the connection it
# last found to hold a large library (:func:`_large`).
_rows = threading.local()
_SEP, _RS = "\x1f", "\x1e"  # the ASCII unit and record separators
# What page() raises for a malformed MATCH expression (tell it apart with doiget.store.fts.is_fts_error).
Error = sqlite3.OperationalError


def prepare(conn: sqlite3.Connection) -> None:
    """Set up a connection the searches will run on (the SQL function the one pass counts rows with, and
    ``ln`` where SQLite was built without its math functions)."""
    conn.create_function(_ROW_BUDGET, 0, _entered)
    try:
        conn.execute("SELECT ln(1)")
    except sqlite3.OperationalError:
        conn.create_function("ln", 1, ln, deterministic=True)


def ln(x: float | None) -> float | None:
    """SQLite's ``ln``: the natural logarithm, NULL (None) for NULL and outside its domain."""
    return math.log(x) if x is not None and x > 0 else None


def page(conn: sqlite3.Connection, match: str, limit: int, offset: int = 0, clauses: Sequence[str] = (),
         params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The hits ``offset``..``offset + limit`` among non-stub entries matching the compiled FTS5 expression
    ``match``, best first: each a dict of the fields of a search hit (:func:`shown`, score = bm25);
    ``clauses`` filter the entry aliased ``e``. ``conn`` is :func:`prepare` d."""
    values = {**(params or {}), "match": match, "limit": limit, "offset": offset, "common": COMMON_DF}
    clauses = tuple(clauses)
    wanted = offset + limit
    one_term = is_one_term(match)
    phrase = _holds_phrase(match)
    if phrase or not one_term:
        several = not phrase  # ranked in one pass only in a small library (none of its rows in a larger one)
        if not (several and _still_large(conn, values)):
            rows = _one_pass(conn, values, clauses, budget=ONE_PASS_BUDGET * wanted, small=several)
            # (no rows of several terms: none match, or the library is large; asked then)
            if rows is not None and (rows or not several or not _large(conn, values)):
                return rows
    if not one_term:  # several terms, in a large library or more than the page of them
        return _two_passes(conn, match, limit, offset, clauses, params, common=False)
    few = 0 if phrase or "*" in match else wanted + 1  # a prefix's count would expand it once more
    if few:  # one word in a small library: ranked in one pass, shown in it if its IDF says all its matches fit the page
        values["few"], values["fetch"] = few, 2 * wanted + _MARGIN
        rows = _small_word(conn, values, clauses, limit)
        if rows is not None:
            return rows
    # One word or prefix: counted to one past the page (all matches on it: ranked and shown in one pass) in a
    # small library; in a larger one past COMMON_DF, where it may be common, and a word up to half the entries.
    prefix = "*" in match
    many = max(COMMON_DF, wanted) + 1
    large, matches = conn.execute(_COUNT_SQL, {"match": match, "few": few, "many": many, "half": not prefix,
                                               "common": COMMON_DF}).fetchone()
    if (many if large else few) and matches <= wanted:  # counted, and all on the page
        return _one_pass(conn, values, clauses) if matches else []
    common = matches > COMMON_DF
    if common and (prefix or 2 * matches >= conn.execute(_ENTRIES_SQL).fetchone()[0]):  # by its boosted columns alone
        boosted = _boosted(match)  # (a word's page looked up hit by hit; a prefix's in one pass, expanded once)
        rows = (_one_pass(conn, {**values, "match": boosted}, clauses) if prefix else
                _two_passes(conn, boosted, limit, offset, clauses, params, common=False))
        if len(rows) == limit:
            return rows
        common = False  # fewer than a page hold it in a boosted column: ranked in full
    return _two_passes(conn, match, limit, offset, clauses, params, common=common)


def _large(conn: sqlite3.Connection, values: dict[str, Any]) -> bool:
    """Whether the library can hold more than ``values["common"]`` entries; the thread remembers the connection
    last found so (:func:`_still_large`)."""
    large = bool(conn.execute(_LARGE_SQL, values).fetchone()[0])
    _rows.large = conn if large else None
    return large


def _still_large(conn: sqlite3.Connection, values: dict[str, Any]) -> bool:
    """Whether the library is large (:func:`_large`), asked only where this thread last found ``conn`` so: there
    several terms skip the one pass (its size check stops it at once, and the size is asked anyway), elsewhere
    they try it first (it checks the size itself). A guess of which statement to run first, checked each time."""
    return getattr(_rows, "large", None) is conn and _large(conn, values)


def _two_passes(conn: sqlite3.Connection, match: str, limit: int, offset: int, clauses: tuple[str, ...],
                params: dict[str, Any] | None, *, common: bool) -> list[dict[str, Any]]:
    """The page ranked (:func:`ranked`), then its hits shown (:func:`shown`)."""
    started = time.thread_time()
    ranked_rows = ranked(conn, match, limit, offset, clauses, params, common=common)
    # (a prefix is expanded again at every lookup: its matches are always walked)
    seek = "*" not in match and time.thread_time() - started > SEEK_AFTER * len(ranked_rows)
    shown_rows = shown(conn, match, [entry_id for entry_id, _ in ranked_rows], seek=seek)
    hits = []
    for entry_id, score in ranked_rows:
        hit = shown_rows[entry_id]
        hit["score"] = score
        hits.append(hit)
    return hits


def _one_pass(conn: sqlite3.Connection, values: dict[str, Any], clauses: tuple[str, ...],
              budget: int | None = None, *, small: bool = False, rare: bool = False) -> list[dict[str, Any]] | None:
    """The page ranked and shown by one statement (what a hit shows is computed only for the rows that enter
    the top ``offset + limit`` as the matches are walked); with ``budget``, None once more than that many
    rows have entered it (the statement is stopped); with ``small``, no rows unless the library holds at most
    ``values["common"]`` entries. With ``rare`` (one word), snippets only if fewer than ``values["few"]`` rows
    match (:data:`_RARE`; else None), and without ``clauses`` stubs are dropped from the top ``values["fetch"]``
    rows, so the page may fall short if they crowd it (exact when every snippet is there: all matches ranked)."""
    only_if = _SMALL if small else None
    if budget is None:
        return _hits(conn.execute(_one_pass_sql(clauses, _RARE_SNIPPET if rare else _RANKED_SNIPPET, only_if,
                                                margin=rare and not clauses), values))
    _rows.left, _rows.conn = budget, conn
    try:
        return _hits(conn.execute(_one_pass_sql(clauses, _BUDGETED_SNIPPET, only_if), values))
    except sqlite3.OperationalError:
        if _rows.left >= 0:  # not the budget's doing
            raise
        return None
    finally:
        _rows.conn = None


@functools.cache
def _one_pass_sql(clauses: tuple[str, ...], snippet: str, only_if: str | None = None, *, margin: bool = False) -> str:
    # Per row entering the top only its ``snippet``; the summary only for the page:
    # the ranked page p is a co-routine (a materialised subquery would compute every row's snippet) that
    # CROSS JOIN keeps the outer loop, so the rows come out in its order (an outer ORDER BY would cost a sort).
    # Without filters no entry is read per row: stubs are probed in their small partial index, which stays
    # cached (an entry's row is a random page of a large table: at 1M entries a read per match).
    # With ``margin`` stubs are ranked too (no probe per match), the top :fetch rows, and dropped as the page's
    # entries are read. A LIMIT of 0 ends the ranking before its walk starts: how ``only_if`` (SQL) stops it.
    kept = ("e.is_stub = 0", *clauses) if clauses else () if margin else (_NO_STUB,)
    entries = " JOIN entries e ON e.id = entries_fts.rowid" if clauses else ""
    where = " AND ".join(["entries_fts MATCH :match", *kept])
    limit, offset = (":fetch", "") if margin else (":limit", " OFFSET :offset")
    if only_if:
        limit = f"CASE WHEN {only_if} THEN {limit} ELSE 0 END"
    page_of = " WHERE e.is_stub = 0 LIMIT :limit OFFSET :offset" if margin else ""
    return (f"SELECT e.id, p.score, {_summary_columns('p.snippet')} FROM (SELECT entries_fts.rowid AS id, "
            f"{_BM25} AS score, {snippet} AS snippet FROM entries_fts{entries} WHERE {where} "
            f"ORDER BY score, id LIMIT {limit}{offset}) p CROSS JOIN entries e ON e.id = p.id{page_of}")


def _small_word(conn: sqlite3.Connection, values: dict[str, Any], clauses: tuple[str, ...],
                limit: int) -> list[dict[str, Any]] | None:
    """The page of one word in a library of at most ``values["common"]`` entries, ranked by one statement
    (:func:`_one_pass` with ``rare``), its snippets read by a second one (:func:`shown`'s way) unless the word is
    rare; None where that statement cannot tell the page: in a larger library, for no rows, or for a page left
    short where stubs may have crowded the statement's margin."""
    started = time.thread_time()
    hits = _one_pass(conn, values, clauses, small=True, rare=True)
    if not hits:
        return None
    for hit in hits:
        if hit["snippet"] is None:
            break
    else:  # rare: every match was ranked
        return hits
    if len(hits) < limit and not clauses:
        return None
    seek = time.thread_time() - started > SEEK_AFTER * len(hits)
    snippets = _snippets(conn, values["match"], [hit["id"] for hit in hits], seek=seek)
    for hit in hits:
        hit["snippet"] = snippets[hit["id"]]
    return hits


def _entered() -> str:
    """SQL ``doiget_row_budget()``: '', computed as each row enters the top page; once more rows have entered
    than the thread's budget allows, the statement is interrupted (rather than failed by raising here, which
    sqlite3 may report as an unraisable exception)."""
    _rows.left -= 1
    if _rows.left < 0:
        _rows.conn.interrupt()
    return ""


def ranked(conn: sqlite3.Connection, match: str, limit: int, offset: int = 0, clauses: Sequence[str] = (),
           params: dict[str, Any] | None = None, *, common: bool = False) -> list[tuple[int, float]]:
    """``(entry id, bm25 score)`` of the page ``offset``..``offset + limit`` of non-stub entries matching
    ``match``, best first; with ``common``, of those holding it in a boosted column if a page of them does
    (a common word's bound: module doc)."""
    where = ["entries_fts MATCH :match"]
    if clauses:  # the entry is looked up per row anyway: the stub test goes with it
        where.append(f"EXISTS (SELECT 1 FROM entries e WHERE e.id = entries_fts.rowid AND e.is_stub = 0 AND "
                     f"{' AND '.join(clauses)})")
    values = {**(params or {}), "match": match, "limit": limit, "offset": offset}
    if common:
        boosted = where + ["+entries_fts.rowid IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH :boosted)"]
        rows = _ranked(conn, boosted, {**values, "boosted": _boosted(match)}, bool(clauses))
        if len(rows) == limit:
            return rows
    return _ranked(conn, where, values, bool(clauses))


def _ranked(conn: sqlite3.Connection, where: list[str], values: dict[str, Any],
            stubs_out: bool) -> list[tuple[int, float]]:
    """The page of ``values`` (limit, offset) of the rows matching ``where``, stubs left out.

    Unless ``where`` already leaves stubs out, rows are ranked with no per-row stub test (at 1M entries
    it cost a third of a common word's ranking) over a margin beyond the page, and the stubs among them
    dropped afterwards: dropping rows keeps the order of the others, so this is the same page. If the
    margin held too many stubs, the query is ranked again with the stubs left out row by row."""
    if stubs_out:
        return conn.execute(_ranking_sql(where), values).fetchall()
    wanted = values["offset"] + values["limit"]
    fetch = 2 * wanted + _MARGIN
    top = conn.execute(_ranking_sql(where), {**values, "limit": fetch, "offset": 0}).fetchall()
    # (the small partial index of stub ids stays cached; the planner would rather read each entry's row)
    stubs = {entry_id for entry_id, in conn.execute(
        "SELECT id FROM entries INDEXED BY ix_entries_stub WHERE is_stub = 1 "
        f"AND id IN ({', '.join('?' * len(top))})", [entry_id for entry_id, _ in top])} if top else set()
    kept = [row for row in top if row[0] not in stubs]
    if len(kept) >= wanted or len(top) < fetch:
        return kept[values["offset"]:wanted]
    return conn.execute(_ranking_sql([*where, _NOT_STUB]), values).fetchall()


def _ranking_sql(where: list[str]) -> str:
    return (f"SELECT entries_fts.rowid, {_BM25} AS score FROM entries_fts WHERE {' AND '.join(where)} "
            "ORDER BY score, entries_fts.rowid LIMIT :limit OFFSET :offset")


def _boosted(match: str) -> str:
    """The one-term expression ``match`` restricted to the :data:`BOOSTED` columns."""
    return f"{{{' '.join(BOOSTED)}}} : {match}"


def is_one_term(match: str) -> bool:
    """Whether the compiled expression ``match`` is one word or prefix (what the common-word shortcut takes)."""
    term = match[:-1] if match[-1:] == "*" else match  # (string tests: a regex costs more on the search path)
    return len(term) > 2 and term[0] == term[-1] == '"' and '"' not in term[1:-1] and len(term.split()) == 1


def _holds_phrase(match: str) -> bool:
    """Whether a term of the compiled expression ``match`` is several tokens (holds a separator: a character
    neither a letter nor a digit). compile_query quotes every term and none holds a quote."""
    return not all(map(str.isalnum, match.split('"')[1::2]))


# Whether the library holds at most :common entries (entries <= max id: in a smaller library no word is common).
_SMALL = "(SELECT max(id) FROM entries) <= :common"
_LARGE_SQL = f"SELECT NOT {_SMALL}"
# Whether the library can hold more than :common entries (entries <= max id: in a smaller one no word is
# common), and how many rows :match matches, counting in such a library no further than :many, or with :half
# than half its largest id if that is more (as far as telling whether half its entries match needs); else :few.
_COUNT_SQL = ("SELECT (SELECT max(id) FROM entries) > :common, (SELECT count(*) FROM (SELECT 1 FROM entries_fts "
              "WHERE entries_fts MATCH :match LIMIT CASE WHEN (SELECT max(id) FROM entries) > :common "
              "THEN max(:many, :half * ((SELECT max(id) FROM entries) + 1) / 2) ELSE :few END))")
_ENTRIES_SQL = "SELECT count(*) FROM entries"
# Whether fewer than :few rows match the one term :match, read off the row's bm25 (a sufficient test, not a
# count). FTS5's bm25 of one term is -IDF·2.2·F/(F + K), F the row's weighted term frequency, K its length term
# (k1 + 1 = 2.2), IDF = ln((N - n + 0.5) / (n + 0.5)) for n of the N rows matching: with every weight doubled F
# doubles, so 1/bm25 - 2/bm25(doubled weights) is 1/(2.2·IDF) for every row. An IDF above that of :few matches
# among max(id) >= N rows means fewer match (or as many, by rounding where the two are equal: still no more
# than the statement's margin holds). The bound is computed once per statement; false or NULL where
# max(id) <= 2·:few: a word there is counted.
_RARE = (f"1.0 / {_BM25} - 2.0 / bm25(entries_fts, {', '.join(str(2 * w) for w in ENTRY_FTS_WEIGHTS)}) "
         "< (SELECT 1.0 / (2.2 * ln((max(id) - :few + 0.5) / (:few + 0.5))) FROM entries)")
# The one pass's snippet counting the rows entering the top against the budget (doiget_row_budget() takes no
# argument: no string to convert); for one word, only if it is rare.
_BUDGETED_SNIPPET = f"{_RANKED_SNIPPET} || {_ROW_BUDGET}()"
_RARE_SNIPPET = f"CASE WHEN {_RARE} THEN {_RANKED_SNIPPET} END"


@functools.cache
def _summary_columns(snippet: str = SNIPPET) -> str:
    """What a hit shows, after its id and score: ref, title, year, venue, ``snippet``, and its summary (kept by the
    triggers of migration 0009 in ``entry_hit_summary``: one row lookup per hit, one result column): its
    authors, :data:`_RS`, then its tags (in order), PDF and the kinds of the notices updating it
    (store/updates.py, for its update status) as one list of items marked by their first letter (t, p, u);
    lists joined with :data:`_SEP`. No name, tag or update kind holds either separator."""
    return f"{REF_SQL}, e.title, e.year, e.venue, {snippet}, (SELECT summary FROM entry_hit_summary WHERE id = e.id)"


def summary_row(entry_id: int, authors: Sequence[str], tags: Sequence[str]) -> tuple[int, str]:
    """The ``entry_hit_summary`` row of a new entry (no PDF, no notice) with ``authors`` (role 'author', in
    order) and ``tags`` (in NOCASE order), as the triggers of migration 0009 compute it."""
    return entry_id, _SEP.join(authors) + _RS + _SEP.join(["t" + tag for tag in tags])


def shown(conn: sqlite3.Connection, match: str, ids: Sequence[int], *, seek: bool = False) -> dict[int, dict]:
    """The hit of each of ``ids`` without its score (None): ref, title, authors, year, venue, tags, has_pdf,
    update status and the snippet of ``match``, in one query: walking the matches of ``match`` again, or
    with ``seek`` looking each id up in the index (cheaper when the matches are many or costly)."""
    if not ids:
        return {}
    rows = conn.execute(f"SELECT e.id, NULL, {_summary_columns()} FROM entries_fts "
                        f"JOIN entries e ON e.id = entries_fts.rowid {_among(len(ids), seek)}", (match, *ids))
    return {hit["id"]: hit for hit in _hits(rows)}


def _snippets(conn: sqlite3.Connection, match: str, ids: Sequence[int], *, seek: bool) -> dict[int, str]:
    """The snippet of ``match`` of each of ``ids``, read as :func:`shown` reads it."""
    return dict(conn.execute(f"SELECT rowid, {SNIPPET} FROM entries_fts {_among(len(ids), seek)}", (match, *ids)))


def _among(count: int, seek: bool) -> str:
    """SQL: the matches of the first parameter among the ``count`` ids that follow it, walked or with ``seek``
    looked up one by one."""
    return f"WHERE entries_fts MATCH ? AND {'' if seek else '+'}entries_fts.rowid IN ({', '.join('?' * count)})"


def _hits(rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """The search hits (dicts of all their fields, in field order; no full-text passage) of rows of ``e.id, score,``
    :func:`_summary_columns`."""
    hits = []
    for entry_id, score, ref, title, year, venue, snippet, summary in rows:
        authors, _, listed = summary.partition(_RS)
        tags, has_pdf, update_status = _listed(listed) if listed else ([], False, None)
        hits.append({"id": entry_id, "ref": ref, "title": title, "authors": authors.split(_SEP) if authors else [],
                     "year": year, "venue": venue, "tags": tags, "has_pdf": has_pdf, "score": score,
                     "snippet": snippet, "update_status": update_status, "fulltext": None})
    return hits


def _listed(listed: str) -> tuple[list[str], bool, str | None]:
    """A hit's tags, has_pdf and update status from its list of marked items (:func:`_summary_columns`)."""
    tags, kinds, has_pdf = [], set(), False
    for item in listed.split(_SEP):
        if item[0] == "t":
            tags.append(item[1:])
        elif item[0] == "u":
            kinds.add(item[1:])
        else:
            has_pdf = True
    return tags, has_pdf, status_of_kinds(kinds)
