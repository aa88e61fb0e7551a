"""The full-text MCP tools: read a paper's text, search inside papers, import a PDF, read the LaTeX
source, fetch structured full text. Text results name the ``doiget://`` resources that re-read them."""
from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

from pydantic import Field

from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.mcp.tools.resources import DEFAULT_MAX_CHARS, MAX_CHARS, metadata_uri, text_uri
from doiget.present import entry_dict
from doiget.mcp.tools.spec import (LOCAL_COSTS, NO_SIDE_EFFECTS, LibraryAccess, Params, RefArg, RefParams, TagName,
                               ToolSpec, Year)

MAX_PDF_BYTES = limits.MAX_PDF_BYTES
MAX_PDF_BASE64 = 4 * -(-MAX_PDF_BYTES // 3)  # base64 length of the largest accepted PDF
MaxChars = Annotated[int, Field(ge=1, le=MAX_CHARS, description="at most this many characters of text")]
Offset = Annotated[int, Field(ge=0, le=limits.MAX_OFFSET, description="character offset to start at (next_offset of the "
                                                           "previous call)")]


class PaperTextParams(Params):
    ref: RefArg
    format: Annotated[Literal["auto", "html", "jats", "bioc", "pdf", "tex"], Field(
        description="auto: ar5iv HTML, JATS or BioC before the PDF, LaTeX last; or that artefact kind",
        json_schema_extra={"maxLength": 4})] = "auto"
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS
    page: Annotated[int | None, Field(ge=1, le=limits.MAX_PDF_PAGE, description="PDF page to jump to (PDF text only; "
                                                                     "instead of offset)")] = None


class SearchFulltextParams(Params):
    query: Annotated[str, Field(min_length=1, max_length=1000, description=(
        'words (all must match), "exact phrase", prefix*, AND/OR/NOT, (groups), heading:term'))]
    limit: Annotated[int, Field(ge=1, le=limits.MAX_SEARCH_HITS)] = 10
    ref: Annotated[str | None, Field(max_length=1000, description="only inside this paper")] = None
    tag: TagName | None = None
    collection: TagName | None = None
    year_from: Year | None = None
    year_to: Year | None = None


class AddPdfParams(Params):
    # The cap is enforced by the handler (TOO_LARGE) on the base64 length, before anything is decoded.
    content_base64: Annotated[str, Field(description=f"the PDF file, base64-encoded (at most {MAX_PDF_BYTES} "
                                                     "bytes decoded)", json_schema_extra={"maxLength": MAX_PDF_BASE64})]
    ref: Annotated[str | None, Field(max_length=1000, description="which paper this is, when the PDF does not "
                                                                  "say (DOI, arXiv id, ...)")] = None
    format: Annotated[Literal["pdf", "jats"], Field(description="pdf, or jats: content is a JATS XML article "
                                                                "(its references become citation edges)",
                                                    json_schema_extra={"maxLength": 4})] = "pdf"


class TexSourceParams(Params):
    ref: RefArg
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS


def _paper_text(lib: LibraryAccess, p: PaperTextParams) -> dict[str, Any]:
    page = lib.get().text(p.ref, p.format, p.offset, p.max_chars, p.page)
    page["resource_uri"] = text_uri(page["id"], page["offset"], p.max_chars)
    page["next_uri"] = None if page["next_offset"] is None else text_uri(page["id"], page["next_offset"], p.max_chars)
    return page


def _search_fulltext(lib: LibraryAccess, p: SearchFulltextParams) -> dict[str, Any]:
    hits = lib.get().search_text(p.query, p.limit, ref=p.ref, tag=p.tag, collection=p.collection,
                                 year_from=p.year_from, year_to=p.year_to)
    return {"count": len(hits), "hits": [{**h.model_dump(mode="json"), "text_uri": text_uri(h.id, h.char_start)}
                                         for h in hits]}


def _add_pdf(lib: LibraryAccess, p: AddPdfParams) -> dict[str, Any]:
    if len(p.content_base64) > MAX_PDF_BASE64:
        raise DoigetError(ErrorCode.TOO_LARGE, f"PDF larger than {MAX_PDF_BYTES} bytes")
    try:
        data = base64.b64decode(p.content_base64, validate=True)
    except ValueError as exc:  # binascii.Error, or characters outside ASCII
        raise DoigetError(ErrorCode.INVALID_INPUT, f"content_base64 is not valid base64: {exc}") from exc
    library = lib.get()
    result = library.add_jats(data, p.ref) if p.format == "jats" else library.add_pdf(data, p.ref)
    entry = result.pop("entry")
    return {**result, "entry": entry_dict(entry), "metadata_uri": metadata_uri(entry.id),
            "text_uri": text_uri(entry.id)}


def _tex_source(lib: LibraryAccess, p: TexSourceParams) -> dict[str, Any]:
    return lib.get().tex_source(p.ref, p.max_chars, p.offset)


def _fetch_fulltext(lib: LibraryAccess, p: RefParams) -> dict[str, Any]:
    result = lib.get().fetch_fulltext(p.ref)
    return {**result, "text_uri": text_uri(result["id"])}


TEXT_LIMITS = f"At most {MAX_CHARS:,} characters per call; follow next_offset (or next_uri) for the rest."

FULLTEXT_TOOLS: list[ToolSpec] = [
    ToolSpec("doiget_paper_text", "Read a paper", "One page of a stored paper's full text as sectioned Markdown "
             "(headings # / ## / ###), read from ar5iv HTML, JATS or BioC before the PDF.",
             when="Reading a paper already in the library, page by page, or jumping to a passage a full-text "
                  "search found (offset = its char_start) or to a PDF page (page).",
             outputs="{ok, ref, id, title, format, source, text, offset, next_offset (null at the end), total_chars, "
                     "content_sha256, page_range/page_count/empty_pages (PDF text), resource_uri, next_uri}; "
                     "NOT_FOUND when no full text is stored (fetch it first).",
             costs="Local; the first read of a paper extracts its stored file (PDF: ~10 ms per page), later "
                   "pages come from memory. No network.",
             side_effects=NO_SIDE_EFFECTS, limits=TEXT_LIMITS, params=PaperTextParams, run=_paper_text,
             read_only=True),
    ToolSpec("doiget_search_fulltext", "Search inside papers", "Ranked passages from the full text of the papers "
             "in the library, each naming the paper, section heading, PDF page and character offset.",
             when="Finding where a method, result or phrase appears inside the papers you have, rather than in "
                  "their titles and abstracts (doiget_search_local).",
             outputs="{ok, count, hits: [{id, ref, title, year, format, heading, page, char_start, char_end, score "
                     "(bm25, lower is better), snippet with **highlights**, text_uri}]}, best first; INVALID_QUERY "
                     "for malformed query syntax.",
             costs=LOCAL_COSTS, side_effects=NO_SIDE_EFFECTS,
             limits="At most 100 hits per call; query at most 1000 characters; only papers with stored full text.",
             params=SearchFulltextParams, run=_search_fulltext, read_only=True),
    ToolSpec("doiget_add_pdf", "Import a PDF", "Add a PDF you have to the library: it finds the paper's DOI or "
             "arXiv id inside the PDF, resolves its metadata, stores and indexes the file. With format=jats, "
             "a JATS XML article instead: its front matter fills the entry, its reference list becomes "
             "citation edges.",
             when="The user hands you a PDF (not available as open access, or a local copy) to keep in the "
                  "library.",
             outputs="{ok, entry, sha256, duplicate (true: these exact bytes were already stored, nothing "
                     "changed), identified_by (content, ref, doi, arxiv or title), resolved, metadata_uri, "
                     "text_uri}; format=jats adds references and citation_edges (counts).",
             costs="Extracts the PDF (~10 ms per page); one metadata lookup upstream when the profile allows "
                   "network and the PDF names a DOI or arXiv id.",
             side_effects="Stores the file and may create an entry (titled from the PDF when it has no "
                          "identifier and the network is off).",
             limits=f"PDF at most {MAX_PDF_BYTES} bytes, sent as base64 content (never a server path).",
             params=AddPdfParams, run=_add_pdf, read_only=False, open_world=True),
    ToolSpec("doiget_paper_tex_source", "LaTeX source", "The LaTeX source of an arXiv paper: its main .tex file "
             "(paged) and the list of files in the e-print.",
             when="You need the exact LaTeX of an arXiv paper: equations, macros, how a table was built.",
             outputs="{ok, ref, id, sha256, downloaded, main_file, file_count, files: [{path, chars}], text, offset, "
                     "next_offset, total_chars}; NOT_FOUND for papers without an arXiv id or whose e-print is "
                     "not LaTeX.",
             costs="First call downloads the e-print from arXiv (rate-limited, up to 50 MB); later calls are local.",
             side_effects="Stores the e-print (kind tex) and indexes its text the first time.",
             limits=f"At most {MAX_CHARS:,} characters per call; at most 200 files listed; archives over 50 MB "
                    "or 2000 files are refused.",
             params=TexSourceParams, run=_tex_source, read_only=False, open_world=True),
    ToolSpec("doiget_fetch_fulltext", "Fetch structured text", "Download the structured full text of a paper "
             "in the library: ar5iv HTML for arXiv papers, Europe PMC JATS (else PMC BioC) for open-access PMC "
             "papers.",
             when="A paper in the library has no readable text yet, or only a PDF, and is on arXiv or in PMC.",
             outputs="{ok, ref, id, stored (count), alternates: [{format, source, url, status (stored, "
                     "already_stored, skipped, missing, failed), reason/error, sha256, chunks}], text_uri}; a "
                     "missing alternate is reported, not an error.",
             costs="Up to three HTTPS requests (ar5iv, Europe PMC, NCBI), rate-limited; a few MB.",
             side_effects="Stores each document found and indexes its text.",
             limits="Only papers with an arXiv id or a PMCID; one paper per call.",
             params=RefParams, run=_fetch_fulltext, read_only=False, open_world=True),
]
