"""The fetch pipeline behind ``Library.fetch`` and ``Library.batch_fetch``: resolve an identifier,
save its metadata, plan where a free PDF lives, and store the first candidate that downloads.

A paper without an open-access copy, or whose copies all fail, is a result (``pdf.status``), not
an error; an identifier that cannot be resolved is an error. Nothing partial is ever left behind:
``HttpClient.download`` removes its temp file on any failure, and the artefact row naming a blob
is written only after the blob is complete and in place.
"""
from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any
from urllib.parse import urlencode

from doiget import limits
from doiget.config import Config
from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import alternates
from doiget.fulltext import index as fulltext_index
from doiget.fulltext.jatsmeta import read_jats_article
from doiget.models import Entry, Work
from doiget.refs import Ref
from doiget.net import arxiv, openalex
from doiget.net.base import HttpResponse
from doiget.net.resolve import Candidate, oa_location, oa_plan, resolve
from doiget.sanitize import query_text
from doiget.services import artefacts, entries
from doiget.services.session import Session
from doiget.store import citations as citation_store
from doiget.store.store import DB_NAME

log = logging.getLogger(__name__)
MAX_BATCH = limits.MAX_BATCH
BATCH_WORKERS = 8  # threads only overlap waits; the process-wide throttle still paces every request
MAX_QUERY = limits.MAX_PAPER_QUERY
MAX_FILTERS = limits.MAX_PAPER_FILTERS
MAX_CURSOR = limits.MAX_PAPER_CURSOR
MAX_PER_PAGE = limits.MAX_PER_PAGE
_FILTER_KEY = re.compile(r"^[a-z][a-z0-9_.]{0,99}$")
Progress = Callable[[int, int, dict[str, Any]], None]
PerRef = Callable[[Ref], dict[str, Any]]


# ---- the façade's fetch calls -------------------------------------------------------------

def upstream_ref(lib: Session, ref: Ref | str) -> Ref:
    """``ref`` parsed; a library entry's ``#<id>`` or ``@<key>`` becomes the identifier the entry carries
    (NOT_FOUND when the library lacks the entry, INVALID_REF when the entry has no identifier an
    upstream source knows)."""
    parsed = Ref.parse(ref, local=True)
    if not parsed.in_library:
        return parsed
    entry = entries.info(lib, parsed)
    if not entry.ids():
        raise DoigetError(ErrorCode.INVALID_REF, f"{parsed} has no DOI, arXiv id, PMID, PMCID or OpenAlex id "
                          "to look it up by")
    return entry.ref


def resolve_entry(lib: Session, ref: Ref | str) -> Entry:
    """Authoritative metadata of ``ref``, saved to the library (see :meth:`doiget.Library.resolve`)."""
    lib.config.require("write")
    return entries.add(lib, resolve(lib.http, upstream_ref(lib, ref)), upstream=True)


def fetch_entry(lib: Session, ref: Ref | str, dry_run: bool = False, fulltext: bool = True) -> dict[str, Any]:
    """:meth:`doiget.Library.fetch`: the PDF (or the plan, on a dry run), then the structured full text."""
    ref = upstream_ref(lib, ref)
    if dry_run:
        from doiget.services.fetchplan import extend

        return extend(plan(ref, stored(lib, ref)), lib.home)
    result = fetch(lib, ref)
    if fulltext:
        try:
            result["fulltext"] = fetch_fulltext(lib, ref)
        except DoigetError as exc:
            result["fulltext"] = {"error": exc.to_dict()}
    return result


def batch_fetch(lib: Session, refs: list[Ref | str], dry_run: bool = False, fulltext: bool = True,
                progress: Progress | None = None) -> dict[str, Any]:
    """:func:`fetch_entry` for up to 100 refs concurrently (see :meth:`doiget.Library.batch_fetch`)."""
    if not dry_run:
        lib.config.require("write")
    return run_batch(refs, lambda ref: fetch_entry(lib, ref, dry_run=dry_run, fulltext=fulltext), progress)


def fetch_fulltext(lib: Session, ref: Ref | str | int) -> dict[str, Any]:
    """Download and store a paper's structured full text (see :meth:`doiget.Library.fetch_fulltext`)."""
    lib.config.require("write")
    lib.config.require("network")
    entry = entries.info(lib, ref)
    stored_kinds = {a.kind for a in entry.artefacts}
    outcomes = []
    for alternate in alternates.for_entry(entry):
        outcome: dict[str, Any] = {"format": alternate.kind, "source": alternate.source, "url": alternate.url}
        if alternate.url is None:
            outcome.update(status="missing", reason=alternate.reason)
        elif alternate.kind in stored_kinds:
            outcome.update(status="already_stored")
        elif alternate.fallback_for in stored_kinds:
            outcome.update(status="skipped", reason=f"the {alternate.fallback_for} text is stored")
        else:
            outcome.update(_fetch_alternate(lib, entry.id, alternate))
            if outcome["status"] == "stored":
                stored_kinds.add(alternate.kind)
        outcomes.append(outcome)
    return {"ref": entry.ref_label, "id": entry.id, "alternates": outcomes,
            "stored": sum(o["status"] == "stored" for o in outcomes)}


def _fetch_alternate(lib: Session, entry_id: int, alternate: alternates.Alternate) -> dict[str, Any]:
    try:
        # Not cached: the body is stored as a blob, not kept twice in http_cache.
        response = lib.http.get(alternate.source, alternate.url, cache=False)
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
    sha = artefacts.add_artefact(lib, entry_id, alternate.kind, response.content, source=alternate.source,
                                 mime=response.headers.get("content-type"), url=alternate.url)
    outcome: dict[str, Any] = {"status": "stored", "sha256": sha, "chunks": chunks}
    if alternate.kind == "jats":  # its reference list, as for a JATS file you add
        references = read_jats_article(response.content).references
        with lib.store.write() as conn:
            outcome["citation_edges"] = citation_store.save_cited_works(conn, entry_id, references, "jats")
    return outcome


# ---- one reference ------------------------------------------------------------------------

def fetch(lib: Session, ref: Ref) -> dict[str, Any]:
    """Resolve ``ref``, save its metadata and download its PDF unless the library already has one.

    arXiv identifiers are fetched from arXiv (the version asked for); other works follow
    :func:`doiget.net.resolve.oa_plan`: the arXiv copy, then Unpaywall's PDFs, then Europe PMC.
    """
    lib.config.require("write")
    entry = stored(lib, ref)
    if entry is not None and entry.has_pdf:
        return _present(lib, ref, entry)
    work = resolve(lib.http, ref)
    entry = entries.add(lib, work, upstream=True)
    if entry.has_pdf:  # the same work was stored under another of its identifiers
        return _present(lib, ref, entry)
    if ref.kind == "arxiv":
        candidates = [Candidate(source="arxiv_pdf", url=arxiv.pdf_url(ref))]
        oa_status, suggested, no_url_reason = work.oa_status, None, None
    else:
        plan = oa_plan(lib.http, work)
        candidates, oa_status = plan.candidates, plan.oa_status
        suggested, no_url_reason = plan.suggested_arxiv_id, plan.reason
    attempts: list[dict[str, Any]] = []
    for candidate in candidates:
        try:
            download = lib.http.download(candidate.source, candidate.url, lib.store.blobs.temp_dir(), expect="pdf")
        except DoigetError as err:
            attempts.append(_attempt(candidate, err))
            continue
        attempts.append(_attempt(candidate))
        sha = artefacts.add_artefact(lib, entry.id, "pdf", download, mime="application/pdf", source=candidate.source,
                                     url=download.final_url)
        pdf = _pdf("fetched", None, f"stored from {candidate.source}", attempts, source=candidate.source,
                   url=download.final_url, sha256=sha, size=download.size, path=str(lib.store.blobs.path(sha)))
        return _result(ref, entries.info(lib, entry.id), oa_status, suggested, pdf)
    if not attempts:
        message = ("Unpaywall lists no open-access copy" if no_url_reason == "closed"
                   else "no open-access PDF URL is known for this work")
        pdf = _pdf("no_oa_url", no_url_reason or "no_pdf_url", message, attempts)
    else:
        blocked = all(a["outcome"] == ErrorCode.BLOCKED.value for a in attempts)
        first = attempts[0]
        pdf = _pdf("blocked" if blocked else "failed", first.get("reason") or first["outcome"].lower(),
                   f"all {len(attempts)} candidate(s) failed; first: {first['message']}", attempts)
    return _result(ref, entries.info(lib, entry.id), oa_status, suggested, pdf)


def stored(lib: Session, ref: Ref) -> Entry | None:
    """The library's entry for ``ref``, or None."""
    try:
        return entries.info(lib, ref)
    except DoigetError as err:
        if err.code is ErrorCode.NOT_FOUND:
            return None
        raise


def metadata_only(lib: Session, ref: Ref, include_oa_location: bool) -> dict[str, Any]:
    """``{ref, entry}`` (the metadata is saved, as by ``resolve``), plus ``oa_url``/``oa_status`` on request."""
    entry = resolve_entry(lib, ref)
    result: dict[str, Any] = {"ref": str(ref), "entry": entry}
    if include_oa_location:
        result["oa_url"], result["oa_status"] = oa_location(lib.http, entry)
    return result


def _present(lib: Session, ref: Ref, entry: Entry) -> dict[str, Any]:
    artefact = [a for a in entry.artefacts if a.kind == "pdf"][-1]
    pdf = _pdf("already_present", None, "the library already holds a PDF of this work", [],
               source=artefact.source, url=artefact.url, sha256=artefact.sha256, size=artefact.size,
               path=str(lib.store.blobs.path(artefact.sha256)))
    return _result(ref, entry, entry.oa_status, None, pdf)


def _attempt(candidate: Candidate, err: DoigetError | None = None) -> dict[str, Any]:
    attempt: dict[str, Any] = {"source": candidate.source, "url": candidate.url,
                               "outcome": err.code.value if err else "ok"}
    if err is not None:
        attempt["reason"] = err.details.get("reason")
        attempt["message"] = err.message
    return attempt


def _pdf(status: str, reason: str | None, message: str, attempts: list[dict[str, Any]], *,
         source: str | None = None, url: str | None = None, sha256: str | None = None,
         size: int | None = None, path: str | None = None) -> dict[str, Any]:
    return {"status": status, "reason": reason, "message": message, "source": source, "url": url,
            "sha256": sha256, "size": size, "path": path, "attempts": attempts}


def _result(ref: Ref, entry: Entry | None, oa_status: str | None, suggested: str | None,
            pdf: dict[str, Any]) -> dict[str, Any]:
    return {"ref": str(ref), "entry": entry, "oa_status": oa_status, "suggested_arxiv_id": suggested, "pdf": pdf}


# ---- dry runs -----------------------------------------------------------------------------

class _Recorder:
    """An Http that sends nothing: it notes each request and answers NOT_FOUND, so resolution and
    planning go as far as they can without upstream answers."""

    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []

    def get(self, source: str, url: str, *, params: dict[str, Any] | None = None, **_: Any) -> HttpResponse:
        self.requests.append({"source": source, "url": url + ("?" + urlencode(params) if params else "")})
        raise DoigetError(ErrorCode.NOT_FOUND, "dry run: nothing was sent")

    def download(self, *_: Any, **__: Any) -> Any:
        raise DoigetError(ErrorCode.INTERNAL_ERROR, "a dry run never downloads")


def plan(ref: Ref, entry: Entry | None) -> dict[str, Any]:
    """What ``fetch(ref)`` would do, from what is known offline (``entry``: the stored one, if any).

    ``requests`` are the upstream requests the fetch starts with (later ones depend on their
    answers); ``candidates`` the PDF URLs known now (Unpaywall may add more at fetch time).
    """
    if ref.in_library:  # #<id> or @<key>: plan by the identifier its entry carries
        if entry is None:
            raise DoigetError(ErrorCode.NOT_FOUND, f"{ref} is not in the library")
        if not entry.ids():
            raise DoigetError(ErrorCode.INVALID_REF, f"{ref} has no DOI, arXiv id, PMID, PMCID or OpenAlex id "
                              "to look it up by")
        ref = entry.ref
    if entry is not None and entry.has_pdf:
        artefact = [a for a in entry.artefacts if a.kind == "pdf"][-1]
        return {"ref": str(ref), "dry_run": True, "entry": entry, "pdf": {"status": "already_present",
                "sha256": artefact.sha256, "source": artefact.source}, "requests": [], "candidates": []}
    recorder = _Recorder()
    try:
        resolve(recorder, ref)
    except DoigetError:
        pass  # every answer is NOT_FOUND by construction
    if ref.kind == "arxiv":
        candidates = [Candidate(source="arxiv_pdf", url=arxiv.pdf_url(ref))]
    else:
        candidates = oa_plan(recorder, entry or Work(**{ref.kind: ref.id})).candidates
    return {"ref": str(ref), "dry_run": True, "entry": entry, "pdf": {"status": "planned"},
            "requests": recorder.requests, "candidates": [c.model_dump(exclude={"kind"}) for c in candidates]}


def planner(config: Config, library: Callable[[], Session]) -> PerRef:
    """A per-ref dry run that reads the library when one exists and never creates one."""
    from doiget.services.fetchplan import extend

    if (config.home / DB_NAME).is_file():
        lib = library()
        return lambda ref: extend(plan(ref, stored(lib, ref)), config.home)
    return lambda ref: extend(plan(ref, None), config.home)


# ---- batches ------------------------------------------------------------------------------

def run_batch(refs: list[Any], one: PerRef, progress: Progress | None = None) -> dict[str, Any]:
    """``one(ref)`` for each distinct identifier of ``refs`` on a thread pool.

    Results come back in input order as ``{input, ok, ...}``; an identifier given twice (in any
    spelling) is processed once and its later copies carry ``duplicate_of`` (the first index). A
    failing ref becomes ``{input, ok: false, error}`` and never stops the others. ``progress(done,
    total, result)`` is called from this thread after each ref.
    """
    if not isinstance(refs, list) or not 1 <= len(refs) <= MAX_BATCH:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"a batch takes a list of 1 to {MAX_BATCH} identifiers")
    results: list[dict[str, Any] | None] = [None] * len(refs)
    positions: dict[Ref, list[int]] = {}
    for i, raw in enumerate(refs):
        try:
            positions.setdefault(Ref.parse(raw, local=True), []).append(i)
        except DoigetError as err:
            results[i] = {"input": raw, "ok": False, "error": err.to_dict()}
    done = 0

    def report(i: int) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, len(refs), results[i])

    for i in [i for i, r in enumerate(results) if r is not None]:
        report(i)
    with ThreadPoolExecutor(max_workers=max(1, min(BATCH_WORKERS, len(positions)))) as pool:
        futures = {pool.submit(_guarded, one, ref): ref for ref in positions}
        for future in as_completed(futures):
            first, *copies = positions[futures[future]]
            for i in (first, *copies):
                results[i] = {"input": refs[i], **future.result(), **({"duplicate_of": first} if i != first else {})}
                report(i)
    finished = [r for r in results if r is not None]
    return {"results": finished, "summary": summarize(finished)}


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts over batch results: total, ok, errors, duplicates, by pdf status and by error code."""
    ok = [r for r in results if r["ok"]]
    return {"total": len(results), "ok": len(ok), "errors": len(results) - len(ok),
            "duplicates": sum("duplicate_of" in r for r in results),
            "by_status": dict(Counter(r["pdf"]["status"] for r in ok)),
            "by_error": dict(Counter(r["error"]["code"] for r in results if not r["ok"]))}


def _guarded(one: PerRef, ref: Ref) -> dict[str, Any]:
    try:
        return {"ok": True, **one(ref)}
    except DoigetError as err:
        return {"ok": False, "ref": str(ref), "error": err.to_dict()}
    except Exception:  # one ref's bug must not sink the batch; it is logged with its traceback
        log.exception("fetching %s failed", ref)
        error = DoigetError(ErrorCode.INTERNAL_ERROR, f"fetching {ref} failed unexpectedly; see the log")
        return {"ok": False, "ref": str(ref), "error": error.to_dict()}


# ---- OpenAlex: identity links and remote search -------------------------------------------

def link(lib: Session, ref: Ref) -> dict[str, Any]:
    """The identity cluster OpenAlex links to ``ref`` and the arXiv preprint among it, if any."""
    refs = openalex.identity(lib.lookup_http, ref)
    return {"ref": str(ref), "arxiv": next((r.id for r in refs if r.kind == "arxiv"), None),
            "identity": {r.kind: r.id for r in refs}, "refs": [str(r) for r in refs]}


def paper_search(lib: Session, query: str | None, filters: dict[str, str] | None, cursor: str | None,
                 per_page: int) -> dict[str, Any]:
    """One page of OpenAlex works for ``query`` and ``filters`` (``{"publication_year": "2020"}``),
    abstracts rebuilt; pass ``next_cursor`` back as ``cursor`` for the next page."""
    query = query_text(query) if isinstance(query, str) else query
    query = _search_query(query)
    filters = _search_filters(filters)
    if query is None and not filters:
        raise DoigetError(ErrorCode.INVALID_INPUT, "give a query, filters or both")
    if cursor is not None and (not isinstance(cursor, str) or not 0 < len(cursor) <= MAX_CURSOR):
        raise DoigetError(ErrorCode.INVALID_INPUT, f"cursor must be a string of 1 to {MAX_CURSOR} characters")
    if isinstance(per_page, bool) or not isinstance(per_page, int) or not 1 <= per_page <= MAX_PER_PAGE:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"per_page must be an integer from 1 to {MAX_PER_PAGE}")
    works, next_cursor, count = openalex.search(lib.lookup_http, query, filters=filters, cursor=cursor, per_page=per_page)
    return {"query": query, "filters": filters, "count": count, "next_cursor": next_cursor, "results": works}


def _search_query(query: str | None) -> str | None:
    if query is None:
        return None
    if not isinstance(query, str) or len(query) > MAX_QUERY:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"query must be a string of at most {MAX_QUERY} characters")
    return query.strip() or None


def _search_filters(filters: dict[str, str] | None) -> dict[str, str]:
    if not filters:
        return {}
    if not isinstance(filters, dict) or len(filters) > MAX_FILTERS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"filters must be a mapping of at most {MAX_FILTERS} entries")
    for key, value in filters.items():
        if not isinstance(key, str) or not _FILTER_KEY.match(key):
            raise DoigetError(ErrorCode.INVALID_INPUT, f"filter name {key!r} is not an OpenAlex filter name "
                              "(lower-case letters, digits, '_' and '.')")
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_QUERY or "," in value:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"filter {key}: value must be 1 to {MAX_QUERY} characters "
                              "without commas (OpenAlex separates filters with them; use | for OR)")
    return {key: value.strip() for key, value in filters.items()}
