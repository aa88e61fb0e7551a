"""Reading papers: bounded pages of their text, passage search, re-indexing and LaTeX sources."""
from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable
from typing import Any

from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import index as fulltext_index
from doiget.fulltext import search as fulltext_search
from doiget.fulltext.document import Document
from doiget.fulltext.paging import bounded_slice, text_page
from doiget.fulltext.tex import read_tex_source
from doiget.models import TextHit
from doiget.net import arxiv
from doiget.refs import Ref
from doiget.sanitize import query_text
from doiget.services import artefacts, entries
from doiget.services.checks import RefLike, bounded_int, entry_filters, entry_ref
from doiget.services.session import Session
from doiget.store import entries as entry_store
from doiget.store.filters import filter_clauses
from doiget.store.fts import compile_query


def text(lib: Session, ref: RefLike, format: str = "auto", offset: int = 0, max_chars: int = 15000,
         page: int | None = None) -> dict[str, Any]:
    """One bounded page of a paper's sectioned text (see :meth:`doiget.Library.text`)."""
    if format not in ("auto", *fulltext_index.EXTRACTORS):
        raise DoigetError(ErrorCode.INVALID_INPUT,
                          f"format must be one of auto, {', '.join(fulltext_index.EXTRACTORS)}")
    offset = bounded_int(offset, "offset", 0, limits.MAX_OFFSET)
    max_chars = bounded_int(max_chars, "max_chars", 1, limits.MAX_TEXT_CHARS)
    if page is not None:
        page = bounded_int(page, "page", 1, limits.MAX_PDF_PAGE)
        if offset:
            raise DoigetError(ErrorCode.INVALID_INPUT, "give page or offset, not both")
    with lib.store.read() as conn:
        entry = entry_store.load(conn, [entry_store.require_id(conn, entry_ref(ref))])[0]
        candidates = fulltext_index.reading_order(conn, entry.id, None if format == "auto" else format)
    if not candidates:
        stored = "no extractable full text" if format == "auto" else f"no {format} artefact"
        raise DoigetError(ErrorCode.NOT_FOUND, f"{entry.ref_label} has {stored} in the library; fetch it first "
                          "(doiget fetch, or doiget_fetch_fulltext for ar5iv/JATS/BioC)")
    artefact, doc = _readable_document(lib, candidates)
    return {"ref": entry.ref_label, "id": entry.id, "title": entry.title, "format": artefact.kind,
            "sha256": artefact.sha256, **text_page(doc, offset, max_chars, page)}


def _readable_document(lib: Session, candidates: list) -> tuple[Any, Document]:
    """The first candidate artefact that extracts to some text (else the first that extracts at all)."""
    readable, first_error = None, None
    for artefact in candidates:
        try:
            doc = fulltext_index.load_document(lib.store.blobs, artefact.kind, artefact.sha256)
        except DoigetError as exc:
            first_error = first_error or exc
            continue
        if doc.text.strip():
            return artefact, doc
        readable = readable or (artefact, doc)
    if readable is None:
        raise first_error
    return readable


def search_text(lib: Session, query: str, limit: int = 20, *, ref: RefLike | None = None, tag: str | None = None,
                collection: str | None = None, year_from: int | None = None,
                year_to: int | None = None) -> list[TextHit]:
    """Passages of the papers' text matching ``query`` (see :meth:`doiget.Library.search_text`)."""
    limit = bounded_int(limit, "limit", 1, limits.MAX_SEARCH_WINDOW)
    match = compile_query(query_text(query), fulltext_search.COLUMNS)
    filters = entry_filters(year_from=year_from, year_to=year_to, tag=tag, collection=collection)
    with lib.store.query("the full-text search") as conn:
        entry_id = None if ref is None else entry_store.require_id(conn, entry_ref(ref))
        clauses, params = filter_clauses(**filters, entry_id=entry_id)
        return fulltext_search.search_chunks(conn, match, limit, clauses, params)


def reindex(lib: Session, ref: RefLike | None = None,
            progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Re-extract and re-index the artefacts of one entry or of the whole library (see
    :meth:`doiget.Library.reindex`)."""
    lib.config.require("write")
    with lib.store.read() as conn:
        entry_id = None if ref is None else entry_store.require_id(conn, entry_ref(ref))
        stored = fulltext_index.extractable(conn, entry_id)
    report: dict[str, Any] = {"artefacts": len(stored), "indexed": 0, "changed": 0, "chunks": 0, "failed": []}
    for done, artefact in enumerate(stored, start=1):
        outcome = artefacts.index_artefact(lib, artefact.id, artefact.kind, artefact.sha256, fresh=True)
        if outcome["indexed"]:
            report["indexed"] += 1
            report["changed"] += outcome["changed"]
            report["chunks"] += outcome["chunks"]
        elif "error" in outcome:
            report["failed"].append({"entry_id": artefact.entry_id, "kind": artefact.kind,
                                     "sha256": artefact.sha256, "error": outcome["error"]})
        if progress is not None:
            progress(done, len(stored))
    return report


def tex_source(lib: Session, ref: RefLike, max_chars: int = 15000, offset: int = 0) -> dict[str, Any]:
    """The LaTeX source of an arXiv paper (see :meth:`doiget.Library.tex_source`)."""
    max_chars = bounded_int(max_chars, "max_chars", 1, limits.MAX_TEXT_CHARS)
    entry = entries.info(lib, ref)
    if not entry.arxiv:
        raise DoigetError(ErrorCode.NOT_FOUND, f"{entry.ref_label} has no arXiv id; only arXiv papers have "
                          "LaTeX source")
    stored = [a for a in entry.artefacts if a.kind == "tex"]
    if stored:
        data = lib.store.blobs.read(stored[-1].sha256)
        source = read_tex_source(data)
    else:
        lib.config.require("write")
        try:
            download = lib.http.download("arxiv", arxiv.source_url(Ref("arxiv", entry.arxiv)),
                                         lib.store.blobs.temp_dir(), expect="gzip_or_tar",
                                         max_bytes=limits.MAX_TEX_BYTES)
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
        artefacts.add_artefact(lib, entry.id, "tex", data, mime=download.content_type, source="arxiv",
                               url=download.final_url)
    main = source.files[source.main_file]
    listed = itertools.islice(source.files.items(), limits.MAX_LISTED_FILES)
    return {"ref": entry.ref_label, "id": entry.id, "sha256": hashlib.sha256(data).hexdigest(),
            "downloaded": not stored, "main_file": source.main_file, "file_count": len(source.files),
            "files": [{"path": path, "chars": len(body)} for path, body in listed],
            **bounded_slice(main, bounded_int(offset, "offset", 0, limits.MAX_OFFSET), max_chars)}
