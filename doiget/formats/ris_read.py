"""RIS (EndNote, Zotero, Mendeley, Web of Science, PubMed exports) as :class:`ImportRecord` s.

rispy reads the tagged lines (it knows the tag table, multi-line values and list tags); this
module maps its keys to doiget's fields. Tags without a mapping are kept under ``extra["ris"]``.
"""
from __future__ import annotations

import re
from typing import Any

import rispy
from rispy import TAG_KEY_MAPPING

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.fields import RIS_NAME_ROLES, RIS_TO_CSL, et_al_mark
from doiget.formats.names import family_and_initials, make_author, stands_for_others, with_particles
from doiget.formats.record import (YEAR, ImportRecord, calendar_parts, clean, find_ids, iso_date, keywords,
                                   leading_date, make_record)
from doiget.models import ET_AL, Author
from doiget.refs import try_parse

RIS_TO_CSL_TYPE = {
    "JOUR": "article-journal", "JFULL": "article-journal", "EJOUR": "article-journal", "MGZN": "article-magazine",
    "NEWS": "article-newspaper", "CONF": "paper-conference", "CPAPER": "paper-conference", "CHAP": "chapter",
    "ECHAP": "chapter", "ENCYC": "entry-encyclopedia", "DICT": "entry-dictionary", "BOOK": "book",
    "EBOOK": "book", "EDBOOK": "book", "THES": "thesis", "RPRT": "report", "DATA": "dataset", "ELEC": "webpage",
    "WEB": "webpage", "UNPB": "manuscript", "MANSCPT": "manuscript", "COMP": "software", "PAT": "patent",
    "STAND": "standard", "GEN": "document", "BILL": "bill", "CASE": "legal_case", "STAT": "legislation",
    "MAP": "map", "MPCT": "motion_picture", "SOUND": "song", "ART": "graphic", "PCOMM": "personal_communication",
    "PAMP": "pamphlet", "HEAR": "hearing", "BLOG": "post-weblog",
}
_NAME_ROLES = {"authors": "author", "first_authors": "author", "translated_author": "translator",
               **{TAG_KEY_MAPPING[tag]: role for tag, role in RIS_NAME_ROLES.items()}}
_CSL = {TAG_KEY_MAPPING[tag]: csl for tag, csl in RIS_TO_CSL.items()}
_ISSN = re.compile(r"\d{4}-?\d{3}[\dXx]")
# Read into the work whatever they hold; every other tag's value is kept under extra["ris"] unless the work
# holds the same value (a second title, venue, abstract, date, URL or key the work has no place for is kept).
_READ = frozenset({"type_of_reference", "end_of_reference", "volume", "number", "start_page", "end_page", "doi",
                   "publisher", "language", "keywords", "notes", "note", "access_date", *_NAME_ROLES, *_CSL})


def parse_ris(text: str) -> list[ImportRecord]:
    """Every ``TY`` ... ``ER`` record of a RIS file, in order. A record missing its ``ER`` (cut short,
    or run into the next ``TY``) or its ``TY`` is still read, with a problem saying so."""
    text, repairs = _framed(text.lstrip("\ufeff"))
    try:
        entries = rispy.loads(text, skip_unknown_tags=False, enforce_list_tags=False, delimiter_tags_mapping={})
    except Exception as exc:  # noqa: BLE001 - rispy raises IOError/ValueError on a broken file
        raise DoigetError(ErrorCode.INVALID_INPUT, f"not a readable RIS file: {exc}") from None
    if not entries:
        raise DoigetError(ErrorCode.INVALID_INPUT, "no RIS records found (expected TY  - ... ER  - blocks)")
    records = [ris_record(entry) for entry in entries]
    for index, problem in repairs:
        records[index].problems.append(problem)
    return records


# One UR line may list several addresses apart by ";" (rispy split at every ";", so a Wiley SICI address
# "...3.0.CO;2-W/abstract" became two); it is cut only where a new address begins.
_URLS_APART = re.compile(r"\s*;\s*(?=[a-z][a-z0-9+.-]*://|www\.|doi:)", re.I)
_TAG_LINE = re.compile(r"^([A-Z][A-Z0-9])  -(?: |$)")


def _framed(text: str) -> tuple[str, list[tuple[int, str]]]:
    """``text`` with every record framed by ``TY`` and ``ER`` lines as rispy needs (it joins a record
    missing its ``ER`` to the next one and drops one cut short or lacking its ``TY``), and the
    (record index, problem) of each repair."""
    lines, repairs, open_record, count = [], [], False, 0
    source = text.splitlines()
    tags = [match.group(1) if (match := _TAG_LINE.match(line)) else None for line in source]
    closed_at = -1  # where the last record's ER line is in ``lines``
    for index, (line, tag) in enumerate(zip(source, tags)):
        if tag == "TY" and open_record:
            lines.insert(_record_end(lines), "ER  - ")
            repairs.append((count - 1, "no ER line: the record ends where the next TY starts"))
        elif tag not in (None, "TY", "ER") and not open_record and closed_at >= 0 and _stray(tags, index):
            lines.insert(closed_at, line)  # Ovid's NL line after ER: the record's own
            closed_at += 1
            repairs.append((count - 1, f"{tag} line after the record's ER read as part of it"))
            continue
        elif tag not in (None, "TY", "ER") and not open_record:
            lines.append("TY  - GEN")
            repairs.append((count, "no TY line: read as a generic (GEN) record"))
            open_record, count = True, count + 1
        if tag == "TY":
            open_record, count = True, count + 1
        elif tag == "ER":
            open_record, closed_at = False, len(lines)
        lines.append(line)
    if open_record:
        lines.append("ER  - ")
        repairs.append((count - 1, "no ER line: the file ends inside the record"))
    return "\n".join(lines) + "\n", repairs


def _stray(tags: list[str | None], index: int) -> bool:
    """Whether the tag line at ``index`` (outside a record) is followed by no ER of its own before the next TY:
    a line a record carries after its ER, not a record missing its TY."""
    for tag in tags[index + 1:]:
        if tag in ("TY", "ER"):
            return tag == "TY"
    return True


def _record_end(lines: list[str]) -> int:
    """Where a record missing its ``ER`` ends: at the first blank line after its last tag line (the
    lines between records, like a ``2.`` numbering them, are not its values), else at the end."""
    last_tag = next((i for i in range(len(lines) - 1, -1, -1) if _TAG_LINE.match(lines[i])), -1)
    return next((i for i in range(last_tag + 1, len(lines)) if not lines[i].strip()), len(lines))


def _list(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [t for t in (clean(v) for v in values) if t]


def read_ris_name(name: str) -> Author:
    """A person written ``Family, Given[, Suffix]`` (``Banksy,`` has a family name only); a name without a
    comma is an organisation's, kept whole (``NASA``, ``Canadian Space Agency``: Zotero reads them so),
    unless it has Embase's shape ``Adler D.G.``."""
    family, comma, rest = name.partition(",")
    given, _, suffix = rest.partition(",")
    if not comma:
        parts = family_and_initials(family)
        return make_author(family=parts[0], given=parts[1]) if parts else make_author(literal=family)
    return make_author(**with_particles(family, given), suffix=suffix)


def _date_parts(value: str | None) -> tuple[list[int], bool]:
    """[year, month, day] as far as a RIS date (``2014/09/09/``, ``2014-09-09``) gives them ([] when it does
    not start with a year), and whether they say all it says but a time of day (not ``2014///Spring``,
    ``2014/13/``). A year of fewer than four digits or before year 1 (``499``, ``-0100/07/13/``: CSL dates
    have them) is read only in RIS's own shape, with a calendar month and day (not ``12/25/1999``)."""
    early = _EARLY_DATE.fullmatch(value or "")
    if early:
        given = [int(part) for part in early.groups()[:3] if part]
        if calendar_parts(given) == given:
            return given, not early.group(4) or bool(_TIME.fullmatch(early.group(4)))
    parts, end = leading_date(value or "", "-/")
    rest = (value or "")[end:].strip("/ ")
    return parts, not rest or bool(_TIME.fullmatch(rest))


_TIME = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?")
# year/month/day/other, every part but the year optional, the year not four digits (leading_date reads those)
_EARLY_DATE = re.compile(r"(-\d{1,4}|\d{1,3})(?:/(\d{1,2})?(?:/(\d{1,2})?(?:/\s*(.*?))?)?)?\s*")


def _date(entry: dict[str, Any]) -> tuple[int | None, str | None, set[str]]:
    """(year, ISO date, the tags they say all of): the year from Y1, PY or DA (the first that has one), the
    date as precise as any of them that has the same year gives it (Zotero and EndNote: ``PY 2008``, ``DA
    2008/03/01/``)."""
    dates = {name: _date_parts(clean(entry.get(name))) for name in ("publication_year", "year", "date")}
    first = next((parts for parts, _ in dates.values() if parts), None)
    if first is None:  # no tag starts with a year: the first year in one, its tag kept as written
        year = next((y for name in dates if (y := YEAR.search(clean(entry.get(name)) or ""))), None)
        return (int(year.group(1)) if year else None), None, set()
    same = {name: parts for name, (parts, _) in dates.items() if parts and parts[0] == first[0]}
    return first[0], iso_date(max(same.values(), key=len)), {name for name in same if dates[name][1]}


def ris_record(entry: dict[str, Any]) -> ImportRecord:
    """One rispy record as an :class:`ImportRecord`."""
    kind = clean(entry.get("type_of_reference")) or "GEN"
    written: dict[str, list[str]] = {}
    for tag, role in _NAME_ROLES.items():
        written.setdefault(role, []).extend(_list(entry.get(tag)))
    people: dict[str, list[Author]] = {}
    others = []  # the roles whose list ends in "et al." (no person)
    for role, names in written.items():
        if names and stands_for_others(names[-1]):
            names = names[:-1]
            others.append(et_al_mark(role))
        people[role] = [read_ris_name(name) for name in names]
    urls = [url for value in _list(entry.get("urls")) for url in _URLS_APART.split(value.strip()) if url]
    notes = _list(entry.get("notes")) + _list(entry.get("note"))
    numbers = _list(entry.get("accession_number"))
    dois = _list(entry.get("doi"))  # Ovid writes its DO line twice
    ids, inferred, problems = find_ids({"doi": dois[0] if dois else None}, [*urls, *notes, *numbers])
    start, end = clean(entry.get("start_page")), clean(entry.get("end_page"))
    year, published, dates = _date(entry)
    extra: dict[str, Any] = {csl: clean(" ".join(_list(entry[tag]))) for tag, csl in _CSL.items() if entry.get(tag)}
    serials = _list(entry.get("issn"))
    issns = [n for n in serials if _ISSN.fullmatch(n)]
    if len(serials) > 1 and issns:  # an ISBN and an ISSN on SN lines of their own, as the export writes them
        extra["ISSN"] = " ".join(issns)
        extra.update({"ISBN": " ".join(n for n in serials if n not in issns)} if len(issns) < len(serials) else {})
    elif "ISSN" in extra and not all(_ISSN.fullmatch(n) for n in extra["ISSN"].replace(",", " ").split()):
        extra["ISBN"] = extra.pop("ISSN")
    if notes:
        extra["note"] = "\n".join(notes)
    if entry.get("access_date"):
        raw = clean(entry["access_date"])  # Y2: kept as CSL date parts, as the other formats' access dates
        parts, whole = _date_parts(raw)
        extra["accessed"] = {"date-parts": [parts]} if parts and whole else {"raw": raw}
    if kind not in RIS_TO_CSL_TYPE:
        extra["ris-type"] = kind
    if others:
        extra[ET_AL] = others
    fields = {
        "title": clean(entry.get("title") or entry.get("primary_title") or entry.get("short_title")),
        "venue": _venue(kind, entry, extra),
        "authors": people.pop("author"), "contributors": {r: p for r, p in people.items() if p},
        "year": year, "published": published, "type": RIS_TO_CSL_TYPE.get(kind, "document"),
        "publisher": clean(entry.get("publisher")), "volume": clean(entry.get("volume")),
        "issue": clean(entry.get("number")), "pages": f"{start}-{end}" if start and end else start or end,
        "url": urls[0] if urls else None, "abstract": clean(entry.get("abstract") or entry.get("notes_abstract")),
        "language": clean(entry.get("language")), "citekey": clean(entry.get("label") or entry.get("id")),
        "extra": extra,
    }
    files = _list(entry.get("file_attachments1"))
    key = fields["citekey"] if fields["citekey"] and " " not in fields["citekey"] else None
    fields["citekey"] = key
    declared = None if "doi" in inferred else ids.get("doi")  # a DO line that gave no DOI, or another one: kept
    kept_dois = [d for d in dois if declared is None or find_ids({"doi": d}, [])[0].get("doi") != declared]
    unread = _unread(entry, fields, dates, urls, numbers) | ({"doi": kept_dois} if kept_dois else {})
    if unread:
        extra["ris"] = unread
    return make_record(key, fields, ids, keywords(_list(entry.get("keywords"))), problems, inferred, files)


# The types whose C3 holds the title of the work containing them: a CONF's proceedings (the RIS spec, as
# Zotero reads it; its T2 is then the conference's name); where no other tag names one, Scopus's source title
# of an article or a book series' volume. (Other types give C3 other meanings: a book's title prefix, a patent's
# designated states, ...)
_C3_CONTAINER = {"CONF": True, "JOUR": False, "SER": False}  # type -> whether C3 comes before T2


def _venue(kind: str, entry: dict[str, Any], extra: dict[str, Any]) -> str | None:
    """The title of what ``entry`` was published in; a conference's name its C3 puts aside goes to
    ``extra["event-title"]``."""
    named = clean(entry.get("secondary_title") or entry.get("journal_name") or entry.get("alternate_title3"))
    container = clean(entry.get("custom3")) if kind in _C3_CONTAINER else None
    if not container or (named and not _C3_CONTAINER[kind]):
        return named
    if named and named != container:
        extra["event-title"] = named
    return container


def read_kept_ris(lines: str) -> dict[str, Any]:
    """``extra["ris-type"]`` and ``extra["ris"]`` from the RIS lines :func:`~doiget.formats.ris.kept_ris_lines`
    wrote (``TY  - ABST``, ``C7  - 093903``, ...); empty when they do not read as RIS."""
    typed = lines.lstrip().startswith("TY  - ")
    try:
        (entry,) = rispy.loads(("" if typed else "TY  - GEN\n") + lines.strip() + "\nER  - \n",
                               skip_unknown_tags=False, enforce_list_tags=False, delimiter_tags_mapping={})
    except Exception:  # noqa: BLE001 - rispy raises IOError/ValueError on broken text
        return {}
    kind = entry.pop("type_of_reference", None)
    entry.pop("end_of_reference", None)
    kept = {name: value[0] if isinstance(value, list) and len(value) == 1 and name != "urls" else value
            for name, value in entry.items() if value}
    return ({"ris-type": kind} if typed and kind else {}) | ({"ris": kept} if kept else {})


def _unread(entry: dict[str, Any], fields: dict[str, Any], dates: set[str], urls: list[str],
            numbers: list[str]) -> dict[str, Any]:
    """The values of ``entry`` the work does not hold, by rispy key, as rispy read them."""
    held = {fields[name] for name in ("title", "venue", "abstract", "citekey") if fields[name]}
    held.add(fields["extra"].get("event-title"))
    unread: dict[str, Any] = {}
    for name, value in entry.items():
        if not value or name in _READ or name in dates:
            continue
        if name == "urls":
            value = urls[1:]
        elif name == "accession_number":
            value = [n for n in numbers if try_parse(n) is None]
        elif isinstance(value, str) and clean(value) in held:
            continue
        if value:
            unread[name] = value[0] if isinstance(value, list) and len(value) == 1 and name != "urls" else value
    return unread
