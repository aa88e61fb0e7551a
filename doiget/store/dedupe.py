"""Likely duplicate entries already in the library, and merging one entry into another."""
from __future__ import annotations

import json
from collections import defaultdict

from sqlalchemy import Connection, text

from doiget.errors import DoigetError, ErrorCode
from doiget.identity import normalised_title
from doiget.models import COLUMNS
from doiget.store import entries as entry_store
from doiget.text import fold


def likely_duplicates(conn: Connection) -> list[dict]:
    """Groups of non-stub entries that look like one work: the same DOI (case-insensitively, counting
    DOIs an import set aside as conflicting), or the same normalised title, year and first author's
    family name. Each group: ``{"reason", "ids"}``, ids oldest first."""
    rows = conn.execute(text(
        "SELECT e.id, e.doi, e.title, e.year, e.extra, (SELECT coalesce(ea.family, ea.name) FROM entry_authors ea "
        "WHERE ea.entry_id = e.id AND ea.role = 'author' ORDER BY ea.position LIMIT 1) AS first_author "
        "FROM entries e WHERE e.is_stub = 0 ORDER BY e.id")).mappings().all()
    by_doi: dict[str, list[int]] = defaultdict(list)
    by_title: dict[tuple, list[int]] = defaultdict(list)
    for r in rows:
        dois = {r["doi"].lower()} if r["doi"] else set()
        aside = json.loads(r["extra"]).get("conflicting-ids", {}) if r["extra"] else {}
        if isinstance(aside.get("doi"), str):
            dois.add(aside["doi"].lower())
        for doi in dois:
            by_doi[doi].append(r["id"])
        title = normalised_title(r["title"])
        if title:
            author = " ".join(fold(r["first_author"] or "").split())
            by_title[(title, r["year"], author)].append(r["id"])
    groups = [{"reason": f"same DOI {doi}", "ids": ids} for doi, ids in by_doi.items() if len(ids) > 1]
    seen = {tuple(g["ids"]) for g in groups}
    groups += [{"reason": "same title, year and first author", "ids": ids} for ids in by_title.values()
               if len(ids) > 1 and tuple(ids) not in seen]
    return sorted(groups, key=lambda g: g["ids"])


def merge(conn: Connection, keep: int, drop: int, *, force: bool = False) -> dict:
    """Merge entry ``drop`` into ``keep``: tags, collections, notes, artefacts, citations and names
    move; ``keep``'s empty fields are filled; what differs is kept in ``keep``'s
    ``extra["merged"]`` so nothing is lost; ``drop``'s key becomes an alias. Different DOIs need
    ``force``."""
    if keep == drop:
        raise DoigetError(ErrorCode.INVALID_INPUT, "cannot merge an entry into itself")
    loaded = entry_store.load(conn, [keep, drop])
    if len(loaded) != 2:
        missing = {keep, drop} - {e.id for e in loaded}
        raise DoigetError(ErrorCode.NOT_FOUND, f"entry #{min(missing)} is not in the library")
    a, b = loaded
    if a.doi and b.doi and a.doi.lower() != b.doi.lower() and not force:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"entries #{keep} and #{drop} have different DOIs ({a.doi} / "
                          f"{b.doi}); a DOI is a work's identity. Pass force to merge them anyway")
    differing = {name: getattr(b, name) for name in COLUMNS
                 if getattr(b, name) not in (None, "") and getattr(a, name) not in (None, "")
                 and getattr(a, name) != getattr(b, name)}
    if b.authors and a.authors and [x.name for x in a.authors] != [x.name for x in b.authors]:
        differing["authors"] = [x.name for x in b.authors]
    moved = {"tags": b.tags, "collections": b.collections, "artefacts": len(b.artefacts),
             "notes": conn.execute(text("SELECT count(*) FROM notes WHERE entry_id = :d"), {"d": drop}).scalar_one()}
    if differing:
        extra = entry_store.load_extra(conn.execute(text("SELECT extra FROM entries WHERE id = :k"),
                                                    {"k": keep}).scalar())
        extra["merged"] = [*extra.get("merged", []), {"entry": drop, "citekey": b.citekey, **differing}]
        conn.execute(text("UPDATE entries SET extra = :x WHERE id = :k"), {"x": entry_store.dump_extra(extra), "k": keep})
    entry_store.merge_into(conn, keep, drop)
    return {"kept": keep, "merged": drop, "moved": moved, "differing": sorted(differing)}
