"""The seed spec's normative result shapes (SEED_MCP_TOOLS.md §5, §10, §11) laid over doiget's own
results: every field doiget already returns stays, the spec's fields are added.

- fetch: top-level ``source``, ``resolver_profile``, ``path``, ``license``, ``size_bytes``,
  ``oa_url``/``oa_status`` (null, never absent), ``schema_version``; a failed PDF leg carries
  ``code``, ``message`` and (when the refusal was a policy denial) ``denial_context``;
- dry runs: ``ref`` as {kind: id} (``ref_label`` keeps the string), ``plan``, ``rate_limit_budget``;
- errors: ``denial_context`` built from the error's details (single-paper tools omit it when there is
  none; batch rows always carry it, null when none).
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from doiget.errors import DoigetError, ErrorCode
from doiget.library import SCHEMA_VERSION

# doiget's download sources under the seed spec's source names (europepmc is doiget's own addition).
PDF_SOURCE = {"arxiv_pdf": "arxiv", "oa_pdf": "unpaywall", "europepmc_pdf": "europepmc"}
_DENIAL_BY_REASON = {"host_not_allowed": "redirect_not_in_allowlist", "not_https": "insecure_scheme",
                     "private_address": "ssrf_private_address", "not_pdf": "content_type_mismatch",
                     "not_archive": "content_type_mismatch"}
_DENIAL_BY_CODE = {ErrorCode.TOO_LARGE.value: "size_cap_exceeded",
                   ErrorCode.CAPABILITY_DENIED.value: "capability_not_granted",
                   ErrorCode.RATE_LIMITED.value: "rate_limit_window"}


def denial_context(code: str, details: dict[str, Any] | None, url: str | None = None) -> dict[str, Any] | None:
    """The DenialContext of an error (its code and details), or None when it was not a policy denial."""
    details = details or {}
    reason = _DENIAL_BY_REASON.get(details.get("reason")) or _DENIAL_BY_CODE.get(code)
    if reason is None:
        return None
    context: dict[str, Any] = {"reason": reason}
    if details.get("source"):
        context["source"] = details["source"]
    attempted = details.get("host") or (urlsplit(url).hostname if url else None)
    if attempted:
        context["attempted"] = attempted
    if isinstance(details.get("limit"), int):
        context["cap"] = details["limit"]
    if isinstance(details.get("declared"), int):
        context["actual"] = details["declared"]
    return context


def with_denial(error: dict[str, Any], always: bool) -> dict[str, Any]:
    """An error dict with ``denial_context`` added: omitted when none unless ``always`` (then null)."""
    context = denial_context(error["code"], error.get("details"))
    return {**error, "denial_context": context} if context is not None or always else error


def failure(error: DoigetError, arguments: dict[str, Any]) -> dict[str, Any]:
    """A single tool's failure envelope: the ``ref`` it was given (when it takes one) and the error with
    its ``denial_context`` when the failure was a policy denial."""
    envelope: dict[str, Any] = {"ok": False}
    if isinstance(arguments.get("ref"), str):
        envelope["ref"] = arguments["ref"]
    return {**envelope, "error": with_denial(error.to_dict(), always=False)}


def fetch_result(result: dict[str, Any]) -> dict[str, Any]:
    """A fetch (or dry-run) result in the seed spec's shape, every existing field kept."""
    if result.get("dry_run"):
        return dry_run(result)
    entry, pdf = result.get("entry") or {}, dict(result["pdf"])
    if pdf["status"] in ("blocked", "failed"):
        first = next((a for a in pdf.get("attempts", []) if a.get("outcome") != "ok"), None)
        if first is not None:
            pdf["code"] = first["outcome"]
            context = denial_context(first["outcome"], {"reason": first.get("reason"),
                                                        "source": first.get("source")}, first.get("url"))
            if context is not None:
                pdf["denial_context"] = context
        if result.get("suggested_arxiv_id"):
            pdf["suggested_arxiv_id"] = result["suggested_arxiv_id"]
    elif pdf["status"] == "no_oa_url":
        pdf["code"] = ErrorCode.NO_OA_AVAILABLE.value
    source = PDF_SOURCE.get(pdf.get("source"), pdf.get("source")) or next(iter(entry.get("sources", [])), None)
    return {**result, "source": source, "resolver_profile": source, "path": pdf.get("path"),
            "license": entry.get("license"), "size_bytes": pdf.get("size"),
            "oa_url": result.get("oa_url", entry.get("oa_url")),
            "oa_status": result.get("oa_status", entry.get("oa_status")),
            "schema_version": SCHEMA_VERSION, "pdf": pdf}


def metadata_result(result: dict[str, Any]) -> dict[str, Any]:
    """A metadata-only result in the seed spec's shape (``metadata`` is the stored entry)."""
    if result.get("dry_run"):
        shaped = dry_run(result)
        return {**shaped, "plan": {**shaped["plan"], "pdf_sources": []}}
    entry = result["entry"]
    source = next(iter(entry.get("sources", [])), None)
    return {**result, "source": source, "resolver_profile": source, "license": entry.get("license"),
            "oa_url": result.get("oa_url"), "oa_status": result.get("oa_status"), "metadata": entry,
            "schema_version": SCHEMA_VERSION}


def dry_run(result: dict[str, Any]) -> dict[str, Any]:
    shaped = {**result, "ref": result["ref_shape"], "ref_label": result["ref"]}
    del shaped["ref_shape"]
    return shaped


def batch_row(row: dict[str, Any]) -> dict[str, Any]:
    """One batch row: a fetch result, or an error whose ``denial_context`` is always present."""
    if row["ok"]:
        return fetch_result(row)
    return {**row, "ref": row.get("ref", row.get("input")), "error": with_denial(row["error"], always=True)}
