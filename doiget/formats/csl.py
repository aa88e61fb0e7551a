"""CSL-JSON export (the citeproc input format read by pandoc, Zotero and citeproc-js)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from doiget.formats.keys import citation_keys
from doiget.models import Author, Work

# The item types of CSL 1.0 (schemas/input/csl-data.json); "preprint" arrived only in CSL 1.1.
CSL_TYPES = frozenset(
    "article article-journal article-magazine article-newspaper bill book broadcast chapter classic "
    "collection dataset document entry entry-dictionary entry-encyclopedia event figure graphic hearing "
    "interview legal_case legislation manuscript map motion_picture musical_score pamphlet "
    "paper-conference patent performance periodical personal_communication post post-weblog regulation "
    "report review review-book software song speech standard thesis treaty webpage".split()
)
_ISO_DATE = re.compile(r"^(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?")


def csl_type(work: Work) -> str:
    """``work.type`` when it is a CSL 1.0 type; preprints and untyped arXiv works are ``article``."""
    if work.type in CSL_TYPES:
        return work.type
    if work.type == "preprint" or work.arxiv:
        return "article"
    return "article-journal" if work.venue else "document"


def _name(author: Author) -> dict[str, str]:
    if author.given:
        return {"family": author.family or author.name, "given": author.given}
    return {"literal": author.family or author.name}


def _issued(work: Work) -> dict[str, Any] | None:
    match = _ISO_DATE.match(work.published or "")
    if match:
        return {"date-parts": [[int(part) for part in match.groups() if part]]}
    return {"date-parts": [[work.year]]} if work.year else None


def to_csl_item(work: Work, key: str) -> dict[str, Any]:
    """One CSL-JSON item; fields without a CSL variable (arXiv, OpenAlex ids) go under ``custom``."""
    item: dict[str, Any] = {"id": key, "citation-key": key, "type": csl_type(work)}
    simple = {
        "title": work.title, "container-title": work.venue, "volume": work.volume, "issue": work.issue,
        "page": work.pages, "DOI": work.doi, "URL": work.url, "PMID": work.pmid, "PMCID": work.pmcid,
        "publisher": work.publisher, "abstract": work.abstract, "language": work.language,
    }
    item.update({name: value for name, value in simple.items() if value})
    if work.authors:
        item["author"] = [_name(a) for a in work.authors]
    issued = _issued(work)
    if issued:
        item["issued"] = issued
    custom = {kind: value for kind, value in (("arxiv", work.arxiv), ("openalex", work.openalex)) if value}
    if custom:
        item["custom"] = custom
    if work.arxiv and work.type in (None, "preprint", "article"):
        item["number"] = f"arXiv:{work.arxiv}"
    return item


def to_csl_json(works: Sequence[Work], keys: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """CSL-JSON items for ``works`` (``json.dumps`` the result); ``keys`` defaults to :func:`citation_keys`."""
    keys = list(keys) if keys is not None else citation_keys(works)
    return [to_csl_item(work, key) for work, key in zip(works, keys, strict=True)]
