"""When two records are the same work: the identity rules of import, dedupe and merge.

A DOI is a work's identity: two records with the same DOI (each from its own DOI field) are the same
work, two with different DOIs never are. Other identifiers (arXiv, PMID, PMCID, OpenAlex, or a DOI
found only in a URL or note) make two records the same work only when no identifier of the same
kind differs and their titles agree: normalised (accents folded, case and punctuation dropped)
and compared with difflib's ratio, agreeing at ``TITLE_AGREEMENT`` or above, or when their main
titles (before a colon) agree at ``MAIN_TITLE_AGREEMENT``. 0.9 lets through typos, a dropped
article and Unicode/LaTeX spelling differences ("Schrödinger" / "Schrodinger"); chapters of one
book and different papers sharing a bogus id stay apart (tests/test_identity.py has both kinds).

Records without any identifier are candidates for one work when their normalised titles and years are the
same; they are one work unless their :class:`Marks` disagree (:func:`marks_agree`): chapters filed under
their book's title and letters under one heading share a title and a year but not a first page, a volume
or an author.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from doiget.formats.record import PAGE_DASH
from doiget.models import ID_FIELDS
from doiget.text import words

TITLE_AGREEMENT = 0.90
MAIN_TITLE_AGREEMENT = 0.95


@lru_cache(maxsize=8192)
def normalised_title(title: str | None) -> str:
    """``title`` as folded words (:func:`doiget.text.words`: any script) separated by single spaces."""
    return " ".join(words(title or ""))


def title_similarity(a: str | None, b: str | None) -> float:
    """How alike two titles are, 0..1, after normalising (the larger of whole and main-title scores)."""
    na, nb = normalised_title(a), normalised_title(b)
    if not na or not nb:
        return 0.0
    whole = SequenceMatcher(None, na, nb).ratio()
    main_a, main_b = normalised_title((a or "").split(":")[0]), normalised_title((b or "").split(":")[0])
    main = SequenceMatcher(None, main_a, main_b).ratio() if main_a and main_b else 0.0
    return max(whole, main if main >= MAIN_TITLE_AGREEMENT else 0.0)


def titles_agree(a: str | None, b: str | None) -> bool:
    """True when both titles are present and agree, or when one is missing (nothing to disagree with)."""
    if not normalised_title(a) or not normalised_title(b):
        return True
    return title_similarity(a, b) >= TITLE_AGREEMENT


@dataclass(frozen=True)
class Side:
    """One record as identity sees it: its ids, which of them were only inferred from text, its title."""

    ids: dict[str, str]
    title: str | None
    inferred: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Decision:
    """Whether two records are one work; ``matched`` is the id kind they share (None if none),
    ``reason`` says why in a sentence."""

    same: bool
    matched: str | None
    reason: str


def decide(a: Side, b: Side) -> Decision:
    """Apply the rules of the module docstring to two records."""
    shared = [k for k in ID_FIELDS if a.ids.get(k) and a.ids.get(k) == b.ids.get(k)]
    differing = [k for k in ID_FIELDS if a.ids.get(k) and b.ids.get(k) and a.ids[k] != b.ids[k]]
    matched = shared[0] if shared else None
    if "doi" in differing:
        return Decision(False, matched, f"different DOIs ({a.ids['doi']} / {b.ids['doi']})")
    if "doi" in shared and "doi" not in a.inferred and "doi" not in b.inferred:
        return Decision(True, "doi", "same DOI")
    if not shared:
        return Decision(False, None, "no identifier in common")
    if differing:
        return Decision(False, matched, f"same {matched} but different {differing[0]} "
                        f"({a.ids[differing[0]]} / {b.ids[differing[0]]})")
    if not titles_agree(a.title, b.title):
        return Decision(False, matched, f"same {matched} but the titles differ "
                        f"(similarity {title_similarity(a.title, b.title):.2f} < {TITLE_AGREEMENT})")
    return Decision(True, matched, f"same {matched} and agreeing titles")


# The form a work takes, by its CSL type: records of two different known forms are two works (a chapter and
# the book it is in, a conference paper and its journal version, a thesis and an article made of it).
FORMS = {**dict.fromkeys(("chapter", "paper-conference", "entry", "entry-dictionary", "entry-encyclopedia"), "part"),
         **dict.fromkeys(("book", "collection"), "book"),
         **dict.fromkeys(("article-journal", "article-magazine", "article-newspaper"), "periodical"),
         "thesis": "thesis", "report": "report"}


@dataclass(frozen=True)
class Marks:
    """What tells apart records without identifiers that share a title and year: the first page, the
    volume, the authors' family names (folded; an organisation's whole name) and the work's form
    (:data:`FORMS`), each possibly unknown."""

    first_page: str | None = None
    volume: str | None = None
    families: frozenset[str] = frozenset()
    form: str | None = None

    @classmethod
    def of(cls, pages: str | None, volume: str | None, families: Iterable[str], type: str | None = None) -> Marks:
        """From the fields as stored; ``families``: each author's family name, or whole name if it has none."""
        return cls(first_page(pages), normalised_title(volume) or None,
                   frozenset(filter(None, map(normalised_title, families))),
                   FORMS.get(type))

    def filled(self, other: Marks) -> Marks:
        """Unknown parts taken from ``other`` (as a merge fills empty fields)."""
        return Marks(self.first_page or other.first_page, self.volume or other.volume, self.families or other.families,
                     self.form or other.form)


def first_page(pages: str | None) -> str | None:
    """The first page of a page range ("2301--2315", "2301-15", "e0123" -> itself), folded; None if none."""
    first = normalised_title(PAGE_DASH.split(pages or "", maxsplit=1)[0])
    return first or None


def marks_agree(a: Marks, b: Marks) -> bool:
    """Whether two records with the same title and year and no identifier are one work: yes, unless both
    give a first page and these differ, or both a volume and these differ, or both name authors and no
    family name is in both, or both have a form and these differ (a BibTeX ``@inbook`` is titled by its
    book; a conference paper and its journal version often share a title)."""
    return not ((a.first_page and b.first_page and a.first_page != b.first_page)
                or (a.volume and b.volume and a.volume != b.volume)
                or (a.families and b.families and not a.families & b.families)
                or (a.form and b.form and a.form != b.form))
