"""CSL-JSON (Zotero, Mendeley, citeproc, pandoc) as :class:`ImportRecord` s.

Variables with a store column are read into it; names in every role keep their parts; every other
variable is kept as given in ``extra`` under its CSL name, and ``custom`` entries are merged into
``extra`` (that is where doiget's own export puts BibTeX-only fields).
"""
from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from typing import Any

from doiget import safejson
from doiget.errors import DoigetError, ErrorCode
from doiget.formats.fields import CSL_NAME_VARIABLES
from doiget.formats.names import csl_author
from doiget.formats.record import YEAR, ImportRecord, clean, find_ids, iso_date, keywords, make_record, pages
from doiget.models import Author, Work

_HTML_TAG = re.compile(r"</?(?:i|b|em|strong|sup|sub|sc|span)(?:\s[^>]*)?>", re.I)
_COLUMNS = {"title": "title", "container-title": "venue", "type": "type", "publisher": "publisher",
            "volume": "volume", "issue": "issue", "page": "pages", "URL": "url", "abstract": "abstract",
            "language": "language"}
_HANDLED = frozenset({*_COLUMNS, "id", "citation-key", "DOI", "PMID", "PMCID", "issued", "keyword", "custom",
                      *CSL_NAME_VARIABLES})
_ROLES = tuple(sorted(CSL_NAME_VARIABLES - {"author"}))
_KEY = re.compile(r"^[^\s,{}#%\"'()=\\~]+$")


def parse_csl(text: str) -> list[ImportRecord]:
    """Every item of a CSL-JSON array (or ``{"items": [...]}``) as a record, in order."""
    return list(iter_csl(text))


def iter_csl(text: str) -> Iterator[ImportRecord]:
    """The records of :func:`parse_csl` one at a time: an array is checked, then decoded item by item, so
    only the text and the records taken so far are held, never the whole decoded document."""
    text = text.lstrip("\ufeff")
    if text.lstrip(" \t\r\n").startswith("["):
        for _ in safejson.items(text, "CSL-JSON"):
            pass  # a syntax error anywhere fails the file before any record is imported
        data: Iterable[Any] = safejson.items(text, "CSL-JSON")
    else:
        data = safejson.loads(text, "CSL-JSON")
        if isinstance(data, dict):
            data = data.get("items", [data])
        if not isinstance(data, list):
            raise DoigetError(ErrorCode.INVALID_INPUT, "CSL-JSON must be an array of items")
    names: dict[tuple, Author | None] = {}
    for index, item in enumerate(data):
        yield csl_record(index, item, names)


def _issued(issued: Any) -> tuple[int | None, str | None, bool]:
    """(year, ISO date, whether the date object says more than these two keep)."""
    if not isinstance(issued, dict):
        return None, None, issued is not None
    parts_list = issued.get("date-parts") or [[]]
    parts = parts_list[0] if isinstance(parts_list, list) and parts_list and isinstance(parts_list[0], list) else []
    numbers = [int(p) for p in parts if str(p).strip().lstrip("-").isdigit()][:3]
    richer = set(issued) - {"date-parts"} != set() or len(parts_list) > 1 or len(numbers) != len(parts)
    if numbers:
        return numbers[0], iso_date(numbers), richer
    match = YEAR.search(str(issued.get("raw") or issued.get("literal") or ""))
    return (int(match.group(1)) if match else None), None, True


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _rich_text(value: Any) -> str | None:
    """Titles from Zotero and Crossref carry rich-text markup (<i>, <span class="nocase">) and entities."""
    text = clean(_first(value))
    return html.unescape(_HTML_TAG.sub("", text)) if text else None


def _people(value: Any, names: dict[tuple, Author | None]) -> list[Author]:
    """The names of one role; ``names`` caches them per distinct name object (the records of one file
    share the Author of a name they spell identically; Authors are never changed in place)."""
    if not isinstance(value, list):
        return []
    people = []
    for name in value:
        try:
            key = tuple(name.items()) if isinstance(name, dict) else None
            author = names[key] if key in names else names.setdefault(key, csl_author(name))
        except TypeError:  # a name object holding a list or an object
            author = csl_author(name)
        if author:
            people.append(author)
    return people


def csl_record(index: int, item: Any, names: dict[tuple, Author | None] | None = None) -> ImportRecord:
    """One CSL-JSON item as an :class:`ImportRecord` (``names``: see :func:`_people`)."""
    names = {} if names is None else names
    if not isinstance(item, dict):
        return ImportRecord(work=Work(), problems=[f"item {index} is not a JSON object"])
    key = item.get("citation-key") or item.get("id")
    key = str(key) if key not in (None, "") and _KEY.match(str(key)) and "//" not in str(key) else None
    problems: list[str] = []
    try:
        year, published, richer = _issued(item.get("issued"))
    except (TypeError, ValueError):
        year, published, richer = None, None, True
        problems.append(f"unreadable issued date {item.get('issued')!r}")
    custom = item.get("custom") if isinstance(item.get("custom"), dict) else {}
    ids, inferred, id_problems = find_ids(
        {"doi": item.get("DOI"), "pmid": item.get("PMID"), "pmcid": item.get("PMCID"),
         "arxiv": custom.get("arxiv"), "openalex": custom.get("openalex")},
        (str(item.get(name) or "") for name in ("URL", "number", "note", "archive_location")),
    )
    extra = {name: value for name, value in item.items() if name not in _HANDLED and value not in (None, "", [])}
    extra.update({name: value for name, value in custom.items() if name not in ("arxiv", "openalex")})
    if richer and item.get("issued") is not None:
        extra["issued"] = item["issued"]
    for name in ("title", "container-title"):
        if isinstance(item.get(name), str) and _rich_text(item[name]) != clean(item[name]):
            extra[f"{name}-rich"] = item[name]
    contributors = {role: people for role in _ROLES if role in item and (people := _people(item[role], names))}
    fields: dict[str, Any] = {column: clean(item.get(name)) for name, column in _COLUMNS.items()}
    fields.update(title=_rich_text(item.get("title")), venue=_rich_text(item.get("container-title")),
                  pages=pages(item.get("page")), authors=_people(item.get("author"), names), contributors=contributors,
                  year=year, published=published, citekey=key, extra=extra)
    return make_record(key, fields, ids, keywords(item.get("keyword")), problems + id_problems, inferred)
