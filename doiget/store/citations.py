"""Citation edges (citing -> cited), stub entries for cited works, and citation-graph expansion state.

A merged work lists most references twice, as Crossref DOIs and as OpenAlex W ids, and the two
cannot be matched without a request per reference. So one list stands for a work's references:
OpenAlex's when the work has any ``openalex:`` reference (the stubs it makes can later be expanded
by W id), else the DOIs from Crossref. That list replaces the entry's earlier outgoing edges,
except that a Crossref list never replaces an OpenAlex one. Stubs of the same work found under a
DOI and a W id merge into one entry once some record names both (``entries.upsert_work``).
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Literal, NamedTuple

from sqlalchemy import Connection, bindparam, text

from doiget.models import ID_FIELDS, Work
from doiget.present import REF_SQL
from doiget.refs import Ref, try_parse
from doiget.store import entries as entry_store
from doiget.store.store import now

Direction = Literal["references", "cited_by"]


def chosen_references(references: Iterable[str]) -> tuple[list[Ref], str]:
    """The one reference list that stands for a work (see the module docstring), and its source."""
    refs = list(dict.fromkeys(r for r in map(try_parse, references) if r is not None))
    openalex = [r for r in refs if r.kind == "openalex"]
    if openalex:
        return openalex, "openalex"
    return refs, "crossref"  # the one source that lists references by DOI


def save_references(conn: Connection, citing_id: int, references: Iterable[str]) -> int:
    """Store a work's reference list as the outgoing edges of ``citing_id``; returns the edges stored."""
    refs, source = chosen_references(references)
    if not refs:
        return 0
    if source != "openalex" and conn.execute(
            text("SELECT 1 FROM citations WHERE citing_id = :c AND source = 'openalex' LIMIT 1"),
            {"c": citing_id}).scalar():
        return 0
    replaced = neighbours(conn, citing_id, "references")
    conn.execute(text("DELETE FROM citations WHERE citing_id = :c"), {"c": citing_id})
    stored = add_edges(conn, [(citing_id, cited) for cited in stub_ids(conn, refs)], source)
    if replaced:  # stubs only the replaced list named are known for nothing any more
        conn.execute(text("DELETE FROM entries WHERE id IN :ids AND is_stub = 1 AND NOT EXISTS "
                          "(SELECT 1 FROM citations WHERE citing_id = entries.id OR cited_id = entries.id)")
                     .bindparams(bindparam("ids", expanding=True)), {"ids": replaced})
    return stored


def save_cited_works(conn: Connection, citing_id: int, works: Iterable[Work], source: str) -> int:
    """Store a reference list read from the paper itself (JATS ``<ref-list>``) as ``citing_id``'s outgoing
    edges: each cited work becomes a stub (by its DOI/PMID/PMCID/arXiv id where given, filling the stub's
    empty fields; else a title-only stub). Replaces the entry's earlier edges from ``source`` and other
    non-OpenAlex lists; an OpenAlex list is kept, as :func:`save_references` keeps it. Returns edges stored."""
    works = list(works)
    if not works or conn.execute(text("SELECT 1 FROM citations WHERE citing_id = :c AND source = 'openalex' "
                                      "LIMIT 1"), {"c": citing_id}).scalar():
        return 0
    replaced = neighbours(conn, citing_id, "references")
    conn.execute(text("DELETE FROM citations WHERE citing_id = :c"), {"c": citing_id})
    if replaced:  # title-only stubs of an earlier import of the same list would otherwise pile up
        conn.execute(text("DELETE FROM entries WHERE id IN :ids AND is_stub = 1 AND NOT EXISTS "
                          "(SELECT 1 FROM citations WHERE citing_id = entries.id OR cited_id = entries.id)")
                     .bindparams(bindparam("ids", expanding=True)), {"ids": replaced})
    cited = [entry_store.upsert_work(conn, work.model_copy(update={"references": []}), stub=True) for work in works]
    return add_edges(conn, [(citing_id, c) for c in cited], source)


def stub_ids(conn: Connection, refs: list[Ref]) -> list[int]:
    """The entry carrying each of ``refs``, created as a stub (a work known only as a citation) if absent. Those
    the library holds are read in one query per identifier kind (a work's 70 references were 70 queries, most of
    a batch fetch's time in the database); the query returns the value asked for, matched by the column's own
    collation (DOIs: NOCASE), as ``find_id``."""
    held: dict[tuple[str, str], int] = {}
    for kind in {ref.kind for ref in refs} & set(ID_FIELDS):
        asked = json.dumps([ref.id for ref in refs if ref.kind == kind])
        held.update(((kind, value), entry_id) for value, entry_id in conn.execute(text(
            f"SELECT asked.value, entries.id FROM json_each(:asked) AS asked "
            f"JOIN entries ON entries.{kind} = asked.value"), {"asked": asked}))
    ids = []
    for ref in refs:  # the others become stubs (a ref named twice: once)
        if (key := (ref.kind, ref.id)) not in held:
            held[key] = entry_store.upsert_work(conn, Work(**{ref.kind: ref.id}), stub=True)
        ids.append(held[key])
    return ids


def add_edges(conn: Connection, edges: Iterable[tuple[int, int]], source: str) -> int:
    """Insert citing -> cited edges that are not stored yet (self-citations skipped); returns how many."""
    rows = [{"citing": a, "cited": b, "source": source, "t": now()} for a, b in dict.fromkeys(edges) if a != b]
    if not rows:
        return 0
    before = conn.execute(text("SELECT total_changes()")).scalar_one()
    conn.execute(text("INSERT OR IGNORE INTO citations (citing_id, cited_id, source, created_at) "
                      "VALUES (:citing, :cited, :source, :t)"), rows)
    return conn.execute(text("SELECT total_changes()")).scalar_one() - before


def neighbours(conn: Connection, entry_id: int, direction: Direction) -> list[int]:
    """Stored neighbours of an entry: what it cites (``references``) or what cites it (``cited_by``)."""
    near, far = ("citing_id", "cited_id") if direction == "references" else ("cited_id", "citing_id")
    return list(conn.execute(text(f"SELECT {far} FROM citations WHERE {near} = :e ORDER BY {far}"),
                             {"e": entry_id}).scalars())


def edges_among(conn: Connection, ids: list[int]) -> int:
    """How many stored edges join two of ``ids``."""
    if not ids:
        return 0
    return conn.execute(text("SELECT count(*) FROM citations WHERE citing_id IN :ids AND cited_id IN :ids")
                        .bindparams(bindparam("ids", expanding=True)), {"ids": ids}).scalar_one()


class Expansion(NamedTuple):
    """How far an entry's OpenAlex neighbour list in one direction has been read."""

    cursor: str | None
    complete: bool
    listed: int
    total: int | None


def expansion(conn: Connection, entry_id: int, direction: Direction) -> Expansion | None:
    row = conn.execute(text("SELECT cursor, complete, listed, total FROM graph_expansions "
                            "WHERE entry_id = :e AND direction = :d"), {"e": entry_id, "d": direction}).one_or_none()
    return Expansion(row.cursor, bool(row.complete), row.listed, row.total) if row else None


def record_expansion(conn: Connection, entry_id: int, direction: Direction, openalex: str, state: Expansion) -> None:
    conn.execute(text(
        "INSERT INTO graph_expansions (entry_id, direction, openalex, cursor, complete, listed, total, expanded_at) "
        "VALUES (:e, :d, :w, :c, :done, :n, :total, :t) ON CONFLICT (entry_id, direction) DO UPDATE SET "
        "openalex = :w, cursor = :c, complete = :done, listed = :n, total = :total, expanded_at = :t"),
        {"e": entry_id, "d": direction, "w": openalex, "c": state.cursor, "done": int(state.complete),
         "n": state.listed, "total": state.total, "t": now()})


def describe(conn: Connection, ids: list[int]) -> dict[int, dict]:
    """``{id: {id, ref, title, year, is_stub}}`` for the entries ``ids``."""
    rows = conn.execute(text(f"SELECT e.id, {REF_SQL} AS ref, e.title, e.year, e.is_stub FROM entries e "
                             "WHERE e.id IN :ids").bindparams(bindparam("ids", expanding=True)), {"ids": ids})
    return {r.id: {"id": r.id, "ref": r.ref, "title": r.title, "year": r.year, "is_stub": bool(r.is_stub)}
            for r in rows}


def graph_rows(conn: Connection) -> tuple[list[dict], list[tuple[int, int]]]:
    """Every entry as a graph node dict (one query) and every edge as a (citing, cited) pair (one query)."""
    # Authors (editors and other roles left out) in order, by their person-index spelling so one person
    # counts once in the "authors" section however entries spell them; joined with the ASCII unit
    # separator, which no name contains.
    rows = conn.execute(text(
        f"SELECT e.id, {REF_SQL} AS ref, e.title, e.year, e.venue, e.type, e.is_stub, "
        "(SELECT group_concat(name, char(31)) FROM (SELECT a.name FROM entry_authors ea JOIN authors a "
        " ON a.id = ea.author_id WHERE ea.entry_id = e.id AND ea.role = 'author' ORDER BY ea.position)) AS authors "
        "FROM entries e")).all()
    nodes = [{"id": r.id, "ref": r.ref, "title": r.title, "year": r.year, "venue": r.venue, "type": r.type,
              "is_stub": bool(r.is_stub), "authors": r.authors.split("\x1f") if r.authors else []} for r in rows]
    # Straight from the DB-API cursor: SQLAlchemy's Row objects would double the cost of 10^5 edges.
    return nodes, conn.connection.driver_connection.execute("SELECT citing_id, cited_id FROM citations").fetchall()
