"""The typed results of :class:`doiget.Library`'s public methods, in one place.

Each result is a frozen pydantic model whose field names are the keys the MCP tools and ``doiget
--json`` print. A field a result leaves out (a PDF leg without ``attempts``, an import row without
``conflicts``) is *unset*: it reads as its default in Python and is left out of the JSON, so
``result.as_json()`` (``model_dump(mode="json", exclude_unset=True)``; the adapters call it through
``present.to_json``) prints exactly what the
result holds. Stored entries inside a result print as ``present.entry_dict`` (with their ``ref``),
remote works as ``present.work_json``. Reprs are one line; hit lists, text pages and SQL results also
show as HTML tables or pages in Jupyter.

Existing models are reused, not copied: :class:`~doiget.models.Entry`, ``SearchHit``, ``TextHit``,
``Work`` and ``Anchor`` live in :mod:`doiget.models`. ``Hits`` (a list of hits) and ``SqlResult`` (a
sequence of row records, which is what ``pandas.DataFrame(result)`` takes) are plain classes, defined
in :mod:`doiget.reprs` so that a search imports no result model, and named here too.
"""
from __future__ import annotations

from html import escape
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

from doiget.models import Anchor, Entry, Work
from doiget.notices import UpdateNotice
from doiget.present import entry_dict, work_json
from doiget.reprs import Hits, SqlResult, fields_line  # noqa: F401 (Hits, SqlResult: the list and table results)

# An entry of the library inside a result: JSON as present.entry_dict (null fields left out, ``ref`` added).
StoredEntry = Annotated[Entry, PlainSerializer(entry_dict, when_used="json")]
# A work found upstream and not stored: JSON as present.work_json (its reference list replaced by a count).
RemoteWork = Annotated[Work, PlainSerializer(work_json, when_used="json")]


class Result(BaseModel):
    """Base of the result models: frozen, no unknown fields, a one-line repr."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_by_name=True, validate_by_alias=True,
                              serialize_by_alias=True)

    def as_json(self) -> dict[str, Any]:
        """The result as JSON data: the fields it holds (unset ones left out), by their JSON names."""
        return self.model_dump(mode="json", exclude_unset=True)

    def __repr__(self) -> str:
        return fields_line(type(self).__name__,
                           [(name, getattr(self, name)) for name in type(self).model_fields
                            if name in self.model_fields_set])


class ErrorInfo(Result):
    """An error as results carry it (``DoigetError.to_dict()``): code, message, details."""

    code: str
    message: str
    details: dict[str, Any] | None = None


# ---- entries, tags, collections -------------------------------------------------------------

class EntryDeleted(Result):
    """:meth:`~doiget.Library.delete`: the entry id removed and how many blobs went with it."""

    deleted: int
    blobs_removed: int


class TagCount(Result):
    name: str
    count: int


class Collection(Result):
    name: str
    description: str | None
    count: int = Field(description="entries in the collection")
    created_at: str


# ---- files ------------------------------------------------------------------------------------

class FileImport(Result):
    """:meth:`~doiget.Library.add_pdf`, ``add_jats`` and ``add_file``: the entry the file joined."""

    format: Literal["pdf", "jats"] | None = Field(default=None, description="add_file only: what the file was")
    entry: StoredEntry
    sha256: str
    duplicate: bool = Field(description="an entry already held these bytes; nothing was changed")
    identified_by: str = Field(description="ref, content, title or the id kind found in the file (doi, arxiv, ...)")
    resolved: bool | None = Field(default=None, description="PDF: metadata came from an upstream source")
    references: int | None = Field(default=None, description="JATS: entries in its reference list")
    citation_edges: int | None = Field(default=None, description="JATS: citation edges stored")


class GcReport(Result):
    orphan_blobs: list[str]
    temp_files: int
    bytes_freed: int
    cache_rows_expired: int
    dry_run: bool


class Health(Result):
    """Where the library lives, its schema revision against the code's, counts and integrity."""

    home: str
    database: str
    exists: bool
    schema_head: str
    profile: str
    revision: str | None = None
    counts: dict[str, int] | None = Field(default=None, description="rows per table, and stubs")
    quick_check: str | None = None
    blob_bytes: int | None = None
    status: Literal["ok", "needs_attention", "empty", "error"]
    message: str | None = None


# ---- fetching ------------------------------------------------------------------------------------

class Attempt(Result):
    """One PDF download tried: ``outcome`` is "ok" or the error code."""

    source: str
    url: str
    outcome: str
    reason: str | None = None
    message: str | None = None


class PdfOutcome(Result):
    """The PDF leg of a fetch: status fetched / already_present / no_oa_url / blocked / failed (a dry run:
    planned / already_present)."""

    status: str
    reason: str | None = None
    message: str | None = None
    source: str | None = None
    url: str | None = None
    sha256: str | None = None
    size: int | None = None
    path: str | None = None
    attempts: list[Attempt] = Field(default_factory=list)


class AlternateOutcome(Result):
    """One structured full-text source (ar5iv HTML, Europe PMC JATS, PMC BioC) and what became of it."""

    format: str
    source: str
    url: str | None
    status: Literal["stored", "already_stored", "skipped", "missing", "failed"]
    reason: str | None = None
    sha256: str | None = None
    chunks: int | None = None
    citation_edges: int | None = None
    error: ErrorInfo | None = None


class FulltextFetch(Result):
    """:meth:`~doiget.Library.fetch_fulltext`: each alternate's outcome and how many were stored."""

    ref: str
    id: int
    alternates: list[AlternateOutcome]
    stored: int


class FulltextFailure(Result):
    """The full-text leg of a fetch when it failed as a whole (the fetch itself still succeeded)."""

    error: ErrorInfo


class FetchResult(Result):
    """:meth:`~doiget.Library.fetch`: the stored entry, its open-access status and the PDF leg."""

    ref: str
    entry: StoredEntry
    oa_status: str | None
    suggested_arxiv_id: str | None
    pdf: PdfOutcome
    fulltext: FulltextFetch | FulltextFailure | None = None


class SourceUrl(Result):
    source: str
    url: str


class PdfSourcePlan(Result):
    key: str
    candidate_hosts: list[str]


class PlanDetail(Result):
    """The seed spec's dry-run preview: sources, candidate hosts, target paths."""

    metadata_sources: list[str]
    pdf_sources: list[PdfSourcePlan]
    redirect_allowlists_loaded: list[str]
    candidate_hosts_are_upper_bound: bool
    target_pdf_path: str | None
    target_blob_dir: str
    target_metadata_path: str
    would_append_provenance: bool


class RateBudget(Result):
    global_per_sec: float
    per_source_min_gap_ms: int
    arxiv_min_gap_ms: int


class FetchPlan(Result):
    """:meth:`~doiget.Library.fetch` with ``dry_run``: what the fetch would ask and try; nothing is sent."""

    ref: str
    dry_run: Literal[True]
    entry: StoredEntry | None
    pdf: PdfOutcome
    requests: list[SourceUrl]
    candidates: list[SourceUrl]
    ref_shape: dict[str, str] = Field(description="the ref as {kind: id}")
    plan: PlanDetail
    rate_limit_budget: RateBudget


class BatchRow(Result):
    """What every batch row has: the ref as given, whether it worked, the first row it repeats."""

    input: Any = Field(description="the ref as given")
    ok: bool
    duplicate_of: int | None = None


class FetchedRow(FetchResult, BatchRow):
    ok: Literal[True]


class PlannedRow(FetchPlan, BatchRow):
    ok: Literal[True]


class FailedRow(BatchRow):
    ok: Literal[False]
    ref: str | None = None
    error: ErrorInfo


class BatchSummary(Result):
    total: int
    ok: int
    errors: int
    duplicates: int
    by_status: dict[str, int]
    by_error: dict[str, int]


class BatchResult(Result):
    """:meth:`~doiget.Library.batch_fetch`: one row per ref given, in order, and the counts."""

    results: list[FetchedRow | PlannedRow | FailedRow]
    summary: BatchSummary


class MetadataResult(Result):
    """:meth:`~doiget.Library.metadata_only`: the saved entry, and its open-access location when asked."""

    ref: str
    entry: StoredEntry
    oa_url: str | None = None
    oa_status: str | None = None


class IdentityLinks(Result):
    """:meth:`~doiget.Library.link`: the identifiers OpenAlex links to one work."""

    ref: str
    arxiv: str | None
    identity: dict[str, str] = Field(description="kind → id")
    refs: list[str]


class PaperSearchPage(Result):
    """:meth:`~doiget.Library.paper_search`: one page of OpenAlex works (not stored)."""

    query: str | None
    filters: dict[str, str]
    count: int | None
    next_cursor: str | None
    results: list[RemoteWork]


# ---- full text -----------------------------------------------------------------------------------

class TextPage(Result):
    """One page of a paper's sectioned text (:meth:`~doiget.Library.text`); follow ``next_offset``."""

    ref: str
    id: int
    title: str | None
    format: str = Field(description="the artefact kind read: html, jats, bioc, pdf, tex")
    sha256: str
    text: str
    offset: int
    total_chars: int
    next_offset: int | None
    source: str
    content_sha256: str
    page_count: int | None = None
    page_range: list[int] | None = Field(default=None, description="PDF: [first, last] page of this text")
    empty_pages: list[int] | None = None

    def __repr__(self) -> str:
        end = self.offset + len(self.text)
        return f"<TextPage {self.ref} chars {self.offset}–{end} of {self.total_chars} ({self.format})>"

    def _repr_html_(self) -> str:
        title = escape(self.title or self.ref)
        return f"<div><p><b>{title}</b> — {escape(repr(self)[1:-1])}</p><pre>{escape(self.text)}</pre></div>"


class IndexFailure(Result):
    entry_id: int
    kind: str
    sha256: str
    error: ErrorInfo


class ReindexReport(Result):
    artefacts: int
    indexed: int
    changed: int
    chunks: int
    failed: list[IndexFailure]


class TexFile(Result):
    path: str
    chars: int


class TexSource(Result):
    """:meth:`~doiget.Library.tex_source`: a page of the main .tex file and the source's file list."""

    ref: str
    id: int
    sha256: str
    downloaded: bool
    main_file: str
    file_count: int
    files: list[TexFile]
    text: str
    offset: int
    total_chars: int
    next_offset: int | None


# ---- bibliography, citation strings, notes -------------------------------------------------------

class FormattedReferences(Result):
    """:meth:`~doiget.Library.cite`: one formatted reference per entry, in the style's order; ``warnings``
    names the cited works that are retracted, withdrawn or under an expression of concern."""

    style: str
    format: str
    references: list[str]
    warnings: list[str] | None = None


class NotCarried(Result):
    """A field an export's format has no place for, and how many of the exported entries have it."""

    field: str = Field(description="a CSL variable, 'BibTeX field NAME' or 'ROLE names'")
    entries: int


class ExportResult(Result):
    """:meth:`~doiget.Library.export_result`: the export (``text`` for BibTeX and RIS, ``items`` for
    CSL-JSON) and what of the entries it could not carry (RIS has no tag, BibTeX no field, for some)."""

    format: str
    count: int = Field(description="entries exported")
    text: str | None = None
    items: list[dict[str, Any]] | None = None
    not_carried: list[NotCarried]

    @property
    def output(self) -> str | list[dict[str, Any]]:
        """What :meth:`~doiget.Library.export` returns: CSL-JSON's items, else the text."""
        return self.items if self.items is not None else self.text or ""

    def not_carried_json(self) -> list[dict[str, Any]]:
        return [gap.as_json() for gap in self.not_carried]


class RetractionRow(Result):
    """One paper of :meth:`~doiget.Library.check_retractions`: what the sources said, or why it failed."""

    id: int
    ref: str | None = None
    ok: bool
    checked: list[str] | None = Field(default=None, description="the sources that answered")
    status: str | None = None
    warning: str | None = None
    notices: list[UpdateNotice] | None = None
    source_errors: dict[str, ErrorInfo] | None = None
    error: ErrorInfo | None = None


class RetractionSummary(Result):
    total: int
    ok: int
    errors: int
    by_status: dict[str, int]
    by_error: dict[str, int]


class RetractionCheck(Result):
    """:meth:`~doiget.Library.check_retractions`: one row per paper checked, and the counts."""

    results: list[RetractionRow]
    summary: RetractionSummary


class RecordMatch(Result):
    id: str | None = Field(description="the identifier the records share")
    entry_title: str | None
    record_title: str | None


class ImportConflict(Result):
    """A difference an import did not settle: a field whose values differ (``field``, the value kept as
    ``library``, the record's as ``file``; with ``record``, the value kept is that earlier record's of the same
    file, the two records being merged into one entry), or an identifier set aside because the titles disagree
    (``record`` or ``entry``, ``reason``, ``title``, ``record_title``, ``ids_set_aside``)."""

    field: str | None = None
    library: Any = None
    file: Any = None
    record: int | None = None
    entry: int | None = None
    reason: str | None = None
    title: str | None = None
    record_title: str | None = None
    ids_set_aside: dict[str, str] | None = None


class ImportRow(Result):
    """One record of an imported bibliography, in file order."""

    index: int
    key: str | None = None
    citekey: str | None = None
    status: Literal["added", "merged", "skipped"] | None = None
    id: int | None = None
    ref: str | None = None
    reason: str | None = None
    matched: RecordMatch | None = None
    conflicts: list[ImportConflict] = Field(default_factory=list)
    overwritten: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


class Attachment(Result):
    id: int
    path: str
    sha256: str
    duplicate: bool


class MissingAttachment(Result):
    """A PDF a record names (its ``file`` field, as written) that is not on this machine."""

    id: int
    file: str


class ImportReport(Result):
    """:meth:`~doiget.Library.import_bibliography`: counts, one row per record, the fetchable refs."""

    records: int
    added: int
    merged: int
    skipped: int
    conflicts: int = Field(description="records with at least one conflict")
    entries: int
    fetchable: list[str]
    seconds: float
    records_per_second: int | None
    report: list[ImportRow]
    attached: list[Attachment] | None = None
    not_found: list[MissingAttachment] | None = None


class DuplicateEntry(Result):
    id: int
    ref: str
    citekey: str | None
    title: str | None
    year: int | None


class DuplicateGroup(Result):
    reason: str
    entries: list[DuplicateEntry]


class Moved(Result):
    tags: list[str]
    collections: list[str]
    artefacts: int
    notes: int


class MergeResult(Result):
    """:meth:`~doiget.Library.merge`: what moved from the dropped entry, and the merged entry."""

    kept: int
    merged: int
    moved: Moved
    differing: list[str]
    entry: StoredEntry


class CitationCandidate(Result):
    doi: str | None
    ref: str | None
    id: int | None = Field(description="the entry id when the library holds the work")
    title: str | None
    year: int | None
    venue: str | None
    authors: list[str]
    score: float
    confidence: str
    matched: list[str]
    matched_fields: list[str]
    in_library: bool


class CitationMatches(Result):
    """:meth:`~doiget.Library.resolve_citation`: candidate works for one reference string, best first."""

    citation: str
    answered_from: Literal["library", "crossref"]
    candidates: list[CitationCandidate]
    note: str | None = None


class CitationFailure(Result):
    """A citation of :meth:`~doiget.Library.resolve_citations` that could not be looked up."""

    citation: Any
    error: ErrorInfo


class Note(Result):
    id: int
    entry: str | None = Field(description="the ref of the entry the note is about")
    entry_id: int | None
    entry_title: str | None
    body: str
    author: str | None
    anchors: list[Anchor]
    tags: list[str]
    created_at: str
    updated_at: str


class NoteDeleted(Result):
    deleted: int


class NotePage(Result):
    notes: list[Note]
    next_offset: int | None


# ---- citation graph ------------------------------------------------------------------------------

class Paper(Result):
    """A node of the citation graph: an entry, possibly a stub known only from citations."""

    id: int
    ref: str | None
    title: str | None
    year: int | None
    is_stub: bool


class ReachedPaper(Paper):
    hop: int


class ExpansionReport(Result):
    """:meth:`~doiget.Library.expand_citation_graph`: what the walk stored, and why it stopped."""

    seed: Paper
    direction: str
    depth: int
    nodes: int
    edges: int
    nodes_added: int
    edges_added: int
    requests_made: int
    truncated: bool
    truncated_reason: str | None
    not_expandable: int
    error: ErrorInfo | None = None
    reached: list[ReachedPaper]


class RankedPaper(Paper):
    score: float
    components: dict[str, float] = Field(description="the parts of the score, by measure")
    reasons: list[str] | None = Field(default=None, description="reviews section: why it looks like a review")
    heuristic: bool | None = None


class Related(Result):
    """:meth:`~doiget.Library.related`: papers around the seeds, best first."""

    seeds: list[Paper]
    ranking: str
    items: list[RankedPaper]
    heuristic: bool
    note: str


class PathStep(Paper):
    direction: Literal["cites", "cited_by"]


class CitationPaths(Result):
    """:meth:`~doiget.Library.connect`: shortest citation paths (``from`` is a keyword: ``from_`` here)."""

    from_: Paper = Field(alias="from")
    to: Paper
    paths: list[list[PathStep]]
    directions: str


class NameCount(Result):
    name: str
    count: int


class ReviewSection(Result):
    """One section of a literature review; a section that failed has ``error`` and ``partial``."""

    items: list[RankedPaper | NameCount] | None = None
    since_year: int | None = None
    heuristic: bool | None = None
    error: ErrorInfo | None = None
    partial: bool | None = None


class LiteratureReview(Result):
    """:meth:`~doiget.Library.literature_review`: sections similar, important, recent, reviews, authors,
    venues (those asked for)."""

    seeds: list[Paper]
    sections: dict[str, ReviewSection]
    partial: bool
    heuristic: bool
    note: str


class GraphExport(Result):
    format: str
    nodes: int
    edges: int
    text: str
