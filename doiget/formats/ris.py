"""RIS export (the tagged format EndNote, Zotero, Mendeley and most databases read).

Everything :mod:`doiget.formats.ris_read` reads is written back under the same tag, so a RIS file
imported and exported again keeps its fields; the tags a RIS import kept unread (``extra["ris"]``)
are written back as they came. A .bib file's ``file`` goes in ``L1``, an "and others" in a last ``AU  - et al.``;
what RIS has no tag for (a CSL variable such as the number of pages, a BibTeX-only field such as ``rights``)
is named by :func:`not_carried`, and the library's export warns of it.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rispy import TAG_KEY_MAPPING

from doiget.formats.fields import CSL_ALSO_SPELT, RIS_NAME_ROLES, RIS_TO_CSL, csl_variable, et_al_mark, plain_date
from doiget.formats.record import four_digit_year, published_parts
from doiget.formats.names import name_details, same_parts
from doiget.formats.ris_read import RIS_TO_CSL_TYPE, read_ris_name
from doiget.models import ET_AL, Author, Work
from doiget.notices import citation_note

# CSL type -> RIS TY: the first RIS type the reader maps to it (a statute is STAT, a map MAP, ...); a review is
# a journal's.
RIS_TYPES = {csl: ris for ris, csl in reversed(RIS_TO_CSL_TYPE.items())} | {"review": "JOUR"}
_RANGE = re.compile(r"^\s*(\S+?)\s*(?:-+|[\u2010-\u2015])\s*(\S+)\s*$")
_KEY_TAG = {key: tag for tag, key in TAG_KEY_MAPPING.items()}


def ris_type(work: Work) -> str:
    """The RIS ``TY`` of ``work``: the type its RIS record had, else by CSL type; ``GEN`` for preprints and
    anything without a closer RIS type."""
    original = work.extra.get("ris-type")
    if isinstance(original, str) and original:
        return original
    return RIS_TYPES.get(work.type or "", "GEN")


def ris_name(author: Author) -> str:
    """``Family, Given[, Suffix]`` with the particles where RIS readers put them (``van Gogh, Vincent``,
    ``La Fontaine, Jean de``); an organisation as its name, without a comma (Zotero's reading, and the
    reader's); a person with one name part with a comma on its side (``Banksy,``: ``, Banksy`` for a given name)."""
    if author.literal or not (author.family or author.given):
        return author.name
    family = " ".join(p for p in (author.particle, author.family) if p)
    given = " ".join(p for p in (author.given, author.dropping_particle) if p)
    if not family and not author.suffix:
        return f", {given}"
    return ", ".join(p for p in (family, given, author.suffix) if p) if given or author.suffix else f"{family},"


def _date(parts: list[int]) -> str:
    """[year, month, day] as RIS writes a date: ``2014/09/09/``, ``0054/10/13/``."""
    padded = [four_digit_year(parts[0])] + [f"{p:02d}" for p in parts[1:3]]
    return "/".join(padded + [""] * (4 - len(padded)))


def _csl_date(value: Any) -> str | None:
    """A CSL date (``{"date-parts": [[2014, 9, 9]]}``) as RIS writes one, else its raw or literal text."""
    parts = (value.get("date-parts") or [[]])[0] if isinstance(value, dict) else []
    if parts and all(str(p).lstrip("-").isdigit() for p in parts):
        return _date([int(p) for p in parts])
    return value.get("raw") or value.get("literal") if isinstance(value, dict) else None


def _names(tag: str, people: list[Author], role: str, others: Any) -> list[tuple[str, str]]:
    """One line per person, and ``et al.`` (what the reader takes for "and others") when the list was cut short."""
    cut = isinstance(others, list) and et_al_mark(role) in others
    return [(tag, ris_name(a)) for a in people] + ([(tag, "et al.")] if cut and people else [])


def _record(work: Work) -> list[tuple[str, str | None]]:
    kind = ris_type(work)
    extra = work.extra
    others = extra.get(ET_AL)
    lines = [("TY", kind), ("ID", work.citekey)]
    lines += _names("AU", work.authors, "author", others)
    for tag, role in RIS_NAME_ROLES.items():
        lines += _names(tag, work.contributors.get(role, []), role, others)
    kept = _kept(extra.get("ris") or {})  # tags read from a RIS file and kept as written
    kept_tags = {tag for tag, _ in kept}
    conference = kind == "CONF"  # T2 the conference's name, C3 its proceedings (the RIS spec; Zotero reads them so)
    event = extra.get("event-title") if conference else None
    lines += [("TI", work.title), ("T2", event or work.venue)]
    if conference and "C3" not in kept_tags:
        lines.append(("C3", work.venue))
    if work.year is not None and "PY" not in kept_tags:
        lines.append(("PY", four_digit_year(work.year)))
    published = published_parts(work.published)
    if published and "DA" not in kept_tags:
        lines.append(("DA", _date(published)))
    lines += [("VL", work.volume), ("IS", work.issue)]
    if work.pages:
        span = _RANGE.match(work.pages)
        lines += [("SP", span.group(1)), ("EP", span.group(2))] if span else [("SP", work.pages)]
    lines += [("PB", work.publisher), ("DO", work.doi), ("UR", work.url), ("AB", work.abstract),
              ("LA", work.language)]
    lines += [("SN", extra.get("ISBN"))]  # ISSN below: the reader tells them apart by their shape
    for tag, csl in RIS_TO_CSL.items():
        value = csl_variable(extra, csl)
        if isinstance(value, (str, int, float)):
            lines.append((tag, str(value)))
    lines += [("KW", tag) for tag in getattr(work, "tags", None) or []]
    lines += [("AN", f"{name}:{value}") for name, value in work.ids().items() if name != "doi"]
    lines.append(("Y2", _csl_date(extra.get("accessed"))))
    note = extra.get("note")
    lines += [("N1", line) for line in (note.splitlines() if isinstance(note, str) else [])]
    lines.append(("N1", citation_note(work.updates or [])))  # a retracted (withdrawn, ...) work says so
    bibtex_file = (extra.get("bibtex") or {}).get("file")
    if bibtex_file and "L1" not in kept_tags:
        lines.append(("L1", bibtex_file))
    return lines + kept


# What the export writes elsewhere or needs not write: the title as a .bib wrote it (TI has its text), a CSL
# title's markup, which field or type the record had in another format (TY says the type).
_WRITTEN = frozenset({"ISBN", "ISSN", "note", "accessed", "ris", "ris-type", "bibtex-type", "bibtex-fields", ET_AL,
                      "title-rich", "container-title-rich", *RIS_TO_CSL.values(), *CSL_ALSO_SPELT.values()})
_WRITTEN_BIBTEX = frozenset({"title", "subtitle", "file"})


def not_carried(work: Work) -> list[str]:
    """What of ``work`` its RIS record leaves out, RIS having no tag for it: CSL variables by name, BibTeX-only
    fields as ``BibTeX field NAME``, a role's names as ``ROLE names`` (``ROLE name parts`` when RIS reads some of
    them back split otherwise; ``ROLE ORCIDs``, ``ROLE affiliations``), a CSL type RIS has no type for as ``type``,
    an abstract's line breaks as ``abstract line breaks``."""
    extra = work.extra
    lost = [name for name in extra if name not in _WRITTEN and name != "bibtex"
            and not (name == "event-title" and ris_type(work) == "CONF" and extra[name] != work.venue)]
    lost += ["accessed"] if "accessed" in extra and not plain_date(extra["accessed"]) else []
    lost += [f"BibTeX field {name}" for name in (extra.get("bibtex") or {}) if name not in _WRITTEN_BIBTEX]
    lost += [f"{role} names" for role in work.contributors if role not in RIS_NAME_ROLES.values()]
    named = {role: people for role, people in work.names_by_role()
             if role == "author" or role in RIS_NAME_ROLES.values()}
    lost += [f"{role} name parts" for role, people in named.items() if not all(map(_kept_whole, people))]
    lost += name_details(named)
    if work.type and RIS_TO_CSL_TYPE.get(ris_type(work), "document") != work.type:
        lost.append("type")  # a CSL type with no TY of its own (speech, a review: GEN, JOUR) reads back as another
    if work.abstract and "\n" in work.abstract.strip():
        lost.append("abstract line breaks")  # AB is one line: RIS readers join a value's lines with spaces
    return lost


def _kept_whole(author: Author) -> bool:
    """Whether a RIS reader reads ``author``'s line back as its parts: not a particle RIS puts elsewhere (``van``
    in a family name ``van Regenmortel``, a given name ending in ``de``) or an organisation's name with a comma."""
    return same_parts(read_ris_name(ris_name(author)), author)


def kept_ris_lines(extra: dict[str, Any]) -> str | None:
    """A work's RIS type and tags that a RIS import kept as written (``extra["ris-type"]``, ``extra["ris"]``) as
    RIS lines, for a format without their place (BibTeX's ``ris`` field); :func:`~doiget.formats.ris_read.
    read_kept_ris` reads them back. None when there are none."""
    kind = extra.get("ris-type")
    lines = ([("TY", kind)] if isinstance(kind, str) and kind else []) + _kept(extra.get("ris") or {})
    return "\n".join(f"{tag}  - {_one_line(value)}" for tag, value in lines if value.strip()) or None


def _kept(ris: dict[str, Any]) -> list[tuple[str, str]]:
    """The (tag, value) lines of what a RIS reader kept as written (``extra["ris"]``, by rispy key)."""
    lines = []
    for key, value in ris.items():
        tagged = value.items() if key == "unknown_tag" and isinstance(value, dict) else [(_KEY_TAG.get(key), value)]
        lines += [(tag, str(v)) for tag, values in tagged if tag for v in (values if isinstance(values, list)
                                                                            else [values])]
    return lines


def _one_line(value: str) -> str:
    """``value`` as one RIS line: its lines joined by a space, each stripped; spaces within a line kept."""
    return " ".join(line.strip() for line in value.splitlines() if line.strip())


def to_ris(works: Sequence[Work]) -> str:
    """RIS records for ``works``, one ``TY`` ... ``ER`` block each; values are folded onto one line."""
    out = []
    for work in works:
        out += [f"{tag}  - {_one_line(value)}" for tag, value in _record(work) if value and value.strip()]
        out += ["ER  - ", ""]
    return "\n".join(out)
