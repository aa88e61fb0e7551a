"""CSL-JSON export (the citeproc input format read by pandoc, Zotero and citeproc-js)."""
from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from doiget.formats.bibtex import entry_keys
from doiget.formats.fields import CSL_DATE_VARIABLES, CSL_NAME_VARIABLES, NAME_DETAIL_FIELDS, NAME_DETAILS, et_al_mark
from doiget.formats.names import to_csl_name
from doiget.formats.record import joined_keywords, published_parts
from doiget.notices import citation_note, status_of
from doiget.models import ET_AL, Work

# The item types of CSL 1.0 (schemas/input/csl-data.json); "preprint" arrived only in CSL 1.1.
CSL_TYPES = frozenset(
    "article article-journal article-magazine article-newspaper bill book broadcast chapter classic "
    "collection dataset document entry entry-dictionary entry-encyclopedia event figure graphic hearing "
    "interview legal_case legislation manuscript map motion_picture musical_score pamphlet "
    "paper-conference patent performance periodical personal_communication post post-weblog regulation "
    "report review review-book software song speech standard thesis treaty webpage".split()
)
# Every variable of a CSL 1.0.2 item (schemas/input/csl-data.json) other than names, which have their own table.
CSL_VARIABLES = frozenset(
    "DOI ISBN ISSN PMCID PMID URL abstract accessed annote archive archive-place archive_collection "
    "archive_location authority available-date call-number categories chapter-number citation-key "
    "citation-label citation-number collection-number collection-title container-title container-title-short "
    "dimensions division edition event event-date event-place event-title first-reference-note-number genre "
    "issue issued journalAbbreviation jurisdiction keyword language locator medium note number number-of-pages "
    "number-of-volumes original-date original-publisher original-publisher-place original-title page "
    "page-first part part-title printing publisher publisher-place references reviewed-genre reviewed-title "
    "scale section shortTitle source status submitted supplement title title-short version volume volume-title "
    "volume-title-short year-suffix".split())
_HTML_TAG = re.compile(r"</?(?:i|b|em|strong|sup|sub|sc|span)(?:\s[^>]*)?>", re.I)


def csl_type(work: Work) -> str:
    """``work.type`` when it is a CSL 1.0 type; preprints and untyped arXiv works are ``article``."""
    if work.type in CSL_TYPES:
        return work.type
    if work.type == "preprint" or work.arxiv:
        return "article"
    return "article-journal" if work.venue else "document"


def _issued(work: Work) -> dict[str, Any] | None:
    if _valid("issued", work.extra.get("issued")):
        return work.extra["issued"]
    parts = published_parts(work.published)
    if parts:
        return {"date-parts": [parts]}
    return {"date-parts": [[work.year]]} if work.year is not None else None


def to_csl_item(work: Work, key: str) -> dict[str, Any]:
    """One CSL-JSON item. Variables kept in ``extra`` go back under their CSL name; what has no CSL
    variable (arXiv and OpenAlex ids, BibTeX-only fields and entry type) goes under ``custom``."""
    item: dict[str, Any] = {"id": key, "citation-key": key, "type": csl_type(work)}
    simple = {
        "title": work.title, "container-title": work.venue, "volume": work.volume, "issue": work.issue,
        "page": work.pages, "DOI": work.doi, "URL": work.url, "PMID": work.pmid, "PMCID": work.pmcid,
        "publisher": work.publisher, "abstract": work.abstract, "language": work.language,
    }
    item.update({name: value for name, value in simple.items() if value})
    for name in ("title", "container-title"):
        rich = work.extra.get(f"{name}-rich")
        if isinstance(rich, str) and item.get(name) and _plain(rich) == item[name]:
            item[name] = rich
    others = work.extra.get(ET_AL) or ()
    for role, people in work.names_by_role():
        names = [to_csl_name(a) for a in people]
        if et_al_mark(role) in others:
            names.append({"literal": "others"})  # et al., as pandoc and citeproc read it
        if names and role in CSL_NAME_VARIABLES:
            item[role] = names
    issued = _issued(work)
    if issued:
        item["issued"] = issued
    if getattr(work, "tags", None):
        item["keyword"] = joined_keywords(work.tags)
    custom: dict[str, Any] = {kind: value for kind, value in (("arxiv", work.arxiv), ("openalex", work.openalex))
                              if value}
    for name, value in work.extra.items():
        if name in CSL_VARIABLES and name not in item and _valid(name, value):
            item[name] = value
        elif name != ET_AL and not name.endswith("-rich") and (name not in CSL_VARIABLES or not _valid(name, value)):
            custom[name] = value
    grave = status_of(work.updates or []) if citation_note(work.updates or []) else None
    if grave:  # CSL's ``status`` names the publication state, "retracted" among its examples
        if item.get("status") not in (None, grave):
            custom["status"] = item["status"]
        item["status"] = grave
    details = person_details(work)
    if details:
        custom[NAME_DETAILS] = details
    if custom:
        item["custom"] = custom
    if work.arxiv and work.type in (None, "preprint", "article") and "number" not in item:
        item["number"] = f"arXiv:{work.arxiv}"
    return item


def person_details(work: Work) -> dict[str, list[dict[str, str]]]:
    """What the persons of each role have beyond their names (ORCID, affiliation), one object per person in
    the role's order, for roles where someone has any (those :func:`~doiget.formats.names.name_details` names for
    BibTeX and RIS): CSL name objects allow no other key, so the export keeps this under ``custom`` and
    :mod:`doiget.formats.csl_read` gives it back to the names."""
    details = {}
    fields = NAME_DETAIL_FIELDS.items()
    for role, people in work.names_by_role():
        if role in CSL_NAME_VARIABLES and any(getattr(a, field) for a in people for _, field in fields):
            details[role] = [{name: value for name, field in fields if (value := getattr(a, field))} for a in people]
    return details


def _valid(name: str, value: Any) -> bool:
    """Whether ``value`` has the shape the CSL schema wants for variable ``name`` (a value kept from an
    odd input that does not goes under ``custom`` instead, so the export still validates)."""
    if name in CSL_DATE_VARIABLES:
        if not isinstance(value, dict):
            return False
        parts = value.get("date-parts")
        if parts is None:
            return any(isinstance(value.get(k), str) for k in ("raw", "literal"))
        return (isinstance(parts, list) and 1 <= len(parts) <= 2 and all(
            isinstance(p, list) and 1 <= len(p) <= 3 and all(isinstance(x, (str, int, float)) for x in p)
            for p in parts))
    if name == "categories":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _plain(text: str) -> str:
    return " ".join(html.unescape(_HTML_TAG.sub("", text)).split())


def to_csl_json(works: Sequence[Work], keys: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """CSL-JSON items for ``works`` (``json.dumps`` the result); ``keys`` defaults to the stored ones."""
    keys = list(keys) if keys is not None else entry_keys(works)
    return [to_csl_item(work, key) for work, key in zip(works, keys, strict=True)]
