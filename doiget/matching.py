"""Score works against a free-form citation string ("Makris EA et al. (2014) Developing ... PNAS 111").

Scoring, with C the citation's tokens (lower-case, ASCII-folded, stop words and one-letter tokens
dropped, see :func:`tokens`):

- title ``t``: recall ``r`` = share of the title's tokens found in C; precision ``p`` = share of the
  citation tokens *not* explained by the work's authors, year, venue, volume, issue, pages or DOI that
  are title tokens (a title word that is also a venue word, "Ecology" in "Chemical Ecology", stays). ``t`` = F2(r, p) = 5rp / (4p + r), so a title must be present in the citation
  (recall counts four times as much) but a one-word title ("Widget") matching one word of a long
  citation stays low.
- author ``a`` = 1 when every token of the first author's family name is in C, else 0.
- year ``y`` = 1 when the work's year is in C, else 0.
- venue ``v`` = share of the venue's tokens found in C.

``score = t * (0.6 + 0.15 a + 0.15 y + 0.1 v)``: the title gates the score and the other parts boost
it, so sibling chapters of one book (same author, year, venue) do not ride on those alone. A field the
work lacks scores 0 (less evidence, lower score).
A DOI in the citation equal to the work's DOI makes the score 1. Confidence is ``exact`` for a DOI
match or score >= 0.9, ``probable`` for score >= 0.7, else ``weak``.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel

from doiget.formats.keys import STOP_WORDS
from doiget.models import Work
from doiget.refs import try_parse
from doiget.text import ascii_fold

Confidence = Literal["exact", "probable", "weak"]

# Words that carry no identity in a reference string, on top of the title stop words.
_CITATION_NOISE = frozenset("et al pp vol no doi http https www org dx eds ed editor editors proc".split())
_TOKEN = re.compile(r"[a-z0-9]+")
_DOI = re.compile(r"10\.\d{4,9}/[^\s\"<>]+")
TITLE_BASE = 0.6
BOOSTS = {"author": 0.15, "year": 0.15, "venue": 0.1}


class Candidate(BaseModel):
    """A work scored against a citation string; ``matched`` names the parts that matched."""

    work: Work
    score: float
    confidence: Confidence
    matched: list[str]


def tokens(text: str | None) -> list[str]:
    """Lower-case ASCII word tokens of ``text`` without stop words and one-letter words, in order."""
    found = _TOKEN.findall(ascii_fold(text or "").lower())
    return [t for t in found if (len(t) > 1 or t.isdigit()) and t not in STOP_WORDS and t not in _CITATION_NOISE]


def _dois_in(text: str) -> set[str]:
    refs = (try_parse("doi:" + m.group(0).rstrip(".,;:)]")) for m in _DOI.finditer(text))
    return {ref.id for ref in refs if ref}


def _share(part: set[str], whole: set[str]) -> float:
    return len(part & whole) / len(part) if part else 0.0


def _explained(work: Work) -> set[str]:
    """Citation tokens that a correct reference to ``work`` carries besides its title."""
    fields: list[str | None] = [a.name for a in work.authors] + [a.family for a in work.authors]
    fields += [work.venue, work.volume, work.issue, work.pages, work.doi, str(work.year or "")]
    return {t for field in fields for t in tokens(field)}


def _title_score(cited: set[str], work: Work) -> float:
    title = set(tokens(work.title))
    rest = cited - (_explained(work) - title)
    recall = _share(title, cited)
    precision = len(title & rest) / len(rest) if rest else float(recall > 0)
    return 5 * recall * precision / (4 * precision + recall) if recall and precision else 0.0


def _confidence(score: float, doi_match: bool) -> Confidence:
    if doi_match or score >= 0.9:
        return "exact"
    return "probable" if score >= 0.7 else "weak"


def score_candidate(citation: str, work: Work) -> Candidate:
    """How well ``work`` matches ``citation`` (see the module docstring for the formula)."""
    cited = set(tokens(citation))
    first_family = set(tokens(work.authors[0].family or work.authors[0].name)) if work.authors else set()
    parts = {
        "title": _title_score(cited, work),
        "author": float(bool(first_family) and first_family <= cited),
        "year": float(bool(work.year) and str(work.year) in cited),
        "venue": _share(set(tokens(work.venue)), cited),
    }
    doi_match = bool(work.doi) and work.doi in _dois_in(citation)
    boost = sum(weight * parts[name] for name, weight in BOOSTS.items())
    score = 1.0 if doi_match else round(parts["title"] * (TITLE_BASE + boost), 4)
    matched = (["doi"] if doi_match else []) + [name for name, value in parts.items() if value >= 0.5]
    return Candidate(work=work, score=score, confidence=_confidence(score, doi_match), matched=matched)


def rank_candidates(citation: str, works: Iterable[Work], floor: float = 0.5) -> list[Candidate]:
    """Candidates scoring at least ``floor``, best first (ties keep input order)."""
    scored: Sequence[Candidate] = [score_candidate(citation, work) for work in works]
    return sorted((c for c in scored if c.score >= floor), key=lambda c: -c.score)
