"""The citation-graph MCP tools: expand over OpenAlex, then rank, connect and review over the local graph."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from doiget import limits
from doiget.present import to_json
from doiget.limits import MAX_EXPANSION_NODES as MAX_NODES
from doiget.limits import MAX_EXPANSION_REQUESTS as MAX_REQUESTS
from doiget.limits import MAX_GRAPH_SEEDS as MAX_SEEDS
from doiget.mcp.tools.paging import MAX_WINDOW, Cursor, decode, page, scope_of, window_size
from doiget.mcp.tools.spec import NO_SIDE_EFFECTS, LibraryAccess, Params, RefArg, TagName, ToolSpec

SHOWN_NODES = 50


def choice(*values: str) -> Any:
    """A string that must be one of ``values``, with the maxLength every tool string declares."""
    return Annotated[Literal[values], Field(json_schema_extra={"maxLength": max(map(len, values))})]


Direction = choice("references", "cited_by", "both")
Ranking = choice("similarity", "influence", "recent")
Section = choice("similar", "important", "reviews", "recent", "authors", "venues")
GRAPH_COSTS = "Local; ~0.5 s per 10,000 papers."
HEURISTIC = "Heuristic over stored citations."


class ExpandParams(Params):
    ref: RefArg
    direction: Direction = "references"
    depth: Annotated[int, Field(ge=1, le=2, description="hops from the seed")] = 1
    max_nodes: Annotated[int, Field(ge=1, le=MAX_NODES, description="papers reached, seed included")] = 100
    max_requests: Annotated[int, Field(ge=1, le=MAX_REQUESTS, description="OpenAlex requests")] = 20
    cursor: Cursor = None


class RelatedParams(Params):
    refs: Annotated[list[RefArg], Field(min_length=1, max_length=MAX_SEEDS, description="seed papers")]
    ranking: Ranking = "similarity"
    limit: Annotated[int, Field(ge=1, le=limits.MAX_RELATED, description="items per page")] = 20
    cursor: Cursor = None


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
    result = to_json(lib.get().expand_citation_graph(p.ref, p.direction, p.depth, p.max_nodes, p.max_requests))
    scope = scope_of(p)
    reached, next_cursor = page(result.pop("reached"), decode(p.cursor, scope), SHOWN_NODES, scope)
    return {**result, "reached": reached, "reached_shown": len(reached), "next_cursor": next_cursor}


def _related(lib: LibraryAccess, p: RelatedParams) -> dict[str, Any]:
    scope = scope_of(p)
    offset = decode(p.cursor, scope)
    result = to_json(lib.get().related(p.refs, p.ranking, window_size(offset, p.limit)))
    result["items"], result["next_cursor"] = page(result["items"], offset, p.limit, scope)
    return result


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
             when="Before ranking around a paper whose citations are not stored yet; repeats are local.",
             outputs=f"{{ok, seed, nodes, edges, nodes_added, truncated_reason, reached[{PAPER[:-1]}, hop}}], next_cursor, ...}}.",
             costs="OpenAlex: about 1 request per 200 neighbours; seconds.",
             side_effects="Writes stub entries, citation edges and resume points; fills empty fields of stored entries and may merge duplicates (destructive).",
             limits=f"depth 2, {MAX_NODES} nodes, {MAX_REQUESTS} requests; stops at a cap.",
             params=ExpandParams, run=_expand, read_only=False, destructive=True, idempotent=True, open_world=True),
    ToolSpec("doiget_related", "Related papers",
             "Papers related to seed papers in the local citation graph, best first, with the score components "
             "behind each rank.",
             when="Finding what to read next: similar, influential or recent influential papers.",
             outputs=f"{{ok, seeds, ranking, items[{PAPER[:-1]}, score, components}}], next_cursor, note}}.",
             costs=GRAPH_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits=f"Seeds' two-hop neighbourhood; pages reach {MAX_WINDOW}. {HEURISTIC}",
             params=RelatedParams, run=_related, read_only=True),
    ToolSpec("doiget_connect", "Citation paths",
             "The shortest citation paths between two papers of the local graph, with the direction of each edge.",
             when="Explaining how two papers relate through citations.",
             outputs=f"{{ok, from, to, paths[[{PAPER[:-1]}, direction}}]]}}.",
             costs=GRAPH_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits="20 paths of 6 hops; local citations only.",
             params=ConnectParams, run=_connect, read_only=True),
    ToolSpec("doiget_literature_review", "Literature review",
             "A structured reading list around seed papers: similar, important, review candidates, recent, "
             "top authors and top venues.",
             when="Starting a literature review from papers, a tag or a collection.",
             outputs="{ok, seeds, sections: {name: {items[]} or {error, partial}}, partial, heuristic: true, note}.",
             costs=GRAPH_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits=f"Seeds <= {MAX_SEEDS}; <= {limits.MAX_REVIEW_ITEMS} items per section. {HEURISTIC}",
             params=ReviewParams, run=_review, read_only=True),
]
