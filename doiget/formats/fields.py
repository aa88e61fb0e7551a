"""The one table between BibTeX/biblatex, RIS and CSL-JSON: entry types, name fields, plain fields.

Columns of the store (title, venue, volume, issue, pages, publisher, ...) are read and written by
the format modules; every other CSL variable lives in ``Work.extra`` under its CSL name, and a
BibTeX field with no CSL variable under ``extra["bibtex"]`` as written in the file.
"""
from __future__ import annotations

from typing import Any

# BibTeX / biblatex entry type -> CSL type (after citation-js's and Better BibTeX's mappings).
BIB_TO_CSL_TYPE = {
    "article": "article-journal", "book": "book", "mvbook": "book", "booklet": "pamphlet",
    "inbook": "chapter", "bookinbook": "chapter", "suppbook": "chapter", "incollection": "chapter",
    "suppcollection": "chapter", "collection": "book", "mvcollection": "book", "proceedings": "book",
    "mvproceedings": "book", "reference": "book", "mvreference": "book", "inreference": "entry-encyclopedia",
    "inproceedings": "paper-conference", "conference": "paper-conference", "manual": "report",
    "misc": "document", "online": "webpage", "electronic": "webpage", "www": "webpage", "patent": "patent",
    "periodical": "periodical", "suppperiodical": "article-journal", "report": "report", "techreport": "report",
    "thesis": "thesis", "phdthesis": "thesis", "mastersthesis": "thesis", "unpublished": "manuscript",
    "dataset": "dataset", "software": "software", "artwork": "graphic", "image": "graphic", "audio": "song",
    "music": "song", "jurisdiction": "legal_case", "legislation": "legislation", "legal": "treaty",
    "letter": "personal_communication", "movie": "motion_picture", "video": "motion_picture",
    "performance": "performance", "review": "review", "standard": "standard",
}
# CSL type -> BibTeX type when the record did not come from BibTeX (classic types biber and bibtex know; an
# encyclopedia's entry is biblatex's @inreference, which reads back as one, where @incollection is a chapter).
CSL_TO_BIB_TYPE = {
    "article-journal": "article", "article-magazine": "article", "article-newspaper": "article",
    "article": "article", "review": "article", "review-book": "article", "paper-conference": "inproceedings",
    "chapter": "incollection", "entry-encyclopedia": "inreference", "entry-dictionary": "incollection",
    "book": "book", "pamphlet": "booklet", "thesis": "phdthesis", "report": "techreport",
    "manuscript": "unpublished", "webpage": "online", "post-weblog": "online", "post": "online",
    "dataset": "dataset", "software": "software", "patent": "patent", "periodical": "periodical",
    "standard": "standard",
    # biblatex's non-standard types (its manual, 2.1.3), for CSL types no classic type reads back as; styles
    # without a driver for them print them as @misc
    "legislation": "legislation", "legal_case": "jurisdiction", "motion_picture": "movie",
    "personal_communication": "letter", "graphic": "artwork", "performance": "performance",
}


def bib_type(csl_type: str | None, *, genre: str = "", preprint: bool = False) -> str:
    """The BibTeX entry type written for a work of CSL type ``csl_type`` that keeps none of its own: a thesis
    whose ``genre`` says master's is ``mastersthesis``, an arXiv ``preprint`` without a venue ``misc``."""
    if csl_type == "thesis" and "master" in genre.lower():
        return "mastersthesis"
    return "misc" if preprint or csl_type not in CSL_TO_BIB_TYPE else CSL_TO_BIB_TYPE[csl_type]


# Types whose container is a book or proceedings (``booktitle``) rather than a journal.
BOOKTITLE_TYPES = frozenset({"inproceedings", "conference", "incollection", "inbook", "bookinbook",
                             "suppbook", "suppcollection", "inreference"})


# Types whose ``number`` is the issue of a journal or proceedings (BibTeX's use); elsewhere it is a report's or a
# series' number, and an issue goes in biblatex's ``issue``.
ISSUE_TYPES = frozenset({"article", "periodical", "suppperiodical", "inproceedings", "conference"})


def container_field(kind: str) -> str:
    """The BibTeX field that names the venue (CSL container-title) of an entry of type ``kind``."""
    return "journal" if kind in ("article", "periodical") else "booktitle" if kind in BOOKTITLE_TYPES \
        else "howpublished"


CSL_NAME_VARIABLES = frozenset(
    "author chair collection-editor compiler composer container-author contributor curator director editor "
    "editorial-director executive-producer guest host illustrator interviewer narrator organizer "
    "original-author performer producer recipient reviewed-author script-writer series-creator "
    "translator".split())
# BibTeX name field -> CSL name variable ("author" is Work.authors; the rest Work.contributors). A role BibTeX has
# no field for (a series' collection-editor, a film's director) is written under its CSL name and read back.
_BIB_NAMES = {"author": "author", "editor": "editor", "translator": "translator", "bookauthor": "container-author",
              "origauthor": "original-author"}
BIB_NAME_FIELDS = _BIB_NAMES | {role: role for role in sorted(CSL_NAME_VARIABLES - set(_BIB_NAMES.values()))}
BIB_NAME_OF_ROLE = {role: name for name, role in BIB_NAME_FIELDS.items()}


# doiget's CSL-JSON ``custom`` key for what each role's persons have beyond their names, and its keys' Author fields
NAME_DETAILS = "name-details"
NAME_DETAIL_FIELDS = {"ORCID": "orcid", "affiliation": "affiliation"}


def et_al_mark(role: str) -> str:
    """How ``extra["bibtex-others"]`` names a role whose list was cut short: its BibTeX name field, or the
    CSL role itself where BibTeX has none."""
    return BIB_NAME_OF_ROLE.get(role, role)


# Plain BibTeX fields with a CSL variable of their own (not a store column): bib name -> CSL name.
BIB_TO_CSL = {
    "isbn": "ISBN", "issn": "ISSN", "address": "publisher-place", "location": "publisher-place",
    "series": "collection-title", "edition": "edition", "note": "note", "shorttitle": "title-short",
    "chapter": "chapter-number", "eventtitle": "event-title", "venue": "event-place",
    "annote": "annote", "annotation": "annote", "type": "genre", "pagetotal": "number-of-pages",
    "volumes": "number-of-volumes", "version": "version", "origtitle": "original-title",
    "shortjournal": "container-title-short", "journalabbreviation": "container-title-short",
    "callnumber": "call-number", "maintitle": "volume-title", "part": "part", "medium": "medium",
    "status": "status", "shortseries": "collection-title-short",
}
# CSL variables with no BibTeX field and no store column (Scopus's and Embase's database as source, a Zotero
# item's archive and section): written under their CSL name and read back.
_CSL_OWN_NAMES = {name: name for name in (
    "archive archive-place archive_collection archive_location authority citation-label dimensions division event "
    "jurisdiction original-publisher original-publisher-place part-title printing references reviewed-genre "
    "reviewed-title scale section source supplement volume-title-short").split()}
BIB_TO_CSL |= _CSL_OWN_NAMES
# CSL variable -> BibTeX field for export (the first spelling above wins, biblatex-neutral choices).
CSL_TO_BIB = {
    "ISBN": "isbn", "ISSN": "issn", "publisher-place": "address", "collection-title": "series",
    "edition": "edition", "note": "note", "title-short": "shorttitle", "chapter-number": "chapter",
    "event-title": "eventtitle", "event-place": "venue", "annote": "annote", "genre": "type",
    "number-of-pages": "pagetotal", "number-of-volumes": "volumes", "version": "version",
    "original-title": "origtitle", "container-title-short": "shortjournal", "call-number": "callnumber",
    "volume-title": "maintitle", "part": "part", "medium": "medium", "status": "status",
    "collection-title-short": "shortseries",
} | _CSL_OWN_NAMES
# BibTeX fields of prose whose line breaks are the writer's (a structured abstract's sections, a database's note
# lines): written as \newline, read back as newlines (the other fields' whitespace is one space, as BibTeX's).
PROSE_FIELDS = frozenset({"abstract", "note", "annote", "annotation"})
# RIS tag -> the CSL variable it holds in Work.extra (SN: ISBN instead, unless every number in it is an ISSN).
RIS_TO_CSL = {
    "SN": "ISSN", "CY": "publisher-place", "ET": "edition", "ST": "title-short", "NV": "number-of-volumes",
    "CN": "call-number", "SE": "section", "M3": "genre", "DB": "source", "J2": "container-title-short",
    "T3": "collection-title", "OP": "original-title",
}
# RIS name tag -> CSL name variable (AU/A1: Work.authors).
RIS_NAME_ROLES = {"A2": "editor", "A3": "collection-editor", "A4": "translator"}
# Zotero 4's spellings of two CSL variables (its CSL-JSON as zotxt served it), kept as read: exports write them
# where they write the variable.
CSL_ALSO_SPELT = {"title-short": "shortTitle", "container-title-short": "journalAbbreviation"}


def csl_variable(extra: dict[str, Any], name: str) -> Any:
    """CSL variable ``name`` of a work's ``extra``, under its own name or its Zotero 4 spelling."""
    return extra.get(name) or extra.get(CSL_ALSO_SPELT.get(name, ""))


def plain_date(value: Any) -> bool:
    """Whether a CSL date is one date of parts alone or one text alone (``raw`` or ``literal``): what a BibTeX or
    RIS date field says all of (not a season, a range, ``circa``, a text beside its parts)."""
    if not isinstance(value, dict):
        return False
    parts = value.get("date-parts")
    return len(value.keys() - {"date-parts"}) <= 1 if not parts else value.keys() == {"date-parts"} and len(parts) == 1


BIB_DATE_FIELDS = {"urldate": "accessed", "eventdate": "event-date", "origdate": "original-date",
                   "available-date": "available-date", "submitted": "submitted"}
CSL_DATE_TO_BIB = {csl: bib for bib, csl in BIB_DATE_FIELDS.items()}
CSL_DATE_VARIABLES = frozenset({"accessed", "available-date", "event-date", "issued", "original-date", "submitted"})

# biblatex/babel language names -> ISO 639-1 codes, to tell that "english" (langid) and "en" (CSL) name one language.
BABEL_LANGUAGES = {
    "english": "en", "american": "en", "british": "en", "australian": "en", "canadian": "en", "newzealand": "en",
    "german": "de", "ngerman": "de", "austrian": "de", "naustrian": "de", "swissgerman": "de", "french": "fr",
    "francais": "fr", "spanish": "es", "catalan": "ca", "italian": "it", "portuguese": "pt", "portuges": "pt",
    "brazil": "pt", "brazilian": "pt", "dutch": "nl", "danish": "da", "swedish": "sv", "norwegian": "no",
    "norsk": "no", "nynorsk": "nn", "finnish": "fi", "icelandic": "is", "polish": "pl", "czech": "cs",
    "slovak": "sk", "slovene": "sl", "croatian": "hr", "serbian": "sr", "russian": "ru", "ukrainian": "uk",
    "bulgarian": "bg", "greek": "el", "latin": "la", "turkish": "tr", "hungarian": "hu", "magyar": "hu",
    "romanian": "ro", "estonian": "et", "latvian": "lv", "lithuanian": "lt", "hebrew": "he", "arabic": "ar",
    "chinese": "zh", "japanese": "ja", "korean": "ko", "hindi": "hi", "irish": "ga", "welsh": "cy", "basque": "eu",
}
MONTH_MACROS = tuple("jan feb mar apr may jun jul aug sep oct nov dec".split())  # BibTeX's month macros
MONTHS = {name: index for index, name in enumerate(MONTH_MACROS, start=1)}
