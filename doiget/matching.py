"""Score works against a free-form citation string ("Makris 2014 Developing ... PNAS"), as the seed
spec's doiget_resolve_citation defines it: token overlap against the query, with bands.

The citation's tokens C (lower-case, ASCII-folded, stop words and one-letter words dropped, see
:func:`tokens`) are looked up among the candidate record's tokens: title, every author's names,
year, venue (and its acronym: "Proceedings of the National Academy of Sciences" gives "pnas"),
volume, issue, pages, publisher and DOI. A query token is found when the record has it exactly;
or, for a word of three letters or more, as an abbreviation of a record word ("proc", "natl",
"acad", "sci" — same first letter, its letters in order); or, for a word of five letters or more,
as a typo of one (rapidfuzz ``fuzz.ratio`` ≥ 80, counted at that ratio). Numbers match exactly, or
as the abbreviated end of a page number ("429-52").

``score`` = found weight / |C| (1 for a DOI in the citation equal to the work's DOI); candidates under
0.5 are dropped. ``confidence``: ``exact`` when every query token was found (or the DOI matched),
``probable`` when at least four in five were, else ``weak``. ``matched`` lists the query tokens found,
``matched_fields`` the record fields they were found in.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel
from rapidfuzz import fuzz, process

from doiget.formats.keys import STOP_WORDS
from doiget.models import Work
from doiget.refs import dois_in
from doiget.text import words as _words

Confidence = Literal["exact", "probable", "weak"]

# Words that carry no identity in a reference string, on top of the title stop words.
_CITATION_NOISE = frozenset("et al pp vol no doi http https www org dx eds ed editor editors proc in".split())
TYPO_RATIO = 80
MIN_ABBREVIATION = 3
MIN_TYPO = 5
PROBABLE = 0.8


class Candidate(BaseModel):
    """A work scored against a citation string; ``matched`` lists the citation tokens found in it."""

    work: Work
    score: float
    confidence: Confidence
    matched: list[str]
    matched_fields: list[str] = []


def tokens(text: str | None) -> list[str]:
    """Folded word tokens of ``text`` (:func:`doiget.text.words`) without stop words and one-letter words, in order."""
    found = _words(text or "")
    return [t for t in found if (len(t) > 1 or t.isdigit()) and t not in STOP_WORDS and t not in _CITATION_NOISE]


def _acronym(text: str | None) -> list[str]:
    kept = [w for w in _words(text or "") if w not in STOP_WORDS and not w.isdigit()]
    return ["".join(w[0] for w in kept)] if len(kept) >= 2 else []


def record_tokens(work: Work) -> dict[str, str]:
    """Every token of the work's record → the field it comes from (title first)."""
    names = [n for a in work.authors for n in (a.name, a.family, a.given, _initials(a.given))]
    fields = [("title", [work.title]), ("author", names), ("year", [str(work.year or "")]),
              ("venue", [work.venue, *_acronym(work.venue)]),
              ("volume", [work.volume, work.issue, work.pages]), ("publisher", [work.publisher]), ("doi", [work.doi])]
    record: dict[str, str] = {}
    for field, values in fields:
        for value in values:
            for token in tokens(value):
                record.setdefault(token, field)
    return record


def _initials(given: str | None) -> str | None:
    """"Eleftherios A." → "ea", as Vancouver-style references write given names."""
    letters = [w[0] for w in _words(given or "")]
    return "".join(letters) if len(letters) >= 2 else None


def _abbreviates(short: str, word: str) -> bool:
    """``short`` is ``word`` abbreviated: same first letter, its letters in order ("natl" → "national")."""
    if len(short) < MIN_ABBREVIATION or len(short) >= len(word) or short[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(letter in rest for letter in short[1:])


def _find(token: str, record: dict[str, str]) -> tuple[float, str | None]:
    """How well ``token`` is found in ``record`` (1, a typo's ratio, or 0) and in which field."""
    if token in record:
        return 1.0, record[token]
    if token.isdigit():  # an abbreviated end page: "429-52" for 429-452, "E4832-41" for E4832-E4841
        pages = [w for w, field in record.items() if field == "volume" and len(token) >= 2
                 and len(w.lstrip("abcdefghijklmnopqrstuvwxyz")) > len(token) and w.endswith(token)]
        return (1.0, "volume") if pages else (0.0, None)
    words = [w for w in record if not w.isdigit()]
    abbreviated = next((w for w in words if _abbreviates(token, w)), None)
    if abbreviated is not None:
        return 1.0, record[abbreviated]
    if len(token) >= MIN_TYPO:
        best = process.extractOne(token, words, scorer=fuzz.ratio, score_cutoff=TYPO_RATIO)
        if best is not None:
            return best[1] / 100, record[best[0]]
    return 0.0, None


def _confidence(found: int, total: int, doi_match: bool) -> Confidence:
    if doi_match or found == total:
        return "exact"
    return "probable" if found >= PROBABLE * total else "weak"


def score_candidate(citation: str, work: Work) -> Candidate:
    """How well ``work`` matches ``citation`` (see the module docstring)."""
    cited = list(dict.fromkeys(tokens(citation)))
    record = record_tokens(work)
    found = {token: _find(token, record) for token in cited}
    matched = [token for token, (weight, _) in found.items() if weight > 0]
    fields = list(dict.fromkeys(field for weight, field in found.values() if field))
    doi_match = bool(work.doi) and work.doi in dois_in(citation)
    if doi_match and "doi" not in fields:
        fields.insert(0, "doi")
    score = 1.0 if doi_match else round(sum(w for w, _ in found.values()) / len(cited), 4) if cited else 0.0
    return Candidate(work=work, score=score, confidence=_confidence(len(matched), len(cited), doi_match),
                     matched=matched, matched_fields=fields)


def rank_candidates(citation: str, works: Iterable[Work], floor: float = 0.5) -> list[Candidate]:
    """Candidates scoring at least ``floor``, best first (ties keep input order)."""
    scored: Sequence[Candidate] = [score_candidate(citation, work) for work in works]
    return sorted((c for c in scored if c.score >= floor), key=lambda c: -c.score)
