"""Unpaywall v2: where the open-access copies of a DOI live."""
from __future__ import annotations

from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, Field

from doiget.refs import Ref
from doiget.net.base import Http, base_url
from doiget.net.parsing import get_record, ref_from, ref_id, require_dict, upstream_error

SOURCE = "unpaywall"


class OaLocation(BaseModel):
    """One place Unpaywall found a free copy."""

    url: str | None = None
    url_for_pdf: str | None = None
    url_for_landing_page: str | None = None
    host_type: str | None = None
    license: str | None = None
    version: str | None = None
    repository_institution: str | None = None
    arxiv_id: str | None = Field(None, description="set when this copy is on arXiv")


class OaInfo(BaseModel):
    """Unpaywall's answer for one DOI; ``locations`` best first."""

    doi: str
    is_oa: bool
    oa_status: str | None = None
    best: OaLocation | None = None
    locations: list[OaLocation] = Field(default_factory=list)
    suggested_arxiv_id: str | None = None

    @property
    def url_for_pdf(self) -> str | None:
        return self.best.url_for_pdf if self.best else None

    @property
    def url(self) -> str | None:
        return self.best.url if self.best else None



def oa_info(http: Http, doi: Ref) -> OaInfo:
    """Unpaywall's record for ``doi`` (NOT_FOUND when Unpaywall does not know it)."""
    url = f"{base_url(SOURCE)}/v2/{quote(doi.id, safe='/:')}"
    return parse_oa_info(get_record(http, SOURCE, url, f"Unpaywall has no record of {doi}"))


def parse_oa_info(data: Any) -> OaInfo:
    data = require_dict(SOURCE, data, "a body")
    doi = ref_id("doi", data.get("doi"))
    if doi is None or not isinstance(data.get("is_oa"), bool):
        raise upstream_error(SOURCE, "a record without a valid doi and a boolean is_oa")
    locations = [_location(loc) for loc in data.get("oa_locations") or [] if isinstance(loc, dict)]
    best = _location(data["best_oa_location"]) if isinstance(data.get("best_oa_location"), dict) else None
    arxiv_ids = [loc.arxiv_id for loc in [best, *locations] if loc and loc.arxiv_id]
    return OaInfo(
        doi=doi, is_oa=data["is_oa"], oa_status=data.get("oa_status"), best=best, locations=locations,
        suggested_arxiv_id=arxiv_ids[0] if arxiv_ids else None,
    )


def _location(data: dict) -> OaLocation:
    fields = {key: data.get(key) for key in OaLocation.model_fields if key != "arxiv_id"}
    return OaLocation(**fields, arxiv_id=_arxiv_id(data))


def _arxiv_id(data: dict) -> str | None:
    """The arXiv id of a location hosted on arxiv.org (by URL or OAI-PMH id)."""
    for key in ("url_for_pdf", "url_for_landing_page", "url"):
        ref = ref_from("arxiv", data.get(key))
        if ref:
            return ref.id
    pmh_id = data.get("pmh_id") or ""
    if pmh_id.lower().startswith("oai:arxiv.org:"):
        return ref_id("arxiv", pmh_id.split(":", 2)[2])
    return None
