"""Europe PMC REST: search with cursor paging, and metadata for many PMIDs/PMCIDs/DOIs at once."""
from __future__ import annotations

from typing import Any

from doiget.errors import DoigetError, ErrorCode
from doiget.models import Author, Work
from doiget.refs import Ref
from doiget.net.base import Http, base_url, json_body
from doiget.net.parsing import clean, ref_id, require_dict, strip_tags, upstream_error

SOURCE = "europepmc"
SITE = "https://europepmc.org"
RESULT_TYPES = ("core", "lite")
# Identifiers per request: keeps the query string far below the URL lengths Europe PMC accepts.
IDS_PER_REQUEST = 100
MAX_PAGE_SIZE = 1000

Page = tuple[list[Work], str | None, int]


def search(http: Http, query: str, page_size: int = 25, cursor: str = "*", result_type: str = "core") -> Page:
    """One page of results: (works, next cursor or None on the last page, hit count)."""
    if result_type not in RESULT_TYPES:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown Europe PMC resultType {result_type!r}")
    params = {"query": query, "format": "json", "resultType": result_type,
              "pageSize": min(page_size, MAX_PAGE_SIZE), "cursorMark": cursor}
    response = http.get(SOURCE, f"{base_url(SOURCE)}/search", params=params, validate=json_body(SOURCE))
    works, next_cursor, count = parse_search(response.json(SOURCE))
    return works, (None if next_cursor == cursor or not works else next_cursor), count


def works_by_ids(http: Http, refs: list[Ref], result_type: str = "core") -> list[Work]:
    """Records for many PMIDs, PMCIDs and DOIs, fetched with one OR-query per 100 identifiers."""
    found: list[Work] = []
    for start in range(0, len(refs), IDS_PER_REQUEST):
        chunk = refs[start:start + IDS_PER_REQUEST]
        # A DOI can match both a MEDLINE record and a preprint, so leave room for more hits than ids.
        works, _, _ = search(http, ids_query(chunk), page_size=2 * len(chunk), result_type=result_type)
        found.extend(works)
    return found


def ids_query(refs: list[Ref]) -> str:
    """``(EXT_ID:123 AND SRC:MED) OR PMCID:PMC1 OR DOI:"10.1/x"`` for the given refs."""
    terms = []
    for ref in refs:
        if ref.kind == "pmid":
            terms.append(f"(EXT_ID:{ref.id} AND SRC:MED)")
        elif ref.kind == "pmcid":
            terms.append(f"PMCID:{ref.id}")
        elif ref.kind == "doi":
            terms.append('DOI:"{}"'.format(ref.id.replace('"', '\\"')))
        else:
            raise DoigetError(ErrorCode.INVALID_REF, f"Europe PMC looks up PMIDs, PMCIDs and DOIs, not {ref}")
    return " OR ".join(terms)


def matches(work: Work, ref: Ref) -> bool:
    """Whether ``work`` carries the identifier ``ref`` (both canonical, so plain equality)."""
    return getattr(work, ref.kind, None) == ref.id


def fulltext_xml_url(pmcid: Ref) -> str:
    """Where Europe PMC serves the JATS XML of an open-access PMC article."""
    return f"{base_url(SOURCE)}/{pmcid.id}/fullTextXML"


def pdf_url(pmcid: Ref) -> str:
    """Europe PMC's rendered PDF of a PMC article (fetched as source ``europepmc_pdf``)."""
    return f"{base_url('europepmc_pdf')}/articles/{pmcid.id}?pdf=render"


def parse_search(data: Any) -> Page:
    data = require_dict(SOURCE, data, "a body")
    results = (data.get("resultList") or {}).get("result")
    if not isinstance(results, list) or not isinstance(data.get("hitCount"), int):
        raise upstream_error(SOURCE, "a search answer without hitCount and resultList.result")
    return [parse_result(r) for r in results], data.get("nextCursorMark"), data["hitCount"]


def parse_result(data: Any) -> Work:
    """One search result (resultType core or lite) -> Work."""
    data = require_dict(SOURCE, data, "a result")
    pmid = ref_id("pmid", data.get("pmid"))
    pmcid = ref_id("pmcid", data.get("pmcid"))
    doi = ref_id("doi", data.get("doi"))
    if not (pmid or pmcid or doi):
        raise upstream_error(SOURCE, f"a result without pmid, pmcid or doi (id {data.get('id')!r})")
    journal_info = data.get("journalInfo") or {}
    pdf = _open_pdf(data)
    year = data.get("pubYear")
    return Work(
        doi=doi, pmid=pmid, pmcid=pmcid,
        title=_title(data.get("title")),
        abstract=strip_tags(data.get("abstractText")),
        authors=_authors(data),
        venue=clean((journal_info.get("journal") or {}).get("title") or data.get("journalTitle")),
        year=int(year) if str(year or "").isdigit() else None,
        published=data.get("firstPublicationDate"),
        type="preprint" if data.get("source") == "PPR" else "article-journal",
        volume=journal_info.get("volume") or data.get("journalVolume"),
        issue=journal_info.get("issue") or data.get("issue"),
        pages=data.get("pageInfo"),
        url=f"{SITE}/article/{data.get('source')}/{data.get('id')}" if data.get("source") and data.get("id") else None,
        license=data.get("license"),
        language=data.get("language"),
        oa_url=pdf,
        cited_by_count=data.get("citedByCount"),
        sources=[SOURCE],
    )


def _title(title: str | None) -> str | None:
    """MEDLINE ends every title with a period that is not part of it."""
    title = strip_tags(title)
    return title[:-1] if title and title.endswith(".") else title


def _authors(data: dict) -> list[Author]:
    listed = (data.get("authorList") or {}).get("author")
    if isinstance(listed, list):
        return [_author(a) for a in listed if isinstance(a, dict)]
    # lite results only carry "Schoenfeld JD, Haas-Kogan DA, O'Neill AF."
    names = [n.strip() for n in (data.get("authorString") or "").rstrip(".").split(",") if n.strip()]
    return [Author.from_parts(family=n.rsplit(" ", 1)[0], given=n.rsplit(" ", 1)[1] if " " in n else None, name=n)
            for n in names]


def _author(data: dict) -> Author:
    author_id = data.get("authorId") or {}
    orcid = author_id.get("value") if author_id.get("type") == "ORCID" else None
    affiliations = ((data.get("authorAffiliationDetailsList") or {}).get("authorAffiliation")) or []
    # fullName is "Kwok C"; with both name parts known, Author builds "Cannas Kwok" itself.
    both_parts = data.get("lastName") and data.get("firstName")
    name = None if both_parts else data.get("fullName") or data.get("collectiveName")
    return Author.from_parts(
        family=data.get("lastName"), given=data.get("firstName"), name=name,
        orcid=orcid, affiliation=affiliations[0].get("affiliation") if affiliations else None,
    )


def _open_pdf(data: dict) -> str | None:
    """A PDF link that is open access or free to read, if Europe PMC lists one."""
    for link in (data.get("fullTextUrlList") or {}).get("fullTextUrl") or []:
        if link.get("documentStyle") == "pdf" and link.get("availabilityCode") in ("OA", "F"):
            return link.get("url")
    return None
