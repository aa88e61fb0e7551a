"""Update notices: retractions, corrections, expressions of concern, as Crossref and OpenAlex state them.

Crossref links a work and the notices about it both ways: the work lists ``updated-by`` (the notice's
DOI, its ``type`` and date, and who asserted it: the ``publisher`` or ``retraction-watch``), and the
notice lists ``update-to`` (the DOI it updates). OpenAlex says only ``is_retracted``. A work's status
is the gravest notice that updates it; a notice itself is not retracted, it is a notice *for* a work.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Direction = Literal["updated-by", "update-to"]

# Crossref update types (https://www.crossref.org/documentation/crossmark/participating-in-crossmark/)
# grouped into the status a work they update has, gravest first. Types are compared after
# lower-casing and turning spaces and hyphens into underscores; any other type is an "updated" work.
STATUSES: tuple[tuple[str, frozenset[str]], ...] = (
    ("retracted", frozenset({"retraction"})),
    ("withdrawn", frozenset({"withdrawal", "removal"})),
    ("partially retracted", frozenset({"partial_retraction"})),
    ("expression of concern", frozenset({"expression_of_concern"})),
    ("corrected", frozenset({"correction", "corrigendum", "erratum"})),
)
UPDATED = "updated"
# Statuses that make a work unsafe to cite without saying so (exports and ``cite`` warn on these).
GRAVE = frozenset({"retracted", "withdrawn", "partially retracted", "expression of concern"})


def kind_of(value: object) -> str | None:
    """A Crossref update type as stored: lower case, words joined by underscores (None if empty)."""
    text = str(value or "").strip().lower().replace("-", "_").replace(" ", "_")
    return text or None


class UpdateNotice(BaseModel):
    """One update notice about an entry, as one source states it."""

    model_config = ConfigDict(extra="forbid")

    direction: Direction = Field(description="'updated-by': this work is updated by the notice ``doi``; "
                                 "'update-to': this work IS a notice updating ``doi``")
    kind: str = Field(description="the update type: retraction, correction, expression_of_concern, erratum, ...")
    doi: str | None = Field(default=None, description="the other work: the notice (updated-by) or the work "
                            "updated (update-to); None for OpenAlex's is_retracted flag")
    date: str | None = Field(default=None, description="when the update was made (ISO date, as precise as known)")
    label: str | None = Field(default=None, description="the source's own label, e.g. 'Correction'")
    asserted_by: str | None = Field(default=None, description="who stated it, per Crossref: publisher or "
                                    "retraction-watch")
    source: str = Field(description="the upstream source it was read from: crossref or openalex")
    fetched_at: str | None = Field(default=None, description="when doiget read it (set once stored)")

    def describe(self) -> str:
        """``retraction doi:10.1/x (2010-02-06, retraction-watch)``."""
        where = f" doi:{self.doi}" if self.doi else ""
        said = ", ".join(p for p in (self.date, self.asserted_by or self.source) if p)
        return f"{self.kind.replace('_', ' ')}{where} ({said})"


def status_of(notices: Iterable[UpdateNotice]) -> str | None:
    """The gravest status the notices updating a work give it, or None when nothing updates it."""
    return status_of_kinds({n.kind for n in notices if n.direction == "updated-by"})


def status_of_kinds(kinds: set[str]) -> str | None:
    """The gravest status the update kinds of the notices that update a work give it (None for none)."""
    if not kinds:
        return None
    for status, members in STATUSES:
        if kinds & members:
            return status
    return UPDATED


def warning(notices: Sequence[UpdateNotice]) -> str | None:
    """One line for a reader: the status and the notices behind it, or what the work is a notice for."""
    status = status_of(notices)
    if status is not None:
        members = next((m for s, m in STATUSES if s == status), None)
        behind = [n for n in notices if n.direction == "updated-by" and (members is None or n.kind in members)]
        return f"{status.upper()}: " + "; ".join(dict.fromkeys(n.describe() for n in behind))
    notes = [n for n in notices if n.direction == "update-to"]
    if notes:
        return "NOTICE: this is a " + "; ".join(dict.fromkeys(
            f"{n.kind.replace('_', ' ')} notice for doi:{n.doi}" for n in notes))
    return None


def citation_note(notices: Sequence[UpdateNotice]) -> str | None:
    """What an exported reference says of a retracted (withdrawn, ...) work, e.g. ``Retracted: see
    doi:10.1016/s0140-6736(10)60175-4 (2010-02-06)``; None unless the status is one of GRAVE."""
    status = status_of(notices)
    if status not in GRAVE:
        return None
    members = next(m for s, m in STATUSES if s == status)
    behind = [n for n in notices if n.direction == "updated-by" and n.kind in members]
    cited = list(dict.fromkeys(f"doi:{n.doi}" + (f" ({n.date})" if n.date else "") for n in behind if n.doi))
    if cited:
        return f"{status.capitalize()}: see {'; '.join(cited)}"
    return f"{status.capitalize()} (per {', '.join(dict.fromkeys(n.source for n in behind))})"
