"""Reading and writing entries and what hangs off them (authors, tags, collections, annotation)."""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy import Connection, bindparam, text

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.keys import key_aliases, with_key_alias
from doiget.models import COLUMNS as _COLUMNS, ET_AL, IMPORT_SOURCE, Artefact, Entry, Work
from doiget.refs import CITEKEY, Ref
from doiget.store import citekeys
from doiget.store import updates as update_store
from doiget.store.names import read_names, replace_names, write_names
from doiget.store.store import like_literal, now

# What sources say of a work now rather than what it is: upstream metadata always refreshes them.
UPSTREAM_FACTS = ("oa_status", "oa_url", "cited_by_count")


def find_id(conn: Connection, ref: Ref) -> int | None:
    """The local id of the entry carrying ``ref``, or None. A citation key also names the entry that
    keeps it as an alias (biblatex ``ids``: the key of a record merged into it)."""
    found = conn.execute(text(f"SELECT id FROM entries WHERE {ref.kind} = :v"), {"v": ref.id}).scalar()
    if found is None and ref.kind == CITEKEY:
        holders = conn.execute(text("SELECT id, extra FROM entries WHERE extra LIKE :like ESCAPE '\\'"),
                               {"like": f"%{like_literal(ref.id)}%"})  # a byte scan; only these parse their JSON
        found = next((entry_id for entry_id, extra in holders
                      if ref.id.lower() in (k.lower() for k in key_aliases(load_extra(extra)))), None)
    return found


def require_id(conn: Connection, ref: Ref | int) -> int:
    """The local id for ``ref`` (a Ref or a local integer id); NOT_FOUND if the library lacks it."""
    if isinstance(ref, int):
        found = conn.execute(text("SELECT id FROM entries WHERE id = :id"), {"id": ref}).scalar()
    else:
        found = find_id(conn, ref)
    if found is None:
        hint = "" if isinstance(ref, int) or ref.in_library else " (fetch or resolve it first)"
        raise DoigetError(ErrorCode.NOT_FOUND, f"{ref if not isinstance(ref, int) else f'entry {ref}'} is not in "
                          f"the library{hint}")
    return found


def find_any(conn: Connection, refs: Iterable[Ref | int]) -> int | None:
    """The entry of the first of ``refs`` the library holds (a local ``int`` id must exist)."""
    for ref in refs:
        found = require_id(conn, ref) if isinstance(ref, int) else find_id(conn, ref)
        if found is not None:
            return found
    return None


def upsert_work(conn: Connection, work: Work, *, stub: bool = False, upstream: bool = False) -> int:
    """Insert ``work`` or update the entry that shares any of its identifiers; returns the entry id.

    Fresh metadata replaces stored fields it carries, unless it is a ``stub`` (a work known only as
    a citation), or ``upstream`` metadata (resolved from a source) meeting an entry that holds an
    imported record (the user's own fields): these only fill empty fields. Entries found under
    different identifiers of the same work are merged into the oldest one.
    """
    ids = work.ids()
    if not ids and not work.title:
        raise DoigetError(ErrorCode.INVALID_INPUT, "a work needs an identifier or at least a title")
    matches: list[int] = []
    for kind, value in ids.items():
        found = conn.execute(text(f"SELECT id FROM entries WHERE {kind} = :v"), {"v": value}).scalar()
        if found is not None and found not in matches:
            matches.append(found)
    timestamp = now()
    if not matches:
        values = {column: getattr(work, column) for column in _COLUMNS}
        values.update(is_stub=int(stub), sources=json.dumps(work.sources), created_at=timestamp,
                      updated_at=timestamp, citekey=citekeys.new_key(conn, work), extra=dump_extra(work.extra))
        columns = ", ".join(values)
        entry_id = conn.execute(text(f"INSERT INTO entries ({columns}) VALUES "
                                     f"({', '.join(':' + c for c in values)}) RETURNING id"), values).scalar_one()
        write_names(conn, [(entry_id, work.authors, work.contributors)])
        return entry_id
    keep, *others = sorted(matches)
    for other in others:
        merge_into(conn, keep, other)
    row = conn.execute(text("SELECT * FROM entries WHERE id = :id"), {"id": keep}).mappings().one()
    existing_stub = bool(row["is_stub"])
    stored_sources = json.loads(row["sources"])
    fill_only = (stub and not existing_stub) or (upstream and IMPORT_SOURCE in stored_sources)
    updates: dict[str, object] = {}
    for column in _COLUMNS:
        value = getattr(work, column)
        if value in (None, ""):
            continue
        if row[column] in (None, "") or ((not fill_only or (upstream and column in UPSTREAM_FACTS))
                                         and row[column] != value):
            updates[column] = value
    sources = list(dict.fromkeys(stored_sources + work.sources))
    updates.update(sources=json.dumps(sources), is_stub=int(existing_stub and stub), updated_at=timestamp)
    stored_extra = load_extra(row["extra"])
    has_authors = conn.execute(text("SELECT 1 FROM entry_authors WHERE entry_id = :id LIMIT 1"),
                               {"id": keep}).scalar()
    new_names = bool(work.authors or work.contributors) and (not has_authors or not fill_only)
    stale = new_names and ET_AL in stored_extra and ET_AL not in work.extra  # "and others" goes with its names
    if (work.extra and any(k not in stored_extra for k in work.extra)) or stale:
        extra = {**work.extra, **stored_extra} if fill_only else {**stored_extra, **work.extra}
        if stale:
            del extra[ET_AL]
        updates["extra"] = dump_extra(extra)
    if row["citekey"] is None:
        updates["citekey"] = citekeys.new_key(conn, work)
    conn.execute(text(f"UPDATE entries SET {', '.join(f'{c} = :{c}' for c in updates)} WHERE id = :id"),
                 {**updates, "id": keep})
    if new_names:
        replace_names(conn, [(keep, work)])
    return keep


def _move_names(conn: Connection, keep: int, drop: int) -> None:
    """Give ``keep`` the names of ``drop`` in the roles ``keep`` has none of."""
    held = {role for (role,) in conn.execute(text("SELECT DISTINCT role FROM entry_authors WHERE entry_id = :k"),
                                             {"k": keep})}
    offset = conn.execute(text("SELECT coalesce(max(position), -1) + 1 FROM entry_authors WHERE entry_id = :k"),
                          {"k": keep}).scalar_one()
    roles = [r for (r,) in conn.execute(text("SELECT DISTINCT role FROM entry_authors WHERE entry_id = :d"),
                                        {"d": drop}) if r not in held]
    for role in roles:
        conn.execute(text("UPDATE entry_authors SET entry_id = :k, position = position + :o "
                          "WHERE entry_id = :d AND role = :r"), {"k": keep, "o": offset, "d": drop, "r": role})


def dump_extra(extra: dict) -> str | None:
    """The ``extra`` column's text: JSON, or NULL when there is nothing."""
    return json.dumps(extra, ensure_ascii=False, sort_keys=True) if extra else None


def load_extra(value: str | None) -> dict:
    return json.loads(value) if value else {}


def merge_into(conn: Connection, keep: int, drop: int) -> None:
    """Move everything attached to entry ``drop`` onto ``keep`` and fill ``keep``'s empty fields."""
    for table, column in (("entry_tags", "entry_id"), ("collection_entries", "entry_id"),
                          ("citations", "citing_id"), ("citations", "cited_id"), ("graph_expansions", "entry_id"),
                          ("entry_updates", "entry_id"), ("update_checks", "entry_id")):
        conn.execute(text(f"UPDATE OR IGNORE {table} SET {column} = :keep WHERE {column} = :drop"),
                     {"keep": keep, "drop": drop})
    conn.execute(text("DELETE FROM citations WHERE citing_id = cited_id"))
    has_annotation = conn.execute(text("SELECT 1 FROM notes WHERE entry_id = :k AND kind = 'annotation'"),
                                  {"k": keep}).scalar()
    if has_annotation:
        conn.execute(text("UPDATE notes SET kind = 'note' WHERE entry_id = :d AND kind = 'annotation'"), {"d": drop})
    conn.execute(text("UPDATE notes SET entry_id = :keep WHERE entry_id = :drop"), {"keep": keep, "drop": drop})
    conn.execute(text("UPDATE OR IGNORE artefacts SET entry_id = :keep WHERE entry_id = :drop"),
                 {"keep": keep, "drop": drop})
    conn.execute(text("UPDATE chunks SET entry_id = :keep WHERE entry_id = :drop "
                      "AND artefact_id IN (SELECT id FROM artefacts WHERE entry_id = :keep)"),
                 {"keep": keep, "drop": drop})
    _move_names(conn, keep, drop)
    dropped = conn.execute(text("SELECT * FROM entries WHERE id = :id"), {"id": drop}).mappings().one()
    kept = conn.execute(text("SELECT citekey, extra FROM entries WHERE id = :id"), {"id": keep}).mappings().one()
    conn.execute(text("DELETE FROM entries WHERE id = :id"), {"id": drop})
    extra = {**load_extra(dropped["extra"]), **load_extra(kept["extra"])}
    if dropped["citekey"] and kept["citekey"]:  # biblatex's ``ids``: the old key still cites the entry
        extra = with_key_alias(extra, dropped["citekey"])
    conn.execute(text("UPDATE entries SET extra = :x, citekey = coalesce(citekey, :k) WHERE id = :id"),
                 {"x": dump_extra(extra), "k": dropped["citekey"], "id": keep})
    fills = {c: dropped[c] for c in _COLUMNS if dropped[c] not in (None, "")}
    if fills:
        conn.execute(text(f"UPDATE entries SET {', '.join(f'{c} = coalesce({c}, :{c})' for c in fills)} "
                          "WHERE id = :id"), {**fills, "id": keep})


def load(conn: Connection, entry_ids: Iterable[int]) -> list[Entry]:
    """Full entries for ``entry_ids``, in the order given (missing ids are skipped)."""
    ids = list(dict.fromkeys(entry_ids))
    if not ids:
        return []
    expanding = {"ids": ids}
    rows = {r["id"]: r for r in conn.execute(
        text("SELECT * FROM entries WHERE id IN :ids").bindparams(bindparam("ids", expanding=True)),
        expanding).mappings()}
    names = read_names(conn, ids)
    tags = _grouped(conn, "SELECT et.entry_id, t.name FROM entry_tags et JOIN tags t ON t.id = et.tag_id "
                          "WHERE et.entry_id IN :ids ORDER BY t.name", ids)
    collections = _grouped(conn, "SELECT ce.entry_id, c.name FROM collection_entries ce JOIN collections c "
                                 "ON c.id = ce.collection_id WHERE ce.entry_id IN :ids ORDER BY c.name", ids)
    annotations = dict(conn.execute(text(
        "SELECT entry_id, body FROM notes WHERE kind = 'annotation' AND entry_id IN :ids"
    ).bindparams(bindparam("ids", expanding=True)), expanding).all())
    artefacts: dict[int, list[Artefact]] = defaultdict(list)
    for r in conn.execute(text(
            "SELECT entry_id, kind, sha256, size, mime, source, url, created_at FROM artefacts "
            "WHERE entry_id IN :ids ORDER BY id").bindparams(bindparam("ids", expanding=True)), expanding).mappings():
        artefacts[r["entry_id"]].append(Artefact(**{k: v for k, v in r.items() if k != "entry_id"}))
    notices = update_store.load(conn, ids)
    entries = []
    for entry_id in ids:
        row = rows.get(entry_id)
        if row is None:
            continue
        entries.append(Entry(
            id=entry_id, **{c: row[c] for c in _COLUMNS}, authors=names[entry_id].get("author", []),
            contributors={r: p for r, p in names[entry_id].items() if r != "author"},
            citekey=row["citekey"], extra=load_extra(row["extra"]),
            sources=json.loads(row["sources"]), updates=notices.get(entry_id), tags=tags[entry_id], collections=collections[entry_id],
            annotation=annotations.get(entry_id), has_pdf=any(a.kind == "pdf" for a in artefacts[entry_id]),
            is_stub=bool(row["is_stub"]), artefacts=artefacts[entry_id], created_at=row["created_at"],
            updated_at=row["updated_at"]))
    return entries


def _grouped(conn: Connection, sql: str, ids: list[int]) -> dict[int, list[str]]:
    grouped: dict[int, list[str]] = defaultdict(list)
    for entry_id, value in conn.execute(text(sql).bindparams(bindparam("ids", expanding=True)), {"ids": ids}):
        grouped[entry_id].append(value)
    return grouped


def tag_ids(conn: Connection, names: Iterable[str]) -> list[int]:
    """Ids of the named tags, creating the missing ones."""
    return [tag_id for tag_id, _ in tags_named(conn, names)]


def tags_named(conn: Connection, names: Iterable[str]) -> list[tuple[int, str]]:
    """(id, the library's spelling) of each named tag, creating the missing ones (a tag ignores case, so an
    existing tag keeps its spelling)."""
    found = []
    for name in names:
        conn.execute(text("INSERT OR IGNORE INTO tags (name) VALUES (:n)"), {"n": name})
        found.append(tuple(conn.execute(text("SELECT id, name FROM tags WHERE name = :n"), {"n": name}).one()))
    return found
