"""The MCP tool table: one ``ToolSpec`` per ``doiget_*`` tool, each calling one Library method.

Each tool's input model forbids unknown fields and bounds every string and list; its JSON
Schema (the MCP inputSchema) is generated from that model, and so is the INPUTS section of its
description, so the schema, the validation and the docs cannot disagree.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from doiget.config import Config
from doiget.library import Library
from doiget.store.health import health_report

MAX_REF = 1000
RefArg = Annotated[str, Field(min_length=1, max_length=MAX_REF,
                              description="DOI, arXiv id, PMID, PMCID or OpenAlex W id (bare, prefixed or as URL)")]
TagName = Annotated[str, Field(min_length=1, max_length=100)]
Year = Annotated[int, Field(ge=0, le=3000)]


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class LibraryAccess(Protocol):
    config: Config

    def get(self) -> Library: ...


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    summary: str
    when: str
    outputs: str
    costs: str
    side_effects: str
    limits: str
    params: type[Params]
    run: Callable[[LibraryAccess, Any], dict[str, Any]]
    read_only: bool
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False

    def input_schema(self) -> dict[str, Any]:
        schema = self.params.model_json_schema()
        schema.pop("title", None)
        schema["additionalProperties"] = False
        return schema

    def inputs_text(self) -> str:
        props = self.input_schema().get("properties", {})
        required = set(self.input_schema().get("required", []))
        if not props:
            return "none."
        lines = []
        for name, prop in props.items():
            kind = prop.get("type") or "/".join(p.get("type", "?") for p in prop.get("anyOf", []))
            note = prop.get("description", "")
            default = "" if name in required else f" (optional, default {json.dumps(prop.get('default'))})"
            lines.append(f"{name}: {kind}{default}{' — ' + note if note else ''}")
        return "; ".join(lines) + "."

    def description(self) -> str:
        return (f"{self.summary}\n\nWHEN TO USE: {self.when}\nINPUTS: {self.inputs_text()}\n"
                f"OUTPUTS: {self.outputs}\nCOSTS: {self.costs}\nSIDE EFFECTS: {self.side_effects}\n"
                f"LIMITS: {self.limits}")


def _entry(entry) -> dict[str, Any]:
    return entry.model_dump(mode="json", exclude_none=True)


# ---- parameter models ---------------------------------------------------------------------
class RefParams(Params):
    ref: RefArg


class SearchLocalParams(Params):
    query: Annotated[str, Field(min_length=1, max_length=1000, description=(
        'words (all must match), "exact phrase", prefix*, AND/OR/NOT, (groups), column:term '
        "with columns title, abstract, authors, venue, year, tags, notes"))]
    limit: Annotated[int, Field(ge=1, le=100)] = 10
    year_from: Year | None = None
    year_to: Year | None = None
    tag: TagName | None = None
    collection: TagName | None = None
    has_pdf: bool | None = None


class RecentParams(Params):
    n: Annotated[int, Field(ge=1, le=100, description="how many entries")] = 10


class TagParams(Params):
    ref: RefArg
    add: Annotated[list[TagName], Field(max_length=50, description="tags to add")] = []
    remove: Annotated[list[TagName], Field(max_length=50, description="tags to remove")] = []
    add_to_collections: Annotated[list[TagName], Field(max_length=20)] = []
    remove_from_collections: Annotated[list[TagName], Field(max_length=20)] = []


class AnnotateParams(Params):
    ref: RefArg
    text: Annotated[str | None, Field(max_length=100_000,
                                      description="the annotation; empty or null clears it")] = None


class NoParams(Params):
    pass


# ---- handlers -----------------------------------------------------------------------------
def _info(lib: LibraryAccess, p: RefParams) -> dict[str, Any]:
    return {"entry": _entry(lib.get().info(p.ref))}


def _search_local(lib: LibraryAccess, p: SearchLocalParams) -> dict[str, Any]:
    hits = lib.get().search(p.query, p.limit, year_from=p.year_from, year_to=p.year_to, tag=p.tag,
                            collection=p.collection, has_pdf=p.has_pdf)
    return {"count": len(hits), "hits": [h.model_dump(mode="json") for h in hits]}


def _recent(lib: LibraryAccess, p: RecentParams) -> dict[str, Any]:
    entries = lib.get().recent(p.n)
    return {"count": len(entries), "entries": [_entry(e) for e in entries]}


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
    return {"ref": str(entry.ref), "tags": entry.tags, "collections": entry.collections}


def _annotate(lib: LibraryAccess, p: AnnotateParams) -> dict[str, Any]:
    return {"ref": p.ref, "annotation": lib.get().annotate(p.ref, p.text)}


def _health(lib: LibraryAccess, _p: NoParams) -> dict[str, Any]:
    return {"health": health_report(lib.config)}


def _capability_profile(lib: LibraryAccess, _p: NoParams) -> dict[str, Any]:
    config = lib.config
    tools = [{"name": spec.name, "enabled": (spec.read_only or config.write_enabled)
              and (not spec.open_world or config.network_enabled)} for spec in TOOLS.values()]
    return {"profile": config.profile, "network": config.network_enabled, "write": config.write_enabled,
            "contact_email_configured": config.contact_email is not None, "tools": tools}


_LOCAL = "Local SQLite read; milliseconds; no network."
_NONE = "None: read-only."

TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in [
    ToolSpec("doiget_info", "Entry details", "Full stored metadata of one paper in the local library.",
             when="You have an identifier and want what the library knows: authors, venue, ids, tags, "
                  "annotation, stored artefacts.",
             outputs="{ok, entry: {id, doi, arxiv, ..., title, authors[], year, tags[], collections[], annotation, "
                     "has_pdf, artefacts[]}}; NOT_FOUND if the paper is not in the library.",
             costs=_LOCAL, side_effects=_NONE, limits="One entry per call.",
             params=RefParams, run=_info, read_only=True),
    ToolSpec("doiget_search_local", "Search the library", "Ranked search over the metadata of papers in the "
             "local library (title, abstract, authors, venue, year, tags, notes).",
             when="Finding papers you already have, by topic, author, tag or note text. For papers not yet in "
                  "the library use a remote search tool.",
             outputs="{ok, count, hits: [{id, ref, title, authors, year, venue, tags, has_pdf, score (bm25, "
                     "lower is better), snippet with **highlights**}]}, best first; INVALID_QUERY for malformed "
                     "query syntax.",
             costs=_LOCAL, side_effects=_NONE, limits="At most 100 hits per call; query at most 1000 characters.",
             params=SearchLocalParams, run=_search_local, read_only=True),
    ToolSpec("doiget_list_recent", "Recently added", "The papers most recently added to the library.",
             when="Seeing what was fetched or imported lately.",
             outputs="{ok, count, entries: [entry, ...]} newest first.",
             costs=_LOCAL, side_effects=_NONE, limits="At most 100 entries.",
             params=RecentParams, run=_recent, read_only=True),
    ToolSpec("doiget_paper_pdf_path", "PDF location", "The local file path of a paper's stored PDF.",
             when="You need to open or hand over the PDF file of a paper already in the library.",
             outputs="{ok, ref, has_pdf, pdf_path (null when no PDF is stored)}; NOT_FOUND if not in library.",
             costs=_LOCAL, side_effects=_NONE, limits="Paths are on the server's machine.",
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
             "write access, and which tools are enabled.",
             when="Before planning work that needs the network or writes to the library.",
             outputs="{ok, profile, network, write, contact_email_configured, tools: [{name, enabled}]}.",
             costs="None.", side_effects=_NONE, limits="None.",
             params=NoParams, run=_capability_profile, read_only=True),
]}


def tools_markdown() -> str:
    """docs/MCP_TOOLS.md, generated from this table (``python scripts/gen_docs.py`` rewrites it)."""
    lines = ["# MCP tools", "", "Generated from `doiget/mcp_tools.py` by `python scripts/gen_docs.py`; a test fails "
             "when this file and the live tool table disagree.", "",
             "Every tool answers `{ok: true, ...}` or `{ok: false, error: {code, message}}` (codes: "
             "[ERRORS.md](ERRORS.md)), as structuredContent and as a JSON text copy.", ""]
    for spec in TOOLS.values():
        hints = [name for name, on in (("read-only", spec.read_only), ("destructive", spec.destructive),
                                       ("idempotent", spec.idempotent), ("open-world", spec.open_world)) if on]
        lines += [f"## `{spec.name}` — {spec.title}", "", f"_{', '.join(hints) or 'writes'}_", "", spec.summary, ""]
        for label, body in (("When to use", spec.when), ("Inputs", spec.inputs_text()), ("Outputs", spec.outputs),
                            ("Costs", spec.costs), ("Side effects", spec.side_effects), ("Limits", spec.limits)):
            lines.append(f"- **{label}:** {body}")
        lines += ["", "<details><summary>inputSchema</summary>", "", "```json",
                  json.dumps(spec.input_schema(), indent=2), "```", "", "</details>", ""]
    return "\n".join(lines)
