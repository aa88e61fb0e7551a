"""Anchored notes: free text about an entry (or about nothing in particular), with anchors into the
paper (page, character offsets of its extracted text, quoted passage), tags and an author; the
rows live in :mod:`doiget.store.notes`."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from pydantic import ValidationError
from sqlalchemy.exc import OperationalError

from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.models import Anchor
from doiget.sanitize import fts_query_error, query_text
from doiget.services import checks
from doiget.services.checks import RefLike
from doiget.services.session import Session
from doiget.store import entries as entry_store
from doiget.store import notes as note_store
from doiget.store.fts import is_fts_error

MAX_BODY = limits.MAX_NOTE_BODY
MAX_ANCHORS = 50
MAX_AUTHOR = 200


def anchors(values: Sequence[Any]) -> list[dict[str, Any]]:
    """Validated anchors as plain dicts (unset keys left out); INVALID_INPUT on a bad one."""
    if len(values) > MAX_ANCHORS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"at most {MAX_ANCHORS} anchors per note")
    try:
        return [Anchor.model_validate(value).model_dump(exclude_none=True) for value in values]
    except ValidationError as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"invalid anchor: {exc.errors()[0]['msg']}") from None


def body(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DoigetError(ErrorCode.INVALID_INPUT, "a note needs a non-empty body")
    if len(value) > MAX_BODY:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"note body longer than {MAX_BODY} characters")
    return value.strip()


def author(value: str | None) -> str | None:
    if value is not None and len(value) > MAX_AUTHOR:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"note author longer than {MAX_AUTHOR} characters")
    return (value or "").strip() or None


def _instant(value: str, what: str, *, end_of_day: bool) -> str:
    """An ISO date or datetime as the stored timestamp format (UTC); a bare ``until`` date
    includes that whole day."""
    try:
        if len(value) == 10:
            day = date.fromisoformat(value) + timedelta(days=int(end_of_day))
            moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(value)
            moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
            moment += timedelta(milliseconds=int(end_of_day))
    except (TypeError, ValueError):
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} must be an ISO 8601 date or datetime, "
                          f"e.g. 2024-05-01 or 2024-05-01T10:00:00Z") from None
    return moment.isoformat(timespec="milliseconds")


# ---- the façade's note calls --------------------------------------------------------------

def note_create(lib: Session, body_: str, ref: RefLike | None = None, anchors_: list[dict[str, Any]] | None = None,
                tags: list[str] | None = None, author_: str | None = None) -> dict[str, Any]:
    """Write a note (see :meth:`doiget.Library.note_create`); returns it."""
    lib.config.require("write")
    values = (body(body_), anchors(anchors_ or []), [checks.name(t, "tag") for t in tags or []], author(author_))
    with lib.store.write() as conn:
        entry_id = entry_store.require_id(conn, checks.entry_ref(ref)) if ref is not None else None
        return note_store.load(conn, [note_store.create(conn, entry_id, *values)])[0]


def note_read(lib: Session, note_id: int) -> dict[str, Any]:
    """One note; NOT_FOUND if there is none with that id."""
    with lib.store.read() as conn:
        note_store.require(conn, checks.bounded_int(note_id, "note id", 1, limits.MAX_NOTE_ID))
        return note_store.load(conn, [note_id])[0]


def note_update(lib: Session, note_id: int, body_: str | None = None, anchors_: list[dict[str, Any]] | None = None,
                tags: list[str] | None = None) -> dict[str, Any]:
    """Replace a note's body, anchors or tags (those given); returns the note."""
    lib.config.require("write")
    body_ = body(body_) if body_ is not None else None
    anchors_ = anchors(anchors_) if anchors_ is not None else None
    tags = [checks.name(t, "tag") for t in tags] if tags is not None else None
    with lib.store.write() as conn:
        note_store.update(conn, checks.bounded_int(note_id, "note id", 1, limits.MAX_NOTE_ID), body_, anchors_, tags)
        return note_store.load(conn, [note_id])[0]


def note_delete(lib: Session, note_id: int) -> dict[str, Any]:
    """Delete a note."""
    lib.config.require("write")
    with lib.store.write() as conn:
        note_store.delete(conn, checks.bounded_int(note_id, "note id", 1, limits.MAX_NOTE_ID))
    return {"deleted": note_id}


def note_search(lib: Session, keyword: str | None = None, ref: RefLike | None = None, tag: str | None = None,
                since: str | None = None, until: str | None = None, limit: int = 20,
                offset: int = 0) -> dict[str, Any]:
    """Notes matching every filter given (see :meth:`doiget.Library.note_search`)."""
    limit = checks.bounded_int(limit, "limit", 1, limits.MAX_NOTE_HITS)
    offset = checks.bounded_int(offset, "offset", 0, limits.MAX_NOTE_OFFSET)
    tag = checks.optional_name(tag, "tag")
    keyword = query_text(keyword, "note keyword") if keyword is not None else None
    try:
        with lib.store.query("the note search") as conn:
            entry_id = entry_store.require_id(conn, checks.entry_ref(ref)) if ref is not None else None
            since = None if since is None else _instant(since, "since", end_of_day=False)
            until = None if until is None else _instant(until, "until", end_of_day=True)
            return note_store.search(conn, keyword, entry_id, tag, since, until, limit, offset)
    except OperationalError as exc:
        if is_fts_error(exc.orig):
            raise fts_query_error(f"search notes for {keyword!r}", exc.orig) from exc
        raise


def note_export(lib: Session, note_id: int) -> str:
    """A note as Markdown with YAML front matter (returned, never written anywhere)."""
    from doiget.formats.markdown import note_to_markdown

    return note_to_markdown(note_read(lib, note_id))
