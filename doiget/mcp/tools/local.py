"""The local-library MCP tools: info, search, recent, PDF path, tags, annotation, health, profile."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from doiget import __version__, limits
from doiget.library import health_report, network_policy
from doiget.mcp.tools.paging import MAX_WINDOW, Cursor, decode, page, scope_of, window_size
from doiget.present import entry_dict, to_json
from doiget.mcp.tools.spec import (LOCAL_COSTS, NO_SIDE_EFFECTS, LibraryAccess, NoParams, Params, RefArg, RefParams,
                               TagName, ToolSpec, Year)

# ---- parameter models ---------------------------------------------------------------------
class SearchLocalParams(Params):
    query: Annotated[str, Field(min_length=1, max_length=1000, description='words, "phrase", prefix*, AND/OR/NOT, '
                                                                       'column:term (title, authors, venue, year, tags, ...)')]
    limit: Annotated[int, Field(ge=1, le=limits.MAX_SEARCH_HITS, description="hits per page")] = 10
    cursor: Cursor = None
    year_from: Year | None = None
    year_to: Year | None = None
    tag: TagName | None = None
    collection: TagName | None = None
    has_pdf: bool | None = None
    include_fulltext: Annotated[bool, Field(description="also search the papers' text")] = False


class RecentParams(Params):
    n: Annotated[int, Field(ge=1, le=limits.MAX_RECENT, description="entries per page")] = 10
    cursor: Cursor = None


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


_WRITE_COSTS = "Local write; ms."


# ---- handlers -----------------------------------------------------------------------------
def _info(lib: LibraryAccess, p: RefParams) -> dict[str, Any]:
    return {"entry": entry_dict(lib.get().info(p.ref))}


def _search_local(lib: LibraryAccess, p: SearchLocalParams) -> dict[str, Any]:
    scope = scope_of(p)
    offset = decode(p.cursor, scope)
    window = lib.get().search(p.query, window_size(offset, p.limit), year_from=p.year_from, year_to=p.year_to,
                              tag=p.tag, collection=p.collection, has_pdf=p.has_pdf,
                              include_fulltext=p.include_fulltext)
    hits, next_cursor = page([h.model_dump(mode="json") for h in window], offset, p.limit, scope)
    return {"count": len(hits), "hits": hits, "next_cursor": next_cursor}


def _recent(lib: LibraryAccess, p: RecentParams) -> dict[str, Any]:
    scope = scope_of(p)
    offset = decode(p.cursor, scope)
    window = [entry_dict(e) for e in lib.get().recent(window_size(offset, p.n))]
    entries, next_cursor = page(window, offset, p.n, scope)
    return {"count": len(entries), "entries": entries, "next_cursor": next_cursor}


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
    report = to_json(health_report(lib.config))
    return {"version": __version__, "schema_version": report["schema_head"],
            "store_writable": store_writable(lib.config.home), "health": report}


def store_writable(home: Path) -> bool:
    """Best-effort: can this process write the store (or create it in the nearest existing ancestor)?
    Probes permissions only; creates nothing."""
    target = home / "library.sqlite3"
    if target.exists():
        return os.access(target, os.W_OK) and os.access(home, os.W_OK)
    ancestor = home
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    return ancestor.is_dir() and os.access(ancestor, os.W_OK | os.X_OK)


def _capability_profile(lib: LibraryAccess, _p: NoParams) -> dict[str, Any]:
    config = lib.config
    from doiget.mcp.tools import TOOLS

    tools = [{"name": spec.name, "enabled": spec.enabled(config)} for spec in TOOLS.values()]
    policy = network_policy()
    metadata = [s["name"] for s in policy["sources"] if not s["name"].endswith("_pdf")]
    return {"oa_enabled": config.network_enabled, "metadata_sources": metadata if config.network_enabled else [],
            "tdm_enabled": False, "tdm_elsevier": False, "tdm_aps": False, "tdm_springer": False,
            "rate_limit_per_sec": policy["rate_limits"]["global_requests_per_second"],
            "profile": config.profile, "network": config.network_enabled, "write": config.write_enabled,
            "contact_email_configured": config.contact_email is not None,
            "network_policy": network_policy() if config.network_enabled else None, "tools": tools}


LOCAL_TOOLS: list[ToolSpec] = [
    ToolSpec("doiget_info", "Entry details", "Full stored metadata of one paper in the local library.",
             when="You want what the library holds on a paper.",
             outputs=("{ok, entry{id, ref, ids, title, authors[], year, venue, tags[], annotation, has_pdf, "
                      "artefacts[], updates[], ...}}."),
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits="One entry per call.",
             params=RefParams, run=_info, read_only=True),
    ToolSpec("doiget_search_local", "Search the library", "Ranked search over the metadata of papers in the "
             "local library (title, abstract, authors, venue, year, tags, notes).",
             when="Finding papers in the library by topic, author, tag or notes.",
             outputs=("{ok, count, hits[{id, ref, title, authors, year, venue, tags, has_pdf, score, snippet, "
                      "update_status, fulltext}], next_cursor}."),
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits=f"100 hits per page; pages reach {MAX_WINDOW}.",
             params=SearchLocalParams, run=_search_local, read_only=True),
    ToolSpec("doiget_list_recent", "Recently added", "The papers most recently added to the library.",
             when="Seeing what was fetched or imported lately.",
             outputs="{ok, count, entries[], next_cursor}, newest first.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits=f"100 per page; pages reach {MAX_WINDOW}.",
             params=RecentParams, run=_recent, read_only=True),
    ToolSpec("doiget_paper_pdf_path", "PDF location", "The local file path of a paper's stored PDF.",
             when="You need a stored paper's PDF file.",
             outputs="{ok, ref, has_pdf, pdf_path (null without PDF)}.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits="A path on the server's machine.",
             params=RefParams, run=_pdf_path, read_only=True),
    ToolSpec("doiget_tag", "Tag and file", "Add or remove tags on a paper and put it in or take it out of "
             "collections.",
             when="Organising the library: labelling papers, grouping them for a project.",
             outputs="{ok, ref, tags[], collections[]}.",
             costs=_WRITE_COSTS,
             side_effects="Creates missing tags/collections; remove* takes them away (destructive).",
             limits="50 tags, 20 collections per call.",
             params=TagParams, run=_tag, read_only=False, destructive=True),
    ToolSpec("doiget_annotate", "Annotate", "Set or clear the one free-form annotation of a paper.",
             when="Recording why a paper matters; the text becomes searchable.",
             outputs="{ok, ref, annotation (null after clearing)}.",
             costs=_WRITE_COSTS,
             side_effects="Replaces or clears the annotation (destructive).",
             limits="100,000 characters.",
             params=AnnotateParams, run=_annotate, read_only=False, destructive=True),
    ToolSpec("doiget_health", "Health", "Where the library lives, its schema revision and row counts.",
             when="Checking set-up or diagnosing problems.",
             outputs="{ok, version, schema_version, store_writable, health{home, exists, revision, counts, status}}.",
             costs=LOCAL_COSTS,
             side_effects="None; creates nothing.",
             limits="None.", params=NoParams, run=_health, read_only=True),
    ToolSpec("doiget_capability_profile", "Capabilities", "What this server may do: profile, network and "
             "write access, the network rules in force, and which tools are enabled.",
             when="Before planning work that needs the network or writes to the library.",
             outputs=("{ok, oa_enabled, metadata_sources[], tdm_enabled, tdm_elsevier, tdm_aps, tdm_springer, "
                      "rate_limit_per_sec, profile, network_policy, tools[]}."),
             costs="None.", side_effects=NO_SIDE_EFFECTS, limits="None.",
             params=NoParams, run=_capability_profile, read_only=True),
]
