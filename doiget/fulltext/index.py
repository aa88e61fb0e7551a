"""The store side of full text: which artefacts can be extracted, extracting a stored blob, and
the ``chunks`` rows that index it.

Only the chunks are stored. The document text is not: extraction is a deterministic function
of the blob's bytes, so a reader re-extracts the blob (the last few documents read stay in
memory) and every chunk's ``char_start``/``char_end`` — and a PDF's page offsets — index that
re-extracted text exactly.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, bindparam, text

from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import guard
from doiget.fulltext.bioc import extract_bioc
from doiget.fulltext.document import Document
from doiget.fulltext.html import extract_ar5iv
from doiget.fulltext.jats import extract_jats
from doiget.fulltext.pdf import PdfSniff, extract_pdf, read_pdf
from doiget.fulltext.tex import extract_tex
from doiget.gcpause import gc_paused
from doiget.store.blobs import BlobStore

EXTRACTORS: dict[str, Callable[[bytes], Document]] = {
    "html": extract_ar5iv, "jats": extract_jats, "bioc": extract_bioc, "pdf": extract_pdf, "tex": extract_tex,
}
#: ``format="auto"`` reads the first of these that has text: structured sources before the PDF,
#: the LaTeX source (macros and all) last.
PREFERENCE = ("html", "jats", "bioc", "pdf", "tex")
DOCUMENT_CACHE_SIZE = 8
INSERT_ROWS = 100  # chunk rows per INSERT: 800 parameters, under SQLite's oldest default limit (999)
_INSERT_CHUNKS = "INSERT INTO chunks (entry_id, artefact_id, seq, heading, page, char_start, char_end, text) VALUES "
_RANK = "CASE a.kind " + " ".join(f"WHEN '{k}' THEN {i}" for i, k in enumerate(PREFERENCE)) + " END"


def extract(kind: str, data: bytes) -> Document:
    """The Document of an artefact of ``kind``; INVALID_INPUT when the bytes do not parse or the
    extraction passes a limit of :mod:`doiget.fulltext.guard` (CPU time, nesting)."""
    if kind not in EXTRACTORS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot extract text from a {kind!r} artefact")
    with _limits(kind):
        return EXTRACTORS[kind](data)


def extract_and_sniff_pdf(data: bytes) -> tuple[Document, PdfSniff]:
    """A PDF's Document and what it says about itself (:func:`~doiget.fulltext.pdf.read_pdf`: one reading
    of the file), under the limits of :func:`extract`."""
    with _limits("pdf"):
        return read_pdf(data)


@contextmanager
def _limits(kind: str) -> Iterator[None]:
    with guard.deadline(guard.EXTRACT_SECONDS, f"{kind} extraction"), gc_paused():
        yield


def load_document(blobs: BlobStore, kind: str, sha256: str, *, fresh: bool = False) -> Document:
    """Extract a stored blob; ``fresh`` skips the in-memory cache of recently read documents."""
    path = str(blobs.path(sha256))
    if not fresh:
        with _recent_lock:
            doc = _recent.get((path, kind))
            if doc is not None:
                _recent.move_to_end((path, kind))
                return doc
    try:
        doc = extract(kind, Path(path).read_bytes())
    except FileNotFoundError as exc:
        raise DoigetError(ErrorCode.STORE_ERROR, f"blob {sha256} is missing from the store") from exc
    remember(blobs, kind, sha256, doc)
    return doc


def remember(blobs: BlobStore, kind: str, sha256: str, doc: Document) -> None:
    """Keep ``doc``, extracted from a stored blob, among the recently read documents (an imported file's
    first read then extracts nothing)."""
    key = (str(blobs.path(sha256)), kind)
    with _recent_lock:
        _recent[key] = doc
        _recent.move_to_end(key)
        while len(_recent) > DOCUMENT_CACHE_SIZE:
            _recent.popitem(last=False)


# Keyed by blob path, which names the library and the content, so entries never go stale.
_recent: OrderedDict[tuple[str, str], Document] = OrderedDict()
_recent_lock = threading.Lock()  # MCP tools read documents from worker threads


def extractable(conn: Connection, entry_id: int | None = None) -> list:
    """Rows (id, entry_id, kind, sha256) of the artefacts that can be indexed, of one entry or all."""
    where = "a.kind IN :kinds" + ("" if entry_id is None else " AND a.entry_id = :entry")
    return conn.execute(text(f"SELECT a.id, a.entry_id, a.kind, a.sha256 FROM artefacts a WHERE {where} "
                             "ORDER BY a.id").bindparams(bindparam("kinds", expanding=True)),
                        {"kinds": list(EXTRACTORS), "entry": entry_id}).all()


def reading_order(conn: Connection, entry_id: int, kind: str | None = None) -> list:
    """Rows (id, kind, sha256) of an entry's extractable artefacts in the order ``text`` tries them:
    indexed ones first, then by :data:`PREFERENCE`, newest first."""
    kinds = [kind] if kind else list(EXTRACTORS)
    return conn.execute(text(
        "SELECT a.id, a.kind, a.sha256 FROM artefacts a WHERE a.entry_id = :entry AND a.kind IN :kinds "
        f"ORDER BY EXISTS (SELECT 1 FROM chunks c WHERE c.artefact_id = a.id) DESC, {_RANK}, a.id DESC"
    ).bindparams(bindparam("kinds", expanding=True)), {"entry": entry_id, "kinds": kinds}).all()


def reading_artefacts_sql() -> str:
    """A subquery of artefact ids: per entry the indexed artefact ``text(format="auto")`` reads first."""
    return ("SELECT id FROM (SELECT a.id, row_number() OVER (PARTITION BY a.entry_id "
            f"ORDER BY {_RANK}, a.id DESC) AS r FROM artefacts a "
            "WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.artefact_id = a.id)) WHERE r = 1")


def replace_chunks(conn: Connection, artefact_id: int, doc: Document) -> bool | None:
    """Make the artefact's chunk rows exactly ``doc.chunks``.

    Returns True when rows were rewritten, False when they already matched (nothing is written,
    so chunk ids stay stable), None when the artefact no longer exists.
    """
    # sqlite3 itself, in the caller's transaction: one executemany of plain tuples (SQLAlchemy's
    # per-row parameter dicts cost half as much again as the rows' FTS5 indexing)
    raw = conn.connection.driver_connection
    found = raw.execute("SELECT entry_id FROM artefacts WHERE id = ?", (artefact_id,)).fetchone()
    if found is None:
        return None
    entry_id = found[0]
    wanted = [(c.seq, c.heading, c.page, c.char_start, c.char_end, c.text) for c in doc.chunks]
    current = raw.execute("SELECT seq, heading, page, char_start, char_end, text FROM chunks "
                          "WHERE artefact_id = ? AND entry_id = ? ORDER BY seq", (artefact_id, entry_id)).fetchall()
    if current == wanted:
        return False
    raw.execute("DELETE FROM chunks WHERE artefact_id = ?", (artefact_id,))
    # Many rows per INSERT, not executemany: FTS5 flushes its pending terms at every statement's savepoint,
    # so a statement per row wrote one index segment per chunk, and the merges redid it (2.5x the FTS cost).
    for start in range(0, len(wanted), INSERT_ROWS):
        rows = wanted[start:start + INSERT_ROWS]
        params = []
        for row in rows:
            params += (entry_id, artefact_id, *row)
        raw.execute(_INSERT_CHUNKS + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?)"] * len(rows)), params)
    return True
