"""Artefacts: the files stored for an entry (PDF, JATS, HTML, BioC, LaTeX) and their indexing."""
from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import Any

from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import index as fulltext_index
from doiget.fulltext.document import Document
from doiget.fulltext.jatsmeta import read_jats_article
from doiget.fulltext.pdf import PdfSniff, sniff_pdf
from doiget.models import ET_AL, Work
from doiget.net.base import Download, looks_like_pdf
from doiget.net.resolve import resolve as resolve_work
from doiget.refs import Ref
from doiget.services import entries
from doiget.services.checks import RefLike, entry_ref, name
from doiget.services.session import Session
from doiget.store import artefacts as artefact_store
from doiget.store import citations as citation_store
from doiget.store import entries as entry_store
from doiget.store import organise as organise_store

log = logging.getLogger("doiget.library")


def pdf_path(lib: Session, ref: RefLike) -> Path | None:
    """Path of the entry's stored PDF (newest), or None when it has no PDF yet."""
    with lib.store.read() as conn:
        sha = artefact_store.newest_pdf(conn, entry_store.require_id(conn, entry_ref(ref)))
    return lib.store.blobs.path(sha) if sha else None


def add_artefact(lib: Session, ref: RefLike, kind: str, data: bytes | Download | os.PathLike[str], *,
                 mime: str | None = None, source: str | None = None, url: str | None = None,
                 document: Document | None = None) -> str:
    """Store ``data`` as a blob and record it as the entry's ``kind`` artefact; returns its SHA-256
    (see :meth:`doiget.Library.add_artefact`). ``document``: its text, when the caller has extracted it."""
    lib.config.require("write")
    try:
        with lib.store.read() as conn:
            entry_store.require_id(conn, entry_ref(ref))
        if isinstance(data, os.PathLike):
            data = Path(data).read_bytes()
        if isinstance(data, bytes):
            sha, size = lib.store.blobs.put_bytes(data), len(data)
        else:
            sha, size = lib.store.blobs.put_file(data.path, data.sha256), data.size
    finally:
        if not isinstance(data, (bytes, os.PathLike)):
            data.path.unlink(missing_ok=True)  # already moved on success
    # the blob is complete and in place before any row names it
    with lib.store.write() as conn:
        entry_id = entry_store.require_id(conn, entry_ref(ref))
        artefact_id = artefact_store.insert(conn, entry_id, kind, sha, size, mime, source, url)
    if artefact_id is not None and kind in fulltext_index.EXTRACTORS:
        index_artefact(lib, artefact_id, kind, sha, document=document)
    return sha


def index_artefact(lib: Session, artefact_id: int, kind: str, sha256: str, *, fresh: bool = False,
                   document: Document | None = None) -> dict[str, Any]:
    """Extract one stored artefact (outside any transaction; ``document``: already extracted) and write its
    chunk rows. An extraction failure is logged and returned, never raised: the artefact stays stored, with
    no chunks."""
    try:
        doc = document if document is not None else fulltext_index.load_document(lib.store.blobs, kind, sha256,
                                                                                 fresh=fresh)
    except Exception as exc:  # extractors are fed untrusted bytes; any failure must leave the artefact be
        error = exc if isinstance(exc, DoigetError) else DoigetError(
            ErrorCode.INTERNAL_ERROR, f"{type(exc).__name__} while extracting: {exc}")
        log.warning("cannot index %s artefact %d (sha256 %s): %s", kind, artefact_id, sha256[:12], error.message)
        return {"indexed": False, "error": error.to_dict()}
    with lib.store.write() as conn:
        changed = fulltext_index.replace_chunks(conn, artefact_id, doc)
    if document is not None:
        fulltext_index.remember(lib.store.blobs, kind, sha256, document)
    return {"indexed": changed is not None, "changed": bool(changed), "chunks": len(doc.chunks)}


def add_pdf(lib: Session, pdf: bytes | str | os.PathLike[str], ref: RefLike | None = None) -> dict[str, Any]:
    """Import a PDF you have (see :meth:`doiget.Library.add_pdf`): every identifier it prints is kept."""
    lib.config.require("write")
    data, file_name = _read_pdf(pdf)
    sha, stored = _stored_copy(lib, data, "pdf")
    if stored is not None:
        return stored
    try:  # one reading of the file gives the text to index and what the PDF says about itself
        document, sniff = fulltext_index.extract_and_sniff_pdf(data)
    except Exception:  # a PDF that fails extraction is still imported (and its indexing failure logged)
        document, sniff = None, sniff_pdf(data)
    refs = [entry_ref(ref)] if ref is not None else sniff.refs
    identified_by = "ref" if ref is not None else refs[0].kind if refs else "title"
    with lib.store.read() as conn:
        entry_id = entry_store.find_any(conn, refs)
    resolved = False
    if entry_id is None:
        work, resolved = _pdf_work(lib, refs, sniff, file_name)
        entry_id = entries.add(lib, work).id
    elif ref is None and len(refs) > 1:  # the PDF's other ids fill the entry's empty id fields
        with lib.store.write() as conn:
            entry_id = entry_store.upsert_work(conn, Work(**{r.kind: r.id for r in refs}), stub=True)
    add_artefact(lib, entry_id, "pdf", data, mime="application/pdf", source="import", document=document)
    return {"entry": entries.info(lib, entry_id), "sha256": sha, "duplicate": False, "identified_by": identified_by,
            "resolved": resolved}


def _pdf_work(lib: Session, refs: list, sniff: PdfSniff, file_name: str | None) -> tuple[Work, bool]:
    """Metadata for an imported PDF: resolved from its first identifier the upstream sources know when the
    network allows (a DOI they all answer 404 for is dropped as misread), else what the PDF says; every
    identifier the PDF prints is kept."""
    refs = [r for r in refs if isinstance(r, Ref)]
    if lib.config.network_enabled:
        for target in list(refs):
            try:
                work = resolve_work(lib.http, target)
            except DoigetError as exc:
                if exc.code is ErrorCode.NOT_FOUND and target.kind == "doi":
                    log.info("dropping DOI %s read from an imported PDF: %s", target.id, exc.message)
                    refs.remove(target)
                else:
                    log.info("cannot resolve %s for an imported PDF: %s", target, exc.message)
                continue
            missing = {r.kind: r.id for r in refs if not getattr(work, r.kind)}
            return work.model_copy(update=missing), True
    title = sniff.title or file_name
    if not refs and not title:
        raise DoigetError(ErrorCode.INVALID_INPUT, "the PDF has no DOI, arXiv id or title; pass ref= to say "
                          "which paper it is")
    return Work(**{r.kind: r.id for r in refs}, title=title, sources=["pdf"], authors=sniff.authors,
                extra={ET_AL: ["author"]} if sniff.more_authors else {}), False


def add_jats(lib: Session, xml: bytes | str | os.PathLike[str], ref: RefLike | None = None) -> dict[str, Any]:
    """Import a JATS XML article you have (see :meth:`doiget.Library.add_jats`)."""
    lib.config.require("write")
    data, _ = _read_file(xml, "JATS XML")
    sha, stored = _stored_copy(lib, data, "jats")
    if stored is not None:
        return stored
    article = read_jats_article(data)
    fulltext_index.extract("jats", data)  # the body must read as text before anything is written
    work = article.work
    refs = [entry_ref(ref)] if ref is not None else work.refs()
    if not refs and not work.title:
        raise DoigetError(ErrorCode.INVALID_INPUT, "the JATS article has no identifier or title; pass ref= "
                          "to say which paper it is")
    with lib.store.write() as conn:
        entry_id = entry_store.find_any(conn, refs)
        if entry_id is None:
            entry_id = entry_store.upsert_work(conn, work)
            tags = [clean for k in article.keywords if (clean := _keyword_tag(k))]
            if tags:
                organise_store.add_tags(conn, entry_id, tags)
        elif ref is None:  # the entry you have keeps its fields; the article fills the empty ones
            entry_store.upsert_work(conn, work, stub=True)
        edges = citation_store.save_cited_works(conn, entry_id, article.references, "jats")
    add_artefact(lib, entry_id, "jats", data, mime="application/xml", source="import")
    return {"entry": entries.info(lib, entry_id), "sha256": sha, "duplicate": False,
            "identified_by": "ref" if ref is not None else refs[0].kind if refs else "title",
            "references": len(article.references), "citation_edges": edges}


def _keyword_tag(keyword: str) -> str | None:
    """A JATS keyword as a tag name, or None when it cannot be one (too long)."""
    try:
        return name(keyword, "tag")
    except DoigetError:
        return None


def add_file(lib: Session, path: str | os.PathLike[str], ref: RefLike | None = None) -> dict[str, Any]:
    """Import a local PDF or JATS XML file, told apart by content; the result names its ``format``."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(1024)
    except OSError as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot read {path}: {exc.strerror or exc}") from exc
    if looks_like_pdf(head):
        return {"format": "pdf", **add_pdf(lib, path, ref)}
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return {"format": "jats", **add_jats(lib, path, ref)}
    raise DoigetError(ErrorCode.INVALID_INPUT, f"{path}: neither a PDF nor an XML file")


def _stored_copy(lib: Session, data: bytes, kind: str) -> tuple[str, dict[str, Any] | None]:
    """The SHA-256 of ``data`` and, when an entry already holds these bytes as a ``kind`` artefact, the
    import result that says so (nothing is changed)."""
    sha = hashlib.sha256(data).hexdigest()
    with lib.store.read() as conn:
        holder = artefact_store.holder(conn, sha, kind)
    if holder is None:
        return sha, None
    return sha, {"entry": entries.info(lib, holder), "sha256": sha, "duplicate": True, "identified_by": "content"}


def _read_file(source: bytes | str | os.PathLike[str], what: str) -> tuple[bytes, str | None]:
    """The bytes of a file given as bytes or a path, and the file's stem; TOO_LARGE past the import cap."""
    file_name = None
    if not isinstance(source, bytes):
        path = Path(source)
        try:
            if path.stat().st_size > limits.MAX_PDF_BYTES:
                raise DoigetError(ErrorCode.TOO_LARGE, f"{path} is larger than {limits.MAX_PDF_BYTES} bytes")
            source = path.read_bytes()
        except OSError as exc:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot read {path}: {exc.strerror or exc}") from exc
        file_name = path.stem
    if len(source) > limits.MAX_PDF_BYTES:
        raise DoigetError(ErrorCode.TOO_LARGE, f"{what} larger than {limits.MAX_PDF_BYTES} bytes")
    return source, file_name


def _read_pdf(pdf: bytes | str | os.PathLike[str]) -> tuple[bytes, str | None]:
    """The bytes of a PDF given as bytes or a path, and the file's stem; INVALID_INPUT unless it is a PDF."""
    data, file_name = _read_file(pdf, "PDF")
    if not looks_like_pdf(data):
        raise DoigetError(ErrorCode.INVALID_INPUT, "not a PDF (no %PDF- header)")
    return data, file_name
