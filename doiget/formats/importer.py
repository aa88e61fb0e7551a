"""Bibliography import: Zotero/Mendeley CSL-JSON and BibTeX/BibLaTeX files become :class:`ImportRecord` s.

Identifiers (DOI, arXiv, PMID, PMCID) are looked for in their own fields and, failing that, in
``url``/``note``/``eprint`` fields, and always normalised through :class:`doiget.refs.Ref`. An entry
that cannot be read fully keeps what could be read and says why in ``problems``; only input that is
not a bibliography at all raises ``DoigetError(INVALID_INPUT)``.
"""
from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Literal

import bibtexparser
from bibtexparser import middlewares
from bibtexparser.model import DuplicateBlockKeyBlock, Entry as BibEntry
from pydantic import BaseModel, Field, ValidationError
from pylatexenc.latex2text import LatexNodes2Text, get_default_latex_context_db

from doiget import safejson
from doiget.errors import DoigetError, ErrorCode
from doiget.models import Author, Work
from doiget.refs import Ref, try_parse

Format = Literal["auto", "csl-json", "bibtex"]


class ImportRecord(BaseModel):
    """One imported entry: its metadata, the key it had in the file, its tags, and what went wrong."""

    work: Work
    key: str | None = None
    tags: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


def parse_bibliography(text: str, format: Format = "auto") -> list[ImportRecord]:
    """Parse a CSL-JSON or BibTeX document; ``auto`` decides by the first non-blank character."""
    if format == "auto":
        format = _detect(text)
    if format == "csl-json":
        return _parse_csl(text)
    if format == "bibtex":
        return _parse_bibtex(text)
    raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown bibliography format {format!r}; use auto, csl-json or bibtex")


def _detect(text: str) -> Format:
    head = text.lstrip("\ufeff \t\r\n")[:1]
    if head in ("[", "{"):
        return "csl-json"
    if "@" in text:
        return "bibtex"
    raise DoigetError(ErrorCode.INVALID_INPUT, "not a bibliography: expected CSL-JSON (starting with '[') "
                      "or BibTeX (with @type{key, ...} entries)")


# ---- identifiers -------------------------------------------------------------------------------

_DOI_IN_TEXT = re.compile(r"10\.\d{4,9}/[^\s\"<>{}]+")
_ARXIV_IN_TEXT = re.compile(r"arxiv(?:\.org/(?:abs|pdf)/|:\s*)([a-z\-]+(?:\.[a-z]{2})?/\d{7}|\d{4}\.\d{4,5})", re.I)
_LABELLED_ID = re.compile(r"\b(PMID|PMCID)\s*:\s*(PMC\d+|\d+)", re.I)
_TRAILING_PUNCT = ".,;:)]"


def _doi_in(text: str) -> str | None:
    match = _DOI_IN_TEXT.search(text)
    return match.group(0).rstrip(_TRAILING_PUNCT) if match else None


def _ids(declared: dict[str, str | None], free_text: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """Canonical ids from declared fields, then from URLs and notes; plus problems with declared values."""
    ids: dict[str, str] = {}
    problems: list[str] = []
    for kind, value in declared.items():
        if value:
            try:
                ids[kind] = Ref.of(kind, str(value)).id
            except DoigetError:
                problems.append(f"unreadable {kind} {value!r}")
    found: list[Ref | None] = []
    for text in filter(None, free_text):
        if text.startswith(("http://", "https://")):
            found.append(try_parse(text.strip()))
        found.append(try_parse("doi:" + _doi_in(text)) if _doi_in(text) else None)
        found += [try_parse(f"arxiv:{m}") for m in _ARXIV_IN_TEXT.findall(text)]
        found += [try_parse(f"{label.lower()}:{value}") for label, value in _LABELLED_ID.findall(text)]
    doi = next((r.id for r in found if r and r.kind == "doi"), ids.get("doi", ""))
    if doi.startswith("10.48550/arxiv."):
        found.append(try_parse("arxiv:" + doi.removeprefix("10.48550/arxiv.")))
    for ref in filter(None, found):
        ids.setdefault(ref.kind, ref.id)
    if "doi" in ids:
        problems = [p for p in problems if not p.startswith("unreadable doi")]
    return ids, problems


# ---- shared field clean-up -------------------------------------------------------------------

_YEAR = re.compile(r"\b(1[5-9]\d\d|2[01]\d\d)\b")
_PAGE_DASH = re.compile(r"\s*(?:-+|[\u2010-\u2015])\s*")
_HTML_TAG = re.compile(r"</?(?:i|b|em|strong|sup|sub|sc|span)(?:\s[^>]*)?>", re.I)


def _clean(value: Any) -> str | None:
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def _pages(value: Any) -> str | None:
    text = _clean(value)
    return _PAGE_DASH.sub("-", text) if text else None


def _tags(value: Any) -> list[str]:
    if isinstance(value, list):
        parts = value
    else:
        parts = re.split(r"[,;]", str(value or ""))
    return list(dict.fromkeys(t for t in (_clean(p) for p in parts) if t))


def _record(key: str | None, fields: dict[str, Any], ids: dict[str, str], tags: list[str],
            problems: list[str]) -> ImportRecord:
    data = {name: value for name, value in fields.items() if value not in (None, "", [])}
    try:
        work = Work(**data, **ids)
    except ValidationError as exc:
        problems.append(f"dropped invalid fields: {exc.errors()[0]['msg']}")
        work = Work(**ids)
    return ImportRecord(work=work, key=key, tags=tags, problems=problems)


# ---- CSL-JSON ----------------------------------------------------------------------------------

def _parse_csl(text: str) -> list[ImportRecord]:
    data = safejson.loads(text.lstrip("\ufeff"), "CSL-JSON")
    if isinstance(data, dict):
        data = data.get("items", [data])
    if not isinstance(data, list):
        raise DoigetError(ErrorCode.INVALID_INPUT, "CSL-JSON must be an array of items")
    return [_csl_record(index, item) for index, item in enumerate(data)]


def _csl_name(name: Any) -> Author | None:
    if not isinstance(name, dict):
        return None
    if name.get("literal"):
        return Author(name=_clean(name["literal"]) or "Anonymous", family=_clean(name["literal"]))
    family = " ".join(p for p in (name.get("non-dropping-particle"), name.get("family")) if p)
    return Author.from_parts(family=family, given=name.get("given"))


def _csl_year(issued: Any) -> tuple[int | None, str | None]:
    if not isinstance(issued, dict):
        return None, None
    parts = (issued.get("date-parts") or [[]])[0]
    numbers = [int(p) for p in parts if str(p).strip().lstrip("-").isdigit()][:3]
    if numbers:
        return numbers[0], "-".join(f"{n:02d}" if i else str(n) for i, n in enumerate(numbers))
    match = _YEAR.search(str(issued.get("raw") or issued.get("literal") or ""))
    return (int(match.group(1)), None) if match else (None, None)


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _csl_text(value: Any) -> str | None:
    """Titles from Zotero and Crossref carry rich-text markup (<i>, <span class="nocase">) and entities."""
    text = _clean(_first(value))
    return html.unescape(_HTML_TAG.sub("", text)) if text else None


def _csl_record(index: int, item: Any) -> ImportRecord:
    if not isinstance(item, dict):
        return ImportRecord(work=Work(), problems=[f"item {index} is not a JSON object"])
    key = item.get("citation-key") or item.get("id")
    key = str(key) if key not in (None, "") else None
    problems: list[str] = []
    try:
        year, published = _csl_year(item.get("issued"))
    except (TypeError, ValueError):
        year, published = None, None
        problems.append(f"unreadable issued date {item.get('issued')!r}")
    custom = item.get("custom") if isinstance(item.get("custom"), dict) else {}
    ids, id_problems = _ids(
        {"doi": item.get("DOI"), "pmid": item.get("PMID"), "pmcid": item.get("PMCID"),
         "arxiv": custom.get("arxiv"), "openalex": custom.get("openalex")},
        (str(item.get(name) or "") for name in ("URL", "number", "note", "archive_location")),
    )
    authors = [a for a in (_csl_name(n) for n in item.get("author") or []) if a]
    fields = {
        "title": _csl_text(item.get("title")), "authors": authors, "venue": _csl_text(item.get("container-title")),
        "year": year, "published": published, "type": _clean(item.get("type")),
        "publisher": _clean(item.get("publisher")), "volume": _clean(item.get("volume")),
        "issue": _clean(item.get("issue")), "pages": _pages(item.get("page")), "url": _clean(item.get("URL")),
        "abstract": _clean(item.get("abstract")), "language": _clean(item.get("language")),
    }
    return _record(key, fields, ids, _tags(item.get("keyword")), problems + id_problems)


# ---- BibTeX ------------------------------------------------------------------------------------

_LATEX = LatexNodes2Text(math_mode="text", strict_latex_spaces=True)
_ACCENT_MARKS = {
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "r": "\u030a", "k": "\u0328",
}
_ACCENT = re.compile(r"""\\(?:(['"`^~=.])\s*|([uvHcrk])(?:\s+|(?=\{)))(?:\{\s*(\\[ij]|[A-Za-z])\s*\}|(\\[ij]|[A-Za-z]))""")
_MACRO = re.compile(r"\\([A-Za-z]+)(?:\{\}|\s*)")


def _macro_tables() -> tuple[dict[str, str], frozenset[str]]:
    """pylatexenc's own table: macros that stand for a text (\\ss, \\textquoteright, \\alpha) and
    macros that just output their argument (\\ensuremath)."""
    text, wrappers = {}, set()
    for spec in get_default_latex_context_db().iter_macro_specs():
        if isinstance(spec.simplify_repl, str):
            if "%" not in spec.simplify_repl:
                text[spec.macroname] = spec.simplify_repl
            elif spec.simplify_repl == "%s":
                wrappers.add(spec.macroname)
    return text, frozenset(wrappers)


_MACRO_TEXT, _MACRO_WRAPPERS = _macro_tables()
_ESCAPED = re.compile(r"\\([&%$#_])")
_OTHER_LATEX = re.compile(r"\\(?![&%$#_])|(?<!\\)\$")
_OPEN, _CLOSE = "\ue000", "\ue001"  # stand-ins for \{ and \} while grouping braces are dropped


def _accent(match: re.Match[str]) -> str:
    base = (match.group(3) or match.group(4)).lstrip("\\")
    return unicodedata.normalize("NFC", base + _ACCENT_MARKS[match.group(1) or match.group(2)])


def _macro(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _MACRO_WRAPPERS:
        return ""
    return _MACRO_TEXT.get(name, match.group(0))


def _untex_common(value: str) -> str | None:
    """Decode accents, text macros and escapes by table; None when other LaTeX remains (math, unknown macros)."""
    text = value.replace(r"\{", _OPEN).replace(r"\}", _CLOSE)
    text = _MACRO.sub(_macro, _ACCENT.sub(_accent, text))
    if _OTHER_LATEX.search(text):
        return None
    text = _ESCAPED.sub(r"\1", text)
    text = text.replace("{", "").replace("}", "").replace("~", "\u00a0")
    text = text.replace("---", "\u2014").replace("--", "\u2013")
    return text.replace(_OPEN, "{").replace(_CLOSE, "}")


@lru_cache(maxsize=4096)
def _untex(value: str) -> str:
    """LaTeX field text as Unicode: common accents by table, anything else through pylatexenc."""
    text = _untex_common(value)
    if text is None:
        text = _LATEX.latex_to_text(value)
    return " ".join(text.split())


_BIB_TYPES = {
    "article": "article-journal", "inproceedings": "paper-conference", "conference": "paper-conference",
    "incollection": "chapter", "inbook": "chapter", "book": "book", "phdthesis": "thesis",
    "mastersthesis": "thesis", "thesis": "thesis", "techreport": "report", "report": "report",
    "unpublished": "manuscript", "online": "webpage", "dataset": "dataset", "software": "software",
}
_VERBATIM = frozenset({"doi", "url", "eprint", "pmid", "pmcid", "archiveprefix", "eprinttype"})


def _bib_name(parts: Any) -> Author:
    if isinstance(parts, str):
        return Author.from_parts(name=_untex(parts))
    family = _untex(" ".join(parts.von + parts.last))
    given = _untex(" ".join(parts.first + parts.jr))
    return Author.from_parts(family=family, given=given)


def _parse_bibtex(text: str) -> list[ImportRecord]:
    library = bibtexparser.parse_string(
        text, append_middleware=[middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()])
    blocks = sorted(library.entries + library.failed_blocks, key=lambda b: b.start_line or 0)
    if not library.entries and library.failed_blocks:
        first = library.failed_blocks[0]
        raise DoigetError(ErrorCode.INVALID_INPUT, f"no readable BibTeX entry; first error at line "
                          f"{first.start_line + 1}: {_block_error(first)}", line=first.start_line + 1)
    if not library.entries and not library.comments:
        raise DoigetError(ErrorCode.INVALID_INPUT, "no BibTeX entries found")
    return [_bib_record(block) for block in blocks]


def _block_error(block: Any) -> str:
    return str(block.error) or "syntax error"


def _bib_record(block: Any) -> ImportRecord:
    if isinstance(block, DuplicateBlockKeyBlock):
        record = _bib_record(block.ignore_error_block)
        record.problems.append(f"duplicate key {block.key!r} at line {block.start_line + 1}")
        return record
    if not isinstance(block, BibEntry):
        return ImportRecord(work=Work(), problems=[f"unreadable entry at line {block.start_line + 1}: "
                                                   f"{_block_error(block)}"])
    raw = {name.lower(): field.value for name, field in block.fields_dict.items()}
    problems: list[str] = []
    text: dict[str, str] = {}
    for name, value in raw.items():
        if isinstance(value, str):
            try:
                text[name] = _clean(value if name in _VERBATIM else _untex(value)) or ""
            except Exception as exc:  # noqa: BLE001 - pylatexenc raises many types on odd input
                problems.append(f"field {name}: cannot decode LaTeX ({exc.__class__.__name__})")
    kind = block.entry_type.lower()
    prefix = (text.get("archiveprefix") or text.get("eprinttype") or "arxiv").lower()
    eprint = text.get("eprint") if prefix == "arxiv" else None
    ids, id_problems = _ids(
        {"doi": text.get("doi"), "pmid": text.get("pmid"), "pmcid": text.get("pmcid")},
        (text.get("url", ""), text.get("note", ""), text.get("howpublished", "")),
    )
    if eprint:
        arxiv = try_parse("arxiv:" + eprint)
        if arxiv:
            ids.setdefault("arxiv", arxiv.id)
        else:
            id_problems.append(f"unreadable arXiv eprint {eprint!r}")
    year, published = _bib_date(text)
    venue_field = "booktitle" if kind in ("inproceedings", "incollection", "inbook", "conference") else "journal"
    fields = {
        "title": text.get("title"),
        "authors": [_bib_name(name) for name in raw.get("author", [])],
        "venue": text.get(venue_field) or text.get("journaltitle") or text.get("booktitle") or text.get("howpublished"),
        "year": year, "published": published, "type": _bib_type(kind, ids),
        "publisher": text.get("publisher") or text.get("institution") or text.get("school"),
        "volume": text.get("volume"),
        "issue": text.get("number") if kind in ("article", "inproceedings", "conference") else text.get("issue"),
        "pages": _pages(text.get("pages")), "url": text.get("url"), "abstract": text.get("abstract"),
        "language": text.get("langid") or text.get("language"),
    }
    return _record(block.key, fields, ids, _tags(text.get("keywords")), problems + id_problems)


def _bib_type(kind: str, ids: dict[str, str]) -> str:
    if kind == "misc" and "arxiv" in ids:
        return "preprint"
    return _BIB_TYPES.get(kind, "document")


def _bib_date(text: dict[str, str]) -> tuple[int | None, str | None]:
    date = text.get("date", "")
    match = re.match(r"^(\d{4})(-\d{2}){0,2}", date)
    if match:
        return int(match.group(1)), match.group(0)
    year = _YEAR.search(text.get("year", ""))
    return (int(year.group(1)), None) if year else (None, None)
