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
    every non-stub paper) and store what they say: ``{results, summary}``. A paper with a DOI is asked
    of both, one without (arXiv, PMID, PMCID, OpenAlex id) of OpenAlex only. A paper fails when a
    source that knows it could not be asked (network, rate limit, bad answer), when no source knows
    it, or when it has no identifier to ask by."""
    lib.config.require("write")
    http = lib.http
    with lib.store.read() as conn:
        ids = None if refs is None else list(dict.fromkeys(
            entry_store.require_id(conn, entry_ref(r)) for r in refs))
        papers = update_store.targets(conn, ids)
    results: list[dict[str, Any]] = []
    for entry_id, known in papers:
        results.append(_check(lib, http, entry_id, known))
        if progress:
            progress(len(results), len(papers), results[-1])
    return {"results": results, "summary": _summary(results)}


def _check(lib: Session, http, entry_id: int, known: dict[str, str]) -> dict[str, Any]:
    if not known:
        return {"id": entry_id, "ref": f"#{entry_id}", "ok": False, "error": DoigetError(
            ErrorCode.INVALID_REF, f"#{entry_id} has no identifier to ask Crossref or OpenAlex by").to_dict()}
    kind = next(k for k in ("doi", "openalex", "pmid", "pmcid", "arxiv") if k in known)  # OpenAlex's surest key
    ref = Ref.of(kind, known[kind])
    notices: list[UpdateNotice] = []
    answered: list[str] = []
    errors: dict[str, dict[str, Any]] = {}
    for source, ask in ASKERS:
        if source == crossref.SOURCE and ref.kind != "doi":
            continue
        try:
            work = ask(http, ref, cache=False)
        except DoigetError as exc:
            errors[source] = exc.to_dict()
            continue
        answered.append(source)
        notices.extend(work.updates or [])
    if answered:
        with lib.store.write() as conn:
            update_store.save(conn, entry_id, notices, answered)
    failed = {s: e for s, e in errors.items() if e["code"] != ErrorCode.NOT_FOUND.value}
    result: dict[str, Any] = {"id": entry_id, "ref": str(ref), "ok": bool(answered) and not failed,
                              "checked": answered, "status": status_of(notices), "warning": warning(notices),
                              "notices": [n.model_dump(mode="json", exclude_none=True) for n in notices]}
    if errors:
        result["source_errors"] = errors
    if not answered and not failed:
        result["error"] = DoigetError(ErrorCode.NOT_FOUND, f"no source asked knows {ref}").to_dict()
    elif failed:
        first = next(iter(failed.values()))
        result["error"] = {**first, "message": f"{next(iter(failed))}: {first['message']}"}
    return result


def _summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in results if r["ok"]]
    return {"total": len(results), "ok": len(ok), "errors": len(results) - len(ok),
            "by_status": dict(Counter(r["status"] or "none" for r in results if r.get("checked"))),
            "by_error": dict(Counter(r["error"]["code"] for r in results if not r["ok"]))}


def warn_exported(entries: Iterable[Entry]) -> None:
    """Log a warning (stderr in the CLI) for each retracted, withdrawn, ... entry being exported or cited."""
    for entry in entries:
        said = citation_note(entry.updates or [])
        if said:
            log.warning("%s is exported as it is stored, but: %s", entry.ref_label, said)
