"""The citation-graph MCP tools: expand over OpenAlex, then rank, connect and review over the local graph."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from doiget import limits
from doiget.limits import MAX_EXPANSION_NODES as MAX_NODES
from doiget.limits import MAX_EXPANSION_REQUESTS as MAX_REQUESTS
from doiget.limits import MAX_GRAPH_SEEDS as MAX_SEEDS
from doiget.mcp.tools.spec import NO_SIDE_EFFECTS, LibraryAccess, Params, RefArg, TagName, ToolSpec

SHOWN_NODES = 50


def choice(*values: str) -> Any:
    """A string that must be one of ``values``, with the maxLength every tool string declares."""
    return Annotated[Literal[values], Field(json_schema_extra={"maxLength": max(map(len, values))})]


Direction = choice("references", "cited_by", "both")
Ranking = choice("similarity", "influence", "recent")
Section = choice("similar", "important", "reviews", "recent", "authors", "venues")
GRAPH_COSTS = ("Local only: loads the whole stored citation graph and ranks it with networkx; about 0.5 s for "
               "10,000 papers and 100,000 citations; no network.")
HEURISTIC = ("Scores are heuristics over the citation edges stored locally: a paper the library knows few "
             "citations of ranks low until doiget_expand_citation_graph has been run around it.")


class ExpandParams(Params):
    ref: RefArg
    direction: Direction = "references"
    depth: Annotated[int, Field(ge=1, le=2, description="hops from the seed")] = 1
    max_nodes: Annotated[int, Field(ge=1, le=MAX_NODES, description="papers reached, seed included")] = 100
    max_requests: Annotated[int, Field(ge=1, le=MAX_REQUESTS, description="OpenAlex requests")] = 20


class RelatedParams(Params):
    refs: Annotated[list[RefArg], Field(min_length=1, max_length=MAX_SEEDS, description="seed papers")]
    ranking: Ranking = "similarity"
    limit: Annotated[int, Field(ge=1, le=limits.MAX_RELATED)] = 20


class ConnectParams(Params):
    from_ref: RefArg
    to_ref: RefArg
    max_paths: Annotated[int, Field(ge=1, le=limits.MAX_PATHS)] = 5


class ReviewParams(Params):
    seeds: Annotated[list[RefArg], Field(max_length=MAX_SEEDS, description="seed papers")] = []
    tag: TagName | None = Field(default=None, description="also seed with every paper carrying this tag")
    collection: TagName | None = Field(default=None, description="also seed with every paper of this collection")
    sections: Annotated[list[Section], Field(max_length=6, description="default: all six")] = []
    limit: Annotated[int, Field(ge=1, le=limits.MAX_REVIEW_ITEMS, description="items per section")] = 10


def _expand(lib: LibraryAccess, p: ExpandParams) -> dict[str, Any]:
    result = lib.get().expand_citation_graph(p.ref, p.direction, p.depth, p.max_nodes, p.max_requests)
    reached = result.pop("reached")
    return {**result, "reached": reached[:SHOWN_NODES], "reached_shown": min(len(reached), SHOWN_NODES)}


def _related(lib: LibraryAccess, p: RelatedParams) -> dict[str, Any]:
    return lib.get().related(p.refs, p.ranking, p.limit)


def _connect(lib: LibraryAccess, p: ConnectParams) -> dict[str, Any]:
    return lib.get().connect(p.from_ref, p.to_ref, p.max_paths)


def _review(lib: LibraryAccess, p: ReviewParams) -> dict[str, Any]:
    return lib.get().literature_review(p.seeds, tag=p.tag, collection=p.collection, sections=p.sections or None,
                                       limit=p.limit)


PAPER = "{id, ref, title, year, is_stub}"

GRAPH_TOOLS: list[ToolSpec] = [
    ToolSpec("doiget_expand_citation_graph", "Expand the citation graph",
             "Breadth-first walk over OpenAlex from one paper (what it cites, what cites it, or both; 1-2 hops) "
             "that stores the papers met as stub entries and the citations between them.",
             when="Before ranking or reviewing around a paper whose neighbourhood the library does not hold yet, "
                  "or to see who cites a paper. Repeating a call is free: what was stored is answered locally.",
             outputs=f"{{ok, seed: {PAPER}, direction, depth, nodes, edges (among the papers reached), nodes_added, "
                     "edges_added, requests_made, truncated, truncated_reason (max_nodes | max_requests | "
                     f"upstream_error | null), error (when upstream failed), not_expandable, reached: [{PAPER[:-1]}, "
                     f"hop}}] (nearest first, at most {SHOWN_NODES}), reached_shown}}.",
             costs="One OpenAlex request to learn the seed's OpenAlex id if the library lacks it, then one per "
                   "200 neighbours of each paper expanded (about 1 + 1 + fan-out requests for depth 2); a few "
                   "seconds at OpenAlex's polite rate.",
             side_effects="Writes stub entries (is_stub) and citation edges, and records how far each paper's "
                          "OpenAlex list was read so a later call resumes instead of repeating requests.",
             limits=f"depth ≤ 2, max_nodes ≤ {MAX_NODES}, max_requests ≤ {MAX_REQUESTS}; the walk stops at "
                    "either cap and says so in truncated_reason. Papers without an OpenAlex id (Crossref-only "
                    "stubs) are not expanded (counted in not_expandable).",
             params=ExpandParams, run=_expand, read_only=False, idempotent=True, open_world=True),
    ToolSpec("doiget_related", "Related papers",
             "Papers related to seed papers in the local citation graph, best first, with the score components "
             "behind each rank.",
             when="Finding what else to read next to papers you have: similar work (similarity), the most cited "
                  "work around them (influence), or the most cited recent work (recent).",
             outputs=f"{{ok, seeds: [{PAPER}], ranking, items: [{PAPER[:-1]}, score, components}}], heuristic: "
                     "true, note}. similarity components: co_citation, coupling, adamic_adar (score = sum of each "
                     "divided by its maximum); influence and recent: pagerank. Seeds are never listed.",
             costs=GRAPH_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits=f"Candidates are the seeds' two-hop neighbourhood; recent means the last 3 years. {HEURISTIC}",
             params=RelatedParams, run=_related, read_only=True),
    ToolSpec("doiget_connect", "Citation paths",
             "The shortest citation paths between two papers of the local graph, with the direction of each edge.",
             when="Explaining how two papers relate: which papers link them through citations.",
             outputs=f"{{ok, from, to, paths: [[{PAPER[:-1]}, direction: cites | cited_by}}]], directions}}; "
                     "each step says whether the previous paper cites it or is cited by it; [] when no path.",
             costs=GRAPH_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits="At most 20 paths of at most 6 hops, shortest first; only citations stored locally count.",
             params=ConnectParams, run=_connect, read_only=True),
    ToolSpec("doiget_literature_review", "Literature review",
             "A structured reading list around seed papers: similar, important, review candidates, recent, "
             "top authors and top venues.",
             when="Starting or checking a literature review from a set of papers, a tag or a collection.",
             outputs=f"{{ok, seeds: [{PAPER}], sections: {{name: {{items: [...]}} or {{error, partial: true}}}}, "
                     "partial, heuristic: true, note}. A section that fails is reported alone; the others stand.",
             costs=GRAPH_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits=f"Seeds ≤ {MAX_SEEDS} (refs plus the tag's and collection's papers); ≤ {limits.MAX_REVIEW_ITEMS} items per section. "
                    f"Review candidates are labelled by title words and reference counts. {HEURISTIC}",
             params=ReviewParams, run=_review, read_only=True),
]
