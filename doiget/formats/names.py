"""Personal names in and out of BibTeX and CSL-JSON, kept as each record spells them.

A name list is cut at ``and`` outside braces; each name is split by bibtexparser 2's
``parse_single_name_into_parts`` (non-strict): it implements BibTeX's own First/von/Last/Jr
rules, is maintained alongside the splitter doiget's own is tested against, and its non-strict mode
never raises on odd names (trailing or extra commas), which pybtex's ``Person`` does. Names
made only of letters, dots, apostrophes and hyphens take a fast path that applies the same
rules; a test checks both agree on every name of the corpus. Better BibTeX's extended form
(``family=Krol, given=Roel, prefix=van de``) is read too. A name wrapped whole in braces is an
organisation (``literal``), and so is an unbraced name without a comma that holds an organisation's word
(``Kent State University``, ``Department of ...``: see ``_ORGANISATION``), which is reported.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from bibtexparser.middlewares.names import parse_single_name_into_parts

from doiget.formats.fields import NAME_DETAIL_FIELDS
from doiget.formats.record import nfc
from doiget.models import Author

# ---- reading BibTeX ----------------------------------------------------------------------------

_AND = re.compile(r"\s+and\s+", re.I)
_PLAIN_WORD = r"[^\W\d_][\w.'\u2019-]*"
_PLAIN_NAME = re.compile(rf"^{_PLAIN_WORD}(?: {_PLAIN_WORD})*(?:, ?{_PLAIN_WORD}(?: {_PLAIN_WORD})*)?$")
_SPECIAL_CHAR = re.compile(r"\{\\[`'^\"~=.uvHcrk]\s*\{?[A-Za-z]\}?\}|\\[`'^\"~=.]\{?[A-Za-z]\}?|\{\\(?:ss|o|O|l|L|ae|AE|oe|OE|aa|AA|i)\}")
_EXTENDED = re.compile(r"^\s*(?:family|given|prefix|suffix|useprefix|juniorcomma)\s*=", re.I)
_EXTENDED_KEYS = {"family": "family", "given": "given", "prefix": "particle", "suffix": "suffix"}


_AND_OR_BRACE = re.compile(r"[{}]|\s+and\s+", re.I)


def stands_for_others(name: Any) -> bool:
    """Whether a name, as a CSL-JSON or RIS list's last, is no person but "and others" (et al.): pandoc
    writes BibTeX's ``and others`` as ``{"literal": "others"}``, RIS files as ``AU  - et al.``."""
    return isinstance(name, str) and name.strip().lower() in _OTHERS


_OTHERS = frozenset({"others", "et al.", "et al"})


def split_names(value: str) -> list[str]:
    """The persons of a BibTeX name list (``A and B and {C and D}``), each as written: split at
    ``and`` between spaces outside braces, as BibTeX does."""
    if "{" not in value and "}" not in value:
        return [name.strip() for name in _AND.split(value) if name.strip()]
    return _split_outside_braces(value)


def _split_outside_braces(value: str) -> list[str]:
    names, depth, start = [], 0, 0
    for match in _AND_OR_BRACE.finditer(value):
        token = match.group(0)
        if token == "{":
            depth += 1
        elif token == "}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            names.append(value[start:match.start()])
            start = match.end()
    names.append(value[start:])
    return [name.strip() for name in names if name.strip()]


_INITIALS = re.compile(r"^[A-Z](?:[.\-]?[A-Z]){0,2}\.?$")


def _initials_at(words: list[str]) -> int | None:
    """Where trailing initials start after leading full words (``Malik A S`` -> 1), else None."""
    split = len(words)
    while split > 0 and _INITIALS.match(words[split - 1]):
        split -= 1
    if 0 < split < len(words) and not any(_INITIALS.match(w) or _lower(w) for w in words[:split]):
        return split
    return None


def family_and_initials(name: str) -> tuple[str, str] | None:
    """(family, initials) of a name written family first, initials last, without a comma (``Adler D.G.``,
    PubMed's and Embase's order); None for any other name, an organisation's among them."""
    words = name.split()
    split = _initials_at(words)
    if split is None or _ORGANISATION.search(name):
        return None
    return " ".join(words[:split]), " ".join(words[split:])


def with_particles(family: str, given: str) -> dict[str, str]:
    """The parts of a name written ``family, given`` (RIS, EndNote) with its particles apart, as BibTeX reads
    ``von Last, First``: lower-case words leading the family part (``van de Kieft``) are its particle, those
    ending the given part (``Jean de``, as RIS writes La Fontaine's) its dropping particle."""
    names, von, last = _plain_parts(f"{family},{given}")
    first = len(names)
    while first > 1 and _lower(names[first - 1]):
        first -= 1
    return {"family": " ".join(last), "particle": " ".join(von), "given": " ".join(names[:first]),
            "dropping_particle": " ".join(names[first:])}


def _lower(word: str) -> bool:
    return word[0].islower()


def _plain_parts(name: str) -> tuple[list[str], list[str], list[str]]:
    """(first, von, last) of a brace- and command-free name, by BibTeX's rules."""
    if "," in name:
        left, right = name.split(",", 1)
        words = left.split()
        von_end = 0
        for index, word in enumerate(words[:-1]):
            if _lower(word):
                von_end = index + 1
        return right.split(), words[:von_end], words[von_end:]
    words = name.split()
    if len(words) == 1:
        return [], [], words
    start = next((i for i, w in enumerate(words[:-1]) if _lower(w)), None)
    if start is None:
        return words[:-1], [], words[-1:]
    end = start
    for index in range(start, len(words) - 1):
        if _lower(words[index]):
            end = index + 1
    return words[:start], words[start:end], words[end:]


def _extended(name: str, decode: Callable[[str], str]) -> Author:
    parts: dict[str, str] = {}
    for item in split_top_level(name, ","):
        key, _, value = item.partition("=")
        field = _EXTENDED_KEYS.get(key.strip().lower())
        if field:
            parts[field] = decode(value.strip())
    return make_author(**parts)


def split_top_level(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside braces."""
    items, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif char == separator and depth == 0:
            items.append(text[start:index])
            start = index + 1
    items.append(text[start:])
    return items


def _is_braced_whole(name: str) -> bool:
    if not (name.startswith("{") and name.endswith("}")):
        return False
    depth = 0
    for index, char in enumerate(name):
        depth += (char == "{") - (char == "}")
        if depth == 0 and index < len(name) - 1:
            return False
    return True


# An unbraced name with no comma that holds one of these words is an organisation's, not a person's: BibTeX would
# make "Kent State University" a Mr University. Words that are also surnames (Press, Bank, Service) are not here.
_ORGANISATION = re.compile(
    r"\s(?:of|for|the|on)\s|\b(?:Organi[sz]ations?|Associations?|Institute|Society|Universit(?:y|ies|ät|é)|Council|"
    r"Agency|Department|Ministry|Committee|Foundation|Commission|Government|Corporation|Consortium|Federation|"
    r"Bureau|Statistics|Collaboration|Administration|Laborator(?:y|ies)|Research|Project|Programme|Initiative|"
    r"Centre|Senate|Parliament|Authority|Office|Group|Team|Inc|Ltd|GmbH)\b")


@lru_cache(maxsize=65536)
def bibtex_author(name: str, decode: Callable[[str], str]) -> tuple[Author, str | None]:
    """One BibTeX name as an :class:`Author` and a warning (None when the name read cleanly);
    ``decode`` turns a LaTeX fragment into Unicode."""
    name = " ".join(name.split())
    if "--" in name:  # TeX's dash ligatures, printed as dashes in a name as anywhere ("Carre{\~{n}}o--Rodr...")
        name = name.replace("---", "\u2014").replace("--", "\u2013")
    if "\\" in name:  # accented letters ({\"u}, \'{e}) are letters of their word, as in BibTeX
        name = _SPECIAL_CHAR.sub(lambda m: decode(m.group(0)), name)
    if " " in name and "," not in name and _ORGANISATION.search(name) and not _is_braced_whole(name):
        return make_author(literal=decode(name)), f"name {name!r} read as an organisation's name, not split"
    if _PLAIN_NAME.match(name) and name.count(",") <= 1:
        words = name.split()
        split = _initials_at(words) if "," not in name else None
        if split:  # "Malik A S": PubMed/Vancouver order, which BibTeX would read as family "S"
            return (_plain_author(words[split:], [], words[:split]),
                    f"name {name!r} read as family name followed by initials")
        return _plain_author(*_plain_parts(name)), None
    if _is_braced_whole(name):
        return make_author(literal=decode(name)), None
    if _EXTENDED.match(name):
        return _extended(name, decode), None
    warning = None
    if name.count(",") > 2 or name.rstrip().endswith(","):
        warning = f"odd name {name!r} (read as BibTeX's parser reads it)"
    try:
        parts = parse_single_name_into_parts(name, strict=False)
    except Exception as exc:  # noqa: BLE001 - keep the record whatever the name parser says
        return make_author(literal=decode(name)), f"name {name!r} kept whole: {exc}"
    author = make_author(given=decode(" ".join(parts.first)), particle=decode(" ".join(parts.von)),
                         family=decode(" ".join(parts.last)), suffix=decode(" ".join(parts.jr)))
    if not author.family and not author.literal:
        warning = f"name {name!r} has no family part"
    return author, warning


def _plain_author(first: list[str], von: list[str], last: list[str]) -> Author:
    """``make_author`` for parts that are lists of whitespace-free words (the same Author, without
    re-normalising its parts)."""
    given, particle, family = nfc(" ".join(first) or None), nfc(" ".join(von) or None), nfc(" ".join(last) or None)
    display = " ".join(p for p in (given, particle, family) if p)
    return Author(name=display or "Anonymous", family=family, given=given, particle=particle,
                  dropping_particle=None, suffix=None)


def make_author(*, family: str | None = None, given: str | None = None, particle: str | None = None,
                dropping_particle: str | None = None, suffix: str | None = None, literal: str | None = None,
                **extra: Any) -> Author:
    """An :class:`Author` from name parts (empty parts dropped) with its display ``name``, in NFC as the
    rest of an import record (:func:`~doiget.formats.record.nfc`)."""
    extra = nfc(extra)
    if literal and literal.strip():
        text = nfc(" ".join(literal.split()))
        return Author(name=text, literal=True, **extra)
    parts = {k: nfc(" ".join(v.split()) or None) if isinstance(v, str) else None for k, v in
             (("family", family), ("given", given), ("particle", particle),
              ("dropping_particle", dropping_particle), ("suffix", suffix))}
    display = " ".join(p for p in (parts["given"], parts["dropping_particle"], parts["particle"], parts["family"])
                       if p)
    if parts["suffix"]:
        display = f"{display}, {parts['suffix']}" if display else parts["suffix"]
    return Author(name=display or "Anonymous", **parts, **extra)


# ---- CSL-JSON ----------------------------------------------------------------------------------

def csl_author(name: Any) -> Author | None:
    """A CSL name object as an :class:`Author` (None when it is not an object)."""
    if not isinstance(name, dict):
        return None
    text = {k: str(v) for k, v in name.items() if isinstance(v, (str, int, float)) and str(v).strip()}
    if "literal" in text:
        return make_author(literal=text["literal"])
    if not ({"family", "given"} & text.keys()):
        return None
    return make_author(family=text.get("family"), given=text.get("given"),
                       particle=text.get("non-dropping-particle"),
                       dropping_particle=text.get("dropping-particle"), suffix=text.get("suffix"))


def to_csl_name(author: Author) -> dict[str, str]:
    """``author`` as a CSL name object."""
    if author.literal or not (author.family or author.given):
        return {"literal": author.name}
    parts = {"family": author.family, "given": author.given, "non-dropping-particle": author.particle,
             "dropping-particle": author.dropping_particle, "suffix": author.suffix}
    return {key: value for key, value in parts.items() if value}


# ---- writing BibTeX ----------------------------------------------------------------------------

def _needs_braces(text: str) -> bool:
    return "," in text or bool(_AND.search(f" {text} ")) or any(_lower(w) for w in text.split()[1:] if w[0].isalpha())


_PARTS = ("family", "given", "particle", "dropping_particle", "suffix", "literal")


def name_details(people: dict[str, list[Author]]) -> list[str]:
    """What BibTeX and RIS names have no place for, by role (``author ORCIDs``, ``editor affiliations``): what
    Crossref, OpenAlex, Europe PMC or a JATS file gave of the persons beyond their names."""
    return [f"{role} {detail}s" for role, persons in people.items() for detail, part in NAME_DETAIL_FIELDS.items()
            if any(getattr(a, part) for a in persons)]


def same_parts(author: Author, other: Author) -> bool:
    """Whether two names have the same parts (family, given, particles, suffix; an organisation's or a person's)."""
    return all(getattr(author, part) == getattr(other, part) for part in _PARTS)


def to_bibtex_name(author: Author, escape: Callable[[str], str]) -> str:
    """``author`` in BibTeX's ``von Last, Jr, First`` form; ``escape`` LaTeX-escapes text. A name without a
    family name (an organisation, a mononym given as a given name: CSL's ``{"given": "Banksy"}``) is one
    braced part: ``, Banksy`` is no BibTeX name (biber's parser crashes on it)."""
    if author.literal or not author.family:
        return "{" + escape(author.name) + "}"
    family = escape(author.family or "")
    # a lower-case family of several words would read as particles; one word alone or before the comma is the family
    if author.family and (_needs_braces(author.family) or (not author.particle and _lower(author.family)
                                                           and " " in author.family)):
        family = "{" + family + "}"
    last = " ".join(p for p in (escape(author.particle or ""), family) if p)
    if author.dropping_particle:
        last = f"{escape(author.dropping_particle)} {last}"
    given = _one_part(author.given or "", escape)
    if not given and (author.suffix or " " in last):  # "{World Bank}, {}": a family name, not First Last
        given = "{}"
    if author.suffix:
        return f"{last}, {_one_part(author.suffix, escape)}, {given}"
    return f"{last}, {given}" if given else last


def _one_part(text: str, escape: Callable[[str], str]) -> str:
    """A given name or suffix as LaTeX, braced when a comma or an "and" in it would split the name or the list."""
    return "{" + escape(text) + "}" if "," in text or _AND.search(f" {text} ") else escape(text)
