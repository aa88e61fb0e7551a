"""OpenAlex: works by any identifier, filtered search with cursor paging, citing works, id clusters."""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from doiget.models import Author, Work
from doiget.notices import UpdateNotice
from doiget.refs import Ref
from doiget.net import arxiv
from doiget.net.base import Http, base_url, json_body
from doiget.net.crossref import CSL_TYPES
from doiget.net.parsing import clean, get_record, ref_from, ref_id, require_dict, upstream_error

SOURCE = "openalex"

# OpenAlex work types -> CSL types; unknown types fall back to the Crossref type.
OPENALEX_TYPES = {
    "article": "article-journal",
    "review": "article-journal",
    "letter": "article-journal",
    "editorial": "article-journal",
    "erratum": "article-journal",
    "retraction": "article-journal",
    "preprint": "preprint",
    "book": "book",
    "book-chapter": "chapter",
    "dataset": "dataset",
    "dissertation": "thesis",
    "report": "report",
    "standard": "standard",
    "peer-review": "review",
    "reference-entry": "entry",
}

Page = tuple[list[Work], str | None, int]


def work(http: Http, ref: Ref, *, cache: bool = True) -> Work:
    """The OpenAlex work behind any identifier kind (arXiv ids go through arXiv's DataCite DOI);
    ``cache=False`` asks OpenAlex even when a cached answer exists."""
    url = f"{base_url(SOURCE)}/works/{_work_key(ref)}"
    return parse_work(get_record(http, SOURCE, url, f"OpenAlex has no work for {ref}", cache=cache))


def identity(http: Http, ref: Ref) -> list[Ref]:
    """Every identifier OpenAlex links to ``ref``: DOI, arXiv copy, PMID, PMCID, OpenAlex id."""
    return work(http, ref).refs()


def search(http: Http, query: str | None = None, *, filters: dict[str, str] | None = None,
           cursor: str | None = "*", per_page: int = 25) -> Page:
    """One page of works matching ``query`` and ``filters``: (works, next_cursor, total count).

    ``next_cursor`` is None on the last page, and for page-based answers that carry none.
    """
    params: dict[str, Any] = {"per-page": per_page}
    if query:
        params["search"] = query
    if filters:
        params["filter"] = ",".join(f"{key}:{value}" for key, value in filters.items())
    if cursor:
        params["cursor"] = cursor
    response = http.get(SOURCE, f"{base_url(SOURCE)}/works", params=params, validate=json_body(SOURCE))
    return parse_list(response.json(SOURCE))


def parse_list(data: Any) -> Page:
    data = require_dict(SOURCE, data, "a body")
    meta, results = data.get("meta"), data.get("results")
    if not isinstance(meta, dict) or not isinstance(results, list):
        raise upstream_error(SOURCE, "a list without meta and results")
    return [parse_work(item) for item in results], meta.get("next_cursor"), int(meta.get("count") or 0)


def parse_work(data: Any) -> Work:
    """One OpenAlex work object -> Work."""
    data = require_dict(SOURCE, data, "a work")
    openalex = ref_id("openalex", data.get("id"))
    if openalex is None:
        raise upstream_error(SOURCE, f"a work without an OpenAlex id ({data.get('id')!r})")
    ids = data.get("ids") or {}
    doi = ref_id("doi", data.get("doi") or ids.get("doi"))
    primary = data.get("primary_location") or {}
    best = data.get("best_oa_location") or {}
    source = primary.get("source") or {}
    arxiv_ids = arxiv_copies(data)
    open_access = data.get("open_access") or {}
    return Work(
        doi=doi,
        arxiv=arxiv_ids[0].id if arxiv_ids else None,
        pmid=ref_id("pmid", ids.get("pmid")),
        pmcid=_pmcid(ids.get("pmcid")),
        openalex=openalex,
        title=clean(data.get("title") or data.get("display_name")),
        abstract=abstract_from_index(data.get("abstract_inverted_index")),
        authors=[_author(a) for a in data.get("authorships") or [] if isinstance(a, dict)],
        venue=clean(source.get("display_name")),
        year=data.get("publication_year"),
        published=data.get("publication_date"),
        type=OPENALEX_TYPES.get(data.get("type") or "") or CSL_TYPES.get(data.get("type_crossref") or "", "document"),
        publisher=clean(source.get("host_organization_name")),
        volume=(data.get("biblio") or {}).get("volume"),
        issue=(data.get("biblio") or {}).get("issue"),
        pages=_pages(data.get("biblio") or {}),
        url=primary.get("landing_page_url") or (f"https://doi.org/{doi}" if doi else None),
        license=best.get("license") or primary.get("license"),
        language=data.get("language"),
        oa_status=open_access.get("oa_status"),
        oa_url=best.get("pdf_url") or open_access.get("oa_url"),
        cited_by_count=data.get("cited_by_count"),
        references=[f"openalex:{w}" for w in (ref_id("openalex", u) for u in data.get("referenced_works") or []) if w],
        sources=[SOURCE],
        updates=_retraction(data),
    )


def _retraction(data: dict) -> list[UpdateNotice] | None:
    """OpenAlex's ``is_retracted`` as a notice (it names no notice DOI or date); None when the record
    does not carry the flag (e.g. a ``select=`` answer)."""
    if "is_retracted" not in data:
        return None
    return [UpdateNotice(direction="updated-by", kind="retraction", label="is_retracted",
                         source=SOURCE)] if data["is_retracted"] is True else []


def arxiv_copies(data: dict) -> list[Ref]:
    """arXiv ids of a work: locations hosted on arxiv.org, and an arXiv DataCite DOI."""
    found: list[Ref] = []
    for location in [data.get("primary_location"), *(data.get("locations") or [])]:
        for url in ((location or {}).get("landing_page_url"), (location or {}).get("pdf_url")):
            ref = ref_from("arxiv", url)
            if ref:
                found.append(Ref("arxiv", ref.id))
    doi_ref = arxiv.from_doi(ref_id("doi", data.get("doi")))
    if doi_ref:
        found.append(doi_ref)
    return list(dict.fromkeys(found))


def abstract_from_index(index: Any) -> str | None:
    """Rebuild an abstract from OpenAlex's inverted index ({word: [positions]})."""
    if not isinstance(index, dict) or not index:
        return None
    positioned = [(pos, word) for word, positions in index.items() for pos in positions if isinstance(pos, int)]
    return " ".join(word for _, word in sorted(positioned)) or None


def _work_key(ref: Ref) -> str:
    if ref.kind == "openalex":
        return ref.id
    if ref.kind in ("doi", "arxiv"):
        doi = ref.id if ref.kind == "doi" else arxiv.ARXIV_DOI_PREFIX + ref.id
        return "https://doi.org/" + quote(doi, safe="")
    return f"{ref.kind}:{ref.id}"


def _pmcid(value: Any) -> str | None:
    """OpenAlex writes PMCIDs as .../pmc/articles/4234579 (digits without the PMC prefix)."""
    match = re.search(r"(?:PMC)?(\d+)/?$", str(value or ""), re.IGNORECASE)
    return ref_id("pmcid", f"PMC{match.group(1)}") if match else None


def _author(authorship: dict) -> Author:
    person = authorship.get("author") or {}
    orcid = person.get("orcid")
    institutions = [i.get("display_name") for i in authorship.get("institutions") or [] if i.get("display_name")]
    raw = authorship.get("raw_affiliation_strings") or []
    return Author.from_parts(
        name=person.get("display_name") or authorship.get("raw_author_name"),
        orcid=orcid.rsplit("/", 1)[-1] if orcid else None,
        affiliation=(institutions or raw or [None])[0],
    )


def _pages(biblio: dict) -> str | None:
    first, last = biblio.get("first_page"), biblio.get("last_page")
    if first and last and first != last:
        return f"{first}-{last}"
    return first or last
