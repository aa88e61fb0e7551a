"""BibTeX export: one entry per work, LaTeX-escaped, with citation keys from :mod:`doiget.formats.keys`.

Non-ASCII characters are encoded with pylatexenc's table (it covers every accented Latin letter,
ß, ø, ł, Greek and the typographic symbols), so the output works with classic 8-bit BibTeX as well
as with biber; ASCII specials are escaped by the small table below first. Every character is written
as LaTeX that reads back as that character: where pylatexenc's macro reads as another one (its Latin
O for Greek Ο, ú for ű, a hyphen for U+2212) a closer text macro is written, else the character itself.
What BibTeX and biblatex have no field for (a date's season, a CSL-JSON item's ``key``) is named by
:func:`not_carried`, and the library's export warns of it.
"""
from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pylatexenc.latexencode import UnicodeToLatexEncoder

from doiget.formats.keys import citation_keys
from doiget.formats.fields import (BIB_NAME_OF_ROLE, BIB_TO_CSL_TYPE, CSL_ALSO_SPELT, CSL_DATE_TO_BIB,
                                   CSL_DATE_VARIABLES, CSL_TO_BIB, ISSUE_TYPES, MONTH_MACROS, MONTHS, PROSE_FIELDS,
                                   bib_type, container_field, csl_variable, plain_date)
from doiget.formats.latex import PROTECTED_WORD, RICH_TAGS, untex
from doiget.formats.record import PAGE_DASH, calendar_parts, four_digit_year, joined_keywords, nfc, published_parts
from doiget.formats.ris import kept_ris_lines
from doiget.formats.names import bibtex_author, name_details, same_parts, split_names, to_bibtex_name
from doiget.notices import citation_note
from doiget.models import ET_AL, Author, Work

_ASCII_SPECIALS = str.maketrans({
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$",
    "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
})
_NON_ASCII = UnicodeToLatexEncoder(
    non_ascii_only=True, replacement_latex_protection="braces-all",
    unknown_char_policy="keep", unknown_char_warning=False,
)

_TITLE_FIELDS = ("title", "subtitle")  # kept as written, and written by _title_fields
_PUBLISHER_FIELD = {"phdthesis": "school", "mastersthesis": "school", "thesis": "institution",
                    "techreport": "institution", "report": "institution"}


def latex_escape(text: str) -> str:
    """``text`` as LaTeX: ASCII specials escaped, non-ASCII letters as accent macros (ü -> {\\"u})."""
    return ascii_latex(_DOUBLE_HYPHEN.sub("-{}", text.translate(_ASCII_SPECIALS)))


_DOUBLE_HYPHEN = re.compile(r"-(?=-)")  # a hyphen before another, written -{} so that TeX makes no dash of the pair


def _latex_lines(text: str) -> str:
    """Prose (a note, an abstract) as LaTeX, its line breaks as ``\\newline`` (BibTeX reads a bare one as a space)."""
    return "\\newline\n".join(latex_escape(line) for line in text.splitlines())


def ascii_latex(latex: str) -> str:
    """LaTeX with its non-ASCII letters as accent macros (BibTeX and pdflatex read ASCII)."""
    return latex if latex.isascii() else _NON_ASCII_CHAR.sub(lambda m: _char_latex(m.group()), nfc(latex))


_NON_ASCII_CHAR = re.compile(r".[\u0300-\u036f]+|[^\x00-\x7f]", re.S)  # with the combining marks that follow it
# Text macros that read back as the character where pylatexenc's do not (\ensuremath{-} for U+2212 reads as "-").
_EXACT = {"\u0171": r"{\H{u}}", "\u0170": r"{\H{U}}", "\u2212": r"{\textminus}", "\u2217": r"{\textasteriskcentered}",
          "\u00b7": r"{\textperiodcentered}"}


@lru_cache(maxsize=4096)
def _char_latex(char: str) -> str:
    """One non-ASCII character (or a letter and its combining marks) as LaTeX that
    :func:`~doiget.formats.latex.untex` reads back as it, else as itself."""
    latex = _EXACT.get(char) or _NON_ASCII.unicode_to_latex(char)
    return latex if nfc(untex(latex)) == nfc(char) else char


def _title(text: str) -> str:
    words = []
    for word in text.split():
        match = PROTECTED_WORD.match(word)
        if match:
            lead, core, trail = (latex_escape(part) for part in match.groups())
            words.append(f"{lead}{{{core}}}{trail}")
        else:
            words.append(latex_escape(word))
    return " ".join(words)


def _name(author: Author) -> str:
    return to_bibtex_name(author, latex_escape)


def _verbatim(text: str) -> str:
    """URLs and DOIs go in unescaped (biber and \\url read them verbatim); braces that would not balance
    go in percent-encoded (the same address; balanced ones are kept, so the value reads back as it was)."""
    depth = 0
    for char in text:
        depth += (char == "{") - (char == "}")
        if depth < 0:
            break
    if depth == 0:
        return text
    return text.replace("{", "%7B").replace("}", "%7D")


def entry_type(work: Work) -> str:
    """The BibTeX entry type for ``work``: the one its record had, else by its CSL type (a thesis whose
    genre says master's is ``mastersthesis``); arXiv preprints without a venue become ``misc``."""
    original = work.extra.get("bibtex-type")
    if isinstance(original, str) and original:
        return original
    return bib_type(work.type, genre=str(work.extra.get("genre", "")), preprint=bool(work.arxiv and not work.venue))


def _title_fields(work: Work) -> list[tuple[str, str]]:
    """``title`` (and ``subtitle``), as the .bib file wrote them while they still read as the stored
    title: its braces keep words in the case the user protected ({P}arkinson, {DNA}) from a style's
    sentence or title casing, and its math stays math."""
    raw = work.extra.get("bibtex", {})
    title = work.title or ""
    subtitle = raw.get("subtitle")
    if subtitle:
        decoded = untex(subtitle)
        if title.endswith(": " + decoded):
            main = title[: -len(decoded) - 2]
            return [("title", _as_written(raw.get("title"), main) or _title(main)), ("subtitle", subtitle)]
        if title == decoded:
            return [("subtitle", subtitle)]
    return [("title", _as_written(raw.get("title"), title) or _rich_title(work) or _title(title))] if title else []


# Each tag's macro (the first latex.RICH_TAGS names for it), and HTML's <em> and <strong> as <i> and <b>; CSL's
# <span class="nocase"> (a part a style must not recase) is a brace group, BibTeX's case protection.
_RICH_MACRO = {tag: macro for macro, tag in reversed(RICH_TAGS.items())}
_RICH_MACRO |= {"em": _RICH_MACRO["i"], "strong": _RICH_MACRO["b"]}
_NOCASE = '<span class="nocase">'
_RICH_TAG = re.compile(r"<(/?)(" + "|".join(_RICH_MACRO) + ")>|" + _NOCASE + "|</span>")


def _spaced(rich_text: str) -> str:
    """A piece of rich text between tags as LaTeX, with the spaces it starts or ends with."""
    text = html.unescape(rich_text)
    if not text.strip():
        return " " if text else ""
    return " " * text[0].isspace() + latex_escape(text.strip()) + " " * text[-1].isspace()


def _rich_title(work: Work) -> str | None:
    """The work's CSL rich-text title (Zotero's ``<i>De Medicina</i>``) with LaTeX text styles
    (``\\textit{De Medicina}``) and its ``nocase`` spans as braces, when it has one that reads as the title. Its
    markup says which words keep their case: no other word gets braces (as :func:`_title` gives DNA or iPhone)."""
    rich = work.extra.get("title-rich")
    if not isinstance(rich, str) or "<" not in rich or html.unescape(_RICH_TAG.sub("", rich)) != work.title:
        return None
    out, pos = [], 0
    for match in _RICH_TAG.finditer(rich):
        tag = match.group(0)
        out += [_spaced(rich[pos:match.start()]),
                "{" if tag == _NOCASE else "}" if match.group(1) or tag == "</span>"
                else f"\\{_RICH_MACRO[match.group(2)]}{{"]
        pos = match.end()
    out.append(_spaced(rich[pos:]))
    latex = "".join(out)
    return latex if _balanced(latex) else None


def _as_written(written: str | None, text: str) -> str | None:
    """``written`` (a field as a .bib file wrote it) if it still reads as ``text``, the stored value, in
    :func:`ascii_latex`."""
    if not written or not _balanced(written):
        return None
    try:
        return ascii_latex(written) if nfc(untex(written)) == text else None
    except Exception:  # noqa: BLE001 - pylatexenc raises many types on odd input
        return None


def _date_fields(work: Work) -> list[tuple[str, str]]:
    """``year``, ``month`` as its macro (``mar``: BibTeX styles print it as the month's name, biber reads
    it as 3) and ``day`` as a number."""
    issued = work.extra.get("issued")
    span = issued.get("date-parts") if isinstance(issued, dict) else None
    if isinstance(span, list) and len(span) == 2 and all(  # (no season, no open end: BibTeX has no form for them)
            isinstance(p, list) and p and all(type(x) is int for x in p) and p[0] > 0 and calendar_parts(p) == p
            for p in span):
        return [("date", "/".join(_iso(parts) for parts in span))]  # biblatex's range: 1998-04/1999-06
    if work.year is not None and work.year < 0:  # biblatex's date before year 1 (BibTeX's year has none)
        return [("date", _era_date([work.year, *published_parts(work.published)[1:]]))]
    if work.year is None:
        return []
    year, published = str(work.year), work.published or ""
    month, day = (published[len(year):].split("-")[1:3] + ["", ""])[:2] if published.startswith(year) else ("", "")
    month = MONTH_MACROS[int(month) - 1] if month.isdigit() and 1 <= int(month) <= 12 else None
    return [("year", year)] + ([("month", month)] if month else []) + ([("day", str(int(day)))] if day.isdigit() else [])


def _issue_field(work: Work, kind: str) -> str:
    """The field of the issue: the one its record had, else BibTeX's ``number`` of a journal, biblatex's ``issue``."""
    return work.extra.get("bibtex-fields", {}).get("issue") or ("number" if kind in ISSUE_TYPES else "issue")


def _fields(work: Work, kind: str) -> list[tuple[str, str]]:
    aliases = work.extra.get("bibtex-fields", {})
    raw: dict[str, str] = dict(work.extra.get("bibtex", {}))
    fields: list[tuple[str, str]] = []
    others = work.extra.get(ET_AL) or ()
    named = [("author", work.authors)] + [(BIB_NAME_OF_ROLE[role], people) for role, people
                                          in work.contributors.items() if role in BIB_NAME_OF_ROLE]
    for name, people in named:
        listed = [_name(a) for a in people] + (["others"] if name in others else [])
        if listed:
            fields.append((name, " and ".join(listed)))
    fields += _title_fields(work)
    if work.venue:
        fields.append((aliases.get("container-title") or container_field(kind), latex_escape(work.venue)))
    fields += [f for f in _date_fields(work) if f[0] not in raw]
    if work.volume:
        fields.append(("volume", latex_escape(work.volume)))
    if work.issue:
        fields.append((_issue_field(work, kind), latex_escape(work.issue)))
    for csl in ("number", "collection-number"):
        if work.extra.get(csl):
            fields.append(("number", latex_escape(str(work.extra[csl]))))
    if work.pages:
        fields.append(("pages", "--".join(latex_escape(page) for page in PAGE_DASH.split(work.pages.strip()))))
    if work.publisher:
        fields.append((aliases.get("publisher") or _PUBLISHER_FIELD.get(kind, "publisher"),
                       latex_escape(work.publisher)))
    for csl, name in CSL_TO_BIB.items():
        value = csl_variable(work.extra, csl)
        if isinstance(value, (str, int, float)) and str(value).strip():
            field = aliases.get(csl, name)
            fields.append((field, _latex_lines(str(value)) if field in PROSE_FIELDS else latex_escape(str(value))))
    for csl, name in CSL_DATE_TO_BIB.items():
        value = _csl_date_text(work.extra.get(csl))
        if value:
            fields.append((name, value))
    if work.doi:
        fields.append(("doi", _verbatim(work.doi)))
    if work.url:
        fields.append(("url", _verbatim(work.url)))
    if work.arxiv:
        fields += [("eprint", work.arxiv), ("archiveprefix", "arXiv")]
    fields += [(name, value) for name, value in (("pmid", work.pmid), ("pmcid", work.pmcid)) if value]
    if work.language:
        fields.append((aliases.get("language", "langid"), latex_escape(work.language)))
    if getattr(work, "tags", None):
        fields.append(("keywords", latex_escape(joined_keywords(work.tags))))
    if work.abstract:
        fields.append(("abstract", _latex_lines(work.abstract)))
    ris = kept_ris_lines(work.extra)  # a RIS import's tags with no BibTeX field, as RIS lines
    if ris and _balanced(ris):
        fields.append(("ris", ris))
    fields += [(name, value) for name, value in raw.items() if name not in _TITLE_FIELDS and _balanced(value)]
    fields = _with_update_note(work, fields)
    return list({name: (name, value) for name, value in reversed(fields)}.values())[::-1]


# What the export writes (under a field of its own, or as the entry type, the title's braces, the names' "others")
# or needs not write (the field or type a record had in another format).
_WRITTEN = frozenset({"bibtex", "bibtex-fields", "bibtex-type", ET_AL, "ris", "ris-type", "title-rich",
                      "container-title-rich", "number", "collection-number", *CSL_TO_BIB, *CSL_ALSO_SPELT.values()})


def not_carried(work: Work) -> list[str]:
    """What of ``work`` its BibTeX entry leaves out, BibTeX and biblatex having no field for it: the keys of a
    CSL-JSON item with no field by name (Zotero's ``key``, citeproc-js's ``system_id``; a field of that name would
    sort or label the entry), a role's names as ``ROLE name parts`` when BibTeX reads some back split otherwise
    (``ROLE ORCIDs``, ``ROLE affiliations``: no name field has a place for them), a date by its CSL name when its
    field cannot say all of it (a season, an open range, a date in words beside the year), a CSL type no entry
    type reads back as (a speech, a newspaper article) as ``type``."""
    lost = [name for name in work.extra if name not in _WRITTEN and name not in CSL_DATE_VARIABLES]
    lost += [name for name in sorted(CSL_DATE_VARIABLES & work.extra.keys()) if not _date_said(work, name)]
    named = {role: people for role, people in work.names_by_role()
             if role in BIB_NAME_OF_ROLE}
    lost += [f"{role} name parts" for role, people in named.items() if not all(map(_kept_whole, people))]
    lost += name_details(named)
    kind = entry_type(work)
    taken = bool(work.issue) and _issue_field(work, kind) == "number"
    for name in ("number", "collection-number"):  # one number field: the issue's, else the first of these
        if work.extra.get(name):
            lost += [name] if taken else []
            taken = True
    read_as = "preprint" if kind == "misc" and work.arxiv else BIB_TO_CSL_TYPE.get(kind, "document")
    if work.type and read_as != work.type and not work.extra.get("bibtex-type"):
        lost.append("type")
    return lost


def _kept_whole(author: Author) -> bool:
    """Whether a BibTeX reader reads ``author`` back as its parts: not a dropping particle (BibTeX has one "von"
    part), a given name alone (``{Banksy}``: an organisation's form)."""
    written = split_names(_name(author))
    return len(written) == 1 and same_parts(bibtex_author(written[0], untex)[0], author)


def _date_said(work: Work, name: str) -> bool:
    """Whether the export's fields say all of date variable ``name``: a :func:`plain_date` (the issued date: one of
    parts, the work's year and published date, or a range ``_date_fields`` writes)."""
    value = work.extra[name]
    if name != "issued":
        return plain_date(value)
    parts = value.get("date-parts") if isinstance(value, dict) else None
    if parts and value.keys() == {"date-parts"} and len(parts) == 2:
        return dict(_date_fields(work)).get("date", "").count("/") == 1
    return bool(parts) and plain_date(value) or value == {"date-parts": []}


def _with_update_note(work: Work, fields: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A retracted (withdrawn, ...) work says so in ``note``, after the note it already has: every
    BibTeX and biblatex style prints ``note``."""
    said = citation_note(work.updates or [])
    if said is None:
        return fields
    current = next((value for name, value in fields if name == "note"), None)  # the one the dedupe keeps
    note = f"{current}. {latex_escape(said)}" if current else latex_escape(said)
    return [(name, value) for name, value in fields if name != "note"] + [("note", note)]


def _era_date(parts: list[int]) -> str:
    """A date before year 1 in CSL's count (no year 0: -100 is 100 BC) as biblatex writes it (EDTF's astronomical
    year: ``-0099-07-13``)."""
    return four_digit_year(parts[0] + 1) + "".join(f"-{part:02d}" for part in parts[1:3])


def _iso(parts: list[int]) -> str:
    return "-".join(f"{int(p):02d}" if i else str(p) for i, p in enumerate(parts[:3]))


def _csl_date_text(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    parts = (value.get("date-parts") or [[]])[0]
    if parts and all(str(p).isdigit() for p in parts):
        return _iso(parts)
    return value.get("raw") or value.get("literal")


def _balanced(value: str) -> bool:
    depth = 0
    for char in value:
        depth += (char == "{") - (char == "}")
        if depth < 0:
            return False
    return depth == 0


def entry_keys(works: Sequence[Work]) -> list[str]:
    """Each work's stored citation key; works without one (not from the library) get generated keys
    that do not collide with the stored ones."""
    generated = iter(citation_keys([w for w in works if not w.citekey],
                                   taken={w.citekey for w in works if w.citekey}))
    return [work.citekey or next(generated) for work in works]


def to_bibtex(works: Sequence[Work], keys: Sequence[str] | None = None) -> str:
    """A .bib document with one entry per work; ``keys`` defaults to :func:`entry_keys`."""
    keys = list(keys) if keys is not None else entry_keys(works)
    entries = []
    for work, key in zip(works, keys, strict=True):
        kind = entry_type(work)
        body = ",\n".join(f"  {name} = {value}" if name == "month" and value in MONTHS else f"  {name} = {{{value}}}"
                           for name, value in _fields(work, kind))
        entries.append(f"@{kind}{{{key},\n{body}\n}}\n")
    return "\n".join(entries)
