"""Bibliography files into the library (import) and library entries out as BibTeX, CSL-JSON or RIS.

Import keeps every record that has an identifier or a title, even without a DOI. Records are
merged when :mod:`doiget.identity` says they are one work (same DOI; or a shared secondary id with
no differing id and agreeing titles), within the file and with the library; an id shared with a
record that is NOT the same work is set aside (``extra["conflicting-ids"]``) and reported. Merging
into a library entry fills its empty fields and reports every field that differs, unless
``overwrite`` (see :func:`merge_policy`). Records with no identifier are matched by title and year
(unless their first page, volume or authors tell them apart: :func:`doiget.identity.marks_agree`)
against entries that have none either, so importing a file twice adds nothing. New entries get
their citation key once (the file's own when free). They are written in chunks through
:mod:`doiget.store.bulk`, all in one transaction: a file that fails part way (a syntax error late in
it, a full disk, a killed process) adds nothing.
"""
from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, text

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.bibtex import not_carried as bibtex_not_carried, to_bibtex
from doiget.formats.csl import to_csl_json
from doiget.formats.importer import Format as ImportFormat
from doiget.formats.importer import ImportRecord, iter_bibliography
from doiget.formats.ris import not_carried as ris_not_carried, to_ris
from doiget.formats.keys import citation_key, key_aliases, unique_key, with_key_alias
from doiget.formats.record import EMPTY, PlainRecord
from doiget.formats.fields import BABEL_LANGUAGES
from doiget.gcpause import gc_paused
from doiget.identity import Marks, Side, decide, marks_agree, normalised_title
from doiget.models import COLUMNS, ET_AL, ID_FIELDS, IMPORT_SOURCE, SCALAR_FIELDS, Entry, Work, spells_other_type
from doiget.services import checks, retractions, searching
from doiget.services.session import Session
from doiget.store import bulk, citekeys, rows
from doiget.store import dedupe as dedupe_store
from doiget.store import entries as entry_store
from doiget.store import organise as organise_store
from doiget.store import selects
from doiget.store.names import name_signature, roles
from doiget.store.store import Store

log = logging.getLogger(__name__)

EXPORT_FORMATS: tuple[str, ...] = ("bibtex", "csl-json", "ris")
CHUNK_SIZE = 5000
# The common path: a CSL-JSON record whose every value has a store column (formats.record.PlainRecord) and that
# shares no identifier with another record of the file or an entry of the library is written from its values,
# never made a Work. Tests switch it off to show it gives the library and report the other path gives.
COMMON_PATH = True
MAX_TAG_LENGTH = 100
Progress = Callable[[int, int | None], None]


def check_format(format: str) -> str:
    """``format`` if it is an export format, else INVALID_INPUT naming them."""
    if format not in EXPORT_FORMATS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown export format {format!r}; use "
                          f"{', '.join(EXPORT_FORMATS)}")
    return format


def render(works: Sequence[Work], format: str) -> str | list[dict[str, Any]]:
    """``works`` as a BibTeX or RIS document (text) or as CSL-JSON items (a list)."""
    renderers = {"bibtex": to_bibtex, "csl-json": to_csl_json, "ris": to_ris}
    return renderers[check_format(format)](works)


def select_ids(conn: Connection, candidates: list[int] | None, tag: str | None, collection: str | None) -> list[int]:
    """Ids of the non-stub entries among ``candidates`` (every entry if None) that carry ``tag`` and
    belong to ``collection``; in ``candidates`` order, else oldest first."""
    ids = selects.entry_ids(conn, {"tag": tag, "collection": collection}, stubs=False)
    if candidates is None:
        return list(ids)
    found = set(ids)
    return [entry_id for entry_id in dict.fromkeys(candidates) if entry_id in found]


# ---- import -----------------------------------------------------------------------------------

@dataclass(slots=True)
class _Seen:
    """What a written item is matched by: its identifiers, title, year, marks and the file's key (a few
    hundred bytes, where the whole work would keep a large file's every record in memory)."""

    identifiers: dict[str, str]
    title: str | None
    year: int | None
    citekey: str | None
    marks: Marks

    def ids(self) -> dict[str, str]:
        return self.identifiers

    def ref(self) -> str | None:
        """Its first identifier as a ref, as ``str(Work.primary_ref())`` (the identifiers are canonical already);
        None when it has none (known by its title, or every id it had was set aside)."""
        return "%s:%s" % next(iter(self.identifiers.items())) if self.identifiers else None

    def merged(self, work: Work) -> _Seen:
        """Empty parts filled from ``work``, as :meth:`Work.merged` fills them."""
        other = work.ids()
        return _Seen({kind: value for kind in ID_FIELDS if (value := self.identifiers.get(kind) or other.get(kind))},
                     _filled(self.title, work.title), _filled(self.year, work.year), _filled(self.citekey, work.citekey),
                     self.marks.filled(_marks(work)))


_NO_MARKS = Marks()


def _marks(work: Work) -> Marks:
    return Marks.of(work.pages, work.volume, (a.family or a.name for a in work.authors), work.type)


def _filled(value: Any, other: Any) -> Any:
    return other if value in (None, "", []) else value


@dataclass(slots=True)
class _Item:
    """One work to write: the first record of a group of records that are the same work."""

    index: int
    work: Work | None  # None once written: ``seen`` holds what later records are matched by
    tags: list[str]
    inferred: frozenset[str] = frozenset()
    files: list[str] = field(default_factory=list)
    duplicates: list[int] = field(default_factory=list)
    keys: list[tuple[str, str]] = field(default_factory=list)  # _keys(work), kept current by _group
    entry_id: int | None = None  # set once written
    merged: dict[str, Any] | None = None  # how it matched an entry already in the library
    file_key: str | None = None  # the citation key the file gave it (its entry's key may differ)
    seen: _Seen | None = None
    ref: str | None = None  # its primary ref, once written (None for an item known by its title)
    plain: PlainRecord | None = None  # on the common path: the record's values (``work`` is None until full())

    @property
    def current(self) -> Work | _Seen:
        """The work, or once written what is kept of it."""
        return self.work if self.work is not None else self.seen

    def side(self) -> Side:
        return Side(self.current.ids(), self.current.title, self.inferred)

    @property
    def marks(self) -> Marks:
        return _marks(self.work) if self.work is not None else self.seen.marks

    def full(self) -> Work:
        """The work (made now from a plain record's values: the item leaves the common path)."""
        if self.plain is not None:
            self.work, self.plain = self.plain.work(sources=[IMPORT_SOURCE]), None  # as _group gives every record
        return self.work

    def entry_values(self) -> bulk.NewWork:
        """Its work's values, as :func:`doiget.store.bulk.insert_works` writes them."""
        if self.plain is None:
            return bulk.work_values(self.work)
        return self.plain.columns, self.plain.authors, _NO_ROLES, _IMPORTED, _NO_EXTRA

    def retire(self) -> None:
        """Once written, keep only what later records of the file are matched against."""
        if self.plain is not None:  # known by its identifiers, so matched by no marks
            columns = self.plain.columns
            self.seen = _Seen(self.plain.ids, columns[_TITLE], columns[_YEAR], self.file_key, _NO_MARKS)
            self.plain, self.tags = None, []
            return
        titled = self.keys[0][0] == "title"  # only an item known by its title is matched by its marks
        self.seen = _Seen(self.work.ids(), self.work.title, self.work.year, self.file_key,
                          _marks(self.work) if titled else _NO_MARKS)
        self.work, self.tags = None, []


# What a plain record's work holds but for its columns and authors (only read: insert_works changes none of them).
_NO_ROLES: dict[str, list] = {}
_IMPORTED = [IMPORT_SOURCE]
_NO_EXTRA: dict[str, Any] = {}
_TITLE, _YEAR = COLUMNS.index("title"), COLUMNS.index("year")


@dataclass
class _Late:
    """A record that is the same work as an item already written (more than a chunk earlier in the file)."""

    index: int  # the record's
    item: _Item
    work: Work
    tags: list[str]
    alias: str | None  # its own key, kept as an alias of the entry

def import_bibliography(store: Store, text_: str | Path, format: ImportFormat = "auto", tags: Sequence[str] = (),
                        progress: Progress | None = None, overwrite: bool = False) -> dict[str, Any]:
    """Parse ``text_`` (the document, or a file: see :func:`iter_bibliography`) and write its records to
    ``store``; see the module docstring for merging.

    Returns counts (records, added, merged, skipped, conflicts), ``report`` (one row per record, in
    file order: index, key, citekey, status added / merged / skipped, id, ref, reason, matched
    {id, entry_title, record_title}, conflicts [{field, library, file}], overwritten, problems),
    ``fetchable`` (refs of the imported entries that have an identifier and no PDF yet), ``files``
    (entry id -> attachment paths the records name) and the rate.
    """
    with gc_paused():
        return _import(store, text_, format, tags, progress, overwrite)


def _import(store: Store, text_: str | Path, format: ImportFormat, tags: Sequence[str], progress: Progress | None,
            overwrite: bool) -> dict[str, Any]:
    started = time.perf_counter()
    report: list[dict[str, Any]] = []
    tag_ids: dict[str, tuple[int, str]] = {}
    items: list[_Item] = []
    pending: list[_Item] = []
    late: list[_Late] = []
    with store.write() as conn, bulk.page_cache(conn):
        title_index = _title_index(conn)
        keys_taken = citekeys.taken(conn)

        def flush(last: bool = False) -> None:
            _write_chunk(conn, pending, list(tags), title_index, tag_ids, keys_taken, report, overwrite)
            _write_late(conn, late, tag_ids, report)
            pending.clear()
            late.clear()
            if progress:
                progress(len(items), len(items) if last else None)

        for item in _group(iter_bibliography(text_, format, COMMON_PATH), report, late):
            items.append(item)
            pending.append(item)
            if len(pending) + len(late) >= CHUNK_SIZE:
                flush()
        if pending or late or not items:
            flush(last=True)
        elif progress:
            progress(len(items), len(items))
    for item in items:  # every item is written and retired
        item.ref = ref = item.seen.ref()
        row = _placed(report[item.index], "merged" if item.merged else "added", item.entry_id, ref)
        if item.merged:
            row.update(item.merged)
        for index in item.duplicates:
            _placed(report[index], "merged", item.entry_id, ref).setdefault(
                "reason", f"same work as record {item.index} of this file")
    seconds = time.perf_counter() - started
    statuses = Counter(map(itemgetter("status"), report))
    counts = {status: statuses[status] for status in ("added", "merged", "skipped")}
    return {"records": len(report), **counts, "conflicts": sum("conflicts" in row for row in report),
            "entries": len(items), "fetchable": _fetchable(store, items),
            "files": {item.entry_id: item.files for item in items if item.files},
            "seconds": round(seconds, 3), "records_per_second": round(len(report) / seconds) if seconds else None,
            "report": report}


def _placed(row: dict[str, Any], status: str, entry_id: int, ref: str | None) -> dict[str, Any]:
    """``row`` with the entry its record went to (a row holds no ``ref`` key rather than a None)."""
    row["status"], row["id"] = status, entry_id
    if ref is not None:
        row["ref"] = ref
    return row


def _row(index: int, record: ImportRecord) -> dict[str, Any]:
    """A record's report row. A row holds only the keys that say something (no None, no empty list), as the
    report gives it: ``conflicts``, ``overwritten`` and ``problems`` are added by :func:`_listed`."""
    row: dict[str, Any] = {"index": index}
    if record.key is not None:
        row["key"] = record.key
    if record.problems:
        row["problems"] = list(record.problems)
    return row


def _listed(row: dict[str, Any], name: str, values: list[Any]) -> None:
    """Append ``values`` to the list ``row[name]``, which a row holds only once it has any."""
    if values:
        row.setdefault(name, []).extend(values)


def _keys(work: Work | _Seen, ids: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """What makes two records candidates for one work: any shared identifier, else the same title and
    year (``ids``: the work's, when known)."""
    ids = work.ids() if ids is None else ids
    if ids:
        return list(ids.items())
    return [("title", _title_key(work.title, work.year))]


def _title_key(title: str | None, year: int | None) -> str:
    # A title without letters or digits ("???") is its own key rather than one shared by all of them.
    return (normalised_title(title) or (title or "").strip()) + f"|{year or ''}"


def _without(work: Work, kinds: Sequence[str]) -> Work:
    """``work`` with the identifiers ``kinds`` moved to ``extra["conflicting-ids"]`` (kept, not stored as ids)."""
    moved = {kind: getattr(work, kind) for kind in kinds if getattr(work, kind)}
    if not moved:
        return work
    extra = {**work.extra, "conflicting-ids": {**work.extra.get("conflicting-ids", {}), **moved}}
    return work.model_copy(update={**{kind: None for kind in moved}, "extra": extra})


def _group(records: Iterable[ImportRecord | PlainRecord], report: list[dict[str, Any]],
           late: list[_Late]) -> Iterator[_Item]:
    """The items to write, one per distinct work, yielded in file order as the records are read;
    appends each record's row to ``report`` (skipped records marked there). A record joins an earlier
    one only when :func:`doiget.identity.decide` says they are one work; an identifier it shares with a
    record it is not joined to is set aside and reported. A record joining an item not yet written is
    merged into it (the first record wins on every field); one joining an item already written goes
    to ``late``, merged into the entry the same way when the next chunk is written."""
    owner: dict[tuple[str, str], list[_Item]] = {}  # by key: the items holding it (one, but for a shared title)
    for index, record in enumerate(records):
        if type(record) is PlainRecord:
            keys = list(record.ids.items())
            if keys and not any(map(owner.__contains__, keys)):  # the common path: no earlier record to join
                report.append(row := _row(index, record))
                item = _Item(index, None, _keyword_tags(record.tags, row) if record.tags else [],
                             frozenset(record.inferred), keys=keys, plain=record)
                for key in keys:
                    owner[key] = [item]
                yield item
                continue
            record = record.record()
        report.append(row := _row(index, record))
        work = record.work  # the record's own model: nothing else holds it
        work.sources = [IMPORT_SOURCE]
        ids = work.ids()
        if not work.title and not ids:
            row.update(status="skipped", reason="no identifier and no title")
            continue
        tags = _keyword_tags(record.tags, row)
        keys = _keys(work, ids)
        candidates = [item for k in keys if k in owner for item in owner[k]]
        if len(candidates) > 1:
            candidates = list({id(item): item for item in candidates}.values())
        for candidate in candidates:
            candidate.full()
        side = Side(ids, work.title, frozenset(record.inferred)) if candidates else None
        target, refused = None, []
        for candidate in candidates:
            if candidate.keys[0][0] == "title":
                if marks_agree(candidate.marks, _marks(work)):
                    target = candidate
                    break
                continue
            decision = decide(candidate.side(), side)
            if decision.same and target is None:
                target = candidate
                row.update(reason=f"same work as record {candidate.index} of this file ({decision.reason})",
                           matched=_matched(decision.matched, work, candidate.current))
            elif not decision.same:
                refused.append((candidate, decision))
        if refused:
            clashing = [kind for candidate, _ in refused for kind, value in candidate.keys
                        if kind != "title" and getattr(work, kind) == value]
            work = _without(work, clashing)
            for candidate, decision in refused:
                _listed(row, "conflicts", [{
                    "record": candidate.index, "reason": f"not merged: {decision.reason}",
                    "title": candidate.current.title, "record_title": record.work.title,
                    "ids_set_aside": {k: v for k, v in record.work.ids().items() if k in clashing}}])
        if target is None:
            item = _Item(index, work, tags, frozenset(record.inferred), list(record.files))
            item.keys = _keys(work) if refused else keys
            for key in item.keys:  # a new item holds no key yet
                owner.setdefault(key, []).append(item)
            yield item
            continue
        item = target
        alias = record.key if record.key and record.key != item.current.citekey else None
        if item.entry_id is None:
            _listed(row, "conflicts", _differences(item.work, work, item.index))
            item.work, item.tags = item.work.merged(work), item.tags + tags
            if alias:
                _alias_key(item.work, alias)
        else:
            late.append(_Late(index, item, work, tags, alias))
            item.seen = item.seen.merged(work)
        item.inferred = item.inferred & frozenset(record.inferred)
        item.files += record.files
        item.duplicates.append(index)
        item.keys = _keys(item.current)
        for key in item.keys:
            holders = owner.setdefault(key, [])
            if item not in holders:
                holders.append(item)


def _write_late(conn: Connection, late: list[_Late], tag_ids: dict[str, tuple[int, str]], report: list[dict[str, Any]]) -> None:
    """Merge records into the entries their items were written to, as :func:`_group` merges them into
    an item not yet written: the entry's non-empty fields win, empty ones are filled, names of roles it
    lacks are added, tags added, the record's key kept as an alias. An identifier another entry holds
    is set aside and reported, as for any record."""
    if not late:
        return
    stored = {entry.id: entry for entry in entry_store.load(conn, {one.item.entry_id for one in late})}
    merged: dict[int, Work] = {}
    for one in late:
        entry_id = one.item.entry_id
        work = merged.get(entry_id) or Work.model_validate(stored[entry_id].model_dump(include=set(Work.model_fields)))
        incoming = one.work
        for kind, value in incoming.ids().items():
            holder = bulk.stored_ids(conn, kind, [value]).get(value.lower() if kind == "doi" else value)
            if not getattr(work, kind) and holder not in (None, entry_id):
                incoming = _without(incoming, [kind])
                _listed(report[one.index], "conflicts", [{
                    "entry": holder, "reason": f"not merged: {kind} {value} belongs to entry #{holder}",
                    "ids_set_aside": {kind: value}}])
        _listed(report[one.index], "conflicts", _differences(work, incoming, one.item.index))
        work = work.merged(incoming)
        if one.alias:
            _alias_key(work, one.alias)
        merged[entry_id] = work
    column_updates, name_updates = [], []
    for entry_id, work in merged.items():
        values, names = merge_policy(stored[entry_id], work, True, _row(0, ImportRecord(work=work)))
        if values:
            column_updates.append((entry_id, values))
        if names:
            name_updates.append((entry_id, work))
    bulk.update_works(conn, column_updates, name_updates)
    _known_tags(conn, [t for one in late for t in one.tags], tag_ids)
    for one in late:
        _spelling(report[one.index], one.tags, tag_ids)
    bulk.add_tags(conn, [(one.item.entry_id, tag_ids[t.lower()][0]) for one in late for t in one.tags])


def _alias_key(work: Work, key: str) -> None:
    """Keep ``key`` as an alias of the entry (biblatex's ``ids`` field: ``\\cite{key}`` keeps working)."""
    work.extra["bibtex"] = with_key_alias(work.extra, key)["bibtex"]


def _matched(kind: str | None, record: Work, other: Work | _Seen) -> dict[str, Any]:
    return {"id": f"{kind}:{getattr(record, kind)}" if kind else None, "entry_title": other.title,
            "record_title": record.title}


def _keyword_tags(keywords: list[str], row: dict[str, Any]) -> list[str]:
    tags = [k for k in keywords if len(k) <= MAX_TAG_LENGTH]
    if len(tags) < len(keywords):
        _listed(row, "problems", [f"keywords longer than {MAX_TAG_LENGTH} characters were not made tags"])
    return tags


def _title_index(conn: Connection) -> dict[str, list[tuple[int, Marks]]]:
    """Entries without any identifier, by title key, oldest first, with their marks: the only way to recognise
    them again."""
    rows = conn.execute(text(
        "SELECT id, title, year, pages, volume, (SELECT group_concat(coalesce(family, name), char(31)) FROM "
        "entry_authors WHERE entry_id = e.id AND role = 'author'), type FROM entries e WHERE "
        f"coalesce({', '.join(ID_FIELDS)}) IS NULL ORDER BY id")).all()
    index: dict[str, list[tuple[int, Marks]]] = {}
    for entry_id, title, year, pages, volume, families, type_ in rows:
        marks = Marks.of(pages, volume, (families or "").split("\x1f"), type_)
        index.setdefault(_title_key(title, year), []).append((entry_id, marks))
    return index


def _write_chunk(conn: Connection, items: list[_Item], extra_tags: list[str],
                 title_index: dict[str, list[tuple[int, Marks]]], tag_ids: dict[str, tuple[int, str]], keys_taken: set[str],
                 report: list[dict[str, Any]], overwrite: bool) -> None:
    """Write ``items``: each a new entry, or merged into the library's entry that is the same work; then
    retire them (:meth:`_Item.retire`)."""
    by_kind: dict[str, list[str]] = {kind: [] for kind in ID_FIELDS}
    for item in items:
        item.file_key = item.work.citekey if item.plain is None else item.plain.key
        for kind, value in item.keys:
            if kind != "title":
                by_kind[kind].append(value)
    known: dict[tuple[str, str], int] = {}
    for kind, values in by_kind.items():
        known.update({(kind, value): entry_id for value, entry_id in bulk.stored_ids(conn, kind, values).items()})
    _known_tags(conn, [name for item in items for name in item.tags + extra_tags], tag_ids)
    if otherwise := {name for item in items for name in item.tags if tag_ids[name.lower()][1] != name}:
        for item in items:
            if not otherwise.isdisjoint(item.tags):
                _spelling(report[item.index], item.tags, tag_ids)
    candidates = {entry_id for entry_id in known.values()}
    stored = {entry.id: entry for entry in entry_store.load(conn, candidates)} if candidates else {}
    new, updates = [], []
    for item in items:
        kind, key = item.keys[0]
        matches = list(dict.fromkeys(known[k] for k in item.keys if k in known)) if known else []
        if matches:
            item.full()
        target = None
        for entry_id in matches:
            entry = stored[entry_id]
            decision = decide(Side(entry.ids(), entry.title), item.side())
            if decision.same and target is None:
                target = entry
                item.merged = {"reason": f"matches entry #{entry_id} of the library ({decision.reason})",
                               "matched": _matched(decision.matched, item.work, entry)}
            elif not decision.same:
                clashing = [k for k, v in entry.ids().items() if getattr(item.work, k) == v]
                item.work = _without(item.work, clashing)
                _listed(report[item.index], "conflicts", [{
                    "entry": entry_id, "reason": f"not merged: {decision.reason}", "title": entry.title,
                    "record_title": item.work.title, "ids_set_aside": {k: entry.ids()[k] for k in clashing}}])
        if target is not None:
            item.entry_id = target.id
            updates.append((item, target))
        elif kind == "title" and (same := next((entry_id for entry_id, marks in title_index.get(key, ())
                                                 if marks_agree(marks, item.marks)), None)):
            item.entry_id = same
            item.merged = {"reason": "same title and year as an entry of the library without identifiers"}
        else:
            if item.plain is None and not item.work.title and not item.work.ids():  # a plain item has ids
                item.work = item.work.model_copy(update={"title": report[item.index].get("key") or "Untitled"})
            new.append(item)
    column_updates, name_updates = [], []
    for item, entry in updates:
        values, names = merge_policy(entry, item.work, overwrite, report[item.index])
        if values:
            column_updates.append((entry.id, values))
        if names:
            name_updates.append((entry.id, item.work))
        if (citekey := values.get("citekey", entry.citekey)) is not None:
            report[item.index]["citekey"] = citekey
    bulk.update_works(conn, column_updates, name_updates)
    works, keys, tagged = [], [], []
    for item in new:
        works.append(item.entry_values())
        keys.append(_new_key(item, keys_taken, report[item.index]))
        tagged.append(_tag_ids(item, extra_tags, tag_ids) if item.tags or extra_tags else ())
    entry_ids = bulk.insert_works(conn, works, keys, tagged)
    for item, entry_id in zip(new, entry_ids):
        item.entry_id = entry_id
    bulk.add_tags(conn, [(item.entry_id, tag_id) for item in items if item.merged
                         for tag_id in _tag_ids(item, extra_tags, tag_ids)])
    for item in items:
        item.retire()
    for item in new:
        if item.keys[0][0] == "title":
            title_index.setdefault(item.keys[0][1], []).append((item.entry_id, item.seen.marks))


def _new_key(item: _Item, taken: set[str], row: dict[str, Any]) -> str:
    """The entry's citation key: the record's own when free, else with a suffix (and a warning);
    generated when the record has none."""
    given = item.file_key  # the work's citekey
    own = given if given and citekeys.VALID_KEY.match(given) else None
    if given and not own:
        _listed(row, "problems", [f"key {given!r} is not usable in BibTeX; a key was generated"])
    key = unique_key(own or citation_key(item.full()), taken)
    if own and key != own:
        _listed(row, "problems", [f"key {own!r} is already used in the library; this entry's key is {key!r}"])
    taken.add(key.lower())
    row["citekey"] = key
    return key


_POLICY_COLUMNS = tuple(c for c in SCALAR_FIELDS if c not in entry_store.UPSTREAM_FACTS)


def _same(name: str, stored: Any, incoming: Any) -> bool:
    """Whether two values of a field say the same: equal, equal but for white space (a note's line breaks,
    an ISBN list's double spaces), or, for ``language``, one language however named ("en", "English",
    biblatex's "english")."""
    if stored == incoming:
        return True
    if not (isinstance(stored, str) and isinstance(incoming, str)):
        return False
    if name == "language":
        return _language(stored) == _language(incoming)
    return stored.split() == incoming.split()


def _language(value: str) -> str:
    code = value.strip().lower().replace("_", "-").split("-")[0]
    return BABEL_LANGUAGES.get(code, code)


def merge_policy(entry: Entry, work: Work, overwrite: bool, row: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """What importing ``work`` onto library ``entry`` changes: ``({column: value}, names replaced?)``.

    Empty fields of the entry are filled; a field that differs is reported in ``row["conflicts"]``
    and left alone, unless ``overwrite`` (then it is replaced and listed in ``row["overwritten"]``).
    A stub (known only as a citation) has no user data and takes the record's fields. Identifiers
    the entry lacks are added; ``extra`` keys merge the same way as fields.
    """
    replace = overwrite or entry.is_stub
    values: dict[str, Any] = {}

    def consider(name: str, stored: Any, incoming: Any, value: Any = None) -> bool:
        if incoming in EMPTY or _same(name, stored, incoming):
            return False
        if stored in EMPTY:
            return True
        if replace:
            _listed(row, "overwritten", [name])
            return True
        _listed(row, "conflicts", [{"field": name, "library": _shown(stored), "file": _shown(incoming)}])
        return False

    for column in ID_FIELDS:
        if getattr(work, column) and not getattr(entry, column):
            values[column] = getattr(work, column)
    for column in _POLICY_COLUMNS:
        if consider(column, getattr(entry, column), getattr(work, column)):
            values[column] = getattr(work, column)
    names = False
    if name_signature(work) and name_signature(work) != name_signature(entry):
        stored_roles = {role for role, _ in roles(entry)}
        names = not stored_roles or replace
        if stored_roles and not replace:
            if _shown_names(work) != _shown_names(entry):  # else the same names, split into parts otherwise
                _listed(row, "conflicts", [{"field": "names", "library": _names(entry), "file": _names(work)}])
        elif stored_roles:
            _listed(row, "overwritten", ["names"])
    extra = dict(entry.extra)
    if names or name_signature(work) == name_signature(entry):  # "and others" goes with the names it ends
        extra.pop(ET_AL, None)
        if work.extra.get(ET_AL):
            extra[ET_AL] = work.extra[ET_AL]
    for name, value in work.extra.items():
        if name == ET_AL or spells_other_type(name, entry.type, work.type):
            continue
        if name == "bibtex" and isinstance(value, dict):
            merged = dict(extra.get("bibtex", {}))
            for field_name, field_value in value.items():
                if consider(f"bibtex.{field_name}", merged.get(field_name), field_value):
                    merged[field_name] = field_value
            extra["bibtex"] = merged
        elif consider(name, extra.get(name), value):
            extra[name] = value
    if extra != entry.extra:
        values["extra"] = entry_store.dump_extra(extra)
    if work.citekey and entry.citekey and work.citekey.lower() != entry.citekey.lower():
        _listed(row, "problems", [f"entry keeps its key {entry.citekey!r}; the file's key {work.citekey!r} "
                                  "is kept as an alias (biblatex ids)"])
        current = json.loads(values["extra"]) if "extra" in values else extra
        if work.citekey not in key_aliases(current):
            aliased = with_key_alias(current, work.citekey)
            values["extra"] = entry_store.dump_extra({**extra, "bibtex": aliased["bibtex"]})
    sources = list(dict.fromkeys(entry.sources + work.sources))
    if sources != entry.sources or (entry.is_stub and not values):
        values["sources"] = json.dumps(sources)
    return values, names


def _differences(kept: Work, other: Work, index: int) -> list[dict[str, Any]]:
    """The fields record ``other`` gives otherwise than record ``index`` of the same file, which it is merged
    into and whose values are kept (as :func:`merge_policy` reports them against the library's)."""
    found = [{"field": name, "library": _shown(value), "file": _shown(given), "record": index}
             for name in _POLICY_COLUMNS
             if (value := getattr(kept, name)) not in EMPTY and (given := getattr(other, name)) not in EMPTY
             and not _same(name, value, given)]
    found += [{"field": name, "library": _shown(value), "file": _shown(given), "record": index}
              for name, given in other.extra.items()
              if isinstance(given, (str, int, float)) and (value := kept.extra.get(name)) not in EMPTY
              and not _same(name, value, given)]
    if roles(kept) and roles(other) and _shown_names(kept) != _shown_names(other):
        found.append({"field": "names", "library": _names(kept), "file": _names(other), "record": index})
    return found


def _shown_names(work: Work | Entry) -> list[tuple[str, str]]:
    return [(role, author.name) for role, author in roles(work)]


def _names(work: Work | Entry) -> list[str]:
    """The names of a work in a conflict: its authors, then each other contributor with the role."""
    return [name if role == "author" else f"{name} ({role})" for role, name in _shown_names(work)]


def _shown(value: Any) -> Any:
    return value if not isinstance(value, str) or len(value) <= 200 else value[:197] + "..."


def _known_tags(conn: Connection, names: list[str], tag_ids: dict[str, tuple[int, str]]) -> None:
    """Add to ``tag_ids`` (folded name -> (id, the library's spelling)) the tags ``names`` it lacks, creating
    the missing ones."""
    missing = list({name.lower(): name for name in names if name.lower() not in tag_ids}.values())
    tag_ids.update({name.lower(): found for name, found in zip(missing, entry_store.tags_named(conn, missing))})


def _spelling(row: dict[str, Any], tags: list[str], tag_ids: dict[str, tuple[int, str]]) -> None:
    """Say so in ``row`` where a record's keyword is filed under a tag spelt otherwise (tags ignore case: Scopus
    writes one keyword "Soft-output viterbi algorithm" in one record and "soft-output Viterbi algorithm" in
    another)."""
    _listed(row, "problems", [f"keyword {name!r} is filed under the tag {tag_ids[name.lower()][1]!r} (tags ignore "
                              "case)" for name in tags if tag_ids[name.lower()][1] != name])


def _tag_ids(item: _Item, extra_tags: list[str], tag_ids: dict[str, tuple[int, str]]) -> set[int]:
    return {tag_ids[name.lower()][0] for name in item.tags + extra_tags}


def _fetchable(store: Store, items: list[_Item]) -> list[str]:
    """The refs of the items that have an identifier and whose entry has no PDF. Only an entry the library held
    may have one: a new entry's id was never an entry's before (:func:`doiget.store.bulk.insert_works`), and
    artefacts go with their entry."""
    with_ids = [item for item in items if item.ref]
    with store.read() as conn:
        with_pdf = {entry_id for (entry_id,) in rows.rows_for(
            conn, f"SELECT DISTINCT entry_id FROM artefacts WHERE kind = 'pdf' AND entry_id {rows.IN_VALUES}",
            [item.entry_id for item in with_ids if item.merged])}
    return [item.ref for item in with_ids if item.entry_id not in with_pdf]


def named_pdfs(files: dict[int, list[str]], base: Path) -> tuple[list[tuple[int, Path]], list[tuple[int, str]]]:
    """``(entry id, path)`` for each attachment a record names that exists as a PDF file, and ``(entry id,
    value)`` for each naming a PDF that does not exist. Reads Zotero's and Mendeley's ``description:path:mime``
    form, JabRef's escaped colons, Mendeley's ``C$\\backslash$:`` drive letters and its paths written without
    their leading ``/``, and plain paths; relative paths are taken from ``base``."""
    found, missing = [], []
    for entry_id, values in files.items():
        for value in values:
            paths = [Path(c).expanduser() for c in _file_candidates(value)]
            paths = [p if p.is_absolute() else q for p in paths for q in (base / p, Path("/") / p)
                     if p.suffix.lower() == ".pdf"]
            path = next((p for p in paths if p.is_file()), None)
            if path is not None:
                found.append((entry_id, path))
            elif paths:
                missing.append((entry_id, value))
    return found, missing


def _file_candidates(value: str) -> list[str]:
    text = value.strip().replace("$\\backslash$", "\\").replace("\\:", "\0")
    parts = [p.replace("\0", ":") for p in text.split(":")]
    whole = text.replace("\0", ":")
    return [whole] + ([parts[1]] if len(parts) >= 3 else []) + (
        [":".join(parts[1:-1])] if len(parts) > 3 else [])


# ---- the façade's bibliography calls ---------------------------------------------------------

def export(lib: Session, format: str = "bibtex", refs: list[checks.RefLike] | None = None, tag: str | None = None,
           collection: str | None = None, query: str | None = None) -> str | list[dict[str, Any]]:
    """The selected entries as BibTeX, RIS or CSL-JSON (see :meth:`doiget.Library.export`)."""
    result = export_result(lib, format, refs, tag, collection, query)
    return result["items"] if format == "csl-json" else result["text"]


# format -> (its name, what it has no place of, what of a work its export leaves out); CSL-JSON carries everything
_NOT_CARRIED = {"ris": ("RIS", "tag", ris_not_carried), "bibtex": ("BibTeX", "field", bibtex_not_carried)}


def export_result(lib: Session, format: str = "bibtex", refs: list[checks.RefLike] | None = None,
                  tag: str | None = None, collection: str | None = None,
                  query: str | None = None) -> dict[str, Any]:
    """The export with what it could not carry (see :meth:`doiget.Library.export_result`); one warning
    names those fields, with their number of entries."""
    check_format(format)
    tag = checks.optional_name(tag, "tag")
    collection = checks.optional_name(collection, "collection")
    candidates = ([hit.id for hit in searching.search(lib, query, 100, tag=tag, collection=collection)]
                  if query else None)
    with lib.store.read() as conn:
        if refs is not None:
            wanted = [entry_store.require_id(conn, checks.entry_ref(ref)) for ref in refs]
            found = set(candidates) if candidates is not None else None
            candidates = [i for i in wanted if found is None or i in found]
        if collection is not None:
            organise_store.collection_id(conn, collection)
        selected = entry_store.load(conn, select_ids(conn, candidates, tag, collection))
    retractions.warn_exported(selected)
    name_of_format, place, not_carried = _NOT_CARRIED.get(format, ("", "", lambda entry: []))
    gaps = Counter(name for entry in selected for name in not_carried(entry))
    left_out = [{"field": name, "entries": n} for name, n in sorted(gaps.items(), key=lambda kv: (-kv[1], kv[0]))]
    if left_out:
        log.warning("%s has no %s for %s; not in the %s export of %d entries", name_of_format, place, ", ".join(
            f"{gap['field']} ({gap['entries']} {'entry' if gap['entries'] == 1 else 'entries'})" for gap in left_out),
            name_of_format, len(selected))
    output = render(selected, format)
    return {"format": format, "count": len(selected), ("items" if format == "csl-json" else "text"): output,
            "not_carried": left_out}


def import_document(lib: Session, text_or_path: str | os.PathLike[str], format: str = "auto",
                    tags: list[str] | None = None, progress: Progress | None = None, *, overwrite: bool = False,
                    attach_files: bool = False) -> dict[str, Any]:
    """Import a bibliography given as text or as a path (see :meth:`doiget.Library.import_bibliography`)."""
    from doiget.services import artefacts

    lib.config.require("write")
    names = [checks.name(t, "tag") for t in tags or []]
    base = Path.cwd()
    if isinstance(text_or_path, os.PathLike):
        text_or_path = Path(text_or_path)
        base = text_or_path.resolve().parent
    result = import_bibliography(lib.store, text_or_path, format, names, progress, overwrite)
    files = result.pop("files")
    if attach_files:
        found, missing = named_pdfs(files, base)
        result["attached"] = []
        for entry_id, path in found:
            outcome = artefacts.add_pdf(lib, path, entry_id)
            result["attached"].append({"id": entry_id, "path": str(path), "sha256": outcome["sha256"],
                                       "duplicate": outcome["duplicate"]})
        result["not_found"] = [{"id": entry_id, "file": value} for entry_id, value in missing]
    return result


def set_citekey(lib: Session, ref: checks.RefLike, key: str) -> Entry:
    """Give an entry the citation key ``key`` (see :meth:`doiget.Library.set_citekey`)."""
    lib.config.require("write")
    with lib.store.write() as conn:
        entry_id = entry_store.require_id(conn, checks.entry_ref(ref))
        citekeys.set_key(conn, entry_id, key)
        return entry_store.load(conn, [entry_id])[0]


def dedupe(lib: Session) -> list[dict[str, Any]]:
    """Likely duplicate entries (see :meth:`doiget.Library.dedupe`)."""
    with lib.store.read() as conn:
        groups = dedupe_store.likely_duplicates(conn)
        shown = {e.id: e for e in entry_store.load(conn, [i for g in groups for i in g["ids"]])}
    return [{"reason": g["reason"], "entries": [
        {"id": i, "ref": shown[i].ref_label, "citekey": shown[i].citekey, "title": shown[i].title,
         "year": shown[i].year} for i in g["ids"]]} for g in groups]


def merge(lib: Session, keep: checks.RefLike, drop: checks.RefLike, *, force: bool = False) -> dict[str, Any]:
    """Merge entry ``drop`` into ``keep`` (see :meth:`doiget.Library.merge`)."""
    lib.config.require("write")
    with lib.store.write() as conn:
        keep_id = entry_store.require_id(conn, checks.entry_ref(keep))
        drop_id = entry_store.require_id(conn, checks.entry_ref(drop))
        outcome = dedupe_store.merge(conn, keep_id, drop_id, force=force)
        return {**outcome, "entry": entry_store.load(conn, [keep_id])[0]}
