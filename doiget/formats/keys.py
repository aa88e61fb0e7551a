"""Citation keys in Better BibTeX's default form ``[auth:lower][shorttitle3_3][year]``
(e.g. ``goodfellowDeepLearning2016``). A library entry gets its key once, when it is added, and
keeps it (``entries.citekey``); these functions only make new ones."""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any
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
    people = work.authors or work.contributors.get("editor") or []
    if not people:
        return "anon"
    first = people[0]
    return _slug(first.family or first.name) or "anon"


def _title_words(work: Work) -> str:
    words = [slug for slug in (_slug(w) for w in (work.title or "").split()) if slug and slug not in STOP_WORDS]
    return "".join(w[:1].upper() + w[1:] for w in words[:3])


def citation_key(work: Work) -> str:
    """The undeduplicated key: first author's family name, first three significant title words, year."""
    return f"{_author_part(work)}{_title_words(work)}{work.year or ''}"


def _suffixes() -> Iterator[str]:
    for width in count(1):
        for letters in product(ascii_lowercase, repeat=width):
            yield "".join(letters)


def citation_keys(works: Sequence[Work], taken: Iterable[str] = ()) -> list[str]:
    """One unique key per work, in input order, none of them in ``taken`` (compared case-insensitively,
    as BibTeX does); a repeated key gets a, b, c ... from its second use on."""
    used = {key.lower() for key in taken}
    keys = []
    for work in works:
        key = unique_key(citation_key(work), used)
        used.add(key.lower())
        keys.append(key)
    return keys


def unique_key(key: str, taken: set[str]) -> str:
    """``key``, or ``key`` with the first free suffix a, b, ... when ``taken`` (lower-cased keys) has it."""
    if key.lower() not in taken:
        return key
    return next(key + s for s in _suffixes() if (key + s).lower() not in taken)


def key_aliases(extra: Mapping[str, Any]) -> list[str]:
    """The citation keys an entry answers to besides its own (biblatex ``ids``, in ``extra["bibtex"]``:
    the keys of records merged into it)."""
    ids = (extra.get("bibtex") or {}).get("ids")
    return [key.strip() for key in ids.split(",") if key.strip()] if isinstance(ids, str) else []


def with_key_alias(extra: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``extra`` whose biblatex ``ids`` hold ``key`` too (once, after the aliases it had)."""
    bibtex = dict(extra.get("bibtex") or {})
    bibtex["ids"] = ",".join(dict.fromkeys([*key_aliases(extra), key]))
    return {**extra, "bibtex": bibtex}
