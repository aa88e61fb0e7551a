"""Free-form citation strings → ranked candidate works: the local library first (no network when it
holds a good match), then a Crossref bibliographic query, both scored by :mod:`doiget.matching`."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection

from doiget.matching import Candidate, rank_candidates, tokens
from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.models import Entry
from doiget.net import crossref
from doiget.net.base import Http
from doiget.store import entries as entry_store
from doiget.store import selects
from doiget.store.fts import compile_query
from doiget.sanitize import query_text
from doiget.services.checks import bounded_int
from doiget.services.session import Session
from doiget.store.store import Store

MAX_CITATION = limits.MAX_CITATION
MAX_QUERY_TOKENS = 40
LOCAL_POOL = 50  # FTS hits re-scored per citation
MAX_AUTHORS_SHOWN = 10
# Failures that leave the local answer standing, with a note, instead of failing the call.
UNREACHABLE = frozenset({ErrorCode.NETWORK_ERROR, ErrorCode.FETCH_TIMEOUT, ErrorCode.RATE_LIMITED,
                         ErrorCode.UPSTREAM_ERROR, ErrorCode.BLOCKED})


def check(citation: Any) -> str:
    """The citation text, or INVALID_INPUT when it is empty, too long or has no searchable word."""
    if not isinstance(citation, str) or not tokens(citation):
        raise DoigetError(ErrorCode.INVALID_INPUT, "a citation needs at least one word")
    if len(citation) > MAX_CITATION:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"citation longer than {MAX_CITATION} characters")
    return " ".join(citation.split())


def resolve(store: Store, http: Callable[[], Http] | None, citation: str, limit: int) -> dict[str, Any]:
    """Candidates for ``citation``, best first. ``http`` is None when the network is not allowed:
    the answer is then local only, with a note saying so."""
    with store.read() as conn:
        local = rank_candidates(citation, _local_pool(conn, citation))
    if local and local[0].confidence != "weak":
        return _answer(citation, local[:limit], "library")
    if http is None:
        return {**_answer(citation, local[:limit], "library"),
                "note": "network access is disabled by the capability profile: only the local library was searched"}
    try:
        found = crossref.query(http(), citation, rows=limit, field="bibliographic")
    except DoigetError as exc:
        if exc.code not in UNREACHABLE:
            raise
        return {**_answer(citation, local[:limit], "library"),
                "note": f"Crossref could not be asked ({exc.code.value}: {exc.message}): only the local library "
                        "was searched"}
    remote = rank_candidates(citation, [s.work for s in found])
    with store.read() as conn:
        held = _held(conn, [c.work.doi for c in remote if c.work.doi])
    local_dois = {c.work.doi for c in local if c.work.doi}
    merged = local + [c.model_copy(update={"work": held.get(c.work.doi, c.work)})
                      for c in remote if c.work.doi not in local_dois]
    merged.sort(key=lambda c: -c.score)
    return _answer(citation, merged[:limit], "crossref")


def _local_pool(conn: Connection, citation: str) -> list[Entry]:
    words = list(dict.fromkeys(tokens(citation)))[:MAX_QUERY_TOKENS]
    match = compile_query(" OR ".join(words), ())
    return entry_store.load(conn, selects.local_pool(conn, match, LOCAL_POOL))


def _held(conn: Connection, dois: list[str]) -> dict[str, Entry]:
    return {entry.doi: entry for entry in entry_store.load(conn, selects.ids_by_doi(conn, dois))}


def _answer(citation: str, candidates: list[Candidate], source: str) -> dict[str, Any]:
    return {"citation": citation, "answered_from": source, "candidates": [_candidate(c) for c in candidates]}


def _candidate(candidate: Candidate) -> dict[str, Any]:
    work = candidate.work
    local = isinstance(work, Entry)
    return {"doi": work.doi, "ref": str(work.primary_ref()) if work.ids() else None,
            "id": work.id if local else None, "title": work.title, "year": work.year, "venue": work.venue,
            "authors": [a.name for a in work.authors[:MAX_AUTHORS_SHOWN]], "score": candidate.score,
            "confidence": candidate.confidence, "matched": candidate.matched,
            "matched_fields": candidate.matched_fields, "in_library": local}


def resolve_citation(lib: Session, text_: str, limit: int = 5) -> dict[str, Any]:
    """Ranked candidate works for one reference string (see :meth:`doiget.Library.resolve_citation`)."""
    citation = check(query_text(text_, "citation") if isinstance(text_, str) else text_)
    limit = bounded_int(limit, "limit", 1, limits.MAX_CITATION_CANDIDATES)
    http = (lambda: lib.lookup_http) if lib.config.network_enabled else None  # reads, never logs or caches
    return resolve(lib.store, http, citation, limit)


def resolve_citations(lib: Session, texts: list[str], limit: int = 5) -> list[dict[str, Any]]:
    """:func:`resolve_citation` for up to 50 citations; one that fails carries ``error`` instead."""
    if not isinstance(texts, list) or not 1 <= len(texts) <= limits.MAX_CITATIONS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"give 1 to {limits.MAX_CITATIONS} citations")
    results = []
    for citation in texts:
        try:
            results.append(resolve_citation(lib, citation, limit))
        except DoigetError as exc:
            results.append({"citation": citation, "error": exc.to_dict()})
    return results
