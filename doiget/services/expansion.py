"""Breadth-first expansion of the local citation graph over OpenAlex, hard-capped in nodes and requests.

An entry's references are listed with ``filter=cited_by:W…`` and its citing works with
``filter=cites:W…``: both answers carry full metadata, so the stubs they create have titles and
years (a work's own ``referenced_works`` gives bare W ids). Each page is stored in its own short
write transaction, never during a request, together with where the listing stands
(``graph_expansions``). An entry whose list was read to the end is answered from the store from
then on, and a listing cut short by a cap resumes at its saved cursor: repeating a call that was
not truncated makes no request.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.refs import Ref
from doiget.net import openalex
from doiget.net.base import Http
from doiget.store import citations as citation_store
from doiget.store import entries as entry_store
from doiget.store import selects
from doiget.store.citations import Direction, Expansion
from doiget.store.store import Store

DIRECTIONS: dict[str, tuple[Direction, ...]] = {
    "references": ("references",), "cited_by": ("cited_by",), "both": ("references", "cited_by")}
MAX_DEPTH = 2
MAX_NODES = limits.MAX_EXPANSION_NODES
MAX_REQUESTS = limits.MAX_EXPANSION_REQUESTS
PER_PAGE = 200  # OpenAlex's largest page
# The OpenAlex filter that lists each direction's neighbours of a work.
FILTERS: dict[Direction, str] = {"references": "cited_by", "cited_by": "cites"}

Progress = Callable[[int, int], None]  # (requests made, nodes reached)


class _Stop(Exception):
    """A cap was reached: ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class Expander:
    """One expansion call: the nodes reached (entry id -> hop), the requests made, the caps."""

    def __init__(self, store: Store, get_http: Callable[[], Http], *, max_nodes: int, max_requests: int,
                 progress: Progress | None = None) -> None:
        self.store, self.get_http = store, get_http
        self.max_nodes, self.max_requests = max_nodes, max_requests
        self.progress = progress
        self.reached: dict[int, int] = {}
        self.requests = 0
        self.edges_added = 0
        self.not_expandable = 0  # nodes met without an OpenAlex id (e.g. Crossref-only stubs)

    def run(self, ref: Ref, directions: tuple[Direction, ...], depth: int) -> dict[str, Any]:
        with self.store.read() as conn:
            entries_before = selects.entry_count(conn)
        seed = self._seed(ref)
        self.reached[seed] = 0
        frontier, reason, error = [seed], None, None
        try:
            for hop in range(1, depth + 1):
                found: list[int] = []
                for node in frontier:
                    for direction in directions:
                        found += self._expand(node, direction, hop)
                frontier = found
        except _Stop as stop:
            reason = stop.reason
        except DoigetError as exc:  # an upstream failure keeps what was learned so far
            reason, error = "upstream_error", exc.to_dict()
        with self.store.read() as conn:
            nodes_added = selects.entry_count(conn) - entries_before
            edges = citation_store.edges_among(conn, list(self.reached))
        result = {"seed": seed, "reached": self.reached, "nodes": len(self.reached), "edges": edges,
                  "nodes_added": nodes_added, "edges_added": self.edges_added, "requests_made": self.requests,
                  "truncated": reason is not None, "truncated_reason": reason,
                  "not_expandable": self.not_expandable}
        if error:
            result["error"] = error
        return result

    def _seed(self, ref: Ref) -> int:
        """The seed's entry id, after learning its OpenAlex record if the library lacks the W id."""
        with self.store.read() as conn:
            found = entry_store.find_id(conn, ref)
            known = selects.openalex_id(conn, found)
        if found is not None and known:
            return found
        work = self._request(lambda http: openalex.work(http, ref))
        with self.store.write() as conn:  # its references come with metadata from the listing, within the caps
            return entry_store.upsert_work(conn, work.model_copy(update={"references": []}), stub=True)

    def _expand(self, node: int, direction: Direction, hop: int) -> list[int]:
        """Reach ``node``'s neighbours in ``direction``: the stored ones, and OpenAlex pages while its list is
        unfinished. A list never read before is read first, as its pages carry the titles and years that
        stubs made from bare reference ids lack; otherwise the stored neighbours come first, so repeating
        a call the node cap cut short makes no request."""
        with self.store.read() as conn:
            stored = citation_store.expansion(conn, node, direction)
            wid = selects.openalex_id(conn, node)
            local = citation_store.neighbours(conn, node, direction) if stored else []
        state = stored or Expansion("*", False, 0, None)
        found = self._reach(local, hop)
        if not state.complete and wid is None:
            self.not_expandable += 1
        while not state.complete and wid is not None:
            room = self.max_nodes - len(self.reached)
            if room <= 0:
                raise _Stop("max_nodes")
            works, cursor, total = self._request(lambda http: openalex.search(
                http, filters={FILTERS[direction]: wid}, cursor=state.cursor, per_page=min(PER_PAGE, room)))
            state = Expansion(cursor, cursor is None or not works, state.listed + len(works), total)
            with self.store.write() as conn:
                ids = [entry_store.upsert_work(conn, w.model_copy(update={"references": []}), stub=True)
                       for w in works]
                pairs = [(node, i) if direction == "references" else (i, node) for i in ids]
                self.edges_added += citation_store.add_edges(conn, pairs, "openalex")
                citation_store.record_expansion(conn, node, direction, wid, state)
            found += self._reach(ids, hop)
        with self.store.read() as conn:
            local = citation_store.neighbours(conn, node, direction)
        return found + self._reach(local, hop)

    def _reach(self, ids: list[int], hop: int) -> list[int]:
        """Add the not yet reached ``ids`` at ``hop``; returns them. Stops the walk at the node cap."""
        new = [i for i in dict.fromkeys(ids) if i not in self.reached]
        for i in new:
            if len(self.reached) >= self.max_nodes:
                raise _Stop("max_nodes")
            self.reached[i] = hop
        return new

    def _request(self, call: Callable[[Http], Any]) -> Any:
        if self.requests >= self.max_requests:
            raise _Stop("max_requests")
        self.requests += 1
        try:
            return call(self.get_http())
        finally:
            if self.progress:
                self.progress(self.requests, len(self.reached))


def expand(store: Store, get_http: Callable[[], Http], ref: Ref, direction: str = "references", depth: int = 1,
           max_nodes: int = 100, max_requests: int = 20, progress: Progress | None = None) -> dict[str, Any]:
    """Expand the citation graph around ``ref``; see the module docstring. ``get_http`` is called only when
    a request is needed, so an answer the store already holds works offline."""
    if direction not in DIRECTIONS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown direction {direction!r}", allowed=list(DIRECTIONS))
    for value, name, high in ((depth, "depth", MAX_DEPTH), (max_nodes, "max_nodes", MAX_NODES),
                              (max_requests, "max_requests", MAX_REQUESTS)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"{name} must be an integer from 1 to {high}")
    expander = Expander(store, get_http, max_nodes=max_nodes, max_requests=max_requests, progress=progress)
    return expander.run(ref, DIRECTIONS[direction], depth)
