"""Crossref REST API: one work by DOI, and bibliographic queries with Crossref's relevance score."""
from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import quote

from doiget.errors import DoigetError, ErrorCode
from doiget.models import Author, Work
from doiget.notices import UpdateNotice, kind_of
from doiget.refs import Ref
from doiget.net.base import Http, base_url, json_body
from doiget.net.parsing import (
    clean, date_parts, get_record, ref_from, ref_id, require_dict, strip_tags, upstream_error,
)

SOURCE = "crossref"

# Crossref work types -> CSL types (https://api.crossref.org/types).
CSL_TYPES = {
    "journal-article": "article-journal",
    "proceedings-article": "paper-conference",
    "book-chapter": "chapter",
    "book-part": "chapter",
    "book-section": "chapter",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-set": "book",
    "book-series": "book",
    "posted-content": "preprint",
    "report": "report",
    "report-series": "report",
    "dissertation": "thesis",
    "dataset": "dataset",
    "reference-entry": "entry",
    "peer-review": "review",
    "standard": "standard",
    "journal": "periodical",
    "journal-issue": "periodical",
    "journal-volume": "periodical",
    "proceedings": "book",
    "component": "document",
    "other": "document",
}

QUERY_FIELDS = ("bibliographic", "title", "author", "container-title")


class Scored(NamedTuple):
    """A query hit: the parsed work and Crossref's relevance ``score`` (higher is better)."""

    work: Work
    score: float


def work(http: Http, doi: Ref, *, cache: bool = True) -> Work:
    """The Crossref record of ``doi`` (NOT_FOUND when Crossref does not register it); ``cache=False``
    asks Crossref even when a cached answer exists."""
    url = f"{base_url(SOURCE)}/works/{quote(doi.id, safe='')}"
    missing = f"Crossref has no record of {doi} (it may be registered elsewhere, e.g. DataCite)"
    return parse_work_response(get_record(http, SOURCE, url, missing, cache=cache))


def query(http: Http, text: str, rows: int = 5, field: str = "bibliographic") -> list[Scored]:
    """Crossref's best ``rows`` matches for free text, searched in ``field`` (query.<field>)."""
    if field not in QUERY_FIELDS:
        raise DoigetError(ErrorCode.INVALID_INPUT,
                          f"unknown Crossref query field {field!r}; fields: {', '.join(QUERY_FIELDS)}")
    params = {f"query.{field}": text, "rows": rows}
    response = http.get(SOURCE, f"{base_url(SOURCE)}/works", params=params, validate=json_body(SOURCE))
    return parse_list_response(response.json(SOURCE))


def parse_work_response(data: Any) -> Work:
    """A ``/works/{doi}`` envelope -> Work."""
    return parse_work(_message(data, "work"))


def parse_list_response(data: Any) -> list[Scored]:
    """A ``/works?query...`` envelope -> scored works, in Crossref's order."""
    items = _message(data, "work-list").get("items")
    if not isinstance(items, list):
        raise upstream_error(SOURCE, "a work-list without an items array")
    return [Scored(parse_work(item), float(item.get("score") or 0.0)) for item in items]


def parse_work(item: Any) -> Work:
    """One Crossref work object -> Work."""
    item = require_dict(SOURCE, item, "a work")
    doi = ref_id("doi", item.get("DOI"))
    if doi is None:
        raise upstream_error(SOURCE, f"a work without a valid DOI ({item.get('DOI')!r})")
    year, published = date_parts((item.get("issued") or item.get("published") or {}).get("date-parts"))
    return Work(
        doi=doi,
        title=_title(item),
        abstract=strip_tags(item.get("abstract")),
        authors=[_author(a) for a in item.get("author") or [] if isinstance(a, dict)],
        venue=_first(item.get("container-title")),
        year=year,
        published=published,
        type=CSL_TYPES.get(item.get("type") or "", "document"),
        publisher=clean(item.get("publisher")),
        volume=clean(item.get("volume")),
        issue=clean(item.get("issue")),
        pages=clean(item.get("page")),
        url=item.get("URL"),
        license=_license(item.get("license")),
        language=item.get("language"),
        cited_by_count=item.get("is-referenced-by-count"),
        references=_references(item.get("reference")),
        sources=[SOURCE],
        updates=updates(item),
    )


def updates(item: dict) -> list[UpdateNotice]:
    """The work's ``updated-by`` notices (it has been retracted, corrected, ...) and ``update-to`` ones
    (it is itself a notice for another DOI), each as Crossref lists it. Crossref's ``relation`` has no
    retraction or correction type (its vocabulary is isPreprintOf, hasReview, isReplacedBy, ...), so
    relations are not read as notices."""
    found: list[UpdateNotice] = []
    for direction in ("updated-by", "update-to"):
        for update in item.get(direction) or []:
            kind = kind_of(update.get("type")) if isinstance(update, dict) else None
            if kind is None:
                continue
            _, date = date_parts((update.get("updated") or {}).get("date-parts"))
            found.append(UpdateNotice(direction=direction, kind=kind, doi=ref_id("doi", update.get("DOI")),
                                      date=date, label=clean(update.get("label")),
                                      asserted_by=clean(update.get("source")), source=SOURCE))
    return found


def _message(data: Any, kind: str) -> dict:
    data = require_dict(SOURCE, data, "a body")
    if data.get("status") != "ok" or data.get("message-type") != kind:
        raise upstream_error(SOURCE, f"status {data.get('status')!r} / message-type {data.get('message-type')!r}, "
                                     f"expected ok / {kind}")
    return require_dict(SOURCE, data.get("message"), "a message")


def _first(values: Any) -> str | None:
    if isinstance(values, list) and values:
        return strip_tags(str(values[0]))
    return None


def _title(item: dict) -> str | None:
    title, subtitle = _first(item.get("title")), _first(item.get("subtitle"))
    if title and subtitle and subtitle.lower() not in title.lower():
        return f"{title}: {subtitle}"
    return title or subtitle


def _author(data: dict) -> Author:
    orcid = data.get("ORCID")
    affiliations = [a.get("name") for a in data.get("affiliation") or [] if isinstance(a, dict) and a.get("name")]
    return Author.from_parts(
        family=data.get("family"), given=data.get("given"), name=data.get("name"),
        orcid=orcid.rsplit("/", 1)[-1] if orcid else None,
        affiliation=affiliations[0] if affiliations else None,
    )


def _license(licenses: Any) -> str | None:
    """The version-of-record licence URL if Crossref lists one, else the first."""
    urls = [(lic.get("content-version"), lic.get("URL"))
            for lic in licenses or [] if isinstance(lic, dict) and lic.get("URL")]
    for version, url in urls:
        if version == "vor":
            return url
    return urls[0][1] if urls else None


def _references(refs: Any) -> list[str]:
    found = (ref_from("doi", r.get("DOI")) for r in refs or [] if isinstance(r, dict))
    return list(dict.fromkeys(str(ref) for ref in found if ref is not None))
