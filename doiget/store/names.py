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
from itertools import chain, count, repeat
from operator import add, itemgetter

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


def write_names(conn: Connection, named: Sequence[tuple[int, Sequence[Author], dict[str, list[Author]]]]) -> dict[
        int, str]:
    """Insert the names of each ``(entry id, authors, contributors)`` (a work's: the entries have none yet);
    returns each named entry's person text for search: the index spellings of its names joined by "; " in
    position order, as the search-text triggers join them."""
    # One entry per name, in position order: whose, in which role, which Author (works share Authors).
    counted: list[tuple[int, int]] = []  # (entry id, how many names)
    roles_of: list[str] = []
    people: list[Author] = []
    for entry_id, authors, contributors in named:
        before = len(people)
        people += authors
        roles_of += repeat("author", len(people) - before)
        for role, others in contributors.items():
            people += others
            roles_of += repeat(role, len(others))
        if len(people) > before:
            counted.append((entry_id, len(people) - before))
    if not counted:
        return {}
    idents = list(map(id, people))
    distinct = dict(zip(idents, people))  # each Author once, in order of first use
    last = dict(zip(idents, count()))  # where each Author is last used
    keys = {ident: author_key(a) for ident, a in distinct.items()}
    index_spelling: dict[str, Author] = {}  # each key's last spelling, in order of first use
    for ident, a in distinct.items():
        held = index_spelling.get(keys[ident])
        if held is None or last[ident] > last[id(held)]:
            index_spelling[keys[ident]] = a
    conn.exec_driver_sql("INSERT OR IGNORE INTO authors (key, name, family, given, orcid) VALUES (?, ?, ?, ?, ?)",
                         [(key, a.name, a.family, a.given, a.orcid) for key, a in index_spelling.items()])
    index = {key: (author_id, name) for key, author_id, name in  # key -> (author id, index spelling)
             rows_for(conn, f"SELECT key, id, name FROM authors WHERE key {IN_VALUES}", list(index_spelling))}
    # A part no name of the batch has is left out of the statement (SQLite stores its default all the same).
    parts = [part for part, default in _NAME_DEFAULTS.items() if any(_part(a, part) != default for a in distinct.values())]
    tails = {ident: (index[keys[ident]][0], a.name, a.family, a.given, *[_part(a, part) for part in parts])
             for ident, a in distinct.items()}  # each Author's values after (entry, position, role)
    whose = chain.from_iterable(repeat(entry_id, n) for entry_id, n in counted)
    positions = chain.from_iterable(map(range, map(itemgetter(1), counted)))
    columns = ("entry_id", "position", "role", "author_id", "name", "family", "given", *parts)
    conn.exec_driver_sql(f"INSERT INTO entry_authors ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                         list(map(add, zip(whose, positions, roles_of), map(tails.__getitem__, idents))))
    spelled = list(map({ident: index[key][1] for ident, key in keys.items()}.__getitem__, idents))
    text, start = {}, 0
    for entry_id, n in counted:
        text[entry_id] = "; ".join(spelled[start:start + n])
        start += n
    return text


def _part(author: Author, part: str) -> object:
    return int(author.literal) if part == "literal" else getattr(author, part)


def replace_names(conn: Connection, pairs: Sequence[tuple[int, Work]]) -> None:
    """Replace the names of each ``(entry id, work)`` by the work's."""
    if pairs:
        conn.exec_driver_sql("DELETE FROM entry_authors WHERE entry_id = ?", [(entry_id,) for entry_id, _ in pairs])
        write_names(conn, [(entry_id, work.authors, work.contributors) for entry_id, work in pairs])


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
