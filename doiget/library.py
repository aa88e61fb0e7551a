"""``doiget.Library``: the one façade. Every capability of doiget is one method here, and each method
only delegates to the service module of its capability (``doiget/services/``); the MCP server and
the CLI are thin adapters over it."""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doiget.config import Config, load_config
from doiget.models import Entry, SearchHit, TextHit, Work
from doiget.net.base import Download, Http
from doiget.refs import Ref
from doiget.reprs import Hits, SqlResult
from doiget.services.checks import RefLike
from doiget.store import deadline
from doiget.store.migrate import HEAD as SCHEMA_VERSION  # noqa: F401 (the schema revision results name)
from doiget.store.store import DB_NAME, Store

if TYPE_CHECKING:
    from doiget import results as r
    from doiget.services import admin, artefacts, entries, fetching, organise, reading, searching
else:  # imported on first use: `doiget search` loads only the search service (and no result models)
    from doiget.lazy import LazyModule

    admin, artefacts, entries, fetching, organise, reading, searching = (
        LazyModule(f"doiget.services.{name}")
        for name in ("admin", "artefacts", "entries", "fetching", "organise", "reading", "searching"))
    r = LazyModule("doiget.results")


def library_exists(config: Config) -> bool:
    """Whether anything stands at the library file's path of ``config`` (checking creates nothing); a
    directory or other non-file there counts, so that opening it reports STORE_ERROR."""
    return (config.home / DB_NAME).exists()


def open_library(home: str | os.PathLike[str] | None = None) -> "Library":
    """Open (creating and migrating if needed) the library at ``home``, ``$DOIGET_HOME`` or the default."""
    return Library(load_config(home))


def health_report(config: Config) -> r.Health:
    """Health of the library ``config`` names, without opening (or creating) it."""
    return r.Health.model_validate(admin.health_report(config))


def network_policy() -> dict[str, Any]:
    """The network rules a library's HTTP client applies in this process (no secrets)."""
    return admin.network_policy()


class Library:
    """A personal paper library on disk. Methods raise :class:`doiget.DoigetError` on failure."""

    def __init__(self, config: Config, *, http: Http | None = None, no_cache: bool = False) -> None:
        self.config = config
        self.store = Store(config.home, query_seconds=deadline.configured_seconds(config.extra))
        self._http = http
        self._no_cache = no_cache
        self._http_lock = threading.Lock()
        self._lookup_http: Http | None = http  # an injected client serves lookups too

    @property
    def http(self) -> Http:
        """The one HTTP client (created on first use); CAPABILITY_DENIED unless the profile allows network."""
        self.config.require("network")
        with self._http_lock:
            if self._http is None:
                from doiget.net.http import HttpClient
                from doiget.store.netlog import ProvenanceLog, SqliteCache

                self._http = HttpClient(contact_email=self.config.contact_email, record=ProvenanceLog(self.store),
                                        cache=SqliteCache(self.store), no_cache=self._no_cache)
            return self._http

    @property
    def lookup_http(self) -> Http:
        """The HTTP client for lookups that change nothing (link, remote search, citation strings): it
        answers from the response cache but neither writes the cache nor logs provenance."""
        self.config.require("network")
        with self._http_lock:
            if self._lookup_http is None:
                from doiget.net.http import HttpClient
                from doiget.store.netlog import ReadOnlyCache

                self._lookup_http = HttpClient(contact_email=self.config.contact_email,
                                               cache=ReadOnlyCache(self.store), no_cache=self._no_cache)
            return self._lookup_http

    @property
    def home(self) -> Path:
        return self.config.home

    def close(self) -> None:
        for client in {id(c): c for c in (self._http, self._lookup_http) if c is not None}.values():
            if hasattr(client, "close"):
                client.close()
        self.store.close()

    def __enter__(self) -> "Library":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- entries (services/entries.py) --------------------------------------------------------
    def add(self, work: Work | dict[str, Any], *, tags: list[str] | None = None) -> Entry:
        """Add a work from its metadata, or update the entry sharing any of its identifiers."""
        return entries.add(self, work, tags=tags)

    def info(self, ref: RefLike) -> Entry:
        """The stored entry for ``ref``; NOT_FOUND if the library does not hold it."""
        return entries.info(self, ref)

    def recent(self, n: int = 10) -> list[Entry]:
        """The ``n`` most recently added entries, newest first."""
        return entries.recent(self, n)

    def search(self, query: str, limit: int = 20, *, year_from: int | None = None, year_to: int | None = None,
               tag: str | None = None, collection: str | None = None, has_pdf: bool | None = None,
               include_fulltext: bool = False) -> list[SearchHit]:
        """Entries matching ``query`` (words, "phrases", prefix*, AND/OR/NOT, column:term), best first by bm25.

        ``include_fulltext`` also searches the papers' text: each hit carries its best passage, and papers
        matched only inside their text follow the metadata matches."""
        return Hits(searching.search(self, query, limit, year_from=year_from, year_to=year_to, tag=tag,
                                     collection=collection, has_pdf=has_pdf, include_fulltext=include_fulltext))

    def delete(self, ref: RefLike) -> r.EntryDeleted:
        """Remove an entry and everything attached to it, then the blobs nothing else references."""
        return r.EntryDeleted.model_validate(entries.delete(self, ref))

    # ---- tags, collections, annotations (services/organise.py) --------------------------------
    def tag(self, ref: RefLike, tags: list[str]) -> list[str]:
        """Add ``tags`` to an entry; returns its tags afterwards."""
        return organise.tag(self, ref, tags)

    def untag(self, ref: RefLike, tags: list[str]) -> list[str]:
        """Remove ``tags`` from an entry; returns its tags afterwards."""
        return organise.untag(self, ref, tags)

    def tags(self) -> list[r.TagCount]:
        """Every tag with the number of entries carrying it."""
        return [r.TagCount.model_validate(row) for row in organise.tags(self)]

    def collection_create(self, name: str, description: str | None = None) -> r.Collection:
        """Create a collection (no-op if it exists); returns it with its entry count."""
        return r.Collection.model_validate(organise.collection_create(self, name, description))

    def collection_add(self, name: str, refs: list[RefLike]) -> r.Collection:
        """Put entries in a collection, creating the collection if needed."""
        return r.Collection.model_validate(organise.collection_add(self, name, refs))

    def collection_remove(self, name: str, refs: list[RefLike]) -> r.Collection:
        """Take entries out of a collection."""
        return r.Collection.model_validate(organise.collection_remove(self, name, refs))

    def collection_delete(self, name: str) -> None:
        """Delete a collection (its entries stay in the library)."""
        return organise.collection_delete(self, name)

    def collections(self) -> list[r.Collection]:
        """Every collection with its description and entry count."""
        return [r.Collection.model_validate(row) for row in organise.collections(self)]

    def collection_entries(self, name: str) -> list[Entry]:
        """The entries of a collection, in the order they were added."""
        return organise.collection_entries(self, name)

    def annotate(self, ref: RefLike, text_: str | None) -> str | None:
        """Set the entry's one free-form annotation (``None`` or empty text clears it); returns it."""
        return organise.annotate(self, ref, text_)

    # ---- files (services/artefacts.py) --------------------------------------------------------
    def pdf_path(self, ref: RefLike) -> Path | None:
        """Path of the entry's stored PDF (newest), or None when it has no PDF yet."""
        return artefacts.pdf_path(self, ref)

    def add_artefact(self, ref: RefLike, kind: str, data: bytes | Download | os.PathLike[str], *,
                     mime: str | None = None, source: str | None = None, url: str | None = None) -> str:
        """Store ``data`` as a blob and record it as the entry's ``kind`` artefact; returns its SHA-256.

        ``data``: bytes, a file path (copied), or a :class:`~doiget.net.base.Download` (its temp
        file, which must lie in ``store.blobs.temp_dir()``, is moved into place, or removed on failure).
        """
        return artefacts.add_artefact(self, ref, kind, data, mime=mime, source=source, url=url)

    def add_pdf(self, pdf: bytes | str | os.PathLike[str], ref: RefLike | None = None) -> r.FileImport:
        """Import a PDF you have: the entry already holding these bytes, else the entry of ``ref`` or of the
        DOI/arXiv id found in the PDF (resolved when the network is allowed), else one titled from the PDF."""
        return r.FileImport.model_validate(artefacts.add_pdf(self, pdf, ref))

    def add_jats(self, xml: bytes | str | os.PathLike[str], ref: RefLike | None = None) -> r.FileImport:
        """Import a JATS XML article you have: its front matter fills the entry (found by ``ref`` or any id the
        article gives, else created; keywords become tags), its ``<ref-list>`` becomes citation edges (stubs for
        the cited works) and its text is stored and indexed."""
        return r.FileImport.model_validate(artefacts.add_jats(self, xml, ref))

    def add_file(self, path: str | os.PathLike[str], ref: RefLike | None = None) -> r.FileImport:
        """Import a local PDF or JATS XML file (told apart by content); the result names its ``format``."""
        return r.FileImport.model_validate(artefacts.add_file(self, path, ref))

    def gc(self, grace_seconds: float = 900, dry_run: bool = False) -> r.GcReport:
        """Remove blobs no artefact references (older than ``grace_seconds``, so in-flight writes are
        safe), stale temp files and expired HTTP cache rows."""
        return r.GcReport.model_validate(admin.gc(self, grace_seconds, dry_run))

    # ---- resolving and fetching (services/fetching.py) ----------------------------------------
    def resolve(self, ref: Ref | str) -> Entry:
        """Authoritative metadata of ``ref`` (Crossref, arXiv, OpenAlex or Europe PMC, enriched),
        saved to the library: it refreshes the entry's fields, but an entry imported from a bibliography
        keeps its own and only has its empty ones filled (so does :meth:`fetch`). Upstream answers are
        cached for 7 days: a repeat sends no request."""
        return fetching.resolve_entry(self, ref)

    def metadata_only(self, ref: Ref | str, include_oa_location: bool = False) -> r.MetadataResult:
        """``{ref, entry}`` without downloading any file. The metadata is saved, as by :meth:`resolve`.
        With ``include_oa_location``: ``oa_url`` (best PDF, else landing page; None when closed) and
        ``oa_status`` (gold/green/hybrid/bronze/closed) as Unpaywall states them."""
        return r.MetadataResult.model_validate(fetching.metadata_only(self, fetching.upstream_ref(self, ref), include_oa_location))

    def fetch(self, ref: Ref | str, dry_run: bool = False, fulltext: bool = True) -> r.FetchResult | r.FetchPlan:
        """Resolve ``ref``, save it, and store its open-access PDF: ``{ref, entry, oa_status,
        suggested_arxiv_id, pdf: {status, reason, message, source, url, sha256, size, path, attempts},
        fulltext}`` with status fetched / already_present / no_oa_url / blocked / failed. With
        ``fulltext`` (default) the structured text (ar5iv HTML, Europe PMC JATS or PMC BioC) is fetched
        too, as :meth:`fetch_fulltext` reports; its failure never fails the fetch. ``dry_run``: the plan
        only, with no network access and nothing written."""
        result = fetching.fetch_entry(self, ref, dry_run, fulltext)
        return (r.FetchPlan if dry_run else r.FetchResult).model_validate(result)

    def batch_fetch(self, refs: list[Ref | str], dry_run: bool = False, fulltext: bool = True,
                    progress: fetching.Progress | None = None) -> r.BatchResult:
        """:meth:`fetch` for up to 100 refs concurrently (within the rate limits): ``{results (input
        order), summary}``; a failing ref is ``{input, ok: false, error}``, duplicates are fetched once."""
        return r.BatchResult.model_validate(fetching.batch_fetch(self, refs, dry_run, fulltext, progress))

    def link(self, ref: Ref | str) -> r.IdentityLinks:
        """``{ref, arxiv, identity, refs}``: the identifiers OpenAlex links to ``ref`` (DOI, arXiv
        preprint, PMID, PMCID, OpenAlex id). Saves nothing."""
        return r.IdentityLinks.model_validate(fetching.link(self, fetching.upstream_ref(self, ref)))

    def paper_search(self, query: str | None = None, filters: dict[str, str] | None = None,
                     cursor: str | None = "*", per_page: int = 25) -> r.PaperSearchPage:
        """One page of OpenAlex search results ``{count, next_cursor, results: [Work]}``, with abstracts.
        Saves nothing."""
        return r.PaperSearchPage.model_validate(fetching.paper_search(self, query, filters, cursor, per_page))

    def check_retractions(self, refs: list[RefLike] | None = None,
                          progress: Callable[[int, int, dict[str, Any]], None] | None = None) -> r.RetractionCheck:
        """Ask Crossref and OpenAlex afresh for the update notices (retraction, correction, expression of
        concern, ...) of ``refs`` (default: every paper; one without a DOI is asked of OpenAlex only) and
        store them: ``{results, summary}``, each result ``{id, ref, ok, checked, status, warning,
        notices}`` or an ``error``; ``progress(done, total, result)`` after each."""
        from doiget.services import retractions

        return r.RetractionCheck.model_validate(retractions.check_retractions(self, refs, progress))

    def fetch_fulltext(self, ref: RefLike) -> r.FulltextFetch:
        """Download a paper's structured full text — ar5iv HTML (arXiv), Europe PMC JATS, else PMC BioC
        (open-access PMC papers) — and store and index each; one that does not exist is reported, not raised."""
        return r.FulltextFetch.model_validate(fetching.fetch_fulltext(self, ref))

    # ---- full text (services/reading.py) ------------------------------------------------------
    def text(self, ref: RefLike, format: str = "auto", offset: int = 0, max_chars: int = 15000,
             page: int | None = None) -> r.TextPage:
        """One bounded page of a paper's sectioned text (Markdown headings), from ``offset`` or PDF ``page``.

        ``format`` "auto" reads ar5iv HTML, JATS or BioC before the PDF (then the LaTeX source); NOT_FOUND
        when no extractable artefact is stored (fetch the paper first; this never fetches)."""
        return r.TextPage.model_validate(reading.text(self, ref, format, offset, max_chars, page))

    def search_text(self, query: str, limit: int = 20, *, ref: RefLike | None = None, tag: str | None = None,
                    collection: str | None = None, year_from: int | None = None,
                    year_to: int | None = None) -> list[TextHit]:
        """Passages of the papers' text matching ``query`` ("phrases", prefix*, AND/OR/NOT, heading:term),
        best first by bm25, each naming its paper, section heading, PDF page and character offset."""
        return Hits(reading.search_text(self, query, limit, ref=ref, tag=tag, collection=collection,
                                        year_from=year_from, year_to=year_to))

    def reindex(self, ref: RefLike | None = None,
                progress: Callable[[int, int], None] | None = None) -> r.ReindexReport:
        """Re-extract and re-index the artefacts of one entry, or of the whole library; ``progress(done, total)``
        is called after each. Unchanged chunk rows are left untouched."""
        return r.ReindexReport.model_validate(reading.reindex(self, ref, progress))

    def tex_source(self, ref: RefLike, max_chars: int = 15000, offset: int = 0) -> r.TexSource:
        """The LaTeX source of an arXiv paper: its main .tex file (a bounded page of it) and its file list.
        The e-print is downloaded and stored (kind "tex") the first time."""
        return r.TexSource.model_validate(reading.tex_source(self, ref, max_chars, offset))

    # ---- bibliography, citation strings, notes (services/bibliography.py, citations.py, notes.py) ----
    # Imported on demand, as the graph services are, to keep CLI and MCP start-up short.
    def cite(self, refs: list[RefLike], style: str = "apa", format: str = "text") -> r.FormattedReferences:
        """The entries ``refs`` as formatted references: ``{style, format, references: [str]}`` in the
        style's order. ``style`` is apa, vancouver, nature, ieee, mla, ama, harvard or a .csl file path;
        ``format`` text or html."""
        from doiget.services import references

        return r.FormattedReferences.model_validate(references.cite(self, refs, style, format))

    def export(self, format: str = "bibtex", refs: list[RefLike] | None = None, tag: str | None = None,
               collection: str | None = None, query: str | None = None) -> str | list[dict[str, Any]]:
        """The selected entries as BibTeX or RIS text, or as a list of CSL-JSON items. Selectors
        combine (an entry must match all given); none selects the whole library. Stubs are left out;
        ``query`` selects its best 100 search hits, in rank order. What RIS cannot carry is named in one
        warning; :meth:`export_result` returns it."""
        from doiget.services import bibliography

        return bibliography.export(self, format, refs, tag, collection, query)

    def export_result(self, format: str = "bibtex", refs: list[RefLike] | None = None, tag: str | None = None,
                      collection: str | None = None, query: str | None = None) -> r.ExportResult:
        """:meth:`export`'s output with its count and ``not_carried``: each field the format has no place
        for (a RIS export's number of pages, a BibTeX export's season of a date) with the number of entries that
        have it."""
        from doiget.services import bibliography

        return r.ExportResult.model_validate(bibliography.export_result(self, format, refs, tag, collection, query))

    def import_bibliography(self, text_or_path: str | os.PathLike[str], format: str = "auto",
                            tags: list[str] | None = None,
                            progress: Callable[[int, int | None], None] | None = None, *, overwrite: bool = False,
                            attach_files: bool = False) -> r.ImportReport:
        """Import a CSL-JSON, BibTeX or RIS bibliography: ``str`` is the document itself, a ``Path`` names
        a file. Every record with an identifier or a title becomes an entry, or joins the entry that is
        the same work (see :mod:`doiget.identity`); its keywords and ``tags`` become tags. An entry's
        non-empty fields are never replaced unless ``overwrite``: differences are reported as
        conflicts. ``attach_files`` stores the PDFs the records' ``file`` fields name when those files
        exist (relative paths from the bibliography's folder; ``attached``) and lists those that do not
        (``not_found``). Returns counts, a per-record report and
        ``fetchable`` refs; ``progress(done, total)`` is called after each chunk of entries is written
        (``total`` is None until the whole input has been read)."""
        from doiget.gcpause import gc_paused
        from doiget.services import bibliography

        with gc_paused(promote=True):  # one typed row per record: collections would walk the whole import's objects
            return r.ImportReport.model_validate(bibliography.import_document(
                self, text_or_path, format, tags, progress, overwrite=overwrite, attach_files=attach_files))

    def set_citekey(self, ref: RefLike, key: str) -> Entry:
        """Give an entry the citation key ``key`` (unique in the library; BibTeX-safe characters only)."""
        from doiget.services import bibliography

        return bibliography.set_citekey(self, ref, key)

    def dedupe(self) -> list[r.DuplicateGroup]:
        """Likely duplicate entries: groups with the same DOI (case-insensitively) or the same normalised
        title, year and first author; each ``{"reason", "entries": [{id, ref, citekey, title, year}]}``."""
        from doiget.services import bibliography

        return [r.DuplicateGroup.model_validate(group) for group in bibliography.dedupe(self)]

    def merge(self, keep: RefLike, drop: RefLike, *, force: bool = False) -> r.MergeResult:
        """Merge entry ``drop`` into ``keep``: its tags, collections, notes, artefacts, citations and names
        move to ``keep``, empty fields are filled, differing values are kept in ``keep``'s
        ``extra["merged"]``, its citation key stays usable as an alias. Entries with different DOIs need
        ``force``. Returns what moved and the merged entry."""
        from doiget.services import bibliography

        return r.MergeResult.model_validate(bibliography.merge(self, keep, drop, force=force))

    def resolve_citation(self, text_: str, limit: int = 5) -> r.CitationMatches:
        """Ranked candidate works for a free-form reference string: the local library answers alone
        when it holds an exact or probable match, else Crossref is asked (unless the profile forbids
        the network; the answer then says so in ``note``). Candidates score at least 0.5."""
        from doiget.services import citations

        return r.CitationMatches.model_validate(citations.resolve_citation(self, text_, limit))

    def resolve_citations(self, texts: list[str], limit: int = 5) -> list[r.CitationMatches | r.CitationFailure]:
        """:meth:`resolve_citation` for up to 50 citations; one that fails carries ``error`` instead."""
        from doiget.services import citations

        return [(r.CitationFailure if "error" in row else r.CitationMatches).model_validate(row)
                for row in citations.resolve_citations(self, texts, limit)]

    def note_create(self, body: str, ref: RefLike | None = None, anchors: list[dict[str, Any]] | None = None,
                    tags: list[str] | None = None, author: str | None = None) -> r.Note:
        """Write a note, about the entry ``ref`` or standing alone, with anchors ({page?, start?, end?,
        quote?}) into the paper; returns the note."""
        from doiget.services import notes

        return r.Note.model_validate(notes.note_create(self, body, ref, anchors, tags, author))

    def note_read(self, note_id: int) -> r.Note:
        """One note; NOT_FOUND if there is none with that id."""
        from doiget.services import notes

        return r.Note.model_validate(notes.note_read(self, note_id))

    def note_update(self, note_id: int, body: str | None = None, anchors: list[dict[str, Any]] | None = None,
                    tags: list[str] | None = None) -> r.Note:
        """Replace a note's body, anchors or tags (those given); returns the note."""
        from doiget.services import notes

        return r.Note.model_validate(notes.note_update(self, note_id, body, anchors, tags))

    def note_delete(self, note_id: int) -> r.NoteDeleted:
        """Delete a note."""
        from doiget.services import notes

        return r.NoteDeleted.model_validate(notes.note_delete(self, note_id))

    def note_search(self, keyword: str | None = None, ref: RefLike | None = None, tag: str | None = None,
                    since: str | None = None, until: str | None = None, limit: int = 20,
                    offset: int = 0) -> r.NotePage:
        """Notes matching every filter given: ``keyword`` (full-text, best first), entry, tag, created
        ``since`` / ``until`` (ISO dates); newest first without a keyword. Paginated by ``offset``;
        ``next_offset`` is None on the last page."""
        from doiget.services import notes

        return r.NotePage.model_validate(notes.note_search(self, keyword, ref, tag, since, until, limit, offset))

    def note_export(self, note_id: int) -> str:
        """A note as Markdown with YAML front matter (returned, never written anywhere)."""
        from doiget.services import notes

        return notes.note_export(self, note_id)

    # ---- citation graph (services/graph.py) ---------------------------------------------------
    # Imported on demand: networkx costs a noticeable fraction of every CLI start-up.
    def expand_citation_graph(self, ref: RefLike, direction: str = "references", depth: int = 1,
                              max_nodes: int = 100, max_requests: int = 20, *,
                              progress: Callable[[int, int], None] | None = None) -> r.ExpansionReport:
        """Walk OpenAlex from ``ref`` (references, cited_by or both; depth 1-2), storing the works met as stubs
        and the edges between them; capped at ``max_nodes`` (≤ 500) and ``max_requests`` (≤ 100)."""
        from doiget.services import graph

        return r.ExpansionReport.model_validate(graph.expand_citation_graph(self, ref, direction, depth, max_nodes, max_requests, progress=progress))

    def related(self, refs: list[RefLike], ranking: str = "similarity", limit: int = 20) -> r.Related:
        """Papers related to ``refs`` in the local citation graph (seeds excluded), best first, with the
        score components of ``ranking``: similarity, influence or recent."""
        from doiget.services import graph

        return r.Related.model_validate(graph.related_to(self, refs, ranking, limit))

    def connect(self, from_ref: RefLike, to_ref: RefLike, max_paths: int = 5) -> r.CitationPaths:
        """Up to ``max_paths`` shortest citation paths between two papers, with each edge's direction."""
        from doiget.services import graph

        return r.CitationPaths.model_validate(graph.paths_between(self, from_ref, to_ref, max_paths))

    def literature_review(self, seeds: list[RefLike] | None = None, *, tag: str | None = None,
                          collection: str | None = None, sections: list[str] | None = None,
                          limit: int = 10) -> r.LiteratureReview:
        """Similar, important, review-candidate and recent papers, top authors and venues around the seeds
        (refs, a tag's or a collection's entries; ≤ 500); a failing section is marked ``partial``."""
        from doiget.services import graph

        return r.LiteratureReview.model_validate(graph.review(self, seeds, tag=tag, collection=collection,
                                                              sections=sections, limit=limit))

    def graph_export(self, format: str = "graphml", refs: list[RefLike] | None = None) -> r.GraphExport:
        """The citation graph (or ``refs`` and their neighbours) as GraphML or node-link JSON ``text``."""
        from doiget.services import graph

        return r.GraphExport.model_validate(graph.graph_export(self, format, refs))

    # ---- introspection (services/admin.py) ----------------------------------------------------
    def health(self) -> r.Health:
        """Store location, schema revision, counts and integrity of this library."""
        return r.Health.model_validate(admin.health(self))

    def sql(self, query: str, max_rows: int = 1000) -> SqlResult:
        """Run ONE read-only SQL statement: ``result["columns"]``, ``["rows"]`` and ``["truncated"]`` (cut at
        ``max_rows``, or at :data:`doiget.limits.MAX_SQL_CHARS` characters of values); also a sequence of
        row records, so ``pandas.DataFrame(result)`` is the table. QUERY_TIMEOUT after
        ``query_time_limit`` seconds (config.toml, default 5)."""
        result = admin.sql(self, query, max_rows)
        return SqlResult(result["columns"], result["rows"], result["truncated"])

    def datasette_metadata(self) -> dict[str, Any]:
        """Datasette metadata for this library's file: FTS tables wired, views described, canned queries."""
        from doiget.store.datasette import datasette_metadata

        return datasette_metadata(self.store.path.stem)
