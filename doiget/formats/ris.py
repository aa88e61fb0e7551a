"""RIS export (the tagged format EndNote, Zotero, Mendeley and most databases read)."""
from __future__ import annotations

import re
from collections.abc import Sequence

from doiget.models import Work
from doiget.notices import citation_note

RIS_TYPES = {
    "article-journal": "JOUR", "article-magazine": "MGZN", "article-newspaper": "NEWS", "review": "JOUR",
    "paper-conference": "CONF", "chapter": "CHAP", "entry-encyclopedia": "ENCYC", "entry-dictionary": "DICT",
    "book": "BOOK", "thesis": "THES", "report": "RPRT", "dataset": "DATA", "webpage": "ELEC",
    "manuscript": "UNPB", "software": "COMP", "patent": "PAT",
}
_RANGE = re.compile(r"^\s*(\S+?)\s*(?:-+|[\u2010-\u2015])\s*(\S+)\s*$")


def ris_type(work: Work) -> str:
    """The RIS ``TY`` of ``work``: ``GEN`` for preprints and anything without a closer RIS type."""
    return RIS_TYPES.get(work.type or "", "GEN")


def _record(work: Work) -> list[tuple[str, str | None]]:
    lines = [("TY", ris_type(work))]
    lines += [("AU", f"{a.family}, {a.given}" if a.family and a.given else a.family or a.name) for a in work.authors]
    lines += [("TI", work.title), ("T2", work.venue), ("PY", str(work.year) if work.year else None),
              ("VL", work.volume), ("IS", work.issue)]
    if work.pages:
        span = _RANGE.match(work.pages)
        lines += [("SP", span.group(1)), ("EP", span.group(2))] if span else [("SP", work.pages)]
    lines += [("PB", work.publisher), ("DO", work.doi), ("UR", work.url), ("AB", work.abstract)]
    lines += [("AN", f"{kind}:{value}") for kind, value in work.ids().items() if kind != "doi"]
    lines.append(("N1", citation_note(work.updates or [])))  # a retracted (withdrawn, ...) work says so
    return lines


def to_ris(works: Sequence[Work]) -> str:
    """RIS records for ``works``, one ``TY`` ... ``ER`` block each; values are folded onto one line."""
    out = []
    for work in works:
        out += [f"{tag}  - {' '.join(value.split())}" for tag, value in _record(work) if value]
        out += ["ER  - ", ""]
    return "\n".join(out)
