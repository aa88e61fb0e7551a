"""Each entry's names as its record spells them, with their roles, plus the folded person index.

``entry_authors`` holds one row per name of an entry (role ``author``, ``editor``, ...; positions
run on across roles so the primary key stays (entry_id, position)) with the entry's own parts.
``authors`` is the person index search uses: one row per folded name (or ORCID), whose spelling is
one of the spellings written under that key (whichever reached the index first; within one import
batch the batch's last) and is never used for export.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache

from sqlalchemy import Connection

from doiget.models import Author, Work
from doiget.store.rows import IN_VALUES, rows_for
from doiget.text import fold

NAME_PARTS = ("name", "family", "given", "particle", "dropping_particle", "suffix")
# entry_authors' optional columns and their defaults in the schema
_NAME_DEFAULTS = {"affiliation": None, "particle": None, "dropping_particle": None, "suffix": None, "literal": 0}


def author_key(author: Author) -> str:
    """The person-index key: the ORCID when known, else the folded name (:func:`doiget.text.fold`:
    accents stripped, lower-cased, letters of every script kept)."""
    if author.orcid:
        return "orcid:" + author.orcid.rsplit("/", 1)[-1].upper()
    return name_key(author.name)


@lru_cache(maxsize=65536)
def name_key(name: str) -> str:
    """The person-index key of a name without an ORCID."""
    return "name:" + " ".join(fold(name).split())


def roles(work: Work) -> list[tuple[str, Author]]:
    """(role, name) of every name of ``work``: authors first, then the other roles in their order."""
    return [("author", a) for a in work.authors] + [
        (role, person) for role, people in work.contributors.items() for person in people]


def write_names(conn: Connection, pairs: Sequence[tuple[int, Work]]) -> dict[int, str]:
    """Insert the names of each ``(entry id, work)`` (the entries have none yet); returns each named
    entry's person text for search: the index spellings of its names joined by "; " in position order,
    as the search-text triggers join them."""
    named = [(entry_id, names) for entry_id, work in pairs if (names := roles(work))]
    if not named:
        return {}
    known: dict[int, tuple[str, Author]] = {}  # id(Author) -> (index key, it): works share Authors
    people: dict[str, Author] = {}  # each key's last spelling, in order of first use
    for _, names in named:
        for _, a in names:
            about = known.get(id(a))
            if about is None:
                about = known[id(a)] = (author_key(a), a)
            people[about[0]] = a
    conn.exec_driver_sql("INSERT OR IGNORE INTO authors (key, name, family, given, orcid) VALUES (?, ?, ?, ?, ?)",
                         [(key, a.name, a.family, a.given, a.orcid) for key, a in people.items()])
    index = {key: (author_id, name) for key, author_id, name in  # key -> (author id, index spelling)
             rows_for(conn, f"SELECT key, id, name FROM authors WHERE key {IN_VALUES}", list(people))}
    # A part no name of the batch has is left out of the statement (SQLite stores its default all the same).
    parts = [part for part, default in _NAME_DEFAULTS.items() if any(_part(a, part) != default for _, a in known.values())]
    tails = {ident: (index[key][0], a.name, a.family, a.given, *[_part(a, part) for part in parts])
             for ident, (key, a) in known.items()}  # each Author's values after (entry, position, role)
    spelled = {ident: index[key][1] for ident, (key, _) in known.items()}
    rows = [(entry_id, position, role, *tails[id(a)]) for entry_id, names in named
            for position, (role, a) in enumerate(names)]
    columns = ("entry_id", "position", "role", "author_id", "name", "family", "given", *parts)
    conn.exec_driver_sql(f"INSERT INTO entry_authors ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                         rows)
    return {entry_id: "; ".join([spelled[id(a)] for _, a in names]) for entry_id, names in named}


def _part(author: Author, part: str) -> object:
    return int(author.literal) if part == "literal" else getattr(author, part)


def replace_names(conn: Connection, pairs: Sequence[tuple[int, Work]]) -> None:
    """Replace the names of each ``(entry id, work)`` by the work's."""
    if pairs:
        conn.exec_driver_sql("DELETE FROM entry_authors WHERE entry_id = ?", [(entry_id,) for entry_id, _ in pairs])
        write_names(conn, pairs)


def read_names(conn: Connection, entry_ids: Iterable[int]) -> dict[int, dict[str, list[Author]]]:
    """``{entry id: {role: [Author, ...]}}`` in each entry's order, spelled as the entry spells them."""
    out: dict[int, dict[str, list[Author]]] = defaultdict(dict)
    for (entry_id, role, name, family, given, particle, dropping_particle, suffix, literal, orcid, affiliation,
         index_name) in rows_for(conn, _READ_NAMES, list(entry_ids)):
        author = Author(name=name or index_name, family=family, given=given, particle=particle,
                        dropping_particle=dropping_particle, suffix=suffix, literal=bool(literal), orcid=orcid,
                        affiliation=affiliation)
        out[entry_id].setdefault(role, []).append(author)
    return out


_READ_NAMES = ("SELECT ea.entry_id, ea.role, ea.name, ea.family, ea.given, ea.particle, ea.dropping_particle, "
               "ea.suffix, ea.literal, a.orcid, ea.affiliation, a.name FROM entry_authors ea "
               f"JOIN authors a ON a.id = ea.author_id WHERE ea.entry_id {IN_VALUES} ORDER BY ea.entry_id, ea.position")


def name_signature(work: Work) -> list[tuple]:
    """What decides whether stored names differ from a work's: every part of every name, with roles."""
    return [(role, a.name, a.family, a.given, a.particle, a.dropping_particle, a.suffix, a.literal, a.affiliation)
            for role, a in roles(work)]
