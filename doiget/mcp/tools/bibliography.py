"""The bibliography MCP tools: export (BibTeX, CSL-JSON, RIS), import, citation strings, notes,
collections."""
from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field

from doiget import limits
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
# Every record of these exports starts a line this way, and no other line does.
_RECORD_START = {"bibtex": re.compile(r"^@", re.MULTILINE), "ris": re.compile(r"^TY  - ", re.MULTILINE)}
Citation = Annotated[str, Field(min_length=1, max_length=limits.MAX_CITATION, description="a reference as it appears in a "
                                                                           "reference list")]
NoteId = Annotated[int, Field(ge=1, description="the note's id")]
IsoDate = Annotated[str, Field(min_length=10, max_length=40, description="ISO 8601 date or datetime (UTC if no "
                                                                          "zone)")]


# ---- parameter models ---------------------------------------------------------------------
class ExportParams(Params):
    refs: Annotated[list[RefArg] | None, Field(max_length=500, description="these entries")] = None
    tag: TagName | None = None
    collection: TagName | None = None
    query: Annotated[str | None, Field(min_length=1, max_length=1000, description="search query (as "
                                       "doiget_search_local); its best 100 hits")] = None


class CiteParams(Params):
    refs: Annotated[list[RefArg], Field(min_length=1, max_length=500, description="the entries to cite")]
    # Bundled styles only: a tool never reads a path on the server (the CLI and API take .csl files).
    style: Annotated[Literal["apa", "vancouver", "nature", "ieee", "mla", "ama", "harvard"],
                     Field(max_length=9, description="citation style")] = "apa"
    format: Annotated[Literal["text", "html"], Field(max_length=4)] = "text"


class ImportParams(Params):
    content: Annotated[str, Field(min_length=1, max_length=MAX_IMPORT_CHARS,
                                  description="the bibliography file's text (CSL-JSON, BibTeX or RIS), not a path")]
    format: Annotated[Literal["auto", "csl-json", "bibtex", "ris"], Field(max_length=8)] = "auto"
    overwrite: Annotated[bool, Field(description="replace fields an entry already has; default false: only "
                                     "empty fields are filled and differences are reported as conflicts")] = False
    tags: Annotated[list[TagName], Field(max_length=20, description="tags for every imported entry")] = []


class ResolveParams(Params):
    citation: Citation
    limit: Annotated[int, Field(ge=1, le=limits.MAX_CITATION_CANDIDATES)] = 5


class BatchResolveParams(Params):
    citations: Annotated[list[Citation], Field(min_length=1, max_length=limits.MAX_CITATIONS)]
    limit: Annotated[int, Field(ge=1, le=limits.MAX_CITATION_CANDIDATES, description="candidates per citation")] = 3


NoteTags = Annotated[list[TagName], Field(max_length=50)]
Anchors = Annotated[list[Anchor], Field(max_length=50, description="places in the paper: page, start/end "
                                        "character offsets of its extracted text, quoted passage")]
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
    keyword: Annotated[str | None, Field(min_length=1, max_length=1000, description="full-text query over note "
                                         "bodies (words, \"phrases\", prefix*, AND/OR/NOT)")] = None
    ref: RefArg | None = None
    tag: TagName | None = None
    since: IsoDate | None = None
    until: IsoDate | None = None
    limit: Annotated[int, Field(ge=1, le=limits.MAX_NOTE_HITS)] = 20
    offset: Annotated[int, Field(ge=0, le=limits.MAX_NOTE_OFFSET)] = 0


# ---- handlers -----------------------------------------------------------------------------
def _exporter(format: str):
    def run(lib: LibraryAccess, p: ExportParams) -> dict[str, Any]:
        result = lib.get().export(format, refs=p.refs, tag=p.tag, collection=p.collection, query=p.query)
        if isinstance(result, list):
            return {"format": format, "count": len(result), "items": result}
        return {"format": format, "count": len(_RECORD_START[format].findall(result)), "text": result}
    return run


def _import(lib: LibraryAccess, p: ImportParams) -> dict[str, Any]:
    result = lib.get().import_bibliography(p.content, p.format, tags=p.tags, overwrite=p.overwrite)
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
    page = lib.get().note_search(p.keyword, p.ref, p.tag, p.since, p.until, p.limit, p.offset)
    return {"count": len(page["notes"]), **page}


def _note_export(lib: LibraryAccess, p: NoteIdParams) -> dict[str, Any]:
    return {"id": p.id, "markdown": lib.get().note_export(p.id)}


def _list_collections(lib: LibraryAccess, _p: NoParams) -> dict[str, Any]:
    library = lib.get()
    return {"collections": library.collections(), "tags": library.tags()}


# ---- the table ----------------------------------------------------------------------------
_SELECTION = ("Selects by refs, tag, collection and/or query (all given must match; none = the whole "
              "library); stub entries (known only as citations) are left out.")
_EXPORT_LIMITS = "At most 500 refs, 100 query hits; a result over 200,000 characters is refused: select less."
_NOTE_WRITE_COSTS = "Local SQLite write; milliseconds; no network."
_NOTE_OUTPUT = "{ok, note: {id, entry (ref or null), entry_id, entry_title, body, author, anchors[], tags[], " \
               "created_at, updated_at}}"


def _export_tool(name: str, format: str, title: str, what: str, outputs: str) -> ToolSpec:
    return ToolSpec(name, title, f"Export library entries as {what}.",
                    when=f"You need {what} for the user's writing tools. {_SELECTION}",
                    outputs=outputs + " NOT_FOUND for an unknown ref or collection.",
                    costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits=_EXPORT_LIMITS,
                    params=ExportParams, run=_exporter(format), read_only=True)


BIBLIOGRAPHY_TOOLS: list[ToolSpec] = [
    _export_tool("doiget_bibtex_export", "bibtex", "BibTeX export", "BibTeX (.bib for LaTeX/biber)",
                 "{ok, format, count, text}: one @article/@inproceedings/@misc... per entry, keys authorYEARword "
                 "(deduplicated with a, b, ...), LaTeX-escaped."),
    _export_tool("doiget_csl_export", "csl-json", "CSL-JSON export", "CSL-JSON (pandoc, Zotero, citeproc)",
                 "{ok, format, count, items: [CSL-JSON item, ...]} with id = citation-key."),
    _export_tool("doiget_ris_export", "ris", "RIS export", "RIS (EndNote, Mendeley, reference databases)",
                 "{ok, format, count, text}: TY ... ER records."),
    ToolSpec("doiget_cite", "Formatted references",
             "Format library entries as references in a citation style (APA, Vancouver, Nature, IEEE, MLA, "
             "AMA, Harvard).",
             when="The user wants a reference list or a citation to paste into their writing.",
             outputs="{ok, style, format, references: [one string per entry, in the style's order]}; NOT_FOUND "
                     "for a ref not in the library, INVALID_INPUT for an unknown style.",
             costs="Local read and citeproc formatting; well under a second for 100 refs; no network.",
             side_effects=NO_SIDE_EFFECTS, limits="At most 500 refs.",
             params=CiteParams, run=lambda lib, p: lib.get().cite(p.refs, p.style, p.format), read_only=True),
    ToolSpec("doiget_batch_from_bibliography", "Import a bibliography",
             "Add every record of a CSL-JSON, BibTeX or RIS bibliography (Zotero, Mendeley, Better BibTeX, "
             "EndNote export) to the library.",
             when="The user hands over an exported bibliography, to bring their references into the library.",
             outputs="{ok, records, added, merged, skipped, conflicts, entries, seconds, records_per_second, "
                     "report: [{index, key, citekey, status added/merged/skipped, id, ref, reason, matched {id, "
                     "entry_title, record_title}, conflicts, overwritten, problems}] (non-added rows first), "
                     "report_truncated, fetchable: [refs with an id and no PDF yet], fetchable_total}; "
                     "INVALID_INPUT when the text is not a bibliography.",
             costs="Parses and writes locally; about 3,000 records per second; no network.",
             side_effects="Creates entries and tags; a record that is the same work as an entry (same DOI, or "
                          "a shared id and agreeing titles) fills that entry's empty fields and reports the "
                          "fields that differ; with overwrite=true it replaces them. Re-importing the same "
                          "file adds nothing.",
             limits=f"Content at most {MAX_IMPORT_CHARS:,} characters, passed as text (never a server path); "
                    f"report cut at {MAX_REPORT_ROWS} rows, fetchable at {MAX_FETCHABLE}.",
             params=ImportParams, run=_import, read_only=False, destructive=True),
    ToolSpec("doiget_resolve_citation", "Resolve a citation",
             "Find the DOI of a free-form reference string: ranked candidate works with confidence.",
             when="You have a reference as printed in a paper ('Makris EA et al. (2014) ... PNAS') and need the "
                  "work's identifier, or want to know whether the library already has it.",
             outputs="{ok, citation, answered_from library/crossref, candidates: [{doi, ref, id, title, year, venue, "
                     "authors, score 0.5-1, confidence exact/probable/weak, matched [title, author, year, venue, "
                     "doi], in_library}], note?}; best first; empty when nothing scores 0.5.",
             costs="Local search first; one Crossref query only when the library has no exact or probable match.",
             side_effects="None: read-only (a Crossref query is logged in provenance and cached).",
             limits="Citation at most 2000 characters; at most 20 candidates; offline profiles answer from the "
                    "library only, with a note.",
             params=ResolveParams, run=_resolve, read_only=True, open_world=True),
    ToolSpec("doiget_batch_resolve_citations", "Resolve citations",
             "doiget_resolve_citation for a list of reference strings (e.g. a paper's reference list).",
             when="Resolving many references at once.",
             outputs="{ok, results: [one doiget_resolve_citation answer per citation, in order; a failed one has "
                     "{citation, error: {code, message}} instead]}.",
             costs="Up to one Crossref query per citation the library cannot answer (rate-limited politely).",
             side_effects="None: read-only.",
             limits="At most 50 citations per call.",
             params=BatchResolveParams, run=_batch_resolve, read_only=True, open_world=True),
    ToolSpec("doiget_note_create", "Create a note",
             "Write a note about a paper (or a free-standing one), anchored to pages, text ranges or quotes.",
             when="Recording a finding, a quote or a question while reading; unlike doiget_annotate a paper can "
                  "have many notes.",
             outputs=_NOTE_OUTPUT + "; NOT_FOUND if ref is not in the library.",
             costs=_NOTE_WRITE_COSTS, side_effects="Creates a note (and missing tags); the body becomes "
                                                   "searchable, also via doiget_search_local.",
             limits="Body at most 100,000 characters; 50 anchors (quote at most 2000 characters); 50 tags.",
             params=NoteCreateParams, run=_note_create, read_only=False, idempotent=False),
    ToolSpec("doiget_note_read", "Read a note", "One note with its anchors and tags.",
             when="You have a note id (from doiget_note_search or doiget_note_create).",
             outputs=_NOTE_OUTPUT + "; NOT_FOUND for an unknown id.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits="One note per call.",
             params=NoteIdParams, run=_note_read, read_only=True),
    ToolSpec("doiget_note_update", "Update a note", "Replace a note's body, anchors or tags (only those given).",
             when="Correcting or extending a note.",
             outputs=_NOTE_OUTPUT + " after the change; NOT_FOUND for an unknown id.",
             costs=_NOTE_WRITE_COSTS, side_effects="Overwrites the given fields; updated_at changes.",
             limits="Same bounds as doiget_note_create.",
             params=NoteUpdateParams, run=_note_update, read_only=False),
    ToolSpec("doiget_note_delete", "Delete a note", "Delete one note for good.",
             when="A note is wrong or no longer wanted.",
             outputs="{ok, deleted: id}; NOT_FOUND for an unknown id.",
             costs=_NOTE_WRITE_COSTS, side_effects="Removes the note and its tag links; cannot be undone.",
             limits="One note per call; the paper's annotation (doiget_annotate) is not a note.",
             params=NoteIdParams, run=_note_delete, read_only=False, destructive=True),
    ToolSpec("doiget_note_search", "Search notes",
             "Notes by keyword (ranked full text), paper, tag or creation date; newest first without a keyword.",
             when="Finding what was noted about a topic or a paper.",
             outputs="{ok, count, notes: [note, ...], next_offset (null on the last page)}; INVALID_QUERY for "
                     "malformed keyword syntax.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits="At most 100 notes per page; page on with offset = next_offset.",
             params=NoteSearchParams, run=_note_search, read_only=True),
    ToolSpec("doiget_note_export", "Export a note", "A note as Markdown with YAML front matter (id, entry, "
             "entry_title, tags, author, anchors, timestamps).",
             when="Handing a note to Obsidian, a static site or the user as a file they save themselves.",
             outputs="{ok, id, markdown}; NOT_FOUND for an unknown id.",
             costs=LOCAL_COSTS, side_effects="None: the text is returned, nothing is written on the server.",
             limits="One note per call.",
             params=NoteIdParams, run=_note_export, read_only=True),
    ToolSpec("doiget_list_collections", "Collections and tags", "Every collection and every tag of the library "
             "with how many entries each holds.",
             when="Seeing how the library is organised before filtering a search or an export by tag or collection.",
             outputs="{ok, collections: [{name, description, count, created_at}], tags: [{name, count}]}.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS, limits="None.",
             params=NoParams, run=_list_collections, read_only=True),
]
