"""BibTeX export: one entry per work, LaTeX-escaped, with citation keys from :mod:`doiget.formats.keys`.

Non-ASCII characters are encoded with pylatexenc's table (it covers every accented Latin letter,
ß, ø, ł, Greek and the typographic symbols), so the output works with classic 8-bit BibTeX as well
as with biber; ASCII specials are escaped by the small table below first.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from pylatexenc.latexencode import UnicodeToLatexEncoder

from doiget.formats.keys import citation_keys
from doiget.models import Author, Work

_ASCII_SPECIALS = str.maketrans({
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$",
    "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
})
_NON_ASCII = UnicodeToLatexEncoder(
    non_ascii_only=True, replacement_latex_protection="braces-all",
    unknown_char_policy="keep", unknown_char_warning=False,
)

ENTRY_TYPES = {
    "article-journal": "article", "article-magazine": "article", "article-newspaper": "article",
    "review": "article", "paper-conference": "inproceedings", "chapter": "incollection",
    "entry-encyclopedia": "incollection", "entry-dictionary": "incollection", "book": "book",
    "thesis": "phdthesis", "report": "techreport",
}
_CONTAINER_FIELD = {"article": "journal", "inproceedings": "booktitle", "incollection": "booktitle"}
_PUBLISHER_FIELD = {"phdthesis": "school", "techreport": "institution"}
# A capital after the first character marks an acronym or a brand name (DNA, PaperQA, iPhone, CO2);
# surrounding punctuation stays outside the braces.
_PROTECTED_WORD = re.compile(r"^(\W*)(\w\S*?[A-Z]\S*?)(\W*)$")
_PAGE_DASH = re.compile(r"\s*(?:-+|[\u2010-\u2015])\s*")


def latex_escape(text: str) -> str:
    """``text`` as LaTeX: ASCII specials escaped, non-ASCII letters as accent macros (ü -> {\\"u})."""
    return _NON_ASCII.unicode_to_latex(text.translate(_ASCII_SPECIALS))


def _title(text: str) -> str:
    words = []
    for word in text.split():
        match = _PROTECTED_WORD.match(word)
        if match:
            lead, core, trail = (latex_escape(part) for part in match.groups())
            words.append(f"{lead}{{{core}}}{trail}")
        else:
            words.append(latex_escape(word))
    return " ".join(words)


def _name(author: Author) -> str:
    family = author.family or author.name
    if not author.given:
        # Braces keep an organisation ("Court of Arbitration for Sport") from being split into names.
        return f"{{{latex_escape(family)}}}" if " " in family else latex_escape(family)
    if " and " in family or "," in family:
        family = f"{{{family}}}"
    return f"{latex_escape(family)}, {latex_escape(author.given)}"


def _verbatim(text: str) -> str:
    """URLs and DOIs go in unescaped (biber and \\url read them verbatim); braces must still balance."""
    return text.replace("{", "%7B").replace("}", "%7D")


def entry_type(work: Work) -> str:
    """The BibTeX entry type for ``work``; arXiv preprints without a venue become ``misc`` with ``eprint``."""
    if work.type in ENTRY_TYPES and not (work.arxiv and not work.venue):
        return ENTRY_TYPES[work.type]
    return "misc"


def _fields(work: Work, kind: str) -> list[tuple[str, str]]:
    fields: list[tuple[str, str]] = []
    if work.authors:
        fields.append(("author", " and ".join(_name(a) for a in work.authors)))
    if work.title:
        fields.append(("title", _title(work.title)))
    if work.venue:
        fields.append((_CONTAINER_FIELD.get(kind, "howpublished"), latex_escape(work.venue)))
    if work.year:
        fields.append(("year", str(work.year)))
    for name, value in (("volume", work.volume), ("number", work.issue)):
        if value:
            fields.append((name, latex_escape(value)))
    if work.pages:
        fields.append(("pages", latex_escape(_PAGE_DASH.sub("--", work.pages.strip()))))
    if work.publisher:
        fields.append((_PUBLISHER_FIELD.get(kind, "publisher"), latex_escape(work.publisher)))
    if work.doi:
        fields.append(("doi", _verbatim(work.doi)))
    if work.url:
        fields.append(("url", _verbatim(work.url)))
    if work.arxiv:
        fields += [("eprint", work.arxiv), ("archivePrefix", "arXiv")]
    fields += [(name, value) for name, value in (("pmid", work.pmid), ("pmcid", work.pmcid)) if value]
    if work.abstract:
        fields.append(("abstract", latex_escape(" ".join(work.abstract.split()))))
    return fields


def to_bibtex(works: Sequence[Work], keys: Sequence[str] | None = None) -> str:
    """A .bib document with one entry per work; ``keys`` defaults to :func:`citation_keys`."""
    keys = list(keys) if keys is not None else citation_keys(works)
    entries = []
    for work, key in zip(works, keys, strict=True):
        kind = entry_type(work)
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in _fields(work, kind))
        entries.append(f"@{kind}{{{key},\n{body}\n}}\n")
    return "\n".join(entries)
