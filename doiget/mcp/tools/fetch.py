"""The network MCP tools: resolve, metadata only, fetch, batch fetch, identity links, remote search."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from doiget import limits
from doiget.refs import Ref
from doiget.mcp.tools import shapes
from doiget.mcp.tools.spec import LibraryAccess, Params, RefArg, RefParams, ToolSpec
from doiget.present import entry_dict, fetch_json, to_json

DryRun = Annotated[bool, Field(description="plan only: nothing sent or written")]


class MetadataParams(Params):
    ref: RefArg
    dry_run: DryRun = False
    include_oa_location: Annotated[bool, Field(description="also ask Unpaywall for oa_url and oa_status")] = False


FullText = Annotated[bool, Field(description="also store the structured full text (ar5iv, JATS, BioC)")]


class FetchParams(Params):
    ref: RefArg
    dry_run: DryRun = False
    fulltext: FullText = True


class BatchParams(Params):
    refs: Annotated[list[RefArg], Field(min_length=1, max_length=limits.MAX_BATCH,
                                        description="identifiers; duplicates are fetched once")]
    dry_run: DryRun = False
    fulltext: FullText = True


class PaperSearchParams(Params):
    query: Annotated[str | None, Field(max_length=limits.MAX_PAPER_QUERY, description="full-text search words")] = None
    filters: Annotated[dict[Annotated[str, Field(max_length=100)], Annotated[str, Field(max_length=1000)]],
                       Field(max_length=limits.MAX_PAPER_FILTERS, description="OpenAlex filters, e.g. {\"publication_year\": \"2020\"}; | is OR")] = {}
    cursor: Annotated[str | None, Field(max_length=limits.MAX_PAPER_CURSOR,
                                        description="'*' for the first page, then next_cursor")] = "*"
    per_page: Annotated[int, Field(ge=1, le=limits.MAX_PER_PAGE)] = 10


def _batch_rows(batch: Any) -> dict[str, Any]:
    """A batch with each row in the seed spec's shape (shaped from the full entry, then made brief)."""
    batch = to_json(batch)
    rows = []
    for row in batch["results"]:
        shaped = shapes.batch_row(fetch_json(row))
        rows.append({**shaped, "entry": fetch_json(row, brief=True)["entry"]} if "entry" in shaped else shaped)
    return {"summary": batch["summary"], "results": rows}


# ---- handlers -------------------------------------------------------------------------------
def _pipeline():
    """The fetch pipeline, for dry runs (imported on first use: it loads the extractors and SQLAlchemy,
    which starting the server does not need)."""
    from doiget.services import fetching

    return fetching


def _resolve(lib: LibraryAccess, p: RefParams) -> dict[str, Any]:
    return {"entry": entry_dict(lib.get().resolve(p.ref))}


def _metadata(lib: LibraryAccess, p: MetadataParams) -> dict[str, Any]:
    if p.dry_run:
        return shapes.metadata_result(fetch_json(_pipeline().planner(lib.config, lib.get)(Ref.parse(p.ref, local=True))))
    return shapes.metadata_result(fetch_json(lib.get().metadata_only(p.ref, include_oa_location=p.include_oa_location)))


def _fetch(lib: LibraryAccess, p: FetchParams) -> dict[str, Any]:
    if p.dry_run:
        return shapes.fetch_result(fetch_json(_pipeline().planner(lib.config, lib.get)(Ref.parse(p.ref, local=True))))
    return shapes.fetch_result(fetch_json(lib.get().fetch(p.ref, fulltext=p.fulltext)))


def _batch(lib: LibraryAccess, p: BatchParams) -> dict[str, Any]:
    if p.dry_run:
        return _batch_rows(_pipeline().run_batch(p.refs, _pipeline().planner(lib.config, lib.get)))
    return _batch_rows(lib.get().batch_fetch(p.refs, fulltext=p.fulltext))


def _link(lib: LibraryAccess, p: RefParams) -> dict[str, Any]:
    return lib.get().link(p.ref)


def _paper_search(lib: LibraryAccess, p: PaperSearchParams) -> dict[str, Any]:
    return lib.get().paper_search(p.query, p.filters, p.cursor, p.per_page)


NETWORK_COSTS = "Network (5/s, cached)"
NETWORK_LOG = "Logs requests, caches answers"
REFRESH = "Adds or refreshes the entry, keeping imported fields (destructive)"
LOOKUP = "None: nothing stored or logged"

FETCH_TOOLS: list[ToolSpec] = [
    ToolSpec("doiget_resolve_paper", "Resolve a paper", "Authoritative metadata for an identifier (Crossref, "
             "arXiv, OpenAlex or Europe PMC, merged), saved to the library.",
             when="You want a paper's metadata in the library, without its PDF.",
             outputs=("{ok, entry{id, ref, ids, title, authors[], year, venue, abstract, oa_status, references[], "
                      "...}}."),
             costs=NETWORK_COSTS + "; 1-2 requests.",
             side_effects=REFRESH + ". " + NETWORK_LOG + ".",
             limits="One identifier per call.", params=RefParams, run=_resolve, read_only=False, destructive=True,
             open_world=True),
    ToolSpec("doiget_metadata_only", "Metadata without download", "Metadata for an identifier, optionally with "
             "where its legal open-access copy is, never downloading a file.",
             when="Deciding whether to fetch a paper, or checking open access.",
             outputs=("{ok, ref, source, resolver_profile, license, oa_url, oa_status, metadata, entry, "
                      "schema_version}; dry_run: the plan."),
             costs=NETWORK_COSTS + "; 1-3 requests.",
             side_effects=REFRESH + "; no PDF. " + NETWORK_LOG + ".",
             limits="One identifier per call.", params=MetadataParams, run=_metadata, read_only=False,
             destructive=True, open_world=True),
    ToolSpec("doiget_fetch_paper", "Fetch a paper", "Resolve a paper and download its legal open-access PDF into "
             "the library (arXiv ids straight from arXiv; otherwise arXiv copy, Unpaywall PDFs, Europe PMC).",
             when="You want the paper itself (PDF) in the library. dry_run shows the plan.",
             outputs=("{ok, ref, source, resolver_profile, path, license, size_bytes, oa_status, oa_url, "
                      "schema_version, entry, pdf{status, code, message, denial_context, attempts[]}}; dry_run: the "
                      "plan."),
             costs=NETWORK_COSTS + "; PDF up to 100 MB.",
             side_effects=REFRESH + "; stores the PDF. " + NETWORK_LOG + ".",
             limits="https; redirects vetted.",
             params=FetchParams, run=_fetch, read_only=False, destructive=True, open_world=True),
    ToolSpec("doiget_batch_fetch", "Fetch many papers", "doiget_fetch_paper for up to 100 identifiers, "
             "concurrently within the rate limits.",
             when="Fetching a reading list in one call.",
             outputs=("{ok, summary, results[fetch result + input, or {input, ok: false, ref, error{code, message, "
                      "denial_context}}]}; one failure never fails the batch."),
             costs=NETWORK_COSTS + "; arXiv 3 s each.",
             side_effects="As doiget_fetch_paper per identifier.",
             limits="1-100 identifiers; duplicates fetched once.",
             params=BatchParams, run=_batch, read_only=False, destructive=True, open_world=True),
    ToolSpec("doiget_link", "Identity links", "The identifiers OpenAlex links to a paper: DOI, arXiv preprint, "
             "PMID, PMCID, OpenAlex id.",
             when="Finding a DOI's arXiv preprint, or all ids of a paper.",
             outputs="{ok, ref, arxiv, identity{doi, arxiv, pmid, pmcid, openalex}, refs[]}.",
             costs=NETWORK_COSTS, side_effects=LOOKUP + ".",
             limits="Only what OpenAlex knows.", params=RefParams, run=_link,
             read_only=True, open_world=True),
    ToolSpec("doiget_paper_search", "Search OpenAlex", "Search all scholarly works indexed by OpenAlex (not only "
             "the library), with filters and cursor paging; abstracts included.",
             when="Discovering papers not in the library.",
             outputs=("{ok, count, next_cursor, results[{doi, arxiv, openalex, title, authors[], year, venue, "
                      "abstract, ...}]}."),
             costs=NETWORK_COSTS,
             side_effects=LOOKUP + ".",
             limits=f"{limits.MAX_PER_PAGE} per page, 20 filters, no commas.",
             params=PaperSearchParams, run=_paper_search, read_only=True, open_world=True),
]
