"""The library's citation graph: loaded from the store, ranked by :mod:`doiget.ranking`, and reported
with refs, titles and years instead of entry ids."""
from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import networkx as nx
from sqlalchemy import Connection, text

from doiget import ranking as graph
from doiget.errors import DoigetError, ErrorCode
from doiget.store import citations as citation_store
from doiget.store.store import Store

HEURISTIC_NOTE = ("Scores and labels are heuristics computed from the citation edges stored in this library "
                  "(OpenAlex and Crossref reference lists and graph expansions); a paper with few stored edges "
                  "ranks low until the graph around it is expanded.")


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run a graph computation with the cyclic garbage collector off.

    Building and ranking a 10^5-edge graph allocates so many container objects that the collector
    runs over and over, walking the whole growing graph each time: half the time of a call. Nothing
    made during the call is cyclic garbage before it ends, and collection resumes afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load(store: Store) -> nx.DiGraph:
    """Every entry (stubs included) as a node keyed by entry id, every stored citation as an edge."""
    with store.read() as conn:
        nodes, edges = citation_store.graph_rows(conn)
    return graph.build_graph(nodes, edges)


def summary(G: nx.DiGraph, node: int) -> dict[str, Any]:
    attrs = G.nodes[node]
    return {"id": node, "ref": attrs.get("ref"), "title": attrs.get("title"), "year": attrs.get("year"),
            "is_stub": attrs.get("is_stub", False)}


def seed_ids(conn: Connection, ids: Iterable[int], tag: str | None = None, collection: str | None = None) -> list[int]:
    """``ids`` plus the entries carrying ``tag`` or in ``collection``, once each; INVALID_INPUT if none."""
    seeds = list(ids)
    for sql, name in (("SELECT et.entry_id FROM entry_tags et JOIN tags t ON t.id = et.tag_id WHERE t.name = :n "
                       "ORDER BY et.entry_id", tag),
                      ("SELECT ce.entry_id FROM collection_entries ce JOIN collections c ON c.id = ce.collection_id "
                       "WHERE c.name = :n ORDER BY ce.entry_id", collection)):
        if name is not None:
            seeds += conn.execute(text(sql), {"n": name}).scalars()
    seeds = list(dict.fromkeys(seeds))
    if not seeds:
        raise DoigetError(ErrorCode.INVALID_INPUT, "no seed papers: give refs, or a tag or collection that has entries")
    return seeds


def related(store: Store, seeds: list[int], ranking: str, limit: int) -> dict[str, Any]:
    with paused_gc():
        G = load(store)
        ranked = graph.related(G, seeds, ranking, limit)
    return {"seeds": [summary(G, s) for s in seeds], "ranking": ranking,
            "items": [{**summary(G, r.node), "score": r.score, "components": r.components} for r in ranked],
            "heuristic": True, "note": HEURISTIC_NOTE}


def connect(store: Store, source: int, target: int, max_paths: int) -> dict[str, Any]:
    """Citation paths between two entries; each step says whether the previous paper cites it or is cited by it."""
    with paused_gc():
        G = load(store)
        paths = graph.connect(G, source, target, max_paths)
    return {"from": summary(G, source), "to": summary(G, target),
            "paths": [[{**summary(G, step.node), "direction": step.direction} for step in path] for path in paths],
            "directions": "'cites': the previous paper cites this one; 'cited_by': the previous paper is cited by it"}


def literature_review(store: Store, seeds: list[int], sections: Iterable[str], limit: int) -> dict[str, Any]:
    with paused_gc():
        G = load(store)
        review = graph.literature_review(G, seeds, sections, limit)
    for section in review["sections"].values():
        for item in section.get("items", []):
            if "node" in item:
                item.update(summary(G, item.pop("node")))
    return {**review, "seeds": [summary(G, s) for s in review["seeds"]], "heuristic": True, "note": HEURISTIC_NOTE}


def export(store: Store, format: str, around: list[int] | None = None) -> tuple[str, int, int]:
    """The graph (or ``around`` and their direct neighbours) as GraphML or node-link JSON, nodes named by
    ref; returns (text, nodes, edges)."""
    with paused_gc():
        G = load(store)
        if around is not None:
            G = G.subgraph(set(around).union(*(set(G.succ[n]) | set(G.pred[n]) for n in around)))
        names = {n: G.nodes[n]["ref"] or f"entry:{n}" for n in G}
        named = nx.relabel_nodes(G, names)
        for n, name in names.items():
            named.nodes[name]["id"] = n
        return graph.export_graph(named, format), named.number_of_nodes(), named.number_of_edges()


def expansion_report(store: Store, raw: dict[str, Any], direction: str, depth: int) -> dict[str, Any]:
    """An :func:`doiget.services.expansion.expand` result with the seed and reached nodes described, nearest first."""
    reached: dict[int, int] = raw.pop("reached")
    with store.read() as conn:
        described = citation_store.describe(conn, list(reached))
    seed = raw.pop("seed")
    return {"seed": described[seed], "direction": direction, "depth": depth, **raw,
            "reached": [{**described[n], "hop": hop} for n, hop in sorted(reached.items(), key=lambda kv: kv[1])
                        if n != seed]}
