"""``doiget.Library``: the one façade. Every capability of doiget is one method here; the MCP
server and the CLI are thin adapters over it."""
from __future__ import annotations

import hashlib
import itertools
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, text
from sqlalchemy.exc import DBAPIError, OperationalError

from doiget.services import fetching as pipeline
from doiget.config import Config, load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import alternates
from doiget.fulltext import index as fulltext_index
from doiget.fulltext import search as fulltext_search
from doiget.fulltext.document import Document
from doiget.fulltext.paging import bounded_slice, text_page
from doiget.fulltext.pdf import PdfSniff, sniff_pdf
from doiget.fulltext.tex import read_tex_source
from doiget.models import ID_FIELDS, Author, ChunkMatch, Entry, SearchHit, TextHit, Work
from doiget.refs import Ref
from doiget.net import arxiv
from doiget.net.base import Http, looks_like_pdf
from doiget.net.resolve import resolve as resolve_work
from doiget.sanitize import fts_query_error, query_text
from doiget.store import citations as citation_store
from doiget.store import deadline
from doiget.store import entries as entry_store
from doiget.store import search as search_store
from doiget.store.fts import compile_query, is_fts_error
from doiget.store.health import health_report
from doiget.store.store import Store, now

if TYPE_CHECKING:
    from doiget.net.base import Download

log = logging.getLogger("doiget.library")
RefLike = Ref | str | int
MAX_TAG_LENGTH = 100
MAX_ANNOTATION_LENGTH = 100_000
MAX_SQL_ROWS = 10_000
MAX_SQL_CHARS = 20_000_000  # of values across the rows one SQL statement returns
MAX_GRAPH_SEEDS = 500
LOCAL_ID = re.compile(r"#\d{1,18}")  # an entry's local id, the name of entries without identifiers
MAX_TEXT_CHARS = 100_000
MAX_PDF_BYTES = 200 * 1024 * 1024
MAX_TEX_BYTES = 50 * 1024 * 1024
MAX_LISTED_FILES = 200


def open_library(home: str | os.PathLike[str] | None = None) -> "Library":
    """Open (creating and migrating if needed) the library at ``home``, ``$DOIGET_HOME`` or the default."""
    return Library(load_config(home))


class Library:
    """A personal paper library on disk. Methods raise :class:`doiget.DoigetError` on failure."""

    def __init__(self, config: Config, *, http: Http | None = None, no_cache: bool = False) -> None:
        self.config = config
        self.store = Store(config.home, query_seconds=deadline.configured_seconds(config.extra))
        self._http = http
        self._no_cache = no_cache
        self._http_lock = threading.Lock()

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
    def home(self) -> Path:
        return self.config.home

    def close(self) -> None:
        if self._http is not None and hasattr(self._http, "close"):
            self._http.close()
        self.store.close()

    def __enter__(self) -> "Library":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- entries -------------------------------------------------------------------------
    def add(self, work: Work | dict[str, Any], *, tags: list[str] | None = None) -> Entry:
        """Add a work from its metadata, or update the entry sharing any of its identifiers."""
        self.config.require("write")
        work = Work.model_validate(work) if isinstance(work, dict) else work
        with self.store.write() as conn:
            entry_id = entry_store.upsert_work(conn, work)
            if work.references:
                citation_store.save_references(conn, entry_id, work.references)
            if tags:
                self._tag(conn, entry_id, tags)
            return entry_store.load(conn, [entry_id])[0]

    def info(self, ref: RefLike) -> Entry:
        """The stored entry for ``ref``; NOT_FOUND if the library does not hold it."""
        with self.store.read() as conn:
            return entry_store.load(conn, [entry_store.require_id(conn, _ref(ref))])[0]

    def recent(self, n: int = 10) -> list[Entry]:
        """The ``n`` most recently added entries, newest first."""
        n = _bounded_int(n, "n", 1, 1000)
        with self.store.read() as conn:
            ids = conn.execute(text("SELECT id FROM entries WHERE is_stub = 0 ORDER BY created_at DESC, id DESC "
                                    "LIMIT :n"), {"n": n}).scalars().all()
            return entry_store.load(conn, ids)

    def search(self, query: str, limit: int = 20, *, year_from: int | None = None, year_to: int | None = None,
               tag: str | None = None, collection: str | None = None, has_pdf: bool | None = None,
               include_fulltext: bool = False) -> list[SearchHit]:
        """Entries matching ``query`` (words, "phrases", prefix*, AND/OR/NOT, column:term), best first by bm25.

        ``include_fulltext`` also searches the papers' text: each hit carries its best passage, and papers
        matched only inside their text follow the metadata matches."""
        limit = _bounded_int(limit, "limit", 1, 100)
        match = compile_query(query_text(query), search_store.COLUMNS)
        filters = _entry_filters(year_from=year_from, year_to=year_to, tag=tag, collection=collection,
                                 has_pdf=has_pdf)
        clauses, params = entry_store.filter_clauses(**filters)
        try:
            with self.store.query_raw("the search") as conn:
                rows = search_store.page(conn, match, limit, 0, ID_FIELDS, clauses, params)
        except sqlite3.OperationalError as exc:
            if is_fts_error(exc):
                raise fts_query_error(f"search for {query!r}", exc) from exc
            raise
        hits = [SearchHit(**row) for row in rows]
        return self._with_fulltext(hits, query, limit, filters) if include_fulltext else hits

    def delete(self, ref: RefLike) -> dict[str, Any]:
        """Remove an entry and everything attached to it, then the blobs nothing else references."""
        self.config.require("write")
        with self.store.write() as conn:
            entry_id = entry_store.require_id(conn, _ref(ref))
            shas = conn.execute(text("SELECT DISTINCT sha256 FROM artefacts WHERE entry_id = :id"),
                                {"id": entry_id}).scalars().all()
            conn.execute(text("DELETE FROM entries WHERE id = :id"), {"id": entry_id})
            orphaned = [sha for sha in shas if conn.execute(
                text("SELECT 1 FROM artefacts WHERE sha256 = :s LIMIT 1"), {"s": sha}).scalar() is None]
        removed = sum(self.store.blobs.delete(sha) for sha in orphaned)
        return {"deleted": entry_id, "blobs_removed": removed}

    # ---- tags, collections, annotations -------------------------------------------------
    def tag(self, ref: RefLike, tags: list[str]) -> list[str]:
        """Add ``tags`` to an entry; returns its tags afterwards."""
        self.config.require("write")
        with self.store.write() as conn:
            entry_id = entry_store.require_id(conn, _ref(ref))
            self._tag(conn, entry_id, tags)
            return entry_store.load(conn, [entry_id])[0].tags

    def untag(self, ref: RefLike, tags: list[str]) -> list[str]:
        """Remove ``tags`` from an entry; returns its tags afterwards."""
        self.config.require("write")
        names = [_name(t, "tag") for t in tags]
        with self.store.write() as conn:
            entry_id = entry_store.require_id(conn, _ref(ref))
            conn.execute(text("DELETE FROM entry_tags WHERE entry_id = :e AND tag_id IN "
                              "(SELECT id FROM tags WHERE name IN :names)").bindparams(
                bindparam("names", expanding=True)), {"e": entry_id, "names": names})
            return entry_store.load(conn, [entry_id])[0].tags

    def _tag(self, conn, entry_id: int, tags: list[str]) -> None:
        names = [_name(t, "tag") for t in tags]
        for tag_id in entry_store.tag_ids(conn, names):
            conn.execute(text("INSERT OR IGNORE INTO entry_tags (entry_id, tag_id) VALUES (:e, :t)"),
                         {"e": entry_id, "t": tag_id})

    def tags(self) -> list[dict[str, Any]]:
        """Every tag with the number of entries carrying it."""
        with self.store.read() as conn:
            rows = conn.execute(text("SELECT t.name, count(et.entry_id) AS n FROM tags t LEFT JOIN entry_tags et "
                                     "ON et.tag_id = t.id GROUP BY t.id HAVING n > 0 ORDER BY t.name")).all()
        return [{"name": name, "count": n} for name, n in rows]

    def collection_create(self, name: str, description: str | None = None) -> dict[str, Any]:
        """Create a collection (no-op if it exists); returns it with its entry count."""
        self.config.require("write")
        name = _name(name, "collection")
        with self.store.write() as conn:
            self._collection_id(conn, name, create=True, description=description)
        return next(c for c in self.collections() if c["name"].lower() == name.lower())

    def collection_add(self, name: str, refs: list[RefLike]) -> dict[str, Any]:
        """Put entries in a collection, creating the collection if needed."""
        self.config.require("write")
        with self.store.write() as conn:
            collection_id = self._collection_id(conn, _name(name, "collection"), create=True)
            for ref in refs:
                conn.execute(text("INSERT OR IGNORE INTO collection_entries (collection_id, entry_id, added_at) "
                                  "VALUES (:c, :e, :t)"),
                             {"c": collection_id, "e": entry_store.require_id(conn, _ref(ref)), "t": now()})
        return next(c for c in self.collections() if c["name"].lower() == name.strip().lower())

    def collection_remove(self, name: str, refs: list[RefLike]) -> dict[str, Any]:
        """Take entries out of a collection."""
        self.config.require("write")
        with self.store.write() as conn:
            collection_id = self._collection_id(conn, _name(name, "collection"))
            for ref in refs:
                conn.execute(text("DELETE FROM collection_entries WHERE collection_id = :c AND entry_id = :e"),
                             {"c": collection_id, "e": entry_store.require_id(conn, _ref(ref))})
        return next(c for c in self.collections() if c["name"].lower() == name.strip().lower())

    def collection_delete(self, name: str) -> None:
        """Delete a collection (its entries stay in the library)."""
        self.config.require("write")
        with self.store.write() as conn:
            conn.execute(text("DELETE FROM collections WHERE id = :c"),
                         {"c": self._collection_id(conn, _name(name, "collection"))})

    def collections(self) -> list[dict[str, Any]]:
        """Every collection with its description and entry count."""
        with self.store.read() as conn:
            rows = conn.execute(text(
                "SELECT c.name, c.description, c.created_at, count(ce.entry_id) AS n FROM collections c "
                "LEFT JOIN collection_entries ce ON ce.collection_id = c.id GROUP BY c.id ORDER BY c.name")).all()
        return [{"name": r.name, "description": r.description, "count": r.n, "created_at": r.created_at}
                for r in rows]

    def collection_entries(self, name: str) -> list[Entry]:
        with self.store.read() as conn:
            ids = conn.execute(text("SELECT entry_id FROM collection_entries WHERE collection_id = :c "
                                    "ORDER BY added_at"),
                               {"c": self._collection_id(conn, _name(name, "collection"))}).scalars().all()
            return entry_store.load(conn, ids)

    @staticmethod
    def _collection_id(conn, name: str, *, create: bool = False, description: str | None = None) -> int:
        found = conn.execute(text("SELECT id FROM collections WHERE name = :n"), {"n": name}).scalar()
        if found is not None:
            return found
        if not create:
            raise DoigetError(ErrorCode.NOT_FOUND, f"no collection named {name!r}")
        return conn.execute(text("INSERT INTO collections (name, description, created_at) VALUES (:n, :d, :t) "
                                 "RETURNING id"), {"n": name, "d": description, "t": now()}).scalar_one()

    def annotate(self, ref: RefLike, text_: str | None) -> str | None:
        """Set the entry's one free-form annotation (``None`` or empty text clears it); returns it."""
        self.config.require("write")
        body = (text_ or "").strip()
        if len(body) > MAX_ANNOTATION_LENGTH:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"annotation longer than {MAX_ANNOTATION_LENGTH} characters")
        with self.store.write() as conn:
            entry_id = entry_store.require_id(conn, _ref(ref))
            if not body:
                conn.execute(text("DELETE FROM notes WHERE entry_id = :e AND kind = 'annotation'"), {"e": entry_id})
                return None
            stamp = now()
            conn.execute(text(
                "INSERT INTO notes (entry_id, kind, body, created_at, updated_at) "
                "VALUES (:e, 'annotation', :b, :t, :t) "
                "ON CONFLICT (entry_id) WHERE kind = 'annotation' DO UPDATE SET body = :b, updated_at = :t"),
                {"e": entry_id, "b": body, "t": stamp})
            return body

    # ---- files ---------------------------------------------------------------------------
    def pdf_path(self, ref: RefLike) -> Path | None:
        """Path of the entry's stored PDF (newest), or None when it has no PDF yet."""
        with self.store.read() as conn:
            entry_id = entry_store.require_id(conn, _ref(ref))
            sha = conn.execute(text("SELECT sha256 FROM artefacts WHERE entry_id = :e AND kind = 'pdf' "
                                    "ORDER BY id DESC LIMIT 1"), {"e": entry_id}).scalar()
        return self.store.blobs.path(sha) if sha else None

    def add_artefact(self, ref: RefLike, kind: str, data: bytes | Download | os.PathLike[str], *,
                     mime: str | None = None, source: str | None = None, url: str | None = None) -> str:
        """Store ``data`` as a blob and record it as the entry's ``kind`` artefact; returns its SHA-256.

        ``data``: bytes, a file path (copied), or a :class:`~doiget.net.base.Download` (its temp
        file, which must lie in ``store.blobs.temp_dir()``, is moved into place, or removed on failure).
        """
        self.config.require("write")
        try:
            with self.store.read() as conn:
                entry_store.require_id(conn, _ref(ref))
            if isinstance(data, os.PathLike):
                data = Path(data).read_bytes()
            if isinstance(data, bytes):
                sha, size = self.store.blobs.put_bytes(data), len(data)
            else:
                sha, size = self.store.blobs.put_file(data.path, data.sha256), data.size
        finally:
            if not isinstance(data, (bytes, os.PathLike)):
                data.path.unlink(missing_ok=True)  # already moved on success
        # the blob is complete and in place before any row names it
        with self.store.write() as conn:
            entry_id = entry_store.require_id(conn, _ref(ref))
            artefact_id = conn.execute(text(
                "INSERT OR IGNORE INTO artefacts (entry_id, kind, sha256, size, mime, source, url, "
                "created_at) VALUES (:e, :k, :s, :n, :m, :src, :u, :t) RETURNING id"),
                {"e": entry_id, "k": kind, "s": sha, "n": size, "m": mime, "src": source, "u": url,
                 "t": now()}).scalar()
        if artefact_id is not None and kind in fulltext_index.EXTRACTORS:
            self._index_artefact(artefact_id, kind, sha)
        return sha

    def gc(self, grace_seconds: float = 900, dry_run: bool = False) -> dict[str, Any]:
        """Remove blobs no artefact references (older than ``grace_seconds``, so in-flight writes are
        safe), stale temp files and expired HTTP cache rows."""
        self.config.require("write")
        cutoff = time.time() - grace_seconds
        with self.store.read() as conn:
            referenced = set(conn.execute(text("SELECT DISTINCT sha256 FROM artefacts")).scalars())
        orphans = [(sha, path) for sha, path in self.store.blobs.all()
                   if sha not in referenced and path.stat().st_mtime <= cutoff]
        temps = self.store.blobs.stale_temp_files(grace_seconds)
        freed = sum(p.stat().st_size for _, p in orphans) + sum(p.stat().st_size for p in temps)
        expired = 0
        if not dry_run:
            for sha, _ in orphans:
                self.store.blobs.delete(sha)
            for path in temps:
                path.unlink(missing_ok=True)
            with self.store.write() as conn:
                expired = conn.execute(text("DELETE FROM http_cache WHERE expires_at < :t"),
                                       {"t": time.time()}).rowcount
        return {"orphan_blobs": [sha for sha, _ in orphans], "temp_files": len(temps), "bytes_freed": freed,
                "cache_rows_expired": expired, "dry_run": dry_run}

    # ---- resolving and fetching (sources, doiget/services/fetching.py) -------------------------------
    def resolve(self, ref: Ref | str) -> Entry:
        """Authoritative metadata of ``ref`` (Crossref, arXiv, OpenAlex or Europe PMC, enriched),
        saved to the library. Upstream answers are cached for 7 days: a repeat sends no request."""
        self.config.require("write")
        return self.add(resolve_work(self.http, Ref.parse(ref)))

    def metadata_only(self, ref: Ref | str, include_oa_location: bool = False) -> dict[str, Any]:
        """``{ref, entry}`` without downloading any file. The metadata is saved, as by :meth:`resolve`.
        With ``include_oa_location``: ``oa_url`` (best PDF, else landing page; None when closed) and
        ``oa_status`` (gold/green/hybrid/bronze/closed) as Unpaywall states them."""
        return pipeline.metadata_only(self, Ref.parse(ref), include_oa_location)

    def fetch(self, ref: Ref | str, dry_run: bool = False, fulltext: bool = True) -> dict[str, Any]:
        """Resolve ``ref``, save it, and store its open-access PDF: ``{ref, entry, oa_status,
        suggested_arxiv_id, pdf: {status, reason, message, source, url, sha256, size, path, attempts},
        fulltext}`` with status fetched / already_present / no_oa_url / blocked / failed. With
        ``fulltext`` (default) the structured text (ar5iv HTML, Europe PMC JATS or PMC BioC) is fetched
        too, as :meth:`fetch_fulltext` reports; its failure never fails the fetch. ``dry_run``: the plan
        only, with no network access and nothing written."""
        ref = Ref.parse(ref)
        if dry_run:
            return pipeline.plan(ref, pipeline.stored(self, ref))
        result = pipeline.fetch(self, ref)
        if fulltext:
            try:
                result["fulltext"] = self.fetch_fulltext(ref)
            except DoigetError as exc:
                result["fulltext"] = {"error": exc.to_dict()}
        return result

    def batch_fetch(self, refs: list[Ref | str], dry_run: bool = False, fulltext: bool = True,
                    progress: pipeline.Progress | None = None) -> dict[str, Any]:
        """:meth:`fetch` for up to 100 refs concurrently (within the rate limits): ``{results (input
        order), summary}``; a failing ref is ``{input, ok: false, error}``, duplicates are fetched once."""
        if not dry_run:
            self.config.require("write")
        return pipeline.run_batch(refs, lambda ref: self.fetch(ref, dry_run=dry_run, fulltext=fulltext), progress)

    def link(self, ref: Ref | str) -> dict[str, Any]:
        """``{ref, arxiv, identity, refs}``: the identifiers OpenAlex links to ``ref`` (DOI, arXiv
        preprint, PMID, PMCID, OpenAlex id). Saves nothing."""
        return pipeline.link(self, Ref.parse(ref))

    def paper_search(self, query: str | None = None, filters: dict[str, str] | None = None,
                     cursor: str | None = "*", per_page: int = 25) -> dict[str, Any]:
        """One page of OpenAlex search results ``{count, next_cursor, results: [Work]}``, with abstracts.
        Saves nothing."""
        query = query_text(query) if isinstance(query, str) else query
        return pipeline.paper_search(self, query, filters, cursor, per_page)

    # ---- full text (doiget/fulltext/) ---------------------------------------------------
    def text(self, ref: RefLike, format: str = "auto", offset: int = 0, max_chars: int = 15000,
             page: int | None = None) -> dict[str, Any]:
        """One bounded page of a paper's sectioned text (Markdown headings), from ``offset`` or PDF ``page``.

        ``format`` "auto" reads ar5iv HTML, JATS or BioC before the PDF (then the LaTeX source); NOT_FOUND
        when no extractable artefact is stored (fetch the paper first; this never fetches)."""
        if format not in ("auto", *fulltext_index.EXTRACTORS):
            raise DoigetError(ErrorCode.INVALID_INPUT,
                              f"format must be one of auto, {', '.join(fulltext_index.EXTRACTORS)}")
        offset = _bounded_int(offset, "offset", 0, 2**53)
        max_chars = _bounded_int(max_chars, "max_chars", 1, MAX_TEXT_CHARS)
        if page is not None:
            page = _bounded_int(page, "page", 1, 10**6)
            if offset:
                raise DoigetError(ErrorCode.INVALID_INPUT, "give page or offset, not both")
        with self.store.read() as conn:
            entry = entry_store.load(conn, [entry_store.require_id(conn, _ref(ref))])[0]
            candidates = fulltext_index.reading_order(conn, entry.id, None if format == "auto" else format)
        if not candidates:
            stored = "no extractable full text" if format == "auto" else f"no {format} artefact"
            raise DoigetError(ErrorCode.NOT_FOUND, f"{entry.ref_label} has {stored} in the library; fetch it first "
                              "(doiget fetch, or doiget_fetch_fulltext for ar5iv/JATS/BioC)")
        artefact, doc = self._readable_document(candidates)
        return {"ref": entry.ref_label, "id": entry.id, "title": entry.title, "format": artefact.kind,
                "sha256": artefact.sha256, **text_page(doc, offset, max_chars, page)}

    def _readable_document(self, candidates: list) -> tuple[Any, Document]:
        """The first candidate artefact that extracts to some text (else the first that extracts at all)."""
        readable, first_error = None, None
        for artefact in candidates:
            try:
                doc = fulltext_index.load_document(self.store.blobs, artefact.kind, artefact.sha256)
            except DoigetError as exc:
                first_error = first_error or exc
                continue
            if doc.text.strip():
                return artefact, doc
            readable = readable or (artefact, doc)
        if readable is None:
            raise first_error
        return readable

    def search_text(self, query: str, limit: int = 20, *, ref: RefLike | None = None, tag: str | None = None,
                    collection: str | None = None, year_from: int | None = None,
                    year_to: int | None = None) -> list[TextHit]:
        """Passages of the papers' text matching ``query`` ("phrases", prefix*, AND/OR/NOT, heading:term),
        best first by bm25, each naming its paper, section heading, PDF page and character offset."""
        limit = _bounded_int(limit, "limit", 1, 100)
        match = compile_query(query_text(query), fulltext_search.COLUMNS)
        clauses, params = entry_store.filter_clauses(**_entry_filters(
            year_from=year_from, year_to=year_to, tag=tag, collection=collection))
        with self.store.query("the full-text search") as conn:
            if ref is not None:
                clauses.append("e.id = :entry_id")
                params["entry_id"] = entry_store.require_id(conn, _ref(ref))
            return fulltext_search.search_chunks(conn, match, limit, clauses, params)

    def _with_fulltext(self, hits: list[SearchHit], query: str, limit: int,
                       filters: dict[str, Any]) -> list[SearchHit]:
        """``hits`` each with their best passage, then the papers that match only inside their text."""
        clauses, params = entry_store.filter_clauses(**filters)
        with self.store.query("the full-text search") as conn:
            passages = fulltext_search.search_chunks(conn, compile_query(query, fulltext_search.COLUMNS), limit,
                                                     clauses, params, best_per_entry=True)
            found = {hit.id for hit in hits}
            others = {e.id: e for e in entry_store.load(conn, [p.id for p in passages if p.id not in found])}
        best = {p.id: ChunkMatch.model_validate(p.model_dump(include=set(ChunkMatch.model_fields)))
                for p in passages}
        merged = [hit.model_copy(update={"fulltext": best.get(hit.id)}) for hit in hits]
        for passage in passages:
            entry = others.get(passage.id)
            if entry is not None:
                merged.append(SearchHit(id=entry.id, ref=entry.ref_label, title=entry.title,
                                        authors=[a.name for a in entry.authors], year=entry.year, venue=entry.venue,
                                        tags=entry.tags, has_pdf=entry.has_pdf, score=passage.score,
                                        snippet=passage.snippet, fulltext=best[entry.id]))
        return merged[:limit]

    def _index_artefact(self, artefact_id: int, kind: str, sha256: str, *, fresh: bool = False) -> dict[str, Any]:
        """Extract one stored artefact (outside any transaction) and write its chunk rows. An extraction
        failure is logged and returned, never raised: the artefact stays stored, with no chunks."""
        try:
            doc = fulltext_index.load_document(self.store.blobs, kind, sha256, fresh=fresh)
        except Exception as exc:  # extractors are fed untrusted bytes; any failure must leave the artefact be
            error = exc if isinstance(exc, DoigetError) else DoigetError(
                ErrorCode.INTERNAL_ERROR, f"{type(exc).__name__} while extracting: {exc}")
            log.warning("cannot index %s artefact %d (sha256 %s): %s", kind, artefact_id, sha256[:12], error.message)
            return {"indexed": False, "error": error.to_dict()}
        with self.store.write() as conn:
            changed = fulltext_index.replace_chunks(conn, artefact_id, doc)
        return {"indexed": changed is not None, "changed": bool(changed), "chunks": len(doc.chunks),
                "content_sha256": doc.content_sha256}

    def reindex(self, ref: RefLike | None = None,
                progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Re-extract and re-index the artefacts of one entry, or of the whole library; ``progress(done, total)``
        is called after each. Unchanged chunk rows are left untouched."""
        self.config.require("write")
        with self.store.read() as conn:
            entry_id = None if ref is None else entry_store.require_id(conn, _ref(ref))
            artefacts = fulltext_index.extractable(conn, entry_id)
        report: dict[str, Any] = {"artefacts": len(artefacts), "indexed": 0, "changed": 0, "chunks": 0, "failed": []}
        for done, artefact in enumerate(artefacts, start=1):
            outcome = self._index_artefact(artefact.id, artefact.kind, artefact.sha256, fresh=True)
            if outcome["indexed"]:
                report["indexed"] += 1
                report["changed"] += outcome["changed"]
                report["chunks"] += outcome["chunks"]
            elif "error" in outcome:
                report["failed"].append({"entry_id": artefact.entry_id, "kind": artefact.kind,
                                         "sha256": artefact.sha256, "error": outcome["error"]})
            if progress is not None:
                progress(done, len(artefacts))
        return report

    def fetch_fulltext(self, ref: RefLike) -> dict[str, Any]:
        """Download a paper's structured full text — ar5iv HTML (arXiv), Europe PMC JATS, else PMC BioC
        (open-access PMC papers) — and store and index each; one that does not exist is reported, not raised."""
        self.config.require("write")
        self.config.require("network")
        entry = self.info(ref)
        stored = {a.kind for a in entry.artefacts}
        outcomes = []
        for alternate in alternates.for_entry(entry):
            outcome: dict[str, Any] = {"format": alternate.kind, "source": alternate.source, "url": alternate.url}
            if alternate.url is None:
                outcome.update(status="missing", reason=alternate.reason)
            elif alternate.kind in stored:
                outcome.update(status="already_stored")
            elif alternate.fallback_for in stored:
                outcome.update(status="skipped", reason=f"the {alternate.fallback_for} text is stored")
            else:
                outcome.update(self._fetch_alternate(entry.id, alternate))
                if outcome["status"] == "stored":
                    stored.add(alternate.kind)
            outcomes.append(outcome)
        return {"ref": entry.ref_label, "id": entry.id, "alternates": outcomes,
                "stored": sum(o["status"] == "stored" for o in outcomes)}

    def _fetch_alternate(self, entry_id: int, alternate: alternates.Alternate) -> dict[str, Any]:
        try:
            # Not cached: the body is stored as a blob, not kept twice in http_cache.
            response = self.http.get(alternate.source, alternate.url, cache=False)
        except DoigetError as exc:
            if exc.code is ErrorCode.NOT_FOUND:
                return {"status": "missing", "reason": exc.message}
            return {"status": "failed", "error": exc.to_dict()}
        try:  # ar5iv answers papers it has not rendered with arXiv's abstract page; BioC with an error text
            chunks = len(fulltext_index.extract(alternate.kind, response.content).chunks)
        except DoigetError as exc:
            return {"status": "missing", "reason": f"{alternate.source} served no usable full text: {exc.message}"}
        if not chunks:
            return {"status": "missing", "reason": f"{alternate.source} served a page without full text"}
        sha = self.add_artefact(entry_id, alternate.kind, response.content, source=alternate.source,
                                mime=response.headers.get("content-type"), url=alternate.url)
        return {"status": "stored", "sha256": sha, "chunks": chunks}

    def add_pdf(self, pdf: bytes | str | os.PathLike[str], ref: RefLike | None = None) -> dict[str, Any]:
        """Import a PDF you have: the entry already holding these bytes, else the entry of ``ref`` or of the
        DOI/arXiv id found in the PDF (resolved when the network is allowed), else one titled from the PDF."""
        self.config.require("write")
        data, name = _read_pdf(pdf)
        sha = hashlib.sha256(data).hexdigest()
        with self.store.read() as conn:
            holder = conn.execute(text("SELECT entry_id FROM artefacts WHERE sha256 = :s AND kind = 'pdf' "
                                       "ORDER BY id LIMIT 1"), {"s": sha}).scalar()
        if holder is not None:
            return {"entry": self.info(holder), "sha256": sha, "duplicate": True, "identified_by": "content"}
        sniff = sniff_pdf(data)
        target = _ref(ref) if ref is not None else (
            Ref("doi", sniff.doi) if sniff.doi else Ref("arxiv", sniff.arxiv_id) if sniff.arxiv_id else None)
        identified_by = "ref" if ref is not None else target.kind if target else "title"
        entry_id = None
        if target is not None:
            with self.store.read() as conn:
                entry_id = (entry_store.require_id(conn, target) if isinstance(target, int)
                            else entry_store.find_id(conn, target))
        resolved = False
        if entry_id is None:
            work, resolved = self._pdf_work(target, sniff, name)
            entry_id = self.add(work).id
        self.add_artefact(entry_id, "pdf", data, mime="application/pdf", source="import")
        return {"entry": self.info(entry_id), "sha256": sha, "duplicate": False, "identified_by": identified_by,
                "resolved": resolved}

    def _pdf_work(self, ref: Ref | None, sniff: PdfSniff, name: str | None) -> tuple[Work, bool]:
        """Metadata for an imported PDF: resolved from ``ref`` if the network allows, else what the PDF says."""
        if ref is not None and self.config.network_enabled:
            try:
                return resolve_work(self.http, ref), True
            except DoigetError as exc:
                log.info("cannot resolve %s for an imported PDF, using the PDF's own metadata: %s", ref, exc.message)
        title = sniff.title or name
        if ref is None and not title:
            raise DoigetError(ErrorCode.INVALID_INPUT, "the PDF has no DOI, arXiv id or title; pass ref= to say "
                              "which paper it is")
        return Work(**({ref.kind: ref.id} if ref else {}), title=title, sources=["pdf"],
                    authors=[Author.from_parts(name=a) for a in sniff.authors]), False

    def tex_source(self, ref: RefLike, max_chars: int = 15000, offset: int = 0) -> dict[str, Any]:
        """The LaTeX source of an arXiv paper: its main .tex file (a bounded page of it) and its file list.
        The e-print is downloaded and stored (kind "tex") the first time."""
        max_chars = _bounded_int(max_chars, "max_chars", 1, MAX_TEXT_CHARS)
        entry = self.info(ref)
        if not entry.arxiv:
            raise DoigetError(ErrorCode.NOT_FOUND, f"{entry.ref_label} has no arXiv id; only arXiv papers have "
                              "LaTeX source")
        stored = [a for a in entry.artefacts if a.kind == "tex"]
        if stored:
            data = self.store.blobs.read(stored[-1].sha256)
            source = read_tex_source(data)
        else:
            self.config.require("write")
            try:
                download = self.http.download("arxiv", arxiv.source_url(Ref("arxiv", entry.arxiv)),
                                              self.store.blobs.temp_dir(), expect="gzip_or_tar",
                                              max_bytes=MAX_TEX_BYTES)
                try:
                    data = download.path.read_bytes()
                finally:
                    download.path.unlink(missing_ok=True)
                source = read_tex_source(data)  # only a readable source is stored
            except DoigetError as exc:
                # A PDF-only submission's e-print is the PDF itself.
                if exc.code is not ErrorCode.INVALID_INPUT and exc.details.get("reason") != "not_archive":
                    raise
                raise DoigetError(ErrorCode.NOT_FOUND, f"arXiv has no LaTeX source for {entry.ref_label}: "
                                  f"{exc.message}") from exc
            self.add_artefact(entry.id, "tex", data, mime=download.content_type, source="arxiv",
                              url=download.final_url)
        main = source.files[source.main_file]
        listed = itertools.islice(source.files.items(), MAX_LISTED_FILES)
        return {"ref": entry.ref_label, "id": entry.id, "sha256": hashlib.sha256(data).hexdigest(),
                "downloaded": not stored, "main_file": source.main_file, "file_count": len(source.files),
                "files": [{"path": path, "chars": len(body)} for path, body in listed],
                **bounded_slice(main, _bounded_int(offset, "offset", 0, 2**53), max_chars)}

    # ---- bibliography, citations strings, notes (doiget/formats/, doiget/matching.py) ---
    def export(self, format: str = "bibtex", refs: list[RefLike] | None = None, tag: str | None = None,
               collection: str | None = None, query: str | None = None) -> str | list[dict[str, Any]]:
        """The selected entries as BibTeX or RIS text, or as a list of CSL-JSON items. Selectors
        combine (an entry must match all given); none selects the whole library. Stubs are left out;
        ``query`` selects its best 100 search hits, in rank order."""
        from doiget.services import bibliography

        bibliography.check_format(format)
        tag = _name(tag, "tag") if tag is not None else None
        collection = _name(collection, "collection") if collection is not None else None
        candidates = [hit.id for hit in self.search(query, 100, tag=tag, collection=collection)] if query else None
        with self.store.read() as conn:
            if refs is not None:
                wanted = [entry_store.require_id(conn, _ref(ref)) for ref in refs]
                found = set(candidates) if candidates is not None else None
                candidates = [i for i in wanted if found is None or i in found]
            if collection is not None:
                self._collection_id(conn, collection)
            entries = entry_store.load(conn, bibliography.select_ids(conn, candidates, tag, collection))
        return bibliography.render(entries, format)

    def import_bibliography(self, text_or_path: str | os.PathLike[str], format: str = "auto",
                            tags: list[str] | None = None,
                            progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Import a CSL-JSON or BibTeX bibliography: ``str`` is the document itself, a ``Path`` names a
        file. Every record with an identifier or a title becomes an entry, merged by identifier; its
        keywords and ``tags`` become tags. Returns counts, a per-record report and ``fetchable`` refs;
        ``progress(done, total)`` is called after each chunk of entries is written."""
        from doiget.services import bibliography

        self.config.require("write")
        names = [_name(t, "tag") for t in tags or []]
        if isinstance(text_or_path, os.PathLike):
            try:
                text_or_path = Path(text_or_path).read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError) as exc:
                raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot read {text_or_path}: {exc}") from exc
        return bibliography.import_bibliography(self.store, text_or_path, format, names, progress)

    def resolve_citation(self, text_: str, limit: int = 5) -> dict[str, Any]:
        """Ranked candidate works for a free-form reference string: the local library answers alone
        when it holds an exact or probable match, else Crossref is asked (unless the profile forbids
        the network; the answer then says so in ``note``). Candidates score at least 0.5."""
        from doiget.services import citations as citation_lookup

        citation = citation_lookup.check(query_text(text_, "citation") if isinstance(text_, str) else text_)
        limit = _bounded_int(limit, "limit", 1, 20)
        http = (lambda: self.http) if self.config.network_enabled else None
        return citation_lookup.resolve(self.store, http, citation, limit)

    def resolve_citations(self, texts: list[str], limit: int = 5) -> list[dict[str, Any]]:
        """:meth:`resolve_citation` for up to 50 citations; one that fails carries ``error`` instead."""
        if not isinstance(texts, list) or not 1 <= len(texts) <= 50:
            raise DoigetError(ErrorCode.INVALID_INPUT, "give 1 to 50 citations")
        results = []
        for citation in texts:
            try:
                results.append(self.resolve_citation(citation, limit))
            except DoigetError as exc:
                results.append({"citation": citation, "error": exc.to_dict()})
        return results

    def note_create(self, body: str, ref: RefLike | None = None, anchors: list[dict[str, Any]] | None = None,
                    tags: list[str] | None = None, author: str | None = None) -> dict[str, Any]:
        """Write a note, about the entry ``ref`` or standing alone, with anchors ({page?, start?, end?,
        quote?}) into the paper; returns the note."""
        from doiget.services import notes

        self.config.require("write")
        values = (notes.body(body), notes.anchors(anchors or []), [_name(t, "tag") for t in tags or []],
                  notes.author(author))
        with self.store.write() as conn:
            entry_id = entry_store.require_id(conn, _ref(ref)) if ref is not None else None
            return notes.load(conn, [notes.create(conn, entry_id, *values)])[0]

    def note_read(self, note_id: int) -> dict[str, Any]:
        """One note; NOT_FOUND if there is none with that id."""
        from doiget.services import notes

        with self.store.read() as conn:
            notes.require(conn, _bounded_int(note_id, "note id", 1, 2**62))
            return notes.load(conn, [note_id])[0]

    def note_update(self, note_id: int, body: str | None = None, anchors: list[dict[str, Any]] | None = None,
                    tags: list[str] | None = None) -> dict[str, Any]:
        """Replace a note's body, anchors or tags (those given); returns the note."""
        from doiget.services import notes

        self.config.require("write")
        body = notes.body(body) if body is not None else None
        anchors = notes.anchors(anchors) if anchors is not None else None
        tags = [_name(t, "tag") for t in tags] if tags is not None else None
        with self.store.write() as conn:
            notes.update(conn, _bounded_int(note_id, "note id", 1, 2**62), body, anchors, tags)
            return notes.load(conn, [note_id])[0]

    def note_delete(self, note_id: int) -> dict[str, Any]:
        """Delete a note."""
        from doiget.services import notes

        self.config.require("write")
        with self.store.write() as conn:
            notes.delete(conn, _bounded_int(note_id, "note id", 1, 2**62))
        return {"deleted": note_id}

    def note_search(self, keyword: str | None = None, ref: RefLike | None = None, tag: str | None = None,
                    since: str | None = None, until: str | None = None, limit: int = 20,
                    offset: int = 0) -> dict[str, Any]:
        """Notes matching every filter given: ``keyword`` (full-text, best first), entry, tag, created
        ``since`` / ``until`` (ISO dates); newest first without a keyword. Paginated by ``offset``;
        ``next_offset`` is None on the last page."""
        from doiget.services import notes

        limit, offset = _bounded_int(limit, "limit", 1, 100), _bounded_int(offset, "offset", 0, 1_000_000)
        tag = _name(tag, "tag") if tag is not None else None
        keyword = query_text(keyword, "note keyword") if keyword is not None else None
        try:
            with self.store.query("the note search") as conn:
                entry_id = entry_store.require_id(conn, _ref(ref)) if ref is not None else None
                return notes.search(conn, keyword, entry_id, tag, since, until, limit, offset)
        except OperationalError as exc:
            if is_fts_error(exc.orig):
                raise fts_query_error(f"search notes for {keyword!r}", exc.orig) from exc
            raise

    def note_export(self, note_id: int) -> str:
        """A note as Markdown with YAML front matter (returned, never written anywhere)."""
        from doiget.formats.markdown import note_to_markdown

        return note_to_markdown(self.note_read(note_id))

    # ---- citation graph (doiget/ranking.py) ------------------------------------------------
    # Imported on demand: networkx costs a noticeable fraction of every CLI start-up.
    def expand_citation_graph(self, ref: RefLike, direction: str = "references", depth: int = 1,
                              max_nodes: int = 100, max_requests: int = 20, *,
                              progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Walk OpenAlex from ``ref`` (references, cited_by or both; depth 1-2), storing the works met as stubs
        and the edges between them; capped at ``max_nodes`` (≤ 500) and ``max_requests`` (≤ 100)."""
        from doiget.services import expansion
        from doiget.services import graph as citation_graph

        self.config.require("write")
        target = _ref(ref)
        if isinstance(target, int):
            with self.store.read() as conn:
                target = entry_store.load(conn, [entry_store.require_id(conn, target)])[0].ref
        raw = expansion.expand(self.store, lambda: self.http, target, direction, depth, max_nodes, max_requests,
                               progress)
        return citation_graph.expansion_report(self.store, raw, direction, depth)

    def related(self, refs: list[RefLike], ranking: str = "similarity", limit: int = 20) -> dict[str, Any]:
        """Papers related to ``refs`` in the local citation graph (seeds excluded), best first, with the
        score components of ``ranking``: similarity, influence or recent."""
        from doiget.services import graph as citation_graph

        limit = _bounded_int(limit, "limit", 1, 1000)
        return citation_graph.related(self.store, self._seed_ids(refs), ranking, limit)

    def connect(self, from_ref: RefLike, to_ref: RefLike, max_paths: int = 5) -> dict[str, Any]:
        """Up to ``max_paths`` shortest citation paths between two papers, with each edge's direction."""
        from doiget.services import graph as citation_graph

        source, target = self._seed_ids([from_ref, to_ref], distinct=False)
        return citation_graph.connect(self.store, source, target, _bounded_int(max_paths, "max_paths", 1, 20))

    def literature_review(self, seeds: list[RefLike] | None = None, *, tag: str | None = None,
                          collection: str | None = None, sections: list[str] | None = None,
                          limit: int = 10) -> dict[str, Any]:
        """Similar, important, review-candidate and recent papers, top authors and venues around the seeds
        (refs, a tag's or a collection's entries; ≤ 500); a failing section is marked ``partial``."""
        from doiget import ranking as graph
        from doiget.services import graph as citation_graph

        ids = self._seed_ids(seeds or [], tag=tag, collection=collection)
        return citation_graph.literature_review(self.store, ids, sections or list(graph.SECTIONS),
                                                _bounded_int(limit, "limit", 1, 100))

    def graph_export(self, format: str = "graphml", refs: list[RefLike] | None = None) -> dict[str, Any]:
        """The citation graph (or ``refs`` and their neighbours) as GraphML or node-link JSON ``text``."""
        from doiget.services import graph as citation_graph

        around = self._seed_ids(refs) if refs is not None else None
        body, nodes, edges = citation_graph.export(self.store, format, around)
        return {"format": format, "nodes": nodes, "edges": edges, "text": body}

    def _seed_ids(self, refs: list[RefLike], *, tag: str | None = None, collection: str | None = None,
                  distinct: bool = True) -> list[int]:
        from doiget.services import graph as citation_graph

        if len(refs) > MAX_GRAPH_SEEDS:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"{len(refs)} seed papers; at most {MAX_GRAPH_SEEDS}")
        with self.store.read() as conn:
            ids = [entry_store.require_id(conn, _ref(r)) for r in refs]
            if not distinct:
                return ids
            ids = citation_graph.seed_ids(conn, ids, tag=_name(tag, "tag") if tag is not None else None,
                                          collection=_name(collection, "collection") if collection is not None
                                          else None)
        if len(ids) > MAX_GRAPH_SEEDS:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"{len(ids)} seed papers; at most {MAX_GRAPH_SEEDS}")
        return ids

    # ---- introspection ------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        """Store location, schema revision, counts and integrity of this library."""
        return health_report(self.config)

    def sql(self, query: str, max_rows: int = 1000) -> dict[str, Any]:
        """Run ONE read-only SQL statement; returns columns, rows and whether rows were cut at ``max_rows``
        (or at :data:`MAX_SQL_CHARS` characters of values). QUERY_TIMEOUT after ``query_time_limit``
        seconds (config.toml, default 5)."""
        if not isinstance(query, str) or not query.strip():
            raise DoigetError(ErrorCode.INVALID_QUERY, "empty SQL statement")
        query = query_text(query, "SQL statement")
        max_rows = _bounded_int(max_rows, "max_rows", 1, MAX_SQL_ROWS)
        try:
            with self.store.readonly().connect() as conn, \
                    deadline.time_limit(conn, self.store.query_seconds, "the SQL statement", cap_values=True):
                result = conn.exec_driver_sql(query)
                if not result.returns_rows:
                    return {"columns": [], "rows": [], "truncated": False}
                columns = list(result.keys())
                rows, truncated = _capped_rows(result, max_rows)
        except DBAPIError as exc:
            raise _sql_error(exc) from exc
        return {"columns": columns, "rows": rows, "truncated": truncated}


def _sql_error(exc: DBAPIError) -> DoigetError:
    message = str(exc.orig)
    lowered = message.lower()
    if "readonly" in lowered or "read-only" in lowered or "not authorized" in lowered or "query_only" in lowered:
        return DoigetError(ErrorCode.READ_ONLY, f"the SQL interface is read-only: {message}")
    return DoigetError(ErrorCode.INVALID_QUERY, f"SQL error: {message}")


def _capped_rows(result: Any, max_rows: int) -> tuple[list[list[Any]], bool]:
    """At most ``max_rows`` rows and :data:`MAX_SQL_CHARS` characters of values; whether rows were cut."""
    rows, chars = [], 0
    for row in result:
        values = [_jsonable(v) for v in row]
        chars += sum(len(v) if isinstance(v, str) else 8 for v in values)
        if len(rows) == max_rows or chars > MAX_SQL_CHARS:
            return rows, True
        rows.append(values)
    return rows, False


def _jsonable(value: Any) -> Any:
    return value.hex() if isinstance(value, bytes) else value


def _ref(ref: RefLike) -> Ref | int:
    if isinstance(ref, str) and LOCAL_ID.fullmatch(ref.strip()):
        return int(ref.strip()[1:])
    return ref if isinstance(ref, int) and not isinstance(ref, bool) else Ref.parse(ref)


def _name(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} name must be a non-empty string")
    value = " ".join(value.split())
    if len(value) > MAX_TAG_LENGTH:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} name longer than {MAX_TAG_LENGTH} characters")
    return value


def _read_pdf(pdf: bytes | str | os.PathLike[str]) -> tuple[bytes, str | None]:
    """The bytes of a PDF given as bytes or a path, and the file's stem; INVALID_INPUT unless it is a PDF."""
    name = None
    if not isinstance(pdf, bytes):
        path = Path(pdf)
        try:
            if path.stat().st_size > MAX_PDF_BYTES:
                raise DoigetError(ErrorCode.TOO_LARGE, f"{path} is larger than {MAX_PDF_BYTES} bytes")
            pdf = path.read_bytes()
        except OSError as exc:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot read {path}: {exc.strerror or exc}") from exc
        name = path.stem
    if len(pdf) > MAX_PDF_BYTES:
        raise DoigetError(ErrorCode.TOO_LARGE, f"PDF larger than {MAX_PDF_BYTES} bytes")
    if not looks_like_pdf(pdf):
        raise DoigetError(ErrorCode.INVALID_INPUT, "not a PDF (no %PDF- header)")
    return pdf, name


def _entry_filters(*, year_from: int | None = None, year_to: int | None = None, tag: str | None = None,
                   collection: str | None = None, has_pdf: bool | None = None) -> dict[str, Any]:
    """Validated entry filters (see :func:`doiget.store.entries.filter_clauses`)."""
    return {"year_from": None if year_from is None else _bounded_int(year_from, "year_from", 0, 3000),
            "year_to": None if year_to is None else _bounded_int(year_to, "year_to", 0, 3000),
            "tag": None if tag is None else _name(tag, "tag"),
            "collection": None if collection is None else _name(collection, "collection"),
            "has_pdf": has_pdf}


def _bounded_int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} must be an integer from {low} to {high}")
    return value
