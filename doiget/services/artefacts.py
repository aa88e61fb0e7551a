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
from doiget.fulltext.pdf import PdfSniff, sniff_pdf
from doiget.models import Author, Work
from doiget.net.base import Download, looks_like_pdf
from doiget.net.resolve import resolve as resolve_work
from doiget.refs import Ref
from doiget.services import entries
from doiget.services.checks import RefLike, entry_ref
from doiget.services.session import Session
from doiget.store import artefacts as artefact_store
from doiget.store import entries as entry_store

log = logging.getLogger("doiget.library")


def pdf_path(lib: Session, ref: RefLike) -> Path | None:
    """Path of the entry's stored PDF (newest), or None when it has no PDF yet."""
    with lib.store.read() as conn:
        sha = artefact_store.newest_pdf(conn, entry_store.require_id(conn, entry_ref(ref)))
    return lib.store.blobs.path(sha) if sha else None


def add_artefact(lib: Session, ref: RefLike, kind: str, data: bytes | Download | os.PathLike[str], *,
                 mime: str | None = None, source: str | None = None, url: str | None = None) -> str:
    """Store ``data`` as a blob and record it as the entry's ``kind`` artefact; returns its SHA-256
    (see :meth:`doiget.Library.add_artefact`)."""
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
        index_artefact(lib, artefact_id, kind, sha)
    return sha


def index_artefact(lib: Session, artefact_id: int, kind: str, sha256: str, *, fresh: bool = False) -> dict[str, Any]:
    """Extract one stored artefact (outside any transaction) and write its chunk rows. An extraction
    failure is logged and returned, never raised: the artefact stays stored, with no chunks."""
    try:
        doc = fulltext_index.load_document(lib.store.blobs, kind, sha256, fresh=fresh)
    except Exception as exc:  # extractors are fed untrusted bytes; any failure must leave the artefact be
        error = exc if isinstance(exc, DoigetError) else DoigetError(
            ErrorCode.INTERNAL_ERROR, f"{type(exc).__name__} while extracting: {exc}")
        log.warning("cannot index %s artefact %d (sha256 %s): %s", kind, artefact_id, sha256[:12], error.message)
        return {"indexed": False, "error": error.to_dict()}
    with lib.store.write() as conn:
        changed = fulltext_index.replace_chunks(conn, artefact_id, doc)
    return {"indexed": changed is not None, "changed": bool(changed), "chunks": len(doc.chunks),
            "content_sha256": doc.content_sha256}


def add_pdf(lib: Session, pdf: bytes | str | os.PathLike[str], ref: RefLike | None = None) -> dict[str, Any]:
    """Import a PDF you have (see :meth:`doiget.Library.add_pdf`)."""
    lib.config.require("write")
    data, file_name = _read_pdf(pdf)
    sha = hashlib.sha256(data).hexdigest()
    with lib.store.read() as conn:
        holder = artefact_store.pdf_holder(conn, sha)
    if holder is not None:
        return {"entry": entries.info(lib, holder), "sha256": sha, "duplicate": True, "identified_by": "content"}
    sniff = sniff_pdf(data)
    target = entry_ref(ref) if ref is not None else (
        Ref("doi", sniff.doi) if sniff.doi else Ref("arxiv", sniff.arxiv_id) if sniff.arxiv_id else None)
    identified_by = "ref" if ref is not None else target.kind if target else "title"
    entry_id = None
    if target is not None:
        with lib.store.read() as conn:
            entry_id = (entry_store.require_id(conn, target) if isinstance(target, int)
                        else entry_store.find_id(conn, target))
    resolved = False
    if entry_id is None:
        work, resolved = _pdf_work(lib, target, sniff, file_name)
        entry_id = entries.add(lib, work).id
    add_artefact(lib, entry_id, "pdf", data, mime="application/pdf", source="import")
    return {"entry": entries.info(lib, entry_id), "sha256": sha, "duplicate": False, "identified_by": identified_by,
            "resolved": resolved}


def _pdf_work(lib: Session, ref: Ref | None, sniff: PdfSniff, file_name: str | None) -> tuple[Work, bool]:
    """Metadata for an imported PDF: resolved from ``ref`` if the network allows, else what the PDF says."""
    if ref is not None and lib.config.network_enabled:
        try:
            return resolve_work(lib.http, ref), True
        except DoigetError as exc:
            log.info("cannot resolve %s for an imported PDF, using the PDF's own metadata: %s", ref, exc.message)
    title = sniff.title or file_name
    if ref is None and not title:
        raise DoigetError(ErrorCode.INVALID_INPUT, "the PDF has no DOI, arXiv id or title; pass ref= to say "
                          "which paper it is")
    return Work(**({ref.kind: ref.id} if ref else {}), title=title, sources=["pdf"],
                authors=[Author.from_parts(name=a) for a in sniff.authors]), False


def _read_pdf(pdf: bytes | str | os.PathLike[str]) -> tuple[bytes, str | None]:
    """The bytes of a PDF given as bytes or a path, and the file's stem; INVALID_INPUT unless it is a PDF."""
    file_name = None
    if not isinstance(pdf, bytes):
        path = Path(pdf)
        try:
            if path.stat().st_size > limits.MAX_PDF_BYTES:
                raise DoigetError(ErrorCode.TOO_LARGE, f"{path} is larger than {limits.MAX_PDF_BYTES} bytes")
            pdf = path.read_bytes()
        except OSError as exc:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot read {path}: {exc.strerror or exc}") from exc
        file_name = path.stem
    if len(pdf) > limits.MAX_PDF_BYTES:
        raise DoigetError(ErrorCode.TOO_LARGE, f"PDF larger than {limits.MAX_PDF_BYTES} bytes")
    if not looks_like_pdf(pdf):
        raise DoigetError(ErrorCode.INVALID_INPUT, "not a PDF (no %PDF- header)")
    return pdf, file_name
