"""Identifier -> merged metadata from the authoritative source plus enrichment, and where to get a free copy."""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal, TypeVar

from pydantic import BaseModel, Field

from doiget.errors import DoigetError, ErrorCode
from doiget.models import Work
from doiget.refs import Ref
from doiget.net import arxiv, crossref, europepmc, openalex, unpaywall
from doiget.net.base import Http

log = logging.getLogger(__name__)
T = TypeVar("T")


class Candidate(BaseModel):
    """One download to try: ``source`` names the Http source to fetch ``url`` with."""

    source: str
    url: str
    kind: Literal["pdf"] = "pdf"


class OaPlan(BaseModel):
    """Ordered download candidates for a work, and why there are none when the list is empty."""

    candidates: list[Candidate] = Field(default_factory=list)
    oa_status: str | None = None
    suggested_arxiv_id: str | None = None
    reason: Literal["closed", "no_pdf_url"] | None = None


def resolve(http: Http, ref: Ref) -> Work:
    """Metadata for ``ref`` from its authoritative source, enriched where a second source adds to it."""
    if ref.kind == "doi":
        return _resolve_doi(http, ref)
    if ref.kind == "arxiv":
        work = arxiv.work(http, ref)
        return _enrich(work, _optional(crossref.work, http, Ref("doi", work.doi))) if work.doi else work
    if ref.kind == "openalex":
        work = openalex.work(http, ref)
        published = _optional(crossref.work, http, Ref("doi", work.doi)) if work.doi else None
        return published.merged(work) if published else work
    for work in europepmc.works_by_ids(http, [ref]):
        if europepmc.matches(work, ref):
            return work
    raise DoigetError(ErrorCode.NOT_FOUND, f"Europe PMC has no record of {ref}")


def oa_plan(http: Http, work: Work) -> OaPlan:
    """Where a free PDF of ``work`` can be fetched, best first: arXiv, Unpaywall, Europe PMC. Fetches no PDF."""
    oa = _optional(unpaywall.oa_info, http, Ref("doi", work.doi)) if work.doi else None
    arxiv_id = work.arxiv or (oa.suggested_arxiv_id if oa else None)
    candidates: list[Candidate] = []
    if arxiv_id:
        candidates.append(Candidate(source="arxiv_pdf", url=arxiv.pdf_url(Ref("arxiv", arxiv_id))))
    for location in oa.locations if oa else []:
        # arXiv copies are already covered by the arXiv candidate, fetched from arXiv's own host.
        if location.url_for_pdf and not location.arxiv_id:
            candidates.append(Candidate(source="oa_pdf", url=_https(location.url_for_pdf)))
    pmc_open = (oa is not None and oa.is_oa) or (work.oa_url or "").startswith(europepmc.SITE)
    if work.pmcid and pmc_open:
        candidates.append(Candidate(source="europepmc_pdf", url=europepmc.pdf_url(Ref("pmcid", work.pmcid))))
    candidates = list({c.url: c for c in candidates}.values())
    oa_status = oa.oa_status if oa else work.oa_status
    reason = None
    if not candidates:
        reason = "closed" if (oa is not None and not oa.is_oa) or oa_status == "closed" else "no_pdf_url"
    return OaPlan(candidates=candidates, oa_status=oa_status,
                  suggested_arxiv_id=arxiv_id if arxiv_id != work.arxiv else None, reason=reason)


def oa_location(http: Http, work: Work) -> tuple[str | None, str | None]:
    """(oa_url, oa_status) of ``work`` as Unpaywall states them: the best copy's PDF URL, else its
    landing page, None when closed; without an Unpaywall answer, what the metadata sources said."""
    oa = _optional(unpaywall.oa_info, http, Ref("doi", work.doi)) if work.doi else None
    if oa is None:
        return (None if work.oa_status == "closed" else work.oa_url), work.oa_status
    if not oa.is_oa:
        return None, oa.oa_status or "closed"
    return oa.url_for_pdf or oa.url, oa.oa_status


def _https(url: str) -> str:
    """Unpaywall lists many repository copies under http://; ask for them over https (the only scheme
    doiget fetches), so a host that serves both is reachable."""
    return "https://" + url[len("http://"):] if url.lower().startswith("http://") else url


def _resolve_doi(http: Http, ref: Ref) -> Work:
    try:
        registered: Work | None = crossref.work(http, ref)
    except DoigetError as exc:
        if exc.code is not ErrorCode.NOT_FOUND:
            raise
        registered = None  # e.g. a DataCite DOI: OpenAlex may still know it
    indexed = _optional(openalex.work, http, ref)
    if registered is None and indexed is None:
        raise DoigetError(ErrorCode.NOT_FOUND, f"neither Crossref nor OpenAlex has a record of {ref}")
    return _enrich(registered, indexed) if registered else indexed


def _enrich(work: Work, extra: Work | None) -> Work:
    return work.merged(extra) if extra else work


def _optional(fetch: Callable[[Http, Ref], T], http: Http, ref: Ref) -> T | None:
    """``fetch(http, ref)``, or None when that source fails: enrichment never sinks a resolution."""
    try:
        return fetch(http, ref)
    except DoigetError as exc:
        log.info("%s.%s(%s) failed: %s", fetch.__module__, fetch.__name__, ref, exc.message)
        return None
