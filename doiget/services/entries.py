"""Entries: add, look up, list and delete the papers of the library (searching them: services/searching.py)."""
from __future__ import annotations

from typing import Any


from doiget import limits
from doiget.models import Entry, Work
from doiget.services.checks import RefLike, bounded_int, entry_ref, name
from doiget.services.session import Session
from doiget.store import artefacts as artefact_store
from doiget.store import citations as citation_store
from doiget.store import entries as entry_store
from doiget.store import organise as organise_store
from doiget.store import selects
from doiget.store import updates as update_store


def add(lib: Session, work: Work | dict[str, Any], *, tags: list[str] | None = None, upstream: bool = False) -> Entry:
    """Add a work from its metadata, or update the entry sharing any of its identifiers; ``upstream``
    metadata (resolved from a source) only fills the empty fields of an entry holding an imported record."""
    lib.config.require("write")
    work = Work.model_validate(work) if isinstance(work, dict) else work
    with lib.store.write() as conn:
        entry_id = entry_store.upsert_work(conn, work, upstream=upstream)
        if work.updates is not None:
            update_store.save(conn, entry_id, work.updates, work.sources)
        if work.references:
            citation_store.save_references(conn, entry_id, work.references)
        if tags:
            organise_store.add_tags(conn, entry_id, [name(t, "tag") for t in tags])
        return entry_store.load(conn, [entry_id])[0]


def info(lib: Session, ref: RefLike) -> Entry:
    """The stored entry for ``ref``; NOT_FOUND if the library does not hold it."""
    with lib.store.read() as conn:
        return entry_store.load(conn, [entry_store.require_id(conn, entry_ref(ref))])[0]


def recent(lib: Session, n: int = 10) -> list[Entry]:
    """The ``n`` most recently added entries, newest first."""
    n = bounded_int(n, "n", 1, limits.MAX_RECENT)
    with lib.store.read() as conn:
        return entry_store.load(conn, selects.recent_ids(conn, n))


def delete(lib: Session, ref: RefLike) -> dict[str, Any]:
    """Remove an entry and everything attached to it, then the blobs nothing else references."""
    lib.config.require("write")
    with lib.store.write() as conn:
        entry_id = entry_store.require_id(conn, entry_ref(ref))
        orphaned = artefact_store.delete_entry(conn, entry_id)
    removed = sum(lib.store.blobs.delete(sha) for sha in orphaned)
    return {"deleted": entry_id, "blobs_removed": removed}
