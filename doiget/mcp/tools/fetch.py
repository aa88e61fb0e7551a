"""The network MCP tools: resolve, metadata only, fetch, batch fetch, identity links, remote search."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from doiget import limits
from doiget.services import fetching as pipeline
from doiget.refs import Ref
from doiget.mcp.tools.spec import LibraryAccess, Params, RefArg, RefParams, ToolSpec
from doiget.present import batch_json, entry_dict, fetch_json, work_json

DryRun = Annotated[bool, Field(description="return the plan only: no network access, nothing written")]


class MetadataParams(Params):
    ref: RefArg
    include_oa_location: Annotated[bool, Field(description="also ask Unpaywall for oa_url and oa_status")] = False


FullText = Annotated[bool, Field(description="also fetch the structured full text (ar5iv HTML, Europe PMC JATS, "
                                               "PMC BioC) for reading and full-text search")]


class FetchParams(Params):
    ref: RefArg
    dry_run: DryRun = False
    fulltext: FullText = True


class BatchParams(Params):
    refs: Annotated[list[RefArg], Field(min_length=1, max_length=pipeline.MAX_BATCH,
                                        description="identifiers; duplicates are fetched once")]
    dry_run: DryRun = False
    fulltext: FullText = True


class PaperSearchParams(Params):
    query: Annotated[str | None, Field(max_length=pipeline.MAX_QUERY, description="full-text search words")] = None
    filters: Annotated[dict[Annotated[str, Field(max_length=100)], Annotated[str, Field(max_length=1000)]],
                       Field(max_length=pipeline.MAX_FILTERS, description=(
                           "OpenAlex filters, e.g. {\"publication_year\": \"2020\", \"is_oa\": \"true\", "
                           "\"authorships.author.id\": \"A5023888391\"}; | means OR"))] = {}
    cursor: Annotated[str | None, Field(max_length=pipeline.MAX_CURSOR,
                                        description="'*' for the first page, then next_cursor")] = "*"
    per_page: Annotated[int, Field(ge=1, le=limits.MAX_PER_PAGE)] = 10


# ---- handlers -------------------------------------------------------------------------------
def _resolve(lib: LibraryAccess, p: RefParams) -> dict[str, Any]:
    return {"entry": entry_dict(lib.get().resolve(p.ref))}


def _metadata(lib: LibraryAccess, p: MetadataParams) -> dict[str, Any]:
    return fetch_json(lib.get().metadata_only(p.ref, include_oa_location=p.include_oa_location))


def _fetch(lib: LibraryAccess, p: FetchParams) -> dict[str, Any]:
    if p.dry_run:
        return fetch_json(pipeline.planner(lib.config, lib.get)(Ref.parse(p.ref)))
    return fetch_json(lib.get().fetch(p.ref, fulltext=p.fulltext))


def _batch(lib: LibraryAccess, p: BatchParams) -> dict[str, Any]:
    if p.dry_run:
        return batch_json(pipeline.run_batch(p.refs, pipeline.planner(lib.config, lib.get)))
    return batch_json(lib.get().batch_fetch(p.refs, fulltext=p.fulltext))


def _link(lib: LibraryAccess, p: RefParams) -> dict[str, Any]:
    return lib.get().link(p.ref)


def _paper_search(lib: LibraryAccess, p: PaperSearchParams) -> dict[str, Any]:
    page = lib.get().paper_search(p.query, p.filters, p.cursor, p.per_page)
    return {**page, "results": [work_json(w) for w in page["results"]]}


NETWORK_COSTS = ("Network: upstream API requests paced by process-wide rate limits (5/s overall; arXiv 1 per 3 s); "
                 "cached answers (7 days) cost none")
NETWORK_LOG = "Appends a provenance row per HTTP request and caches API answers"
PDF_STATUSES = "fetched / already_present / no_oa_url / blocked / failed"

FETCH_TOOLS: list[ToolSpec] = [
    ToolSpec("doiget_resolve_paper", "Resolve a paper", "Authoritative metadata for an identifier (Crossref, "
             "arXiv, OpenAlex or Europe PMC, merged), saved to the library.",
             when="You have a DOI/arXiv id/PMID/PMCID/OpenAlex id and want its title, authors, venue, abstract and "
                  "other ids, and to keep it in the library, without downloading the paper.",
             outputs="{ok, entry: {id, ref, doi, arxiv, pmid, pmcid, openalex, title, authors[], year, venue, abstract, "
                     "oa_status, oa_url, ...}}; NOT_FOUND if no source knows the identifier.",
             costs=NETWORK_COSTS + "; typically 1-2 requests.",
             side_effects="Adds or updates the entry in the library. " + NETWORK_LOG + ".",
             limits="One identifier per call.", params=RefParams, run=_resolve, read_only=False, open_world=True),
    ToolSpec("doiget_metadata_only", "Metadata without download", "Metadata for an identifier, optionally with "
             "where its legal open-access copy is, never downloading a file.",
             when="Deciding whether a paper is worth fetching, or checking if it is open access.",
             outputs="{ok, ref, entry, oa_url (best PDF URL, else landing page; null when closed), oa_status "
                     "(gold/green/hybrid/bronze/closed, as Unpaywall says)} — oa_* only with include_oa_location.",
             costs=NETWORK_COSTS + "; 1-3 requests.",
             side_effects="Saves the metadata like doiget_resolve_paper (no PDF). " + NETWORK_LOG + ".",
             limits="One identifier per call.", params=MetadataParams, run=_metadata, read_only=False,
             open_world=True),
    ToolSpec("doiget_fetch_paper", "Fetch a paper", "Resolve a paper and download its legal open-access PDF into "
             "the library (arXiv ids straight from arXiv; otherwise arXiv copy, Unpaywall PDFs, Europe PMC).",
             when="You want the paper itself in the library (to read, search or cite). Use dry_run to see the plan.",
             outputs=f"{{ok, ref, entry, oa_status, suggested_arxiv_id, pdf: {{status ({PDF_STATUSES}), reason, "
                     "message, source, url, sha256, size, path, attempts: [{source, url, outcome}]}}}. No open-access "
                     "copy is a status, not an error. dry_run: {ok, ref, dry_run, entry, pdf: {status: planned or "
                     "already_present}, requests: [{source, url}], candidates: [{source, url}]}.",
             costs=NETWORK_COSTS + "; a PDF download of up to 100 MB. dry_run: none.",
             side_effects="Saves the entry, the PDF blob and its artefact row, and with fulltext the structured "
                          "text (indexed for doiget_search_fulltext). " + NETWORK_LOG + ". dry_run: none "
                          "(reads the library if it exists, creates nothing).",
             limits="PDF at most 100 MB; https only; redirects vetted against each source's allowlist.",
             params=FetchParams, run=_fetch, read_only=False, open_world=True),
    ToolSpec("doiget_batch_fetch", "Fetch many papers", "doiget_fetch_paper for up to 100 identifiers, "
             "concurrently within the rate limits.",
             when="Fetching a reading list or a bibliography's identifiers in one call.",
             outputs="{ok, summary: {total, ok, errors, duplicates, by_status, by_error}, results: [{input, ok, ref, "
                     "entry: {ref, title, year}, pdf: {...}, duplicate_of?} or {input, ok: false, error}]} in input "
                     "order. One failing identifier never fails the batch.",
             costs=NETWORK_COSTS + "; arXiv papers take at least 3 s each. dry_run: none.",
             side_effects="As doiget_fetch_paper, per identifier. dry_run: none.",
             limits="1 to 100 identifiers; duplicates (same canonical id) are fetched once.",
             params=BatchParams, run=_batch, read_only=False, open_world=True),
    ToolSpec("doiget_link", "Identity links", "The identifiers OpenAlex links to a paper: DOI, arXiv preprint, "
             "PMID, PMCID, OpenAlex id.",
             when="Finding the arXiv preprint of a published DOI (or the other way round), or all ids of a paper.",
             outputs="{ok, ref, arxiv (id or null), identity: {doi, arxiv, pmid, pmcid, openalex}, refs[]}; NOT_FOUND "
                     "when OpenAlex does not know the identifier.",
             costs=NETWORK_COSTS + "; one OpenAlex request.", side_effects=NETWORK_LOG + "; the library is unchanged.",
             limits="One identifier per call; only what OpenAlex knows.", params=RefParams, run=_link,
             read_only=True, open_world=True),
    ToolSpec("doiget_paper_search", "Search OpenAlex", "Search all scholarly works indexed by OpenAlex (not only "
             "the library), with filters and cursor paging; abstracts included.",
             when="Discovering papers not yet in the library. For papers you have, use doiget_search_local.",
             outputs="{ok, query, filters, count, next_cursor (null on the last page), results: [{doi, arxiv, "
                     "openalex, title, authors[], year, venue, abstract, oa_status, oa_url, cited_by_count, "
                     "references_count, ...}]}.",
             costs=NETWORK_COSTS + "; one OpenAlex request per page.",
             side_effects=NETWORK_LOG + "; the library is unchanged (fetch a result to keep it).",
             limits=f"At most {limits.MAX_PER_PAGE} results per page, 20 filters; filter values without commas.",
             params=PaperSearchParams, run=_paper_search, read_only=True, open_world=True),
]
