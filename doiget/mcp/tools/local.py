"""The local-library MCP tools: info, search, recent, PDF path, tags, annotation, health, profile."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from doiget import limits
from doiget.library import health_report, network_policy
from doiget.present import entry_dict
from doiget.mcp.tools.spec import (LOCAL_COSTS, NO_SIDE_EFFECTS, LibraryAccess, NoParams, Params, RefArg, RefParams,
                               TagName, ToolSpec, Year)

# ---- parameter models ---------------------------------------------------------------------
class SearchLocalParams(Params):
    query: Annotated[str, Field(min_length=1, max_length=1000, description=(
        'words (all must match), "exact phrase", prefix*, AND/OR/NOT, (groups), column:term '
        "with columns title, abstract, authors, venue, year, tags, notes"))]
    limit: Annotated[int, Field(ge=1, le=limits.MAX_SEARCH_HITS)] = 10
    year_from: Year | None = None
    year_to: Year | None = None
    tag: TagName | None = None
    collection: TagName | None = None
    has_pdf: bool | None = None
    include_fulltext: Annotated[bool, Field(description="also search inside the papers' text: hits gain their best "
                                                        "passage, papers matching only in their text follow")] = False


class RecentParams(Params):
    n: Annotated[int, Field(ge=1, le=limits.MAX_RECENT, description="how many entries")] = 10


class TagParams(Params):
    ref: RefArg
    add: Annotated[list[TagName], Field(max_length=50, description="tags to add")] = []
    remove: Annotated[list[TagName], Field(max_length=50, description="tags to remove")] = []
    add_to_collections: Annotated[list[TagName], Field(max_length=20)] = []
    remove_from_collections: Annotated[list[TagName], Field(max_length=20)] = []


class AnnotateParams(Params):
    ref: RefArg
    text: Annotated[str | None, Field(max_length=limits.MAX_ANNOTATION,
                                      description="the annotation; empty or null clears it")] = None


# ---- handlers -----------------------------------------------------------------------------
def _info(lib: LibraryAccess, p: RefParams) -> dict[str, Any]:
    return {"entry": entry_dict(lib.get().info(p.ref))}


def _search_local(lib: LibraryAccess, p: SearchLocalParams) -> dict[str, Any]:
    hits = lib.get().search(p.query, p.limit, year_from=p.year_from, year_to=p.year_to, tag=p.tag,
                            collection=p.collection, has_pdf=p.has_pdf, include_fulltext=p.include_fulltext)
    return {"count": len(hits), "hits": [h.model_dump(mode="json") for h in hits]}


def _recent(lib: LibraryAccess, p: RecentParams) -> dict[str, Any]:
    entries = lib.get().recent(p.n)
    return {"count": len(entries), "entries": [entry_dict(e) for e in entries]}


def _pdf_path(lib: LibraryAccess, p: RefParams) -> dict[str, Any]:
    path = lib.get().pdf_path(p.ref)
    return {"ref": p.ref, "has_pdf": path is not None, "pdf_path": str(path) if path else None}


def _tag(lib: LibraryAccess, p: TagParams) -> dict[str, Any]:
    library = lib.get()
    if p.add:
        library.tag(p.ref, p.add)
    if p.remove:
        library.untag(p.ref, p.remove)
    for name in p.add_to_collections:
        library.collection_add(name, [p.ref])
    for name in p.remove_from_collections:
        library.collection_remove(name, [p.ref])
    entry = library.info(p.ref)
    return {"ref": entry.ref_label, "tags": entry.tags, "collections": entry.collections}


def _annotate(lib: LibraryAccess, p: AnnotateParams) -> dict[str, Any]:
    return {"ref": p.ref, "annotation": lib.get().annotate(p.ref, p.text)}


def _health(lib: LibraryAccess, _p: NoParams) -> dict[str, Any]:
    return {"health": health_report(lib.config)}


def _capability_profile(lib: LibraryAccess, _p: NoParams) -> dict[str, Any]:
    config = lib.config
    from doiget.mcp.tools import TOOLS

    tools = [{"name": spec.name, "enabled": (spec.read_only or config.write_enabled)
              and (not spec.open_world or config.network_enabled)} for spec in TOOLS.values()]
    return {"profile": config.profile, "network": config.network_enabled, "write": config.write_enabled,
            "contact_email_configured": config.contact_email is not None,
            "network_policy": network_policy() if config.network_enabled else None, "tools": tools}


LOCAL_TOOLS: list[ToolSpec] = [
    ToolSpec("doiget_info", "Entry details", "Full stored metadata of one paper in the local library.",
             when="You have an identifier and want what the library knows: authors, venue, ids, tags, "
                  "annotation, stored artefacts.",
             outputs="{ok, entry: {id, doi, arxiv, ..., title, authors[], year, tags[], collections[], annotation, "
                     "has_pdf, artefacts[]}}; NOT_FOUND if the paper is not in the library.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits="One entry per call.",
             params=RefParams, run=_info, read_only=True),
    ToolSpec("doiget_search_local", "Search the library", "Ranked search over the metadata of papers in the "
             "local library (title, abstract, authors, venue, year, tags, notes).",
             when="Finding papers you already have, by topic, author, tag or note text. For papers not yet in "
                  "the library use a remote search tool.",
             outputs="{ok, count, hits: [{id, ref, title, authors, year, venue, tags, has_pdf, score (bm25, "
                     "lower is better), snippet with **highlights**, fulltext (with include_fulltext: {format, "
                     "heading, page, char_start, char_end, score, snippet} or null)}]}, best first; INVALID_QUERY for "
                     "malformed query syntax.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits="At most 100 hits per call; query at most 1000 characters.",
             params=SearchLocalParams, run=_search_local, read_only=True),
    ToolSpec("doiget_list_recent", "Recently added", "The papers most recently added to the library.",
             when="Seeing what was fetched or imported lately.",
             outputs="{ok, count, entries: [entry, ...]} newest first.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits=f"At most {limits.MAX_RECENT} entries.",
             params=RecentParams, run=_recent, read_only=True),
    ToolSpec("doiget_paper_pdf_path", "PDF location", "The local file path of a paper's stored PDF.",
             when="You need to open or hand over the PDF file of a paper already in the library.",
             outputs="{ok, ref, has_pdf, pdf_path (null when no PDF is stored)}; NOT_FOUND if not in library.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits="Paths are on the server's machine.",
             params=RefParams, run=_pdf_path, read_only=True),
    ToolSpec("doiget_tag", "Tag and file", "Add or remove tags on a paper and put it in or take it out of "
             "collections.",
             when="Organising the library: labelling papers, grouping them for a project.",
             outputs="{ok, ref, tags[], collections[]} after the change.",
             costs="Local SQLite write; milliseconds.",
             side_effects="Creates missing tags/collections; changes membership only, never deletes papers.",
             limits="At most 50 tags and 20 collections per call; names at most 100 characters.",
             params=TagParams, run=_tag, read_only=False),
    ToolSpec("doiget_annotate", "Annotate", "Set or clear the one free-form annotation of a paper.",
             when="Recording what a paper is about or why it matters; the text becomes searchable.",
             outputs="{ok, ref, annotation (null after clearing)}.",
             costs="Local SQLite write; milliseconds.",
             side_effects="Replaces the previous annotation of that paper.",
             limits="At most 100,000 characters.",
             params=AnnotateParams, run=_annotate, read_only=False),
    ToolSpec("doiget_health", "Health", "Where the library lives, its schema revision and row counts.",
             when="Checking that doiget is set up, or diagnosing problems.",
             outputs="{ok, health: {home, exists, revision, schema_head, counts, status, ...}}.",
             costs="Reads the store file if it exists; milliseconds.",
             side_effects="None: creates nothing on disk, even when no library exists yet.",
             limits="None.", params=NoParams, run=_health, read_only=True),
    ToolSpec("doiget_capability_profile", "Capabilities", "What this server may do: profile, network and "
             "write access, the network rules in force, and which tools are enabled.",
             when="Before planning work that needs the network or writes to the library.",
             outputs="{ok, profile, network, write, contact_email_configured, network_policy (null without network): "
                     "{sources: [{name, base_url, overridden, allowed_hosts}], rate_limits: {enabled, "
                     "global_requests_per_second, arxiv}, size_caps: {pdf_bytes, response_bytes}, timeouts_seconds, "
                     "retries, cooldown_seconds, cache_ttl_seconds, max_redirects, https_only, "
                     "private_hosts_allowed, custom_ca_bundle}, tools: [{name, enabled}]}. Never a secret.",
             costs="None.", side_effects=NO_SIDE_EFFECTS, limits="None.",
             params=NoParams, run=_capability_profile, read_only=True),
]
