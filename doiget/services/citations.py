"""Free-form citation strings → ranked candidate works: the local library first (no network when it
holds a good match), then a Crossref bibliographic query, both scored by :mod:`doiget.matching`."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, bindparam, text

from doiget.matching import Candidate, rank_candidates, tokens
from doiget.errors import DoigetError, ErrorCode
from doiget.models import Entry
from doiget.net import crossref
from doiget.net.base import Http
from doiget.store import entries as entry_store
from doiget.store.fts import compile_query
from doiget.store.store import Store

MAX_CITATION = 2_000
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
    ids = conn.execute(text("SELECT e.id FROM entries_fts JOIN entries e ON e.id = entries_fts.rowid "
                            "WHERE entries_fts MATCH :m AND e.is_stub = 0 ORDER BY bm25(entries_fts) LIMIT :n"),
                       {"m": match, "n": LOCAL_POOL}).scalars().all()
    return entry_store.load(conn, ids)


def _held(conn: Connection, dois: list[str]) -> dict[str, Entry]:
    if not dois:
        return {}
    ids = conn.execute(text("SELECT id FROM entries WHERE doi IN :d AND is_stub = 0").bindparams(
        bindparam("d", expanding=True)), {"d": dois}).scalars().all()
    return {entry.doi: entry for entry in entry_store.load(conn, ids)}


def _answer(citation: str, candidates: list[Candidate], source: str) -> dict[str, Any]:
    return {"citation": citation, "answered_from": source, "candidates": [_candidate(c) for c in candidates]}


def _candidate(candidate: Candidate) -> dict[str, Any]:
    work = candidate.work
    local = isinstance(work, Entry)
    return {"doi": work.doi, "ref": str(work.primary_ref()) if work.ids() else None,
            "id": work.id if local else None, "title": work.title, "year": work.year, "venue": work.venue,
            "authors": [a.name for a in work.authors[:MAX_AUTHORS_SHOWN]], "score": candidate.score,
            "confidence": candidate.confidence, "matched": candidate.matched, "in_library": local}
