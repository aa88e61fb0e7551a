"""Bibliography files into the library (import) and library entries out as BibTeX, CSL-JSON or RIS.

Import keeps every record that has an identifier or a title, even without a DOI. Records are
merged by canonical identifier, within the file and with the library (the file's fields replace
the entry's, as :meth:`doiget.Library.add` does); records with no identifier are matched by title
and year against entries that have none either, so importing a file twice adds nothing. New
entries are written in chunks, one transaction each, through :mod:`doiget.store.bulk`.
"""
from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, text

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.bibtex import to_bibtex
from doiget.formats.csl import to_csl_json
from doiget.formats.importer import Format as ImportFormat
from doiget.formats.importer import ImportRecord, parse_bibliography
from doiget.formats.ris import to_ris
from doiget.models import ID_FIELDS, Work
from doiget.services import checks, entries
from doiget.services.session import Session
from doiget.store import bulk
from doiget.store import entries as entry_store
from doiget.store import organise as organise_store
from doiget.store import search as search_store
from doiget.store.store import Store
from doiget.text import ascii_fold

EXPORT_FORMATS: tuple[str, ...] = ("bibtex", "csl-json", "ris")
CHUNK_SIZE = 500
MAX_TAG_LENGTH = 100
IMPORT_SOURCE = "import"
Progress = Callable[[int, int], None]


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
    ids = search_store.entry_ids(conn, {"tag": tag, "collection": collection}, stubs=False)
    if candidates is None:
        return list(ids)
    found = set(ids)
    return [entry_id for entry_id in dict.fromkeys(candidates) if entry_id in found]


# ---- import -----------------------------------------------------------------------------------

@dataclass
class _Item:
    """One work to write: the first record of a group of records that are the same work."""

    index: int
    work: Work
    tags: list[str]
    duplicates: list[int] = field(default_factory=list)
    keys: list[tuple[str, str]] = field(default_factory=list)  # _keys(work), kept current by _group
    entry_id: int | None = None
    merged_because: str | None = None  # set when the work was already in the library


def import_bibliography(store: Store, text_: str, format: ImportFormat = "auto", tags: Sequence[str] = (),
                        progress: Progress | None = None) -> dict[str, Any]:
    """Parse ``text_`` and write its records to ``store``; see the module docstring for merging.

    Returns counts (records, added, merged, skipped), ``report`` (one row per record, in file
    order: index, key, status added / merged / skipped, id, ref, reason, problems), ``fetchable``
    (refs of the imported entries that have an identifier and no PDF yet) and the rate.
    """
    started = time.perf_counter()
    records = parse_bibliography(text_, format)
    report: list[dict[str, Any]] = [_row(i, r) for i, r in enumerate(records)]
    items = _group(records, report)
    title_index = _title_index(store)
    tag_ids: dict[str, int] = {}
    for start in range(0, len(items), CHUNK_SIZE):
        with store.write() as conn:
            _write_chunk(conn, items[start:start + CHUNK_SIZE], list(tags), title_index, tag_ids)
        if progress:
            progress(min(start + CHUNK_SIZE, len(items)), len(items))
    for item in items:
        ref = None if item.keys[0][0] == "title" else str(item.work.primary_ref())
        report[item.index].update(status="merged" if item.merged_because else "added", id=item.entry_id, ref=ref,
                                  reason=item.merged_because)
        for index in item.duplicates:
            report[index].update(status="merged", id=item.entry_id, ref=ref,
                                 reason=f"same work as record {item.index} of this file")
    seconds = time.perf_counter() - started
    counts = {status: sum(row["status"] == status for row in report) for status in ("added", "merged", "skipped")}
    return {"records": len(records), **counts, "entries": len(items), "fetchable": _fetchable(store, items),
            "seconds": round(seconds, 3), "records_per_second": round(len(records) / seconds) if seconds else None,
            "report": [{k: v for k, v in row.items() if v not in (None, [])} for row in report]}


def _row(index: int, record: ImportRecord) -> dict[str, Any]:
    return {"index": index, "key": record.key, "status": None, "id": None, "ref": None, "reason": None,
            "problems": list(record.problems)}


def _keys(work: Work) -> list[tuple[str, str]]:
    """What makes two records the same work: any shared identifier, else the same title and year."""
    ids = work.ids()
    if ids:
        return list(ids.items())
    return [("title", _title_key(work.title, work.year))]


def _title_key(title: str | None, year: int | None) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", ascii_fold(title or "").lower())) + f"|{year or ''}"


def _group(records: list[ImportRecord], report: list[dict[str, Any]]) -> list[_Item]:
    """Items to write, one per distinct work, in file order; skipped records are marked in ``report``."""
    items: list[_Item] = []
    owner: dict[tuple[str, str], _Item] = {}
    for index, record in enumerate(records):
        work = record.work.model_copy(update={"sources": [IMPORT_SOURCE]})
        if not work.title and not work.ids():
            report[index].update(status="skipped", reason="no identifier and no title")
            continue
        tags = _keyword_tags(record.tags, report[index]["problems"])
        same = list({id(owner[k]): owner[k] for k in _keys(work) if k in owner}.values())
        if not same:
            item = _Item(index, work, tags)
            items.append(item)
        else:
            item, *others = same
            item.work, item.tags = item.work.merged(work), item.tags + tags
            item.duplicates.append(index)
            for other in others:  # this record joins two groups (e.g. one by DOI, one by arXiv id)
                item.work, item.tags = item.work.merged(other.work), item.tags + other.tags
                item.duplicates += [other.index, *other.duplicates]
                items.remove(other)
                owner.update({key: item for key, held in owner.items() if held is other})
        item.keys = _keys(item.work)
        owner.update({key: item for key in item.keys})
    return items


def _keyword_tags(keywords: list[str], problems: list[str]) -> list[str]:
    tags = [k for k in keywords if len(k) <= MAX_TAG_LENGTH]
    if len(tags) < len(keywords):
        problems.append(f"keywords longer than {MAX_TAG_LENGTH} characters were not made tags")
    return tags


def _title_index(store: Store) -> dict[str, int]:
    """Entries without any identifier, by title key: the only way to recognise them again."""
    with store.read() as conn:
        rows = conn.execute(text(f"SELECT id, title, year FROM entries WHERE coalesce({', '.join(ID_FIELDS)}) "
                                 "IS NULL ORDER BY id DESC")).all()
    return {_title_key(title, year): entry_id for entry_id, title, year in rows}


def _write_chunk(conn: Connection, items: list[_Item], extra_tags: list[str], title_index: dict[str, int],
                 tag_ids: dict[str, int]) -> None:
    known: dict[tuple[str, str], int] = {}
    for kind in ID_FIELDS:
        values = [value for item in items for key_kind, value in item.keys if key_kind == kind]
        known.update({(kind, value): entry_id for value, entry_id in bulk.stored_ids(conn, kind, values).items()})
    missing = list({name.lower(): name for item in items for name in item.tags + extra_tags
                    if name.lower() not in tag_ids}.values())
    tag_ids.update({name.lower(): tag_id for name, tag_id in zip(missing, entry_store.tag_ids(conn, missing))})
    new, updates, clusters = [], [], []
    for item in items:
        matches = {known[key] for key in item.keys if key in known}
        kind, key = item.keys[0]
        if len(matches) == 1:
            item.entry_id = matches.pop()
            updates.append(item)
        elif matches:  # its identifiers are on several entries: upsert_work merges them into one
            clusters.append(item)
        elif kind == "title" and key in title_index:
            item.entry_id = title_index[key]
            item.merged_because = "same title and year as an entry of the library without identifiers"
        else:
            new.append(item)
    bulk.update_works(conn, [(item.entry_id, item.work) for item in updates])
    for item in clusters:
        item.entry_id = entry_store.upsert_work(conn, item.work)
    for item in updates + clusters:
        item.merged_because = "shares an identifier with an entry of the library"
    entry_ids = bulk.insert_works(conn, [item.work for item in new],
                                  [_tag_ids(item, extra_tags, tag_ids) for item in new])
    for item, entry_id in zip(new, entry_ids):
        item.entry_id = entry_id
        if item.keys[0][0] == "title":
            title_index[item.keys[0][1]] = entry_id
    bulk.add_tags(conn, [(item.entry_id, tag_id) for item in items if item.merged_because
                         for tag_id in _tag_ids(item, extra_tags, tag_ids)])


def _tag_ids(item: _Item, extra_tags: list[str], tag_ids: dict[str, int]) -> set[int]:
    return {tag_ids[name.lower()] for name in item.tags + extra_tags}


def _fetchable(store: Store, items: list[_Item]) -> list[str]:
    with_ids = [item for item in items if item.keys[0][0] != "title"]
    with store.read() as conn:
        with_pdf = {entry_id for (entry_id,) in bulk.rows_for(
            conn, "SELECT DISTINCT entry_id FROM artefacts WHERE kind = 'pdf' AND entry_id IN :ids",
            [item.entry_id for item in with_ids])}
    return [str(item.work.primary_ref()) for item in with_ids if item.entry_id not in with_pdf]


# ---- the façade's bibliography calls ---------------------------------------------------------

def export(lib: Session, format: str = "bibtex", refs: list[checks.RefLike] | None = None, tag: str | None = None,
           collection: str | None = None, query: str | None = None) -> str | list[dict[str, Any]]:
    """The selected entries as BibTeX, RIS or CSL-JSON (see :meth:`doiget.Library.export`)."""
    check_format(format)
    tag = checks.optional_name(tag, "tag")
    collection = checks.optional_name(collection, "collection")
    candidates = ([hit.id for hit in entries.search(lib, query, 100, tag=tag, collection=collection)]
                  if query else None)
    with lib.store.read() as conn:
        if refs is not None:
            wanted = [entry_store.require_id(conn, checks.entry_ref(ref)) for ref in refs]
            found = set(candidates) if candidates is not None else None
            candidates = [i for i in wanted if found is None or i in found]
        if collection is not None:
            organise_store.collection_id(conn, collection)
        selected = entry_store.load(conn, select_ids(conn, candidates, tag, collection))
    return render(selected, format)


def import_document(lib: Session, text_or_path: str | os.PathLike[str], format: str = "auto",
                    tags: list[str] | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """Import a bibliography given as text or as a path (see :meth:`doiget.Library.import_bibliography`)."""
    lib.config.require("write")
    names = [checks.name(t, "tag") for t in tags or []]
    if isinstance(text_or_path, os.PathLike):
        try:
            text_or_path = Path(text_or_path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot read {text_or_path}: {exc}") from exc
    return import_bibliography(lib.store, text_or_path, format, names, progress)
