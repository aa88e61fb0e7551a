"""arXiv API (Atom feeds, current and pre-2017 format) and arXiv download URLs."""
from __future__ import annotations

from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

from doiget.errors import DoigetError, ErrorCode
from doiget.models import Author, Work
from doiget.refs import Ref
from doiget.net.base import Http, base_url
from doiget.net.parsing import clean, parse_xml, ref_from, ref_id, upstream_error, year_of

SOURCE = "arxiv"
NS = {"atom": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}
ARXIV_DOI_PREFIX = "10.48550/arxiv."


@dataclass
class ArxivEntry:
    """One feed entry: the Work plus what only arXiv knows (version, categories, comment)."""

    work: Work
    version: str | None
    updated: str | None
    categories: list[str] = field(default_factory=list)
    primary_category: str | None = None
    journal_ref: str | None = None
    comment: str | None = None
    pdf_link: str | None = None


def works(http: Http, refs: list[Ref]) -> dict[str, Work]:
    """Metadata for several arXiv ids in one request, keyed by unversioned id; absent ids are left out."""
    if not refs:
        return {}
    params = {"id_list": ",".join(ref.versioned_id for ref in refs), "max_results": len(refs)}
    response = http.get(SOURCE, f"{base_url(SOURCE)}/api/query", params=params, ok_statuses=(200, 400),
                        validate=lambda r: parse_feed(r.content))
    entries = parse_feed(response.content)
    if response.status == 400:
        raise upstream_error(SOURCE, "HTTP 400 without an error entry")
    return {entry.work.arxiv: entry.work for entry in entries if entry.work.arxiv}


def work(http: Http, ref: Ref) -> Work:
    """Metadata of one arXiv id; NOT_FOUND when the feed has no entry for it."""
    found = works(http, [ref]).get(ref.id)
    if found is None:
        raise DoigetError(ErrorCode.NOT_FOUND, f"arXiv has no paper {ref}")
    return found


def pdf_url(ref: Ref) -> str:
    return f"{base_url('arxiv_pdf')}/pdf/{ref.versioned_id}"


def source_url(ref: Ref) -> str:
    """The LaTeX source bundle (e-print) of ``ref``."""
    return f"{base_url('arxiv_pdf')}/e-print/{ref.versioned_id}"


def from_doi(doi: str | None) -> Ref | None:
    """The arXiv id behind an arXiv-minted DataCite DOI (10.48550/arXiv.2312.07559)."""
    if doi and doi.lower().startswith(ARXIV_DOI_PREFIX):
        return ref_from("arxiv", doi[len(ARXIV_DOI_PREFIX):])
    return None


def parse_feed(content: bytes) -> list[ArxivEntry]:
    """Every entry of an arXiv Atom feed; an API error entry raises INVALID_REF."""
    root = parse_xml(SOURCE, content)
    if root.tag != f"{{{NS['atom']}}}feed":
        raise upstream_error(SOURCE, f"XML whose root is {root.tag!r}, not an Atom feed")
    entries = root.findall("atom:entry", NS)
    for entry in entries:
        entry_id = _text(entry, "atom:id") or ""
        if "/api/errors" in entry_id:
            raise DoigetError(ErrorCode.INVALID_REF, f"arXiv rejected the id: {_text(entry, 'atom:summary')}")
    return [parse_entry(entry) for entry in entries]


def parse_entry(entry: Element) -> ArxivEntry:
    ref = ref_from("arxiv", _text(entry, "atom:id"))
    if ref is None:
        raise upstream_error(SOURCE, f"an entry without an arXiv id ({_text(entry, 'atom:id')!r})")
    published = _text(entry, "atom:published")
    journal_ref = _text(entry, "arxiv:journal_ref")
    links = {link.get("title") or link.get("rel"): link.get("href") for link in entry.findall("atom:link", NS)}
    primary = entry.find("arxiv:primary_category", NS)
    work = Work(
        arxiv=ref.id,
        doi=ref_id("doi", _text(entry, "arxiv:doi")),
        title=_text(entry, "atom:title"),
        abstract=_text(entry, "atom:summary"),
        authors=[_author(a) for a in entry.findall("atom:author", NS)],
        venue=journal_ref or "arXiv",
        year=year_of(published),
        published=published[:10] if published else None,
        type="article-journal" if journal_ref else "preprint",
        url=f"{base_url('arxiv_pdf')}/abs/{ref.versioned_id}",
        oa_status="green",
        oa_url=pdf_url(ref),
        sources=[SOURCE],
    )
    return ArxivEntry(
        work=work,
        version=ref.version,
        updated=_text(entry, "atom:updated"),
        categories=[c.get("term") for c in entry.findall("atom:category", NS) if c.get("term")],
        primary_category=primary.get("term") if primary is not None else None,
        journal_ref=journal_ref,
        comment=_text(entry, "arxiv:comment"),
        pdf_link=links.get("pdf"),
    )


def _text(element: Element, path: str) -> str | None:
    found = element.find(path, NS)
    return clean(found.text) if found is not None else None


def _author(element: Element) -> Author:
    return Author.from_parts(name=_text(element, "atom:name"), affiliation=_text(element, "arxiv:affiliation"))
