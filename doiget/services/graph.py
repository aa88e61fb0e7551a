"""The library's citation graph: loaded from the store, ranked by :mod:`doiget.ranking`, and reported
with refs, titles and years instead of entry ids."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import networkx as nx
from sqlalchemy import Connection

from doiget import ranking as graph
from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.gcpause import gc_paused
from doiget.services import checks
from doiget.services.session import Session
from doiget.store import entries as entry_store
from doiget.store import selects
from doiget.store import citations as citation_store
from doiget.store.store import Store

HEURISTIC_NOTE = ("Scores and labels are heuristics computed from the citation edges stored in this library "
                  "(OpenAlex and Crossref reference lists and graph expansions); a paper with few stored edges "
                  "ranks low until the graph around it is expanded.")


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
    for key, name in (("tag", tag), ("collection", collection)):
        if name is not None:
            seeds += selects.entry_ids(conn, {key: name})
    seeds = list(dict.fromkeys(seeds))
    if not seeds:
        raise DoigetError(ErrorCode.INVALID_INPUT, "no seed papers: give refs, or a tag or collection that has entries")
    return seeds


def related(store: Store, seeds: list[int], ranking: str, limit: int) -> dict[str, Any]:
    with gc_paused():
        G = load(store)
        ranked = graph.related(G, seeds, ranking, limit)
    return {"seeds": [summary(G, s) for s in seeds], "ranking": ranking,
            "items": [{**summary(G, r.node), "score": r.score, "components": r.components} for r in ranked],
            "heuristic": True, "note": HEURISTIC_NOTE}


def connect(store: Store, source: int, target: int, max_paths: int) -> dict[str, Any]:
    """Citation paths between two entries; each step says whether the previous paper cites it or is cited by it."""
    with gc_paused():
        G = load(store)
        paths = graph.connect(G, source, target, max_paths)
    return {"from": summary(G, source), "to": summary(G, target),
            "paths": [[{**summary(G, step.node), "direction": step.direction} for step in path] for path in paths],
            "directions": "'cites': the previous paper cites this one; 'cited_by': the previous paper is cited by it"}


def literature_review(store: Store, seeds: list[int], sections: Iterable[str], limit: int) -> dict[str, Any]:
    with gc_paused():
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
    with gc_paused():
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


# ---- the façade's graph calls -------------------------------------------------------------------

def expand_citation_graph(lib: Session, ref: checks.RefLike, direction: str = "references", depth: int = 1,
                          max_nodes: int = 100, max_requests: int = 20, *,
                          progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Walk OpenAlex from ``ref`` (see :meth:`doiget.Library.expand_citation_graph`)."""
    from doiget.services import expansion

    lib.config.require("write")
    target = checks.entry_ref(ref)
    if isinstance(target, int):
        with lib.store.read() as conn:
            target = entry_store.load(conn, [entry_store.require_id(conn, target)])[0].ref
    raw = expansion.expand(lib.store, lambda: lib.http, target, direction, depth, max_nodes, max_requests, progress)
    return expansion_report(lib.store, raw, direction, depth)


def related_to(lib: Session, refs: list[checks.RefLike], ranking: str = "similarity",
               limit: int = 20) -> dict[str, Any]:
    """Papers related to ``refs`` in the local citation graph (see :meth:`doiget.Library.related`)."""
    limit = checks.bounded_int(limit, "limit", 1, limits.MAX_RELATED)
    return related(lib.store, seeds_of(lib, refs), ranking, limit)


def paths_between(lib: Session, from_ref: checks.RefLike, to_ref: checks.RefLike, max_paths: int = 5) -> dict[str, Any]:
    """Shortest citation paths between two papers (see :meth:`doiget.Library.connect`)."""
    source, target = seeds_of(lib, [from_ref, to_ref], distinct=False)
    return connect(lib.store, source, target, checks.bounded_int(max_paths, "max_paths", 1, limits.MAX_PATHS))


def review(lib: Session, seeds: list[checks.RefLike] | None = None, *, tag: str | None = None,
           collection: str | None = None, sections: list[str] | None = None, limit: int = 10) -> dict[str, Any]:
    """A literature review around the seeds (see :meth:`doiget.Library.literature_review`)."""
    ids = seeds_of(lib, seeds or [], tag=tag, collection=collection)
    return literature_review(lib.store, ids, sections or list(graph.SECTIONS),
                             checks.bounded_int(limit, "limit", 1, limits.MAX_REVIEW_ITEMS))


def graph_export(lib: Session, format: str = "graphml", refs: list[checks.RefLike] | None = None) -> dict[str, Any]:
    """The citation graph (or ``refs`` and their neighbours) as GraphML or node-link JSON ``text``."""
    around = seeds_of(lib, refs) if refs is not None else None
    body, nodes, edges = export(lib.store, format, around)
    return {"format": format, "nodes": nodes, "edges": edges, "text": body}


def seeds_of(lib: Session, refs: list[checks.RefLike], *, tag: str | None = None, collection: str | None = None,
             distinct: bool = True) -> list[int]:
    """Entry ids of ``refs`` plus the papers of ``tag`` and ``collection``; at most MAX_GRAPH_SEEDS."""
    if len(refs) > limits.MAX_GRAPH_SEEDS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{len(refs)} seed papers; at most {limits.MAX_GRAPH_SEEDS}")
    with lib.store.read() as conn:
        ids = [entry_store.require_id(conn, checks.entry_ref(r)) for r in refs]
        if not distinct:
            return ids
        ids = seed_ids(conn, ids, tag=checks.optional_name(tag, "tag"),
                       collection=checks.optional_name(collection, "collection"))
    if len(ids) > limits.MAX_GRAPH_SEEDS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{len(ids)} seed papers; at most {limits.MAX_GRAPH_SEEDS}")
    return ids
