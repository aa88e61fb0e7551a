"""CSL-JSON (Zotero, Mendeley, citeproc, pandoc) as :class:`ImportRecord` s.

Variables with a store column are read into it; names in every role keep their parts; every other
variable is kept as given in ``extra`` under its CSL name, and ``custom`` entries are merged into
``extra`` (that is where doiget's own export puts BibTeX-only fields), but for its ``name-details``, which
give the names the ORCIDs and affiliations doiget's export keeps there.
"""
from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from doiget import safejson
from doiget.errors import DoigetError, ErrorCode
from doiget.formats.fields import CSL_DATE_VARIABLES, CSL_NAME_VARIABLES, NAME_DETAIL_FIELDS, NAME_DETAILS, et_al_mark
from doiget.formats.names import csl_author, stands_for_others
from doiget.formats.record import (YEAR, ImportRecord, PlainRecord, calendar_parts, clean, clean_lines, find_ids,
                                   iso_date, keywords, leading_date, make_record, nfc, pages)
from doiget.models import ET_AL, ID_FIELDS, Author, Work

_HTML_TAG = re.compile(r"</?(?:i|b|em|strong|sup|sub|sc|span)(?:\s[^>]*)?>", re.I)
# plain text columns whose values many records of a file repeat (the URL is read once per record)
_SHARED_COLUMNS = ("type", "publisher", "volume", "issue", "language")
_RICH = (("title", "title", False), ("container-title", "venue", True))  # text columns that may carry markup
_HANDLED = frozenset({*_SHARED_COLUMNS, "URL", "abstract", "title", "container-title", "page", "id",
                      "citation-key", "DOI", "PMID", "PMCID", "issued", "keyword", "custom", *CSL_NAME_VARIABLES})
_ROLES = CSL_NAME_VARIABLES - {"author"}
# What an item may hold to be read as a PlainRecord: variables with a store column, the key, DOI, URL and authors.
_PLAIN = _HANDLED - {"custom", "PMID", "PMCID"} - _ROLES
_UNSEEN = object()
_KEY = re.compile(r"^[^\s,{}#%\"'()=\\~]+$")
_STORABLE = range(-2**63, 2**63)  # what the year column (an SQLite INTEGER) holds
_FREE_TEXT = ("URL", "number", "note", "archive_location")  # where identifiers are looked for


def parse_csl(text: str) -> list[ImportRecord]:
    """Every item of a CSL-JSON array (or ``{"items": [...]}``) as a record, in order."""
    return list(iter_csl(text))


def iter_csl(text: str | Iterable[str], plain: bool = False) -> Iterator[ImportRecord | PlainRecord]:
    """The records of :func:`parse_csl` one at a time: an array is decoded item by item, so only the text
    and the records taken so far are held, never the whole decoded document. ``text`` may also be the
    pieces of an array (a file, never held whole). A syntax error is raised when the reader reaches it,
    after the records before it (the import writes in one transaction: a broken file adds nothing).
    ``plain``: an item whose every value has a store column comes as a :class:`PlainRecord`."""
    if not isinstance(text, str):
        data: Iterable[Any] = safejson.items(_without_bom(text), "CSL-JSON")
    elif (text := text.lstrip("\ufeff")).lstrip(" \t\r\n").startswith("["):
        data = safejson.items(text, "CSL-JSON")
    else:
        data = safejson.loads(text, "CSL-JSON")
        if isinstance(data, dict):
            data = data.get("items", [data])
        if not isinstance(data, list):
            raise DoigetError(ErrorCode.INVALID_INPUT, "CSL-JSON must be an array of items")
    memo = Memo()
    for index, item in enumerate(data):
        yield csl_record(index, item, memo, plain)


def _without_bom(pieces: Iterable[str]) -> Iterator[str]:
    pieces = iter(pieces)
    yield next(pieces, "").lstrip("\ufeff")
    yield from pieces


def _issued(issued: Any) -> tuple[int | None, str | None, bool]:
    """(year, ISO date, whether the date object says more than these two keep)."""
    if not isinstance(issued, dict):
        return None, None, issued is not None
    parts_list = issued.get("date-parts") or [[]]
    parts = parts_list[0] if isinstance(parts_list, list) and parts_list and isinstance(parts_list[0], list) else []
    if _integers(parts):  # the usual case
        numbers = parts[:3]
    else:
        numbers = [int(p) for p in parts if str(p).strip().lstrip("-").isdigit()][:3]
    richer = len(issued) > ("date-parts" in issued) or len(parts_list) > 1 or len(numbers) != len(parts)
    if numbers:
        if numbers[0] not in _STORABLE:
            raise ValueError("a year no store column holds")
        dated = calendar_parts(numbers)
        return numbers[0], iso_date(dated), richer or len(dated) < len(numbers)
    raw = str(issued.get("raw") or issued.get("literal") or "").strip()
    numbers, _ = leading_date(raw)  # citation.js and pandoc write {"raw": "2019-05-01"}
    if numbers:
        return numbers[0], iso_date(numbers), True
    match = YEAR.search(raw)
    return (int(match.group(1)) if match else None), None, True


def _integers(parts: list[Any]) -> bool:
    """Whether every part is an int (bool is not int here: True is no number). A loop: ``set(map(type, parts))``
    took three times as long on a date's two parts."""
    for part in parts:
        if type(part) is not int:
            return False
    return True


def _date(value: Any) -> Any:
    """A date variable with its digit-string parts as numbers (Zotero writes ``[["2014", 9, 9]]``; the
    BibTeX reader and doiget's export write numbers), so one date has one stored spelling."""
    parts_list = value.get("date-parts") if isinstance(value, dict) else None
    if not isinstance(parts_list, list) or all(
            type(p) is not list or _integers(p) for p in parts_list):
        return value
    return {**value, "date-parts": [[int(x) if type(x) is str and x.strip().lstrip("-").isdecimal() else x for x in p]
                                    if type(p) is list else p for p in parts_list]}


def _rich_text(value: Any) -> tuple[str | None, str | None]:
    """(the text, the text without rich-text markup): titles from Zotero and Crossref carry markup (<i>,
    <span class="nocase">) and entities."""
    text = clean(value[0] if type(value) is list and value else value)
    if not text:
        return text, None
    plain = _HTML_TAG.sub("", text) if "<" in text else text
    return text, html.unescape(plain) if "&" in plain else plain


class Memo:
    """What the records of one file share, each worked out once: the Author of each distinct name object of
    text values (the records share it; Authors are never changed in place), the text of each distinct string of the
    columns many records repeat (type, volume, issue, publisher, language, venue; also in NFC), the reading of each distinct
    plain issued date (``{"date-parts": [[2020, 5]]}``)."""

    __slots__ = ("names", "texts", "normal", "rich", "dates")

    def __init__(self) -> None:
        self.names: dict[tuple, Author | None] = {}
        self.texts: dict[str, str | None] = {}  # clean()
        self.normal: dict[str, str | None] = {}  # clean() in NFC (a plain record's values)
        self.rich: dict[str, tuple[str | None, str | None]] = {}  # _rich_text()
        self.dates: dict[tuple[int, ...], tuple[int | None, str | None, bool]] = {}  # _issued() of plain dates


def _once(value: Any, done: dict[str, Any], read: Callable[[Any], Any]) -> Any:
    """``read(value)``, worked out once per distinct string (other values each time: 1, 1.0 and True are
    one dictionary key but three texts)."""
    if type(value) is not str:
        return read(value)
    out = done.get(value, _UNSEEN)
    if out is _UNSEEN:
        out = done[value] = read(value)
    return out


def _issued_once(issued: Any, dates: dict[tuple[int, ...], tuple[int | None, str | None, bool]]) -> tuple[
        int | None, str | None, bool]:
    """``_issued(issued)``, worked out once per distinct plain date (one list of integer parts and nothing else:
    most records of a file share a year and month); other dates each time."""
    if type(issued) is dict and len(issued) == 1 and type(parts_list := issued.get("date-parts")) is list \
            and len(parts_list) == 1 and type(parts := parts_list[0]) is list and _integers(parts):
        try:
            return dates[key := tuple(parts)]
        except KeyError:
            out = dates[key] = _issued(issued)
            return out
    return _issued(issued)


def _people(value: Any, names: dict[tuple, Author | None]) -> list[Author]:
    """The names of one role, without a closing "others" (:func:`closing_others`), each distinct name
    object's Author made once (see :class:`Memo`)."""
    if not isinstance(value, list):
        return []
    return _persons(value[:-1] if closing_others(value) else value, names)


def _persons(value: list[Any], names: dict[tuple, Author | None]) -> list[Author]:
    """The Authors of the name objects ``value`` (none a closing "others")."""
    people = []
    for name in value:
        try:
            author = names[key := tuple(name.items())]
        except KeyError:
            author = csl_author(name)
            if all(type(value) is str for value in name.values()):  # 1, 1.0 and True are one key but three names
                names[key] = author
        except (AttributeError, TypeError):  # no object, or an object holding a list or an object
            author = csl_author(name)
        if author:
            people.append(author)
    return people


def closing_others(value: Any) -> bool:
    """Whether a name list ends in ``{"literal": "others"}``: pandoc's (and citeproc's) spelling of
    BibTeX's "and others" (et al.), which is no person."""
    last = value[-1] if type(value) is list and value else None
    return isinstance(last, dict) and len(last) == 1 and stands_for_others(last.get("literal"))


def csl_record(index: int, item: Any, memo: Memo | None = None, plain: bool = False) -> ImportRecord | PlainRecord:
    """One CSL-JSON item as an :class:`ImportRecord` (``memo``: what the file's earlier records worked out);
    with ``plain``, an item whose every value has a store column as a :class:`PlainRecord`."""
    memo = Memo() if memo is None else memo
    if not isinstance(item, dict):
        return ImportRecord(work=Work(), problems=[f"item {index} is not a JSON object"])
    get = item.get
    plain = plain and item.keys() <= _PLAIN
    key = get("citation-key") or get("id")
    key = None if key in (None, "") else str(key)
    key = key if key and _KEY.match(key) and "//" not in key else None
    problems: list[str] = []
    try:
        year, published, richer = _issued_once(get("issued"), memo.dates)
    except (TypeError, ValueError):
        year, published, richer = None, None, True
        problems.append(f"unreadable issued date {get('issued')!r}")
    if plain and not (richer and get("issued") is not None):
        record = _plain(get, key, year, published, problems, memo)
        if record is not None:
            return record
    custom = get("custom")
    custom = custom if isinstance(custom, dict) else {}
    ids, inferred, id_problems = find_ids(
        {"doi": get("DOI"), "pmid": get("PMID"), "pmcid": get("PMCID"),
         "arxiv": custom.get("arxiv"), "openalex": custom.get("openalex")},
        [str(value) for name in _FREE_TEXT if (value := get(name))],
    )
    extra = {} if item.keys() <= _HANDLED else {
        name: value for name, value in item.items() if name not in _HANDLED and value not in (None, "", [])}
    if custom:
        extra.update({name: value for name, value in custom.items() if name not in ("arxiv", "openalex")})
    if richer and get("issued") is not None:
        extra["issued"] = item["issued"]
    if extra:
        for name in CSL_DATE_VARIABLES.intersection(extra):
            extra[name] = _date(extra[name])
    texts = memo.texts
    fields: dict[str, Any] = {name: _once(value, texts, clean) for name in _SHARED_COLUMNS
                              if (value := get(name)) is not None}
    if (url := get("URL")) is not None:
        fields["url"] = clean(url)
    for name, column, shared in _RICH:
        value = get(name)
        text, fields[column] = _once(value, memo.rich, _rich_text) if shared else _rich_text(value)
        if fields[column] != text and isinstance(value, str):
            extra[f"{name}-rich"] = value
    roles = _ROLES.intersection(item)
    others = [et_al_mark(role) for role in ("author", *sorted(roles))
              if closing_others(item.get(role))]
    if others:
        extra[ET_AL] = others
    names = memo.names
    fields.update(abstract=clean_lines(get("abstract")), pages=pages(get("page")), authors=_people(get("author"), names),
                  year=year, published=published,
                  contributors={role: people for role in sorted(roles) if (people := _people(item[role], names))}
                  if roles else {}, citekey=key, extra=extra)
    if NAME_DETAILS in extra and _give_details(fields, extra[NAME_DETAILS]):
        del extra[NAME_DETAILS]
    return make_record(key, fields, ids, keywords(get("keyword")), problems + id_problems, inferred, typed=True)


def _give_details(fields: dict[str, Any], details: Any) -> bool:
    """Give the persons of ``fields`` the ORCIDs and affiliations ``custom``'s name details hold (see
    :func:`doiget.formats.csl.person_details`); False, changing nothing, unless they fit the names one for one
    (the details are then kept in ``extra`` as given)."""
    if not isinstance(details, dict) or not details:
        return False
    people = {"author": fields["authors"], **fields["contributors"]}
    given: dict[str, list[Author]] = {}
    for role, items in details.items():
        persons = people.get(role)
        if not (isinstance(items, list) and persons and len(items) == len(persons)):
            return False
        if not all(isinstance(d, dict) and d.keys() <= NAME_DETAIL_FIELDS.keys() and
                   all(isinstance(v, str) and v.strip() for v in d.values()) for d in items):
            return False
        given[role] = [person.model_copy(update={NAME_DETAIL_FIELDS[name]: nfc(value) for name, value in d.items()})
                       if d else person for person, d in zip(persons, items)]
    if "author" in given:
        fields["authors"] = given.pop("author")
    fields["contributors"] = {**fields["contributors"], **given}
    return True


def _plain(get: Callable[[str], Any], key: str | None, year: int | None, published: str | None, problems: list[str],
           memo: Memo) -> PlainRecord | None:
    """The :class:`PlainRecord` of an item of :data:`_PLAIN` variables only whose date says no more than its year
    and ISO date (the values :func:`csl_record`'s general reading gives ``make_record``, made in NFC as they are
    read); None when the item needs ``extra`` after all (a title with markup, a closing "others")."""
    authors = get("author")
    if closing_others(authors):
        return None
    value = get("title")
    text, title = _rich_text(value)
    if title != text and isinstance(value, str):
        return None
    value = get("container-title")
    text, venue = _once(value, memo.rich, _rich_text)
    if venue != text and isinstance(value, str):
        return None
    type_, publisher, volume, issue, language = _shared(get, memo.normal)
    url = get("URL")
    if key and not key.isascii():
        key = nfc(key)
    ids, inferred, id_problems = find_ids({"doi": get("DOI")}, [str(url)] if url else [])
    if len(ids) > 1:
        ids = {kind: ids[kind] for kind in ID_FIELDS if kind in ids}
    get_id = ids.get
    abstract, words = get("abstract"), get("keyword")
    columns = (get_id("doi"), get_id("arxiv"), get_id("pmid"), get_id("pmcid"), get_id("openalex"), _normal(title),
               None if abstract is None else _normal(clean_lines(abstract)), _normal(venue), year, published or None,
               type_, publisher, volume, issue, _normal(pages(get("page"))), None if url is None else _normal(clean(url)),
               None, language, None, None, None)
    tags = keywords(words) if words else []
    if tags and not (type(words) is str and words.isascii()):  # else NFC already
        tags = nfc(tags)
    return PlainRecord(columns, _persons(authors, memo.names) if isinstance(authors, list) else [], ids, key, tags,
                       problems + id_problems, inferred)


def _shared(get: Callable[[str], Any], normal: dict[str, str | None]) -> list[str | None]:
    """The :data:`_SHARED_COLUMNS` of an item in NFC, each distinct string's worked out once (as :func:`_once`)."""
    out = []
    for name in _SHARED_COLUMNS:
        value = get(name)
        if value is None:
            out.append(None)
        elif type(value) is str and (text := normal.get(value, _UNSEEN)) is not _UNSEEN:
            out.append(text)
        else:
            out.append(_once(value, normal, _clean_nfc))
    return out


def _normal(text: str | None) -> str | None:
    """Text in NFC; None for no text."""
    return (text if text.isascii() else nfc(text)) if text else None


def _clean_nfc(value: Any) -> str | None:
    text = clean(value)
    return nfc(text) if text else text
