"""Organising the library: tags, collections and each entry's free-form annotation."""
from __future__ import annotations

from typing import Any

from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.models import Entry
from doiget.services.checks import RefLike, entry_ref, name
from doiget.services.session import Session
from doiget.store import entries as entry_store
from doiget.store import organise as organise_store


def tag(lib: Session, ref: RefLike, tags: list[str]) -> list[str]:
    """Add ``tags`` to an entry; returns its tags afterwards."""
    lib.config.require("write")
    with lib.store.write() as conn:
        entry_id = entry_store.require_id(conn, entry_ref(ref))
        organise_store.add_tags(conn, entry_id, [name(t, "tag") for t in tags])
        return entry_store.load(conn, [entry_id])[0].tags


def untag(lib: Session, ref: RefLike, tags: list[str]) -> list[str]:
    """Remove ``tags`` from an entry; returns its tags afterwards."""
    lib.config.require("write")
    names = [name(t, "tag") for t in tags]
    with lib.store.write() as conn:
        entry_id = entry_store.require_id(conn, entry_ref(ref))
        organise_store.remove_tags(conn, entry_id, names)
        return entry_store.load(conn, [entry_id])[0].tags


def tags(lib: Session) -> list[dict[str, Any]]:
    """Every tag with the number of entries carrying it."""
    with lib.store.read() as conn:
        rows = organise_store.tag_counts(conn)
    return [{"name": tag_name, "count": n} for tag_name, n in rows]


def collection_create(lib: Session, collection: str, description: str | None = None) -> dict[str, Any]:
    """Create a collection (no-op if it exists); returns it with its entry count."""
    lib.config.require("write")
    collection = name(collection, "collection")
    with lib.store.write() as conn:
        organise_store.collection_id(conn, collection, create=True, description=description)
    return _described(lib, collection)


def collection_add(lib: Session, collection: str, refs: list[RefLike]) -> dict[str, Any]:
    """Put entries in a collection, creating the collection if needed."""
    lib.config.require("write")
    with lib.store.write() as conn:
        collection_id = organise_store.collection_id(conn, name(collection, "collection"), create=True)
        for ref in refs:
            organise_store.add_to_collection(conn, collection_id, entry_store.require_id(conn, entry_ref(ref)))
    return _described(lib, collection.strip())


def collection_remove(lib: Session, collection: str, refs: list[RefLike]) -> dict[str, Any]:
    """Take entries out of a collection."""
    lib.config.require("write")
    with lib.store.write() as conn:
        collection_id = organise_store.collection_id(conn, name(collection, "collection"))
        for ref in refs:
            organise_store.remove_from_collection(conn, collection_id,
                                                  entry_store.require_id(conn, entry_ref(ref)))
    return _described(lib, collection.strip())


def collection_delete(lib: Session, collection: str) -> None:
    """Delete a collection (its entries stay in the library)."""
    lib.config.require("write")
    with lib.store.write() as conn:
        organise_store.delete_collection(conn, organise_store.collection_id(conn, name(collection, "collection")))


def collections(lib: Session) -> list[dict[str, Any]]:
    """Every collection with its description and entry count."""
    with lib.store.read() as conn:
        return organise_store.collection_rows(conn)


def collection_entries(lib: Session, collection: str) -> list[Entry]:
    """The entries of a collection, in the order they were added."""
    with lib.store.read() as conn:
        ids = organise_store.collection_entry_ids(
            conn, organise_store.collection_id(conn, name(collection, "collection")))
        return entry_store.load(conn, ids)


def _described(lib: Session, collection: str) -> dict[str, Any]:
    return next(c for c in collections(lib) if c["name"].lower() == collection.lower())


def annotate(lib: Session, ref: RefLike, text_: str | None) -> str | None:
    """Set the entry's one free-form annotation (``None`` or empty text clears it); returns it."""
    lib.config.require("write")
    body = (text_ or "").strip()
    if len(body) > limits.MAX_ANNOTATION:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"annotation longer than {limits.MAX_ANNOTATION} characters")
    with lib.store.write() as conn:
        entry_id = entry_store.require_id(conn, entry_ref(ref))
        organise_store.set_annotation(conn, entry_id, body or None)
    return body or None
