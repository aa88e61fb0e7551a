"""Searching: the entries matching a query, best first by bm25 (:meth:`doiget.Library.search`).

The read path of ``doiget search`` and of the MCP search tool: it imports neither SQLAlchemy nor
the full-text extractors (only ``include_fulltext`` loads the chunk search), and runs on the store's
plain sqlite3 connection (:meth:`doiget.store.store.Store.query_raw`)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from doiget import limits
from doiget.models import SearchHit, unvalidated
from doiget.notices import status_of
from doiget.sanitize import fts_query_error, query_text
from doiget.services.checks import bounded_int, entry_filters
from doiget.store import search as search_store
from doiget.store.filters import filter_clauses
from doiget.store.fts import compile_query, is_fts_error

if TYPE_CHECKING:
    from doiget.services.session import Session

# Every hit sets every field: one set shared by all hits, as SearchHit.model_construct(_fields_set=...) would.
_ALL_SET = set(SearchHit.model_fields)


def search(lib: Session, query: str, limit: int = 20, *, year_from: int | None = None, year_to: int | None = None,
           tag: str | None = None, collection: str | None = None, has_pdf: bool | None = None,
           include_fulltext: bool = False) -> list[SearchHit]:
    """Entries matching ``query``, best first by bm25 (see :meth:`doiget.Library.search`)."""
    limit = bounded_int(limit, "limit", 1, limits.MAX_SEARCH_WINDOW)
    match = compile_query(query_text(query), search_store.ENTRY_FTS_COLUMNS)
    if year_from is year_to is tag is collection is has_pdf is None:  # (the common case: nothing to check or build)
        filters: dict[str, Any] = {}
        clauses, params = (), None
    else:
        filters = entry_filters(year_from=year_from, year_to=year_to, tag=tag, collection=collection,
                                has_pdf=has_pdf)
        clauses, params = filter_clauses(**filters)
    try:
        with lib.store.query_raw("the search") as conn:
            rows = search_store.page(conn, match, limit, 0, clauses, params)
    except search_store.Error as exc:
        if is_fts_error(exc):
            raise fts_query_error(f"search for {query!r}", exc) from exc
        raise
    hits = search_hits(rows)
    return _with_fulltext(lib, hits, query, limit, filters) if include_fulltext else hits


def search_hits(rows: Iterable[dict[str, Any]]) -> list[SearchHit]:
    """The one place search hits are made, from rows holding every field of :class:`SearchHit` in its field
    order, of the field's type: read from the store, so not validated again (:func:`~doiget.models.unvalidated`);
    tests/test_search_rank.py checks they equal validated hits, JSON included."""
    return [unvalidated(SearchHit, row, _ALL_SET) for row in rows]


def _with_fulltext(lib: Session, hits: list[SearchHit], query: str, limit: int,
                   filters: dict[str, Any]) -> list[SearchHit]:
    """``hits`` each with their best passage, then the papers that match only inside their text."""
    from doiget.fulltext import search as fulltext_search
    from doiget.models import ChunkMatch
    from doiget.store import entries as entry_store

    clauses, params = filter_clauses(**filters)
    with lib.store.query("the full-text search") as conn:
        passages = fulltext_search.search_chunks(conn, compile_query(query, fulltext_search.COLUMNS), limit,
                                                 clauses, params, best_per_entry=True)
        found = {hit.id for hit in hits}
        others = {e.id: e for e in entry_store.load(conn, [p.id for p in passages if p.id not in found])}
    best = {p.id: ChunkMatch.model_validate(p.model_dump(include=set(ChunkMatch.model_fields)))
            for p in passages}
    merged = [hit.model_copy(update={"fulltext": best.get(hit.id)}) for hit in hits]
    merged += search_hits({"id": entry.id, "ref": entry.ref_label, "title": entry.title,
                           "authors": [a.name for a in entry.authors], "year": entry.year, "venue": entry.venue,
                           "tags": entry.tags, "has_pdf": entry.has_pdf, "score": passage.score,
                           "snippet": passage.snippet, "update_status": status_of(entry.updates or []),
                           "fulltext": best[entry.id]}
                          for passage in passages if (entry := others.get(passage.id)) is not None)
    return merged[:limit]
