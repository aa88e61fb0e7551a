"""Refreshing the update notices (retractions, corrections, ...) of the library's papers."""
from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from doiget.errors import DoigetError, ErrorCode
from doiget.net import crossref, openalex
from doiget.models import Entry
from doiget.notices import UpdateNotice, citation_note, status_of, warning
from doiget.refs import Ref
from doiget.services.checks import RefLike, entry_ref
from doiget.services.session import Session
from doiget.store import entries as entry_store
from doiget.store import updates as update_store

log = logging.getLogger(__name__)
Progress = Callable[[int, int, dict[str, Any]], None]
# Asked for every paper, in this order; Crossref states notices, OpenAlex its is_retracted flag.
ASKERS = ((crossref.SOURCE, crossref.work), (openalex.SOURCE, openalex.work))


def check_retractions(lib: Session, refs: list[RefLike] | None = None,
                      progress: Progress | None = None) -> dict[str, Any]:
    """Ask Crossref and OpenAlex afresh (no cached answer) for the update notices of ``refs`` (default:
    every non-stub paper with a DOI) and store what they say: ``{results, summary}``. A paper fails
    when a source that knows it could not be asked (network, rate limit, bad answer) or no source knows it."""
    lib.config.require("write")
    http = lib.http
    with lib.store.read() as conn:
        ids = None if refs is None else [entry_store.require_id(conn, entry_ref(r)) for r in refs]
        targets = update_store.dois(conn, ids)
        skipped = [] if ids is None else sorted(set(ids) - {entry_id for entry_id, _ in targets})
    results = [{"id": entry_id, "ok": False, "error": DoigetError(
        ErrorCode.INVALID_REF, f"entry #{entry_id} has no DOI to check").to_dict()} for entry_id in skipped]
    total = len(results) + len(targets)
    for i, result in enumerate(results, 1):
        if progress:
            progress(i, total, result)
    for entry_id, doi in targets:
        results.append(_check(lib, http, entry_id, Ref("doi", doi)))
        if progress:
            progress(len(results), total, results[-1])
    return {"results": results, "summary": _summary(results)}


def _check(lib: Session, http, entry_id: int, doi: Ref) -> dict[str, Any]:
    notices: list[UpdateNotice] = []
    answered: list[str] = []
    errors: dict[str, dict[str, Any]] = {}
    for source, ask in ASKERS:
        try:
            work = ask(http, doi, cache=False)
        except DoigetError as exc:
            errors[source] = exc.to_dict()
            continue
        answered.append(source)
        notices.extend(work.updates or [])
    if answered:
        with lib.store.write() as conn:
            update_store.save(conn, entry_id, notices, answered)
    failed = {s: e for s, e in errors.items() if e["code"] != ErrorCode.NOT_FOUND.value}
    result: dict[str, Any] = {"id": entry_id, "ref": str(doi), "ok": bool(answered) and not failed,
                              "checked": answered, "status": status_of(notices), "warning": warning(notices),
                              "notices": [n.model_dump(mode="json", exclude_none=True) for n in notices]}
    if errors:
        result["source_errors"] = errors
    if not answered and not failed:
        result["error"] = DoigetError(ErrorCode.NOT_FOUND, f"neither Crossref nor OpenAlex knows {doi}").to_dict()
    elif failed:
        first = next(iter(failed.values()))
        result["error"] = {**first, "message": f"{next(iter(failed))}: {first['message']}"}
    return result


def _summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in results if r["ok"]]
    return {"total": len(results), "ok": len(ok), "errors": len(results) - len(ok),
            "by_status": dict(Counter(r["status"] or "none" for r in results if "checked" in r and r["checked"])),
            "by_error": dict(Counter(r["error"]["code"] for r in results if not r["ok"]))}


def warn_exported(entries: Iterable[Entry]) -> None:
    """Log a warning (stderr in the CLI) for each retracted, withdrawn, ... entry being exported or cited."""
    for entry in entries:
        said = citation_note(entry.updates or [])
        if said:
            log.warning("%s is exported as it is stored, but: %s", entry.ref_label, said)
