"""Ranking, paths and exports over the local citation graph (pure functions over networkx).

The graph is a ``networkx.DiGraph`` whose nodes are entry ids and whose edges run citing -> cited.
Node attributes: ``year`` (int or None), ``title``, ``authors`` (list of names), ``venue``, ``type``.

The candidates related to a set of seeds are the seeds' two-hop neighbourhood in the undirected
view (the papers that share a neighbour with, or touch, a seed), seeds excluded. Every ranking
scores that same pool, so the three rankings are comparable lists of the same papers.
"""
from __future__ import annotations

import datetime
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from functools import cached_property
from itertools import islice
from typing import Literal, NamedTuple

import networkx as nx

from doiget.errors import DoigetError, ErrorCode
from doiget.pagerank import pagerank

RANKINGS = ("similarity", "influence", "recent")
_RANKED = {"similarity": "similar", "influence": "influential", "recent": "recent"}  # _Context attributes
SECTIONS = ("similar", "important", "reviews", "recent", "authors", "venues")
RECENT_YEARS = 3
# Authors and venues are counted over this many of the most similar papers.
RELATED_POOL = 100
# "Many references" for a review candidate: at or above this quantile of the graph's out-degrees.
REVIEW_REFS_QUANTILE = 0.95
REVIEW_TITLE = re.compile(
    r"\b(reviews?|survey|overview|meta[- ]?analys[ie]s|state[- ]of[- ]the[- ]art)\b",
    re.IGNORECASE,
)


class Related(NamedTuple):
    """A candidate paper, its score under one ranking, and the raw components behind the score."""

    node: int
    score: float
    components: dict[str, float]


class Step(NamedTuple):
    """One hop of a path: the node reached and how the previous node relates to it.

    ``"cites"``: the previous node cites ``node``; ``"cited_by"``: the previous node is cited by it.
    """

    node: int
    direction: Literal["cites", "cited_by"]


def build_graph(nodes: Iterable[dict], edges: Iterable[tuple[int, int]]) -> nx.DiGraph:
    """A citation graph from node dicts (``id`` plus attributes) and (citing, cited) id pairs.

    Missing attributes get defaults; an edge to an id without a node dict adds a bare node.
    Self-citations are dropped: a paper citing itself is a data error and would inflate its
    PageRank and its Adamic–Adar degree.
    """
    G = nx.DiGraph()
    G.add_nodes_from((node["id"], _node_attrs({k: v for k, v in node.items() if k != "id"})) for node in nodes)
    edges = [(citing, cited) for citing, cited in edges if citing != cited]
    G.add_nodes_from((n, _node_attrs({})) for n in {n for edge in edges for n in edge}.difference(G))
    G.add_edges_from(edges)
    return G


def _node_attrs(given: dict) -> dict:
    return {"year": None, "title": None, "authors": [], "venue": None, "type": None, **given}


def related(G: nx.DiGraph, seeds: Iterable[int], ranking: str = "similarity", limit: int | None = 20,
            now_year: int | None = None) -> list[Related]:
    """The papers related to ``seeds`` (seeds excluded), best first, ranked by one of ``RANKINGS``.

    - ``similarity``: co-citation (papers citing both a seed and the candidate) + bibliographic
      coupling (references the candidate shares with the seeds) + Adamic–Adar summed over seeds
      on the undirected graph. ``components`` are the raw values; ``score`` is the sum of each
      component divided by its maximum over the candidates (so each contributes at most 1).
    - ``influence``: PageRank (alpha 0.85) of the whole graph, so scores compare across calls.
    - ``recent``: PageRank of the subgraph of papers from the last ``RECENT_YEARS`` years, i.e.
      ``year >= now_year - 2`` (default: this year); candidates outside it are left out.
    """
    if ranking not in RANKINGS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown ranking {ranking!r}", allowed=list(RANKINGS))
    return getattr(_Context(G, seeds, now_year), _RANKED[ranking])[:limit]


def connect(G: nx.DiGraph, source: int, target: int, max_paths: int = 5, max_len: int = 6) -> list[list[Step]]:
    """Up to ``max_paths`` shortest simple paths of at most ``max_len`` hops from source to target.

    Paths are searched in the undirected view (a citation either way links two papers), shortest
    first; each step reports the real direction of its edge. The source is not repeated in the
    path; source == target gives one empty path, and no path gives an empty list.
    """
    _require_nodes(G, [source, target])
    if source == target:
        return [[]]
    paths = nx.shortest_simple_paths(G.to_undirected(as_view=True), source, target)
    found: list[list[Step]] = []
    try:
        for path in islice(paths, max_paths):
            if len(path) - 1 > max_len:
                break
            found.append([Step(v, "cites" if G.has_edge(u, v) else "cited_by") for u, v in zip(path, path[1:])])
    except nx.NetworkXNoPath:
        pass
    return found


def literature_review(G: nx.DiGraph, seeds: Iterable[int], sections: Iterable[str] = SECTIONS, limit: int = 10,
                      now_year: int | None = None) -> dict:
    """A literature review around ``seeds``: one entry per requested section, each computed on its own.

    Sections: ``similar``, ``important`` and ``recent`` (the rankings of :func:`related`),
    ``reviews`` (heuristic review candidates), ``authors`` and ``venues`` (counts over the
    ``RELATED_POOL`` most similar papers). Returns ``{"seeds", "sections": {name: {"items": [...]}},
    "partial"}``; a section that fails is ``{"error": {"code", "message"}, "partial": True}``
    instead, and then the result as a whole carries ``partial: True``.
    """
    sections = list(sections)
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown sections {unknown}", allowed=list(SECTIONS))
    ctx = _Context(G, seeds, now_year)
    builders: dict[str, Callable[[], dict]] = {
        "similar": lambda: {"items": [_item(G, r) for r in ctx.similar[:limit]]},
        "important": lambda: {"items": [_item(G, r) for r in ctx.influential[:limit]]},
        "recent": lambda: {"items": [_item(G, r) for r in ctx.recent[:limit]], "since_year": ctx.since_year},
        "reviews": lambda: {"items": _review_candidates(G, ctx.similar, limit), "heuristic": True},
        "authors": lambda: {"items": _top_counts(G, ctx.similar[:RELATED_POOL], "authors", limit)},
        "venues": lambda: {"items": _top_counts(G, ctx.similar[:RELATED_POOL], "venue", limit)},
    }
    out: dict = {"seeds": ctx.seeds, "sections": {}, "partial": False}
    for name in sections:
        try:
            out["sections"][name] = builders[name]()
        except Exception as exc:  # one broken section must not sink the review
            error = exc.to_dict() if isinstance(exc, DoigetError) else {
                "code": ErrorCode.INTERNAL_ERROR.value, "message": f"{type(exc).__name__}: {exc}"}
            out["sections"][name] = {"error": error, "partial": True}
            out["partial"] = True
    return out


def export_graph(G: nx.DiGraph, format: str = "graphml") -> str:
    """The graph as GraphML (lists joined with "; ", None attributes omitted) or node-link JSON."""
    if format == "json":
        return json.dumps(nx.node_link_data(G, edges="edges"))
    if format != "graphml":
        raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown graph format {format!r}", allowed=["graphml", "json"])
    safe = nx.DiGraph()
    for n, attrs in G.nodes(data=True):
        safe.add_node(n, **{k: "; ".join(map(str, v)) if isinstance(v, (list, tuple)) else v
                            for k, v in attrs.items() if v is not None})
    safe.add_edges_from(G.edges)
    return "\n".join(nx.generate_graphml(safe))


class _Context:
    """The seeds' neighbourhood and rankings, each computed at most once per call."""

    def __init__(self, G: nx.DiGraph, seeds: Iterable[int], now_year: int | None) -> None:
        self.G = G
        self.seeds = list(dict.fromkeys(seeds))
        if not self.seeds:
            raise DoigetError(ErrorCode.INVALID_INPUT, "at least one seed is required")
        _require_nodes(G, self.seeds)
        self.now_year = now_year if now_year is not None else datetime.date.today().year
        self.since_year = self.now_year - (RECENT_YEARS - 1)

    def _neighbours(self, n: int) -> set[int]:
        return set(self.G.succ[n]).union(self.G.pred[n])

    @cached_property
    def seed_neighbours(self) -> Counter:
        """Undirected neighbours of the seeds, each with the number of seeds it touches."""
        return Counter(w for s in self.seeds for w in self._neighbours(s))

    @cached_property
    def candidates(self) -> set[int]:
        pool = set().union(*(self._neighbours(w) for w in self.seed_neighbours), self.seed_neighbours)
        return pool.difference(self.seeds)

    @cached_property
    def similar(self) -> list[Related]:
        G, seeds = self.G, self.seeds
        # Counter.update gets iterators: it would read a Mapping (an adjacency view) as counts.
        # Co-citation: each citer of a seed counts once for every paper it cites.
        co_citation = Counter()
        for citer in set().union(*(G.pred[s] for s in seeds)):
            co_citation.update(iter(G.succ[citer]))
        # Coupling: each reference of a seed counts once for every paper citing it.
        coupling = Counter()
        for ref in set().union(*(G.succ[s] for s in seeds)):
            coupling.update(iter(G.pred[ref]))
        # Adamic–Adar summed over seeds: a common neighbour w of k seeds and c adds k / log deg(w).
        adamic_adar: dict[int, float] = defaultdict(float)
        for w, k in self.seed_neighbours.items():
            nbrs = self._neighbours(w)
            if len(nbrs) > 1:
                weight = k / math.log(len(nbrs))
                for c in nbrs:
                    adamic_adar[c] += weight
        raw = {"co_citation": co_citation, "coupling": coupling, "adamic_adar": adamic_adar}
        peaks = {name: max((values.get(c, 0) for c in self.candidates), default=0) for name, values in raw.items()}
        ranked = []
        for c in self.candidates:
            components = {name: float(values.get(c, 0)) for name, values in raw.items()}
            score = sum(v / peaks[name] for name, v in components.items() if peaks[name])
            ranked.append(Related(c, score, components))
        return _sorted(ranked)

    @cached_property
    def influential(self) -> list[Related]:
        return _by_pagerank(pagerank(self.G), self.candidates)

    @cached_property
    def recent(self) -> list[Related]:
        recent_nodes = [n for n, year in self.G.nodes(data="year") if year is not None and year >= self.since_year]
        return _by_pagerank(pagerank(self.G.subgraph(recent_nodes)), self.candidates)


def _by_pagerank(ranks: dict[int, float], candidates: set[int]) -> list[Related]:
    return _sorted([Related(c, ranks[c], {"pagerank": ranks[c]}) for c in candidates if c in ranks])


def _sorted(ranked: list[Related]) -> list[Related]:
    return sorted(ranked, key=lambda r: (-r.score, r.node))


def _require_nodes(G: nx.DiGraph, nodes: Iterable[int]) -> None:
    missing = [n for n in nodes if n not in G]
    if missing:
        raise DoigetError(ErrorCode.NOT_FOUND, f"not in the citation graph: {missing}", missing=missing)


def _item(G: nx.DiGraph, r: Related) -> dict:
    attrs = G.nodes[r.node]
    return {"node": r.node, "title": attrs.get("title"), "year": attrs.get("year"),
            "score": r.score, "components": r.components}


def _review_candidates(G: nx.DiGraph, ranked: list[Related], limit: int) -> list[dict]:
    """Related papers that look like reviews: a review-ish title, or many references.

    Title matches come first, then by number of references, then by similarity.
    """
    out_degrees = sorted(d for _, d in G.out_degree() if d)
    many = out_degrees[int(REVIEW_REFS_QUANTILE * (len(out_degrees) - 1))] if out_degrees else math.inf
    found = []
    for r in ranked:
        reasons = []
        title = G.nodes[r.node].get("title") or ""
        if match := REVIEW_TITLE.search(title):
            reasons.append(f"title says {match.group(0).lower()!r}")
        refs = G.out_degree(r.node)
        if refs >= many:
            reasons.append(f"cites {refs} papers in the library (top {1 - REVIEW_REFS_QUANTILE:.0%})")
        if reasons:
            found.append((bool(match), refs, r, reasons))
    found.sort(key=lambda f: (not f[0], -f[1]))  # stable: ties keep the similarity order
    return [{**_item(G, r), "reasons": reasons, "heuristic": True} for _, _, r, reasons in found[:limit]]


def _top_counts(G: nx.DiGraph, ranked: list[Related], attr: str, limit: int) -> list[dict]:
    """The most frequent authors (list attribute) or venue (single value) over ``ranked``."""
    counts: Counter = Counter()
    for r in ranked:
        value = G.nodes[r.node].get(attr)
        if attr == "authors":
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"node {r.node}: authors must be a list of names, not {type(value).__name__}")
            counts.update(set(value))  # an author counts once per paper
        elif value:
            counts[value] += 1
    return [{"name": name, "count": n} for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]
