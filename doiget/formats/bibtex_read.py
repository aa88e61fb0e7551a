"""BibTeX / biblatex files as :class:`ImportRecord` s, nothing dropped.

Field names are case-insensitive (``Author``, ``AUTHOR``); a repeated field keeps its first non-empty
value and the record says so; ``crossref`` parents lend their fields (biblatex's rules: a parent's
``title`` becomes the child's ``booktitle``); ``subtitle`` joins the title. Fields with a store
column or a CSL variable are read into them (see :mod:`doiget.formats.fields`); every other field
is kept as written under ``extra["bibtex"]`` and exported back.
"""
from __future__ import annotations

import calendar
import re
from typing import Any

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.bibtex_split import BibBlock, split_bibtex
from doiget.formats.fields import (BIB_DATE_FIELDS, BIB_NAME_FIELDS, BIB_TO_CSL, BIB_TO_CSL_TYPE, BOOKTITLE_TYPES,
                                   CSL_TO_BIB, ISSUE_TYPES, MONTHS, PROSE_FIELDS, bib_type, container_field)
from doiget.formats.latex import RICH_TAG, rich_text, unescape_verbatim, untex, untex_lines
from doiget.formats.names import bibtex_author, split_names, split_top_level
from doiget.formats.ris_read import read_kept_ris
from doiget.formats.record import (YEAR, ImportRecord, calendar_parts, clean, find_ids, iso_date, keywords,
                                   leading_date, make_record, pages)
from doiget.models import ET_AL, Author, Work
from doiget.refs import try_parse

_EPRINT_IDS = {"pubmed": "pmid", "pmid": "pmid", "pmcid": "pmcid", "pmc": "pmcid", "doi": "doi"}  # eprinttype -> id
_VERBATIM = frozenset({"doi", "url", "eprint", "pmid", "pmcid", "archiveprefix", "eprinttype", "file"})
_NUMBER_IS_SERIES = frozenset({"book", "mvbook", "inbook", "bookinbook", "incollection", "collection",
                               "proceedings", "inproceedings", "conference"})
_PUBLISHER_LIKE = ("publisher", "institution", "school", "organization")
_CONSUMED = frozenset({
    "title", "subtitle", "journal", "journaltitle", "booktitle", "year", "date", "month", "volume", "number",
    "issue", "pages", "doi", "url", "pmid", "pmcid", "abstract", "language", "langid", "keywords",
    "eprint", "archiveprefix", "eprinttype", "crossref", "day", *BIB_NAME_FIELDS, *BIB_TO_CSL, *BIB_DATE_FIELDS,
})
_BRACE = re.compile(r"[{}]")
_URL_ONLY = re.compile(r"\\url\s*\{\s*([^{}\s]+)\s*\}|(https?://[^{}\s]+)")
_DECODED = ("title", "subtitle", "journal", "journaltitle", "booktitle", "volume", "number", "issue", "pages",
            "abstract", "language", "langid", "keywords", "howpublished", *_PUBLISHER_LIKE, *_VERBATIM)


def parse_bibtex(text: str) -> list[ImportRecord]:
    """Every entry of a .bib file as a record, in file order; unreadable blocks become empty records
    that say why."""
    records = []
    for key, kind, fields, problems in _entries(text):
        records.append(ImportRecord(work=Work(), problems=problems) if fields is None
                       else bib_record(key, kind, fields, problems))
    return records


def _entries(text: str) -> list[tuple[str, str, dict[str, str] | None, list[str]]]:
    """(key, type, fields, problems) of every block in file order, ``crossref`` parents' fields
    inherited; fields is None for a block that could not be read."""
    split = split_bibtex(text)
    strings: dict[str, str] = {}  # @string macros (lower-cased names) with their values resolved, in file order
    for name, value in split.strings.items():
        strings[name.lower()] = _value(value, strings)
    blocks = sorted(split.entries + split.failed, key=lambda b: b.line)
    if not split.entries and split.failed and all(block.aborted for block in split.failed):
        first = split.failed[0]
        raise DoigetError(ErrorCode.INVALID_INPUT, f"no readable BibTeX entry; first error at line "
                          f"{first.line + 1}: {first.error}", line=first.line + 1)
    if not blocks and not split.comments:
        raise DoigetError(ErrorCode.INVALID_INPUT, "no BibTeX entries found")
    entries: list[tuple[str, str, dict[str, str] | None, list[str]]] = []
    for block in blocks:
        problems: list[str] = []
        entry = block
        if not isinstance(block, BibBlock):
            entry = block.entry
            if block.duplicate_key is not None:
                problems.append(f"duplicate key {block.duplicate_key!r} at line {block.line + 1}")
        if entry is None:
            entries.append(("", "", None, [f"unreadable entry at line {block.line + 1}: {block.error}"]))
        else:
            entries.append((entry.key, entry.type, _fields(entry, strings, problems), problems))
    by_key = {key.lower(): fields for key, _, fields, _ in entries if fields is not None}
    for _, kind, fields, problems in entries:  # in file order: a parent read earlier lends what it inherited
        if fields is not None and "crossref" in fields:
            _inherit(fields, kind, by_key, problems)
        if fields is not None and "xdata" in fields:
            _inherit_xdata(fields, by_key, problems, set())
    return entries


def _value(raw: str, strings: dict[str, str]) -> str:
    """A field's value as written between its delimiters: ``{...}`` and ``"..."`` stripped, ``@string``
    macros replaced, ``#`` concatenations joined (what bibtexparser's middlewares do)."""
    raw = raw.strip()
    if raw[:1] == "{" and raw[-1:] == "}" and _one_group(raw):
        return raw[1:-1]
    if "#" not in raw:
        return _piece(raw, strings)
    return "".join(_piece(part.strip(), strings) for part in split_top_level(raw, "#"))


def _piece(raw: str, strings: dict[str, str]) -> str:
    if len(raw) >= 2 and ((raw[0] == "{" and raw[-1] == "}") or (raw[0] == '"' and raw[-1] == '"')):
        return raw[1:-1]
    return strings.get(raw.lower(), raw)


def _one_group(raw: str) -> bool:
    """Whether the braces opening and closing ``raw`` enclose all of it (``{a}{b}`` is two groups)."""
    if "{" not in raw[1:-1] and "}" not in raw[1:-1]:
        return True
    depth = 0
    for brace in _BRACE.findall(raw, 1, len(raw) - 1):
        depth += 1 if brace == "{" else -1
        if depth < 0:
            return False
    return depth == 0


def _fields(entry: BibBlock, strings: dict[str, str], problems: list[str]) -> dict[str, str]:
    """Field name (lower case) -> value; a repeated name keeps its first non-empty value."""
    fields: dict[str, str] = {}
    for name, value in entry.fields:
        if "%" in name and "\n" in name:
            name = _uncommented(name, problems)
        if "%" in value:
            value = _without_trailing_comment(value, name, problems)
        name, value = name.lower(), _value(value, strings)
        held = fields.get(name)
        if held is None or (not held.strip() and value.strip()):
            fields[name] = value
        elif value.strip() and value != held:
            problems.append(f"field {name!r} given twice; kept {held[:60]!r}, ignored {value[:60]!r}")
    return fields


def _uncommented(name: str, problems: list[str]) -> str:
    """A field name after ``%`` comment lines (biber's and biblatex's comments; bibtexparser reads them into the
    name: "% a comment\\n  url"); the comments are reported, not kept."""
    lines = [line.strip() for line in name.splitlines() if line.strip()]
    comments = [line for line in lines if line.startswith("%")]
    if not comments or lines[-1].startswith("%"):
        return name  # a field commented out whole ("% doi = {...}") is kept as written
    problems.append(f"comment {' '.join(comments)[:80]!r} before field {lines[-1]!r} not kept")
    return lines[-1]


_TRAILING_COMMENT = re.compile(r'(\{.*\}|".*"|\w+)[ \t]*(%[^\n]*)', re.S)


def _without_trailing_comment(value: str, name: str, problems: list[str]) -> str:
    """A last field's value without the ``%`` comment after it (``publisher={X}  % a comment``), reported."""
    match = _TRAILING_COMMENT.fullmatch(value.strip())
    if match is None or (match.group(1)[0] == "{" and not _one_group(match.group(1))):
        return value
    problems.append(f"comment {match.group(2)[:80]!r} after field {name.strip()!r} not kept")
    return match.group(1)


def _inherit(fields: dict[str, str], kind: str, by_key: dict[str, dict[str, str]], problems: list[str]) -> None:
    """Fill ``fields`` from its ``crossref`` parent (and the parent's parent), biblatex style."""
    seen = set()
    parent_key = fields["crossref"].strip().lower()
    while parent_key and parent_key not in seen:
        seen.add(parent_key)
        parent = by_key.get(parent_key)
        if parent is None:
            problems.append(f"crossref {parent_key!r} is not in the file")
            return
        for name, value in parent.items():
            if name in ("crossref", "ids", "keywords", "file"):
                continue
            target = name
            if kind in BOOKTITLE_TYPES and name in ("title", "subtitle", "shorttitle"):
                target = {"title": "booktitle", "subtitle": "booksubtitle", "shorttitle": "_"}[name]
            if target != "_" and target not in fields:
                fields[target] = value
        parent_key = parent.get("crossref", "").strip().lower()


def _inherit_xdata(fields: dict[str, str], by_key: dict[str, dict[str, str]], problems: list[str],
                   seen: set[str]) -> None:
    """Fill ``fields`` from the biblatex ``@xdata`` entries its ``xdata`` field names (and theirs): every
    field it lacks, under the same name."""
    for key in (k.strip().lower() for k in fields["xdata"].split(",") if k.strip()):
        if key in seen:
            continue
        seen.add(key)
        source = by_key.get(key)
        if source is None:
            problems.append(f"xdata {key!r} is not in the file")
            continue
        if "xdata" in source:
            _inherit_xdata(source, by_key, problems, seen)
        for name, value in source.items():
            if name not in ("ids", "xdata") and name not in fields:
                fields[name] = value


_MONTH_NAMES = frozenset([*MONTHS, *(name.lower() for name in calendar.month_name if name)])
# LaTeX a decoded title no longer shows: case protection, commands, math, ties, dash and quote ligatures.
_MARKUP = re.compile(r"[{\\$~]|--|``|''")


def _text(value: str | None, problems: list[str], name: str) -> str | None:
    if not value:
        return None
    try:
        return (untex_lines(value) if name in PROSE_FIELDS else untex(value)) or None
    except Exception as exc:  # noqa: BLE001 - pylatexenc raises many types on odd input
        problems.append(f"field {name}: cannot decode LaTeX ({exc.__class__.__name__}); kept as written")
        return clean(value)


def _names(value: str, problems: list[str]) -> tuple[list[Author], bool]:
    """The persons of a name list, and whether it ends in ``and others`` (BibTeX's "et al.": no person)."""
    authors = []
    names = split_names(value)
    more = bool(names) and names[-1] == "others"
    for name in names[:-1] if more else names:
        author, warning = bibtex_author(name, untex)
        authors.append(author)
        if warning:
            problems.append(warning)
    return authors, more


_EARLY_YEAR = re.compile(r"(\d{1,3})")  # year = {499} (YEAR finds a year in other text only from 1500 on)
# biblatex's (EDTF's) year before 1: astronomical, 0000 is 1 BC and -0099 is 100 BC; CSL counts BC years without a 0
_BEFORE_YEAR_1 = re.compile(r"(-\d{4}|0000)(?:-(\d{2})(?:-(\d{2}))?)?")


def _era_date(date: str) -> tuple[list[int], int] | None:
    """[year, month, day] in CSL's count of a biblatex ``date`` before year 1 (``-0099-07-13``: [-100, 7, 13]), and
    how much of ``date`` they take; None for a later one."""
    match = _BEFORE_YEAR_1.match(date)
    if not match:
        return None
    parts = calendar_parts([int(part) for part in match.groups() if part])
    return [parts[0] - 1, *parts[1:]], match.end(len(parts))


def _date(fields: dict[str, str]) -> tuple[int | None, str | None, dict[str, str]]:
    """(year, ISO date when finer than a year, the ``date``/``year`` fields as written that these two do not
    say all of: kept, not lost)."""
    written = (fields.get("date") or "").strip()
    year_text = (fields.get("year") or "").strip()
    date = (_text(written, [], "date") or "") if "{" in written or "\\" in written else written  # {1975\_2013}
    parts, end = _era_date(date) or leading_date(date)
    if parts:
        return parts[0], iso_date(parts), {} if end == len(date) else {"date": written}  # biblatex: date over year
    kept = {"date": written} if written else {}
    year = YEAR.search(year_text) or _EARLY_YEAR.fullmatch(year_text)
    if not year:
        return None, None, {**kept, "year": year_text} if year_text else kept
    parts = [int(year.group(1))]
    written_month = (fields.get("month") or "").strip().lower()
    month = written_month[:3]
    number = MONTHS.get(month) or (int(month) if month.isdigit() and 1 <= int(month) <= 12 else None)
    if number:
        parts.append(number)
        if written_month not in _MONTH_NAMES and not written_month.isdigit():  # "July 30th", dec # "~12": kept
            kept = {**kept, "month": fields["month"]}
        day = (fields.get("day") or "").strip()
        if day.isdigit() and 1 <= int(day) <= 31:
            parts.append(int(day))
    return parts[0], iso_date(parts), kept if year.group(0) == year_text else {**kept, "year": year_text}


def _rich_title(fields: dict[str, str], text: dict[str, str], title: str | None) -> str | None:
    """The title (and subtitle) as CSL rich text when the .bib styles some of it (``\\emph{De Medicina}``, Zotero's
    ``<i>``) or protects its case (``{DNA}``: CSL's ``<span class="nocase">``), else None."""
    styled = [rich_text(fields[name]) if name in fields and "{" in fields[name] else None
              for name in ("title", "subtitle")]
    if not any(styled):
        return None
    rich = ": ".join(style or text[name] for style, name in zip(styled, ("title", "subtitle")) if text.get(name))
    return rich if RICH_TAG.sub("", rich) == title else None


_RANGE = re.compile(r"(\d{4}(?:-\d{1,2}){0,2})\s*(?:/|--?-?|\u2013|\u2014)\s*(\d{4}(?:-\d{1,2}){0,2})")


def _date_range(fields: dict[str, str]) -> dict[str, Any] | None:
    """A ``date`` (biblatex: ``1998-04/1999-06``) or ``year`` (``1999--2000``) that is a range of two calendar
    dates, as CSL date parts; else None."""
    for name in ("date", "year"):
        match = _RANGE.fullmatch((fields.get(name) or "").strip())
        if match:
            ends = [leading_date(end) for end in match.groups()]
            if all(end == len(text) for (_, end), text in zip(ends, match.groups())):
                return {"date-parts": [parts for parts, _ in ends]}
    return None


def _csl_date(value: str) -> dict[str, Any]:
    value = value.strip()
    parts, end = leading_date(value)
    return {"date-parts": [parts]} if parts and end == len(value) else {"raw": value}


def bib_record(key: str | None, kind: str, fields: dict[str, str], problems: list[str]) -> ImportRecord:
    """One entry's lower-cased fields as an :class:`ImportRecord`."""
    text = {name: clean(unescape_verbatim(fields[name])) if name in _VERBATIM else _text(fields[name], problems, name)
            for name in _DECODED if name in fields}
    prefix = (text.get("archiveprefix") or text.get("eprinttype") or "arxiv").lower()
    eprint = text.get("eprint") if prefix == "arxiv" else None
    declared = {"doi": text.get("doi"), "pmid": text.get("pmid"), "pmcid": text.get("pmcid")}
    if _EPRINT_IDS.get(prefix) and not declared[_EPRINT_IDS[prefix]]:  # biblatex's eprinttype = {pubmed}
        declared[_EPRINT_IDS[prefix]] = text.get("eprint")
    ids, inferred, id_problems = find_ids(
        declared,
        (text.get("url", ""), _text(fields.get("note"), [], "note") or "", text.get("howpublished", "")))
    arxiv = try_parse("arxiv:" + eprint) if eprint else None
    if arxiv and "arxiv" not in ids:
        ids["arxiv"] = arxiv.id
    elif eprint and not arxiv:
        id_problems.append(f"unreadable arXiv eprint {eprint!r}; kept as written")
    inferred = [k for k in inferred if not (k == "arxiv" and arxiv)]
    extra: dict[str, Any] = {}
    # An identifier field that gave no identifier (a mistyped DOI, another database's number under pmid, a JSTOR
    # or Handle eprint) is kept as written, and exported again.
    bibtex: dict[str, str] = {name: fields[name] for name in ("doi", "pmid", "pmcid")
                              if name in fields and declared[name] and (name not in ids or name in inferred)}
    if text.get("eprint") and not arxiv:
        bibtex.update((name, fields[name]) for name in ("eprint", "eprinttype", "archiveprefix") if name in fields)
    aliases: dict[str, str] = {}  # column or CSL variable -> the BibTeX field the file used for it
    authors: list[Author] = []
    contributors: dict[str, list[Author]] = {}
    others = []  # the name fields that end in "and others"
    for name, role in BIB_NAME_FIELDS.items():
        if fields.get(name, "").strip():
            people, more = _names(fields[name], problems)
            if more:
                others.append(name)
            if role == "author":
                authors = people
            else:
                contributors[role] = people
    title = text.get("title")
    if title and _MARKUP.search(fields["title"]):
        bibtex["title"] = fields["title"]  # the export writes it again while the title reads the same
    if text.get("subtitle"):
        title = f"{title}: {text['subtitle']}" if title else text["subtitle"]
        bibtex["subtitle"] = fields["subtitle"]
    rich = _rich_title(fields, text, title)
    if rich:
        extra["title-rich"] = rich
    year, published, kept_dates = _date(fields)
    span = _date_range(fields)
    if span:  # the range says all the field says
        extra["issued"] = span
        kept_dates = {name: value for name, value in kept_dates.items() if name not in ("date", "year")}
    bibtex.update(kept_dates)
    for name in ("month", "day"):
        if name in fields and not published:
            bibtex[name] = fields[name]
    csl_type = BIB_TO_CSL_TYPE.get(kind, "document")
    if kind == "misc" and "arxiv" in ids:
        csl_type = "preprint"
    venue_field = "journal" if text.get("journal") else "journaltitle" if text.get("journaltitle") else None
    venue = text.get(venue_field) if venue_field else None
    for name in ("journal", "journaltitle"):
        if text.get(name) and text[name] != venue:
            bibtex[name] = fields[name]
    booktitle = text.get("booktitle")
    if booktitle and (kind in BOOKTITLE_TYPES or not venue):
        if venue:  # a paper in proceedings that also names a journal or a series (IEEE Xplore): kept
            bibtex[venue_field] = fields[venue_field]
        venue, venue_field = booktitle, "booktitle"
    elif booktitle:
        bibtex["booktitle"] = fields["booktitle"]
    url = text.get("url")
    linked = _URL_ONLY.fullmatch(fields.get("howpublished", "").strip())
    if linked:  # howpublished = {\url{...}}: the web resource's address, not a venue; kept as written too
        url = url or unescape_verbatim(linked.group(1) or linked.group(2))
        bibtex["howpublished"] = fields["howpublished"]
    elif not venue and text.get("howpublished"):
        venue, venue_field = text["howpublished"], "howpublished"
    elif text.get("howpublished"):
        bibtex["howpublished"] = fields["howpublished"]
    expected = container_field(kind)  # what the export would write the venue in
    if venue_field not in (None, expected) and (venue_field, expected) != ("journaltitle", "journal"):
        aliases["container-title"] = venue_field  # a @misc's booktitle: written back in its own field
    language = text.get("langid") or text.get("language")
    if text.get("language") and text["language"] != language:  # biblatex: langid hyphenates, language is printed
        bibtex["language"] = fields["language"]
    elif text.get("language"):
        aliases["language"] = "language"
    publisher = text.get("publisher")
    for name in _PUBLISHER_LIKE[1:]:
        if not text.get(name):
            continue
        if publisher is None and (name != "organization" or kind in ("manual", "inproceedings", "proceedings")):
            publisher = text[name]
            aliases["publisher"] = name
        else:
            bibtex[name] = fields[name]
    issue = None
    number = text.get("number")
    if number and kind in ISSUE_TYPES:
        issue = number
    elif number and kind in _NUMBER_IS_SERIES and (fields.get("series") or "").strip():
        extra["collection-number"] = number
    elif number:
        extra["number"] = number
    if text.get("issue"):
        if issue is None:
            issue = text["issue"]
            if kind in ISSUE_TYPES and number is None:
                aliases["issue"] = "issue"
        else:
            bibtex["issue"] = fields["issue"]
    for name, csl in BIB_TO_CSL.items():
        if name in fields and fields[name].strip():
            value = _text(fields[name], problems, name)
            if csl in extra:
                bibtex[name] = fields[name]
            else:
                extra[csl] = value
                if CSL_TO_BIB.get(csl) != name:
                    aliases[csl] = name
    for name, csl in BIB_DATE_FIELDS.items():
        if fields.get(name, "").strip():
            extra[csl] = _csl_date(fields[name])
    kept_ris = read_kept_ris(fields["ris"]) if "ris" in fields else {}  # what a RIS import kept (see the export)
    extra.update(kept_ris)
    for name, value in fields.items():
        if name not in _CONSUMED and name not in _PUBLISHER_LIKE and name != "howpublished" and name not in bibtex \
                and not (name == "ris" and kept_ris):
            bibtex[name] = value
    if fields.get("crossref", "").strip():
        bibtex["crossref"] = fields["crossref"]
    if "primaryclass" in fields:
        bibtex["primaryclass"] = fields["primaryclass"]
    if bib_type(csl_type, genre=str(extra.get("genre", "")), preprint="arxiv" in ids and not venue) != kind:
        extra["bibtex-type"] = kind  # (Mendeley's @article of an arXiv preprint stays an @article)
    if bibtex:
        extra["bibtex"] = bibtex
    if aliases:
        extra["bibtex-fields"] = aliases
    if others:
        extra[ET_AL] = others
    files = [f for f in (fields.get("file") or "").split(";") if f.strip()]
    work_fields = {
        "title": title, "authors": authors, "contributors": contributors, "venue": venue, "year": year,
        "published": published, "type": csl_type, "publisher": publisher, "volume": text.get("volume"),
        "issue": issue, "pages": pages(text.get("pages")), "url": url, "abstract": text.get("abstract"),
        "language": language, "citekey": key or None, "extra": extra,
    }
    return make_record(key or None, work_fields, ids, keywords(text.get("keywords")), problems + id_problems,
                       inferred, files)
