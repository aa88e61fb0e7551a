"""The full-text MCP tools: read a paper's text, search inside papers, import a PDF, read the LaTeX
source, fetch structured full text. Text results name the ``doiget://`` resources that re-read them."""
from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

from pydantic import Field

from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.mcp.tools.paging import MAX_WINDOW, Cursor, decode, page, scope_of, window_size
from doiget.mcp.tools.resources import DEFAULT_MAX_CHARS, MAX_CHARS, metadata_uri, text_uri
from doiget.present import to_json
from doiget.mcp.tools.spec import (LOCAL_COSTS, NO_SIDE_EFFECTS, LibraryAccess, Params, RefArg, RefParams, TagName,
                               ToolSpec, Year)

MAX_PDF_BYTES = limits.MAX_PDF_BYTES
MAX_PDF_BASE64 = 4 * -(-MAX_PDF_BYTES // 3)  # base64 length of the largest accepted PDF
MaxChars = Annotated[int, Field(ge=1, le=MAX_CHARS, description="at most this many characters of text")]
Offset = Annotated[int, Field(ge=0, le=limits.MAX_OFFSET, description="a next_offset")]


class PaperTextParams(Params):
    ref: RefArg
    format: Annotated[Literal["auto", "html", "jats", "bioc", "pdf", "tex"], Field(
        description="auto: structured text before PDF",
        json_schema_extra={"maxLength": 4})] = "auto"
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS
    page: Annotated[int | None, Field(ge=1, le=limits.MAX_PDF_PAGE, description="PDF page (instead of offset)")] = None


class SearchFulltextParams(Params):
    query: Annotated[str, Field(min_length=1, max_length=1000, description='words, "phrase", prefix*, AND/OR/NOT, heading:term')]
    limit: Annotated[int, Field(ge=1, le=limits.MAX_SEARCH_HITS, description="hits per page")] = 10
    cursor: Cursor = None
    ref: Annotated[str | None, Field(max_length=1000, description="only inside this paper")] = None
    tag: TagName | None = None
    collection: TagName | None = None
    year_from: Year | None = None
    year_to: Year | None = None


class AddPdfParams(Params):
    # The cap is enforced by the handler (TOO_LARGE) on the base64 length, before anything is decoded.
    content_base64: Annotated[str, Field(description="the PDF, base64", json_schema_extra={"maxLength": MAX_PDF_BASE64})]
    ref: Annotated[str | None, Field(max_length=1000, description="the paper, if the PDF does not say")] = None
    format: Annotated[Literal["pdf", "jats"], Field(description="or JATS XML",
                                                    json_schema_extra={"maxLength": 4})] = "pdf"


class TexSourceParams(Params):
    ref: RefArg
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS


def _paper_text(lib: LibraryAccess, p: PaperTextParams) -> dict[str, Any]:
    page = to_json(lib.get().text(p.ref, p.format, p.offset, p.max_chars, p.page))
    page["resource_uri"] = text_uri(page["id"], page["offset"], p.max_chars)
    page["next_uri"] = None if page["next_offset"] is None else text_uri(page["id"], page["next_offset"], p.max_chars)
    return page


def _search_fulltext(lib: LibraryAccess, p: SearchFulltextParams) -> dict[str, Any]:
    scope = scope_of(p)
    offset = decode(p.cursor, scope)
    window = lib.get().search_text(p.query, window_size(offset, p.limit), ref=p.ref, tag=p.tag,
                                   collection=p.collection, year_from=p.year_from, year_to=p.year_to)
    hits, next_cursor = page([{**h.model_dump(mode="json"), "text_uri": text_uri(h.id, h.char_start)}
                              for h in window], offset, p.limit, scope)
    return {"count": len(hits), "hits": hits, "next_cursor": next_cursor}


def _add_pdf(lib: LibraryAccess, p: AddPdfParams) -> dict[str, Any]:
    if len(p.content_base64) > MAX_PDF_BASE64:
        raise DoigetError(ErrorCode.TOO_LARGE, f"PDF larger than {MAX_PDF_BYTES} bytes")
    try:
        data = base64.b64decode(p.content_base64, validate=True)
    except ValueError as exc:  # binascii.Error, or characters outside ASCII
        raise DoigetError(ErrorCode.INVALID_INPUT, f"content_base64 is not valid base64: {exc}") from exc
    library = lib.get()
    result = library.add_jats(data, p.ref) if p.format == "jats" else library.add_pdf(data, p.ref)
    return {**to_json(result), "metadata_uri": metadata_uri(result.entry.id), "text_uri": text_uri(result.entry.id)}


def _tex_source(lib: LibraryAccess, p: TexSourceParams) -> dict[str, Any]:
    return lib.get().tex_source(p.ref, p.max_chars, p.offset)


def _fetch_fulltext(lib: LibraryAccess, p: RefParams) -> dict[str, Any]:
    result = lib.get().fetch_fulltext(p.ref)
    return {**to_json(result), "text_uri": text_uri(result.id)}


FULLTEXT_TOOLS: list[ToolSpec] = [
    ToolSpec("doiget_paper_text", "Read a paper", "One page of a stored paper's full text as sectioned Markdown "
             "(headings # / ## / ###), read from ar5iv HTML, JATS or BioC before the PDF.",
             when="Reading a stored paper by page, offset (a hit's char_start) or PDF page.",
             outputs=("{ok, ref, id, title, format, text, offset, next_offset, total_chars, resource_uri, next_uri, "
                      "...}."),
             costs="Local; first read extracts the file (PDF ~10 ms/page).",
             side_effects=NO_SIDE_EFFECTS, limits=f"{MAX_CHARS:,} characters per call: follow next_offset.", params=PaperTextParams, run=_paper_text,
             read_only=True),
    ToolSpec("doiget_search_fulltext", "Search inside papers", "Ranked passages from the full text of the papers "
             "in the library, each naming the paper, section heading, PDF page and character offset.",
             when="Finding where a method, result or phrase appears inside the papers' text.",
             outputs=("{ok, count, hits[{id, ref, title, heading, page, char_start, score, snippet, text_uri}], "
                      "next_cursor}."),
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits=f"100 per page; pages reach {MAX_WINDOW}.",
             params=SearchFulltextParams, run=_search_fulltext, read_only=True),
    ToolSpec("doiget_add_pdf", "Import a PDF", "Add a PDF you have to the library: it finds the paper's DOI or "
             "arXiv id inside the PDF, resolves its metadata, stores and indexes the file.",
             when="The user gives you a PDF to keep in the library.",
             outputs=("{ok, entry, sha256, duplicate (same bytes already stored), identified_by, resolved, "
                      "metadata_uri, text_uri}."),
             costs="Extracts the PDF (~10 ms/page); one metadata lookup when network is allowed.",
             side_effects=("Stores the file, may create an entry; a resolved entry refreshes stored metadata "
                           "(destructive)."),
             limits=f"{MAX_PDF_BYTES // 2**20} MB, as base64 (never a server path).",
             params=AddPdfParams, run=_add_pdf, read_only=False, destructive=True, open_world=True,
             offline_ok=True),
    ToolSpec("doiget_paper_tex_source", "LaTeX source", "The LaTeX source of an arXiv paper: its main .tex file "
             "(paged) and the list of files in the e-print.",
             when="You need an arXiv paper's exact LaTeX.",
             outputs="{ok, ref, id, main_file, files[{path, chars}], text, offset, next_offset, total_chars, ...}.",
             costs=f"First call downloads the e-print (up to {limits.MAX_TEX_BYTES // limits.MIB} MB); then local.",
             side_effects="Stores and indexes the e-print the first time.",
             limits=f"{MAX_CHARS:,} characters per call; {limits.MAX_TEX_BYTES // limits.MIB} MB / "
                    f"{limits.MAX_TEX_FILES} files.",
             params=TexSourceParams, run=_tex_source, read_only=False, open_world=True, offline_ok=True),
    ToolSpec("doiget_fetch_fulltext", "Fetch structured text", "Download the structured full text of a paper "
             "in the library: ar5iv HTML for arXiv papers, Europe PMC JATS (else PMC BioC) for open-access PMC "
             "papers.",
             when="A stored arXiv or PMC paper has no structured text yet.",
             outputs="{ok, ref, id, stored, alternates[{format, source, status, reason, chunks}], text_uri}.",
             costs="Up to 3 rate-limited requests (ar5iv, Europe PMC, NCBI).",
             side_effects="Stores and indexes each document found.",
             limits="Papers with an arXiv id or PMCID.",
             params=RefParams, run=_fetch_fulltext, read_only=False, open_world=True),
]
