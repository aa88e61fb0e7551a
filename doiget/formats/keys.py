"""Stable citation keys of the form ``authorYEARword`` (e.g. ``makris2014developing``)."""
from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import count, product
from string import ascii_lowercase

from doiget.models import Work
from doiget.text import ascii_fold

STOP_WORDS = frozenset(
    "a an and are as at by for from in into is it its of on or the to with about after against among "
    "between de der die das des du la le les el los un une et von van onto over under via".split()
)
_NOT_KEY_CHAR = re.compile(r"[^a-z0-9]+")


def _slug(text: str) -> str:
    return _NOT_KEY_CHAR.sub("", ascii_fold(text).lower())


def _author_part(work: Work) -> str:
    if not work.authors:
        return "anon"
    first = work.authors[0]
    return _slug(first.family or first.name) or "anon"


def _title_word(work: Work) -> str:
    for word in (work.title or "").split():
        slug = _slug(word)
        if slug and slug not in STOP_WORDS:
            return slug
    return ""


def citation_key(work: Work) -> str:
    """The undeduplicated key: first author's family name, year ("nd" if unknown), first significant title word."""
    year = str(work.year) if work.year else "nd"
    return f"{_author_part(work)}{year}{_title_word(work)}"


def _suffixes() -> Iterator[str]:
    for width in count(1):
        for letters in product(ascii_lowercase, repeat=width):
            yield "".join(letters)


def citation_keys(works: Sequence[Work]) -> list[str]:
    """One unique key per work, in input order; a repeated key gets a, b, c ... from its second use on."""
    bases = [citation_key(work) for work in works]
    taken = set(bases)
    seen: set[str] = set()
    keys = []
    for base in bases:
        key = base
        if base in seen:
            key = next(base + s for s in _suffixes() if base + s not in taken)
        taken.add(key)
        seen.add(base)
        keys.append(key)
    return keys
