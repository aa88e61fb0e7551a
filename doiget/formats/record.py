"""What every bibliography reader produces: :class:`ImportRecord`, and the helpers they share
(identifiers in every written form, dates, pages, keywords)."""
from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from unicodedata import is_normalized, normalize
from urllib.parse import unquote

from pydantic import ValidationError

from doiget.errors import DoigetError
from doiget.models import COLUMNS, Author, Work, unvalidated
from doiget.refs import Ref, canonical_doi, dois_in, try_parse


@dataclass(slots=True)
class ImportRecord:
    """One imported entry: its metadata, the key it had in the file, its tags, what went wrong, and
    which identifiers were only found in free text (URL, note) rather than in their own field. The
    readers fill it with values of these types (it is not validated: its ``work`` is)."""

    work: Work
    key: str | None = None
    tags: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    inferred: list[str] = field(default_factory=list)  # id kinds found only in url/note text
    files: list[str] = field(default_factory=list)  # attachment paths the record names


# ---- identifiers -------------------------------------------------------------------------------

_DOI_PREFIX = re.compile(r"^(?:info:doi/|doi\s*:\s*|(?:https?://)?(?:dx\.)?doi\.org/)", re.I)
_ARXIV_IN_TEXT = re.compile(r"arxiv(?:\.org/(?:abs|pdf)/|:\s*)([a-z\-]+(?:\.[a-z]{2})?/\d{7}|\d{4}\.\d{4,5})", re.I)
_LABELLED_ID = re.compile(r"\b(PMID|PMCID)\s*:\s*(PMC\d+|\d+)", re.I)


def bare_doi(value: str) -> str:
    """A DOI as written in a record (``doi:``, ``https://dx.doi.org/``, ``info:doi/``, braces,
    percent-escapes) reduced to the bare ``10.x/y`` form; unchanged when it is none of these."""
    text = value.strip().strip("{}").strip()
    if not text.startswith("10."):  # no prefix to take off a bare DOI
        text = _DOI_PREFIX.sub("", text).strip()
    if "%" in text:
        text = unquote(text)
    return text


def find_ids(declared: dict[str, Any], free_text: Iterable[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """Canonical ids from declared fields, then from URLs and notes; returns (ids, the kinds found
    only in free text, problems with declared values)."""
    ids: dict[str, str] = {}
    problems: list[str] = []
    for kind, value in declared.items():
        if value in (None, ""):
            continue
        if kind == "doi":  # the usual one, without making a Ref
            if doi := canonical_doi(bare_doi(str(value))):
                ids[kind] = doi
            else:
                problems.append(f"unreadable {kind} {value!r}")
            continue
        try:
            ids[kind] = Ref.of(kind, str(value).strip()).id
        except DoigetError:
            problems.append(f"unreadable {kind} {value!r}")
    if not free_text and not ids.get("doi", "").startswith("10.48550/arxiv."):
        return ids, [], problems  # no free text, and no arXiv id in the DOI: the declared ids are all
    found: list[Ref | None] = []
    for text in filter(None, free_text):
        kind = None
        if text.startswith(("http://", "https://")):
            if "%" in text:  # a DOI's "/" as %2F in a Springer address
                text = unquote(text)
            found.append(address := try_parse(text.strip()))
            kind = address.kind if address else None
        # an identifier of the kind the address itself gives would come after it: never taken
        if kind != "doi":
            found += [Ref("doi", doi) for doi in dois_in(text)[:1]]
        if kind != "arxiv":
            found += [try_parse(f"arxiv:{m}") for m in _ARXIV_IN_TEXT.findall(text)]
        found += [try_parse(f"{label.lower()}:{value}") for label, value in _LABELLED_ID.findall(text)]
    doi = ids.get("doi") or next((r.id for r in found if r and r.kind == "doi"), "")
    if doi.startswith("10.48550/arxiv."):
        found.append(try_parse("arxiv:" + doi.removeprefix("10.48550/arxiv.")))
    inferred: list[str] = []
    if not found:  # nothing in free text: the declared ids are all
        return ids, inferred, problems
    for ref in filter(None, found):
        if ref.kind not in ids:
            ids[ref.kind] = ref.id
            inferred.append(ref.kind)
    if problems and "doi" in ids:
        problems = [p for p in problems if not p.startswith("unreadable doi")]
    return ids, inferred, problems


# ---- shared field clean-up ---------------------------------------------------------------------

YEAR = re.compile(r"\b(1[5-9]\d\d|2[01]\d\d)\b")
PAGE_DASH = re.compile(r"\s*(?:-+|[\u2010-\u2015])\s*")  # between the pages of a range, spaces around it included


def clean(value: Any) -> str | None:
    """``value`` as one line of text, None when empty."""
    if value is None:
        return None
    text = str(value)
    if len(text) < _LONG or not one_line(text):
        text = " ".join(text.split())
    return text or None


def clean_lines(value: Any) -> str | None:
    """``value`` with the white space of each line collapsed and its line breaks kept (a structured
    abstract's "PURPOSE\nWe ...", paragraphs apart by one blank line), None when empty."""
    if value is None:
        return None
    text = str(value)
    if "\n" not in text and "\r" not in text:
        return clean(text)
    lines = "\n".join(" ".join(line.split()) for line in text.splitlines())
    return _BLANK_LINES.sub("\n\n", lines).strip("\n") or None


_BLANK_LINES = re.compile(r"\n{3,}")


_LONG = 100  # below this, splitting costs less than looking
_NOT_ONE_LINE = ("  ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")  # ASCII's white space but " "


def one_line(text: str) -> bool:
    """Whether ``text`` is ASCII that :func:`clean` leaves as it is (white space only single inner spaces): a
    long abstract then skips a split into a string per word. Other text is not looked at (False)."""
    return text.isascii() and not any(map(text.__contains__, _NOT_ONE_LINE)) and text[:1] != " " and text[-1:] != " "


def pages(value: Any) -> str | None:
    text = clean(value)
    return PAGE_DASH.sub("-", text) if text else None


_BARE_COMMA = re.compile(r",\S")


def keywords(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, list):
        parts = value
    else:
        text = str(value or "")
        # Scopus and Web of Science join keywords with '; ' (one may hold ', ': "Diabetes Mellitus, Type 2");
        # Better BibTeX with a bare ',' (a Zotero tag may hold '; ': "Handbooks; manuals; etc").
        parts = text.split(";") if ";" in text and not _BARE_COMMA.search(text) else text.split(",")
        return list(dict.fromkeys(filter(None, [" ".join(part.split()) for part in parts])))  # clean() of text
    return list(dict.fromkeys(t for t in map(clean, parts) if t))


def joined_keywords(tags: list[str]) -> str:
    """``tags`` as one keyword list that :func:`keywords` reads back into the same tags: apart by ", "; by a
    bare "," when a tag holds a ";" (read as Better BibTeX's, not as a '; '-separated list); by "; " when a tag
    holds a "," (as Scopus writes "Gmr multilayers, magnetic recording heads")."""
    if any(";" in tag for tag in tags):
        return ",".join(tags)
    return ("; " if any("," in tag for tag in tags) else ", ").join(tags)


_DATE_START = {"-": re.compile(r"(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?"),
               "-/": re.compile(r"(\d{4})(?:([-/])(\d{1,2}))?(?:\2(\d{1,2}))?")}


def leading_date(text: str, separators: str = "-") -> tuple[list[int], int]:
    """The [year, month, day] ``text`` starts with (``2020-05-01``; with ``separators="-/"`` also RIS's
    ``2020/05/01/``), as far as they make a calendar date: a biblatex season (``2020-21``) or a day the
    month lacks (``2020-02-30``) ends it before that part. Also how much of ``text`` they take."""
    match = _DATE_START[separators].match(text)
    if not match:
        return [], 0
    spans = [(int(value), match.end(group)) for group, value in enumerate(match.groups(), 1)
             if value and value not in "-/"]
    parts = calendar_parts([value for value, _ in spans])
    return parts, spans[len(parts) - 1][1]


def calendar_parts(parts: list[int]) -> list[int]:
    """[year, month, day] cut before the first part that is no calendar month or day of its month (a
    season: CSL's and biblatex's month 13-16 or 21-24; 2019-02-29)."""
    keep = 1
    if len(parts) > 1 and 1 <= parts[1] <= 12:
        keep = 2
        if len(parts) > 2 and 1 <= parts[2] <= calendar.monthrange(max(parts[0], 1), parts[1])[1]:
            keep = 3
    return parts[:keep]


def iso_date(parts: list[int]) -> str | None:
    """``[2020, 5, 1]`` as ``2020-05-01`` (year alone gives None: the year column holds it)."""
    if len(parts) < 2:
        return None
    date = f"{parts[0]}-{parts[1]:02d}"
    return f"{date}-{parts[2]:02d}" if len(parts) > 2 else date


def four_digit_year(year: int) -> str:
    """A year in four digits as RIS (Zotero's ``0499``) and biblatex's EDTF dates write it, a negative one with its
    minus (``-0100``)."""
    return f"{'-' * (year < 0)}{abs(year):04d}"


_STORED_DATE = re.compile(r"(-?\d+)-(\d{1,2})(?:-(\d{1,2}))?")


def published_parts(published: str | None) -> list[int]:
    """A stored ``published`` date as [year, month(, day)], the inverse of :func:`iso_date` (also for a
    year before 1000 or before year 1: ``54-10-13``, ``-100-07-13``); [] when it gives no month (a year alone is
    the year column's)."""
    match = _STORED_DATE.match(published or "")
    return [int(part) for part in match.groups() if part] if match else []


#: A value that says nothing: a record leaves it out, a merge fills it and never reports it as a conflict
#: (a true value is none of them).
EMPTY = (None, "", [], {})


def nfc(value: Any) -> Any:
    """``value`` with every string in Unicode NFC: Zotero may give "u" + U+0308 for "ü", and exports,
    search, merging and citekeys must see one spelling of a text."""
    kind = type(value)
    if kind is str:
        return value if value.isascii() or is_normalized("NFC", value) else normalize("NFC", value)
    if kind is list:
        return [item if type(item) is str and item.isascii() else nfc(item) for item in value]
    if kind is dict:
        return {name: item if type(item) is str and item.isascii() else nfc(item) for name, item in value.items()}
    return value


_DEFAULTS = {name: f.default for name, f in Work.model_fields.items()}  # in field order, as validation fills them
_FACTORIES = tuple((name, f.default_factory) for name, f in Work.model_fields.items() if f.default_factory)


def typed_work(values: dict[str, Any]) -> Work:
    """The :class:`Work` ``Work(**values)`` validates, built without validating: for values already of the
    model's types (the CSL reader's: text from :func:`clean`, int years, Authors), where validation checks
    nothing and costs a third of making a record. tests/test_import_fastpaths.py checks both give equal
    Works on every CSL fixture and on generated items."""
    filled = dict(_DEFAULTS)
    filled.update(values)
    for name, factory in _FACTORIES:
        if name not in values:
            filled[name] = factory()
    return unvalidated(Work, filled, set(values))


_NAMES = ("authors", "contributors")  # Authors are made in NFC (formats.names.make_author)
# The fields of a .bib or RIS record that doiget does not read, kept as written and exported back (a `file`
# or `L1` path names a file on disk, whose name may be decomposed).
_VERBATIM = ("bibtex", "ris")


def _nfc_extra(extra: dict[str, Any]) -> dict[str, Any]:
    return {name: value if name in _VERBATIM else nfc(value) for name, value in extra.items()}


def _nfc_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields that say something (not :data:`EMPTY`), their text in NFC."""
    return {name: value if (type(value) is str and value.isascii()) or name in _NAMES
            else _nfc_extra(value) if name == "extra" else nfc(value)
            for name, value in fields.items() if value or value not in EMPTY}


def make_record(key: str | None, fields: dict[str, Any], ids: dict[str, str], tags: list[str],
                problems: list[str], inferred: list[str] = (), files: list[str] = (), *,
                typed: bool = False) -> ImportRecord:
    """An :class:`ImportRecord` with its text in NFC; a field the model rejects is reported and dropped,
    not the record. The attachment paths (``files``) and the unread .bib and RIS fields are kept
    byte for byte. ``typed``: the reader makes every value of the model's type (see :func:`typed_work`)."""
    data = _nfc_fields(fields)
    key, tags = nfc(key), nfc(tags)
    if typed:
        data.update(ids)
        return ImportRecord(work=typed_work(data), key=key, tags=tags, problems=problems, inferred=list(inferred),
                            files=list(files))
    try:
        work = Work(**data, **ids)
    except ValidationError as exc:
        bad = {str(e["loc"][0]) for e in exc.errors() if e["loc"]}
        problems.append(f"dropped invalid fields {sorted(bad)}: {exc.errors()[0]['msg']}")
        work = Work(**{k: v for k, v in data.items() if k not in bad}, **ids)
    return ImportRecord(work=work, key=key, tags=tags, problems=problems, inferred=list(inferred),
                        files=list(files))


@dataclass(slots=True)
class PlainRecord:
    """A record whose every value has a store column (no ``extra``, names in the author role only, no
    attachment), kept as its :class:`Work`'s column values rather than as one: the import's common path writes
    them as they are (:mod:`doiget.services.bibliography`); :meth:`record` is the :class:`ImportRecord`
    :func:`make_record` makes of the same fields (the CSL reader makes both: ``csl_read._plain``)."""

    columns: tuple  # the Work's values of models.COLUMNS, in that order, in NFC; None where it has none
    authors: list[Author]
    ids: dict[str, str]  # its identifiers (also in ``columns``), in the order of ``Work.ids()``
    key: str | None  # the file's key, also its citekey
    tags: list[str]
    problems: list[str]
    inferred: list[str]

    def work(self, **more: Any) -> Work:
        """The :class:`Work` ``make_record`` makes of these values (and ``more``)."""
        values = {name: value for name, value in zip(COLUMNS, self.columns) if value is not None}
        if self.authors:
            values["authors"] = self.authors
        if self.key:
            values["citekey"] = self.key
        return typed_work({**values, **more})

    def record(self) -> ImportRecord:
        return ImportRecord(work=self.work(), key=self.key, tags=self.tags, problems=self.problems,
                            inferred=self.inferred)
