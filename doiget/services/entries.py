"""Entries: add, look up, list, search and delete the papers of the library."""
from __future__ import annotations

from typing import Any


from doiget import limits
from doiget.fulltext import search as fulltext_search
from doiget.notices import status_of
from doiget.models import ID_FIELDS, ChunkMatch, Entry, SearchHit, Work
from doiget.services.checks import RefLike, bounded_int, entry_filters, entry_ref, name
from doiget.sanitize import fts_query_error, query_text
from doiget.services.session import Session
from doiget.store import artefacts as artefact_store
from doiget.store import citations as citation_store
from doiget.store import entries as entry_store
from doiget.store import organise as organise_store
from doiget.store import search as search_store
from doiget.store import updates as update_store
from doiget.store.fts import compile_query, is_fts_error


def add(lib: Session, work: Work | dict[str, Any], *, tags: list[str] | None = None) -> Entry:
    """Add a work from its metadata, or update the entry sharing any of its identifiers."""
    lib.config.require("write")
    work = Work.model_validate(work) if isinstance(work, dict) else work
    with lib.store.write() as conn:
        entry_id = entry_store.upsert_work(conn, work)
        if work.updates is not None:
            update_store.save(conn, entry_id, work.updates, work.sources)
        if work.references:
            citation_store.save_references(conn, entry_id, work.references)
        if tags:
            organise_store.add_tags(conn, entry_id, [name(t, "tag") for t in tags])
        return entry_store.load(conn, [entry_id])[0]


def info(lib: Session, ref: RefLike) -> Entry:
    """The stored entry for ``ref``; NOT_FOUND if the library does not hold it."""
    with lib.store.read() as conn:
        return entry_store.load(conn, [entry_store.require_id(conn, entry_ref(ref))])[0]


def recent(lib: Session, n: int = 10) -> list[Entry]:
    """The ``n`` most recently added entries, newest first."""
    n = bounded_int(n, "n", 1, limits.MAX_RECENT)
    with lib.store.read() as conn:
        return entry_store.load(conn, search_store.recent_ids(conn, n))


def search(lib: Session, query: str, limit: int = 20, *, year_from: int | None = None, year_to: int | None = None,
           tag: str | None = None, collection: str | None = None, has_pdf: bool | None = None,
           include_fulltext: bool = False) -> list[SearchHit]:
    """Entries matching ``query``, best first by bm25 (see :meth:`doiget.Library.search`)."""
    limit = bounded_int(limit, "limit", 1, limits.MAX_SEARCH_WINDOW)
    match = compile_query(query_text(query), search_store.ENTRY_FTS_COLUMNS)
    filters = entry_filters(year_from=year_from, year_to=year_to, tag=tag, collection=collection, has_pdf=has_pdf)
    clauses, params = entry_store.filter_clauses(**filters)
    try:
        with lib.store.query_raw("the search") as conn:
            rows = search_store.page(conn, match, limit, 0, ID_FIELDS, clauses, params)
            status = update_store.statuses(conn, [row["id"] for row in rows]) if rows else {}
    except search_store.Error as exc:
        if is_fts_error(exc):
            raise fts_query_error(f"search for {query!r}", exc) from exc
        raise
    hits = [SearchHit(**row, update_status=status.get(row["id"])) for row in rows]
    return _with_fulltext(lib, hits, query, limit, filters) if include_fulltext else hits


def _with_fulltext(lib: Session, hits: list[SearchHit], query: str, limit: int,
                   filters: dict[str, Any]) -> list[SearchHit]:
    """``hits`` each with their best passage, then the papers that match only inside their text."""
    clauses, params = entry_store.filter_clauses(**filters)
    with lib.store.query("the full-text search") as conn:
        passages = fulltext_search.search_chunks(conn, compile_query(query, fulltext_search.COLUMNS), limit,
                                                 clauses, params, best_per_entry=True)
        found = {hit.id for hit in hits}
        others = {e.id: e for e in entry_store.load(conn, [p.id for p in passages if p.id not in found])}
    best = {p.id: ChunkMatch.model_validate(p.model_dump(include=set(ChunkMatch.model_fields)))
            for p in passages}
    merged = [hit.model_copy(update={"fulltext": best.get(hit.id)}) for hit in hits]
    for passage in passages:
        entry = others.get(passage.id)
        if entry is not None:
            merged.append(SearchHit(id=entry.id, ref=entry.ref_label, title=entry.title,
                                    authors=[a.name for a in entry.authors], year=entry.year, venue=entry.venue,
                                    tags=entry.tags, has_pdf=entry.has_pdf, score=passage.score,
                                    update_status=status_of(entry.updates or []),
                                    snippet=passage.snippet, fulltext=best[entry.id]))
    return merged[:limit]


def delete(lib: Session, ref: RefLike) -> dict[str, Any]:
    """Remove an entry and everything attached to it, then the blobs nothing else references."""
    lib.config.require("write")
    with lib.store.write() as conn:
        entry_id = entry_store.require_id(conn, entry_ref(ref))
        orphaned = artefact_store.delete_entry(conn, entry_id)
    removed = sum(lib.store.blobs.delete(sha) for sha in orphaned)
    return {"deleted": entry_id, "blobs_removed": removed}
