"""The bibliography MCP tools: export (BibTeX, CSL-JSON, RIS), import, citation strings, notes,
collections."""
from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field

from doiget import limits
from doiget.present import to_json
from doiget.mcp.tools.paging import Cursor, decode, encode, fitting, page, scope_of
from doiget.models import Anchor
from doiget.mcp.tools.spec import (
    LOCAL_COSTS,
    NO_SIDE_EFFECTS,
    LibraryAccess,
    NoParams,
    Params,
    RefArg,
    TagName,
    ToolSpec,
)

MAX_IMPORT_CHARS = 5_000_000
MAX_REPORT_ROWS = 200
MAX_FETCHABLE = 1000
MAX_EXPORT_PAGE = 500
# Every record of these exports starts a line this way, and no other line does.
_RECORD_START = {"bibtex": re.compile(r"^@", re.MULTILINE), "ris": re.compile(r"^TY  - ", re.MULTILINE)}
Citation = Annotated[str, Field(min_length=1, max_length=limits.MAX_CITATION, description="as printed")]
NoteId = Annotated[int, Field(ge=1)]
IsoDate = Annotated[str, Field(min_length=10, max_length=40, description="ISO 8601 date")]


# ---- parameter models ---------------------------------------------------------------------
class ExportParams(Params):
    refs: Annotated[list[RefArg] | None, Field(max_length=500, description="these entries")] = None
    tag: TagName | None = None
    collection: TagName | None = None
    query: Annotated[str | None, Field(min_length=1, max_length=1000, description="its best 100 hits")] = None
    limit: Annotated[int, Field(ge=1, le=MAX_EXPORT_PAGE, description="records per page")] = MAX_EXPORT_PAGE
    cursor: Cursor = None


class CiteParams(Params):
    refs: Annotated[list[RefArg], Field(min_length=1, max_length=500, description="the entries to cite")]
    # Bundled styles only: a tool never reads a path on the server (the CLI and API take .csl files).
    style: Annotated[Literal["apa", "vancouver", "nature", "ieee", "mla", "ama", "harvard"],
                     Field(max_length=9, description="citation style")] = "apa"
    format: Annotated[Literal["text", "html"], Field(max_length=4)] = "text"


class ImportParams(Params):
    content: Annotated[str, Field(min_length=1, max_length=MAX_IMPORT_CHARS,
                                  description="the file's text")]
    format: Annotated[Literal["auto", "csl-json", "bibtex", "ris"], Field(max_length=8)] = "auto"
    overwrite: Annotated[bool, Field(description="replace fields an entry has")] = False
    tags: Annotated[list[TagName], Field(max_length=20, description="tags for every imported entry")] = []


class ResolveParams(Params):
    citation: Citation
    limit: Annotated[int, Field(ge=1, le=limits.MAX_CITATION_CANDIDATES)] = 5


class BatchResolveParams(Params):
    citations: Annotated[list[Citation], Field(min_length=1, max_length=limits.MAX_CITATIONS)]
    limit: Annotated[int, Field(ge=1, le=limits.MAX_CITATION_CANDIDATES, description="candidates per citation")] = 3


NoteTags = Annotated[list[TagName], Field(max_length=50)]
Anchors = Annotated[list[Anchor], Field(max_length=50, description="page, start/end text offsets, quote")]
NoteBody = Annotated[str, Field(min_length=1, max_length=limits.MAX_NOTE_BODY, description="Markdown text")]


class NoteCreateParams(Params):
    body: NoteBody
    ref: RefArg | None = None
    anchors: Anchors = []
    tags: NoteTags = []
    author: Annotated[str | None, Field(max_length=200)] = None


class NoteIdParams(Params):
    id: NoteId


class NoteUpdateParams(Params):
    id: NoteId
    body: NoteBody | None = None
    anchors: Anchors | None = None
    tags: NoteTags | None = None


class NoteSearchParams(Params):
    keyword: Annotated[str | None, Field(min_length=1, max_length=1000, description="full-text query")] = None
    ref: RefArg | None = None
    tag: TagName | None = None
    since: IsoDate | None = None
    until: IsoDate | None = None
    limit: Annotated[int, Field(ge=1, le=limits.MAX_NOTE_HITS, description="notes per page")] = 20
    cursor: Cursor = None


# ---- handlers -----------------------------------------------------------------------------
def _exporter(format: str):
    def run(lib: LibraryAccess, p: ExportParams) -> dict[str, Any]:
        exported = lib.get().export_result(format, refs=p.refs, tag=p.tag, collection=p.collection, query=p.query)
        result = exported.output
        records = result if isinstance(result, list) else _records(result, format)
        scope = scope_of(p)
        shown, next_cursor = page(records, decode(p.cursor, scope), p.limit, scope,
                                  size=None if isinstance(result, list) else len)
        body = {"items": shown} if isinstance(result, list) else {"text": "".join(shown)}
        gaps = {"not_carried": exported.not_carried_json()} if format != "csl-json" else {}
        return {"format": format, "count": len(shown), "total": len(records), **body, "next_cursor": next_cursor,
                **gaps}
    return run


def _records(text: str, format: str) -> list[str]:
    """An exported text cut into its records (each with the blank lines that follow it)."""
    starts = [m.start() for m in _RECORD_START[format].finditer(text)]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])]


def _import(lib: LibraryAccess, p: ImportParams) -> dict[str, Any]:
    result = to_json(lib.get().import_bibliography(p.content, p.format, tags=p.tags, overwrite=p.overwrite))
    report, fetchable = result.pop("report"), result.pop("fetchable")
    # Rows that need attention first: a long import's added rows matter least.
    report.sort(key=lambda row: (row["status"] == "added", row["index"]))
    return {**result, "report": report[:MAX_REPORT_ROWS], "report_truncated": len(report) > MAX_REPORT_ROWS,
            "fetchable": fetchable[:MAX_FETCHABLE], "fetchable_total": len(fetchable)}


def _resolve(lib: LibraryAccess, p: ResolveParams) -> dict[str, Any]:
    return lib.get().resolve_citation(p.citation, p.limit)


def _batch_resolve(lib: LibraryAccess, p: BatchResolveParams) -> dict[str, Any]:
    return {"results": lib.get().resolve_citations(p.citations, p.limit)}


def _anchors(anchors: list[Anchor] | None) -> list[dict[str, Any]] | None:
    return None if anchors is None else [a.model_dump(exclude_none=True) for a in anchors]


def _note_create(lib: LibraryAccess, p: NoteCreateParams) -> dict[str, Any]:
    return {"note": lib.get().note_create(p.body, p.ref, _anchors(p.anchors), p.tags, p.author)}


def _note_read(lib: LibraryAccess, p: NoteIdParams) -> dict[str, Any]:
    return {"note": lib.get().note_read(p.id)}


def _note_update(lib: LibraryAccess, p: NoteUpdateParams) -> dict[str, Any]:
    return {"note": lib.get().note_update(p.id, p.body, _anchors(p.anchors), p.tags)}


def _note_delete(lib: LibraryAccess, p: NoteIdParams) -> dict[str, Any]:
    return lib.get().note_delete(p.id)


def _note_search(lib: LibraryAccess, p: NoteSearchParams) -> dict[str, Any]:
    scope = scope_of(p)
    offset = decode(p.cursor, scope)
    found = to_json(lib.get().note_search(p.keyword, p.ref, p.tag, p.since, p.until, p.limit, offset))
    notes = found["notes"][:fitting(found["notes"])]
    more = found["next_offset"] is not None or len(notes) < len(found["notes"])
    return {"count": len(notes), "notes": notes, "next_cursor": encode(offset + len(notes), scope) if more else None}


def _note_export(lib: LibraryAccess, p: NoteIdParams) -> dict[str, Any]:
    return {"id": p.id, "markdown": lib.get().note_export(p.id)}


def _list_collections(lib: LibraryAccess, _p: NoParams) -> dict[str, Any]:
    library = lib.get()
    return {"collections": library.collections(), "tags": library.tags()}


# ---- the table ----------------------------------------------------------------------------
_SELECTION = "Selectors combine; none: all."
_EXPORT_LIMITS = "500 refs; `limit` per page: follow next_cursor."
_NOTE_WRITE_COSTS = "Local write; ms."
_NOTE_OUTPUT = "{ok, note: {id, entry, entry_id, entry_title, body, author, anchors[], tags[], created_at, updated_at}}"


def _export_tool(name: str, format: str, title: str, what: str, outputs: str) -> ToolSpec:
    return ToolSpec(name, title, f"Export library entries as {what}.",
                    when=f"You need {what}. {_SELECTION}",
                    outputs=outputs,
                    costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits=_EXPORT_LIMITS,
                    params=ExportParams, run=_exporter(format), read_only=True)


BIBLIOGRAPHY_TOOLS: list[ToolSpec] = [
    _export_tool("doiget_bibtex_export", "bibtex", "BibTeX export", "BibTeX",
                 "{ok, format, count, total, text, next_cursor, not_carried[]}; keys authorYEARword, unique."),
    _export_tool("doiget_csl_export", "csl-json", "CSL-JSON export", "CSL-JSON",
                 "{ok, format, count, total, items[], next_cursor}; id = citation key."),
    _export_tool("doiget_ris_export", "ris", "RIS export", "RIS",
                 "{ok, format, count, total, text, next_cursor, not_carried[]}."),
    ToolSpec("doiget_cite", "Formatted references",
             "Format library entries as references in a citation style (APA, Vancouver, Nature, IEEE, MLA, "
             "AMA, Harvard).",
             when="The user needs formatted references.",
             outputs="{ok, style, format, references[], warnings[]}.",
             costs=LOCAL_COSTS,
             side_effects=NO_SIDE_EFFECTS, limits="500 refs.",
             params=CiteParams, run=lambda lib, p: lib.get().cite(p.refs, p.style, p.format), read_only=True),
    ToolSpec("doiget_batch_from_bibliography", "Import a bibliography",
             "Add every record of a CSL-JSON, BibTeX or RIS bibliography (Zotero, Mendeley, Better BibTeX, "
             "EndNote export) to the library.",
             when="The user gives you an exported bibliography.",
             outputs="{ok, records, added, merged, skipped, conflicts, report[], fetchable[], ...}.",
             costs="Local; about 3,000 records/s; no network.",
             side_effects=("Creates entries and tags; a matching entry gets its empty fields filled, differences "
                           "reported; overwrite=true replaces them (destructive)."),
             limits=f"{MAX_IMPORT_CHARS:,} characters (never a path); report {MAX_REPORT_ROWS} rows.",
             params=ImportParams, run=_import, read_only=False, destructive=True),
    ToolSpec("doiget_resolve_citation", "Resolve a citation",
             "Find the DOI of a free-form reference string: ranked candidate works with confidence.",
             when="You have a reference as printed and need its DOI, or whether the library has it.",
             outputs=("{ok, citation, answered_from, candidates[{doi, ref, title, year, authors, score (share of "
                      "tokens found), confidence exact/probable/weak, matched, in_library}]}."),
             costs="Library first; one Crossref query unless it holds an exact or probable match.",
             side_effects="None: nothing stored or logged.",
             limits="2000 characters; 20 candidates; offline: library only.",
             params=ResolveParams, run=_resolve, read_only=True, open_world=True, offline_ok=True),
    ToolSpec("doiget_batch_resolve_citations", "Resolve citations",
             "doiget_resolve_citation for a list of reference strings (e.g. a paper's reference list).",
             when="Resolving many references at once.",
             outputs="{ok, results[doiget_resolve_citation answers, or {citation, error}]}.",
             costs="Up to 1 Crossref query per citation.",
             side_effects="None: read-only; nothing is stored or logged.",
             limits="At most 50 citations per call.",
             params=BatchResolveParams, run=_batch_resolve, read_only=True, open_world=True, offline_ok=True),
    ToolSpec("doiget_note_create", "Create a note",
             "Write a note about a paper (or a free-standing one), anchored to pages, text ranges or quotes.",
             when="Recording a finding, quote or question while reading; a paper can have many notes.",
             outputs=_NOTE_OUTPUT,
             costs=_NOTE_WRITE_COSTS, side_effects="Creates a note (and missing tags); searchable at once.",
             limits="Body 100,000 characters; 50 anchors; 50 tags.",
             params=NoteCreateParams, run=_note_create, read_only=False, idempotent=False),
    ToolSpec("doiget_note_read", "Read a note", "One note with its anchors and tags.",
             when="You have a note id.",
             outputs="{ok, note} as doiget_note_create.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits="One note per call.",
             params=NoteIdParams, run=_note_read, read_only=True),
    ToolSpec("doiget_note_update", "Update a note", "Replace a note's body, anchors or tags (only those given).",
             when="Correcting a note.",
             outputs="{ok, note} after the change.",
             costs=_NOTE_WRITE_COSTS, side_effects="Overwrites the given fields (destructive); updated_at changes.",
             limits="Same bounds as doiget_note_create.",
             params=NoteUpdateParams, run=_note_update, read_only=False, destructive=True),
    ToolSpec("doiget_note_delete", "Delete a note", "Delete one note for good.",
             when="A note is wrong or no longer wanted.",
             outputs="{ok, deleted: id}.",
             costs=_NOTE_WRITE_COSTS, side_effects="Deletes the note for good (destructive).",
             limits="One note per call.",
             params=NoteIdParams, run=_note_delete, read_only=False, destructive=True),
    ToolSpec("doiget_note_search", "Search notes",
             "Notes by keyword (ranked full text), paper, tag or creation date; newest first without a keyword.",
             when="Finding notes on a topic or paper.",
             outputs="{ok, count, notes[], next_cursor}.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits="100 per page.",
             params=NoteSearchParams, run=_note_search, read_only=True),
    ToolSpec("doiget_note_export", "Export a note", "A note as Markdown with YAML front matter (id, entry, "
             "entry_title, tags, author, anchors, timestamps).",
             when="Handing a note over as a Markdown file.",
             outputs="{ok, id, markdown}.",
             costs=LOCAL_COSTS, side_effects="None; nothing written.",
             limits="One note per call.",
             params=NoteIdParams, run=_note_export, read_only=True),
    ToolSpec("doiget_list_collections", "Collections and tags", "Every collection and every tag of the library "
             "with how many entries each holds.",
             when="Seeing how the library is organised.",
             outputs="{ok, collections[{name, description, count, created_at}], tags[{name, count}]}.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits="None.",
             params=NoParams, run=_list_collections, read_only=True),
]
