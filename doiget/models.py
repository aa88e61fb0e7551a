"""Pydantic models shared by every layer: work metadata, library entries, results, envelopes."""
from __future__ import annotations

import json
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.notices import UpdateNotice
from doiget.refs import KINDS, Ref

ID_FIELDS = KINDS  # doi, arxiv, pmid, pmcid, openalex
# A Work's fields of one value each besides its identifiers (each an entries column), in the model's order.
SCALAR_FIELDS = ("title", "abstract", "venue", "year", "published", "type", "publisher", "volume", "issue",
                 "pages", "url", "license", "language", "oa_status", "oa_url", "cited_by_count")
COLUMNS = ID_FIELDS + SCALAR_FIELDS  # a Work's fields of one value each: the entries columns that hold them
IMPORT_SOURCE = "import"  # the source of an imported bibliography record: the user's own metadata
ET_AL = "bibtex-others"  # Work.extra: the BibTeX name fields whose list ended in "and others" (et al.)
# Work.extra keys spelling the work's type in one format (an @article kept as such, RIS's SER): they go with the
# type, so a merge takes them only from a record of the same type.
TYPE_AS_WRITTEN = frozenset({"bibtex-type", "ris-type"})


def spells_other_type(name: str, onto: str | None, given: str | None) -> bool:
    """Whether ``extra`` key ``name`` of a record of type ``given`` spells a type a merge into a work of type
    ``onto`` must not take (:data:`TYPE_AS_WRITTEN`)."""
    return name in TYPE_AS_WRITTEN and bool(onto) and given != onto


def cut_short(extra: dict[str, Any] | None, field: str = "author") -> bool:
    """Whether the name list ``field`` (a BibTeX name field) ended in "and others" (et al.): more
    people made the work than its record names."""
    return bool(extra) and field in (extra.get(ET_AL) or ())


class Author(BaseModel):
    """One person (or organisation) named on a work, spelled as that work's record spells it; ``name``
    is always set for display. The parts follow CSL: ``particle`` is the non-dropping particle
    ("van" in "van Gogh"), ``dropping_particle`` the one sorted with the given name ("de" in
    "Jean de La Fontaine"); ``literal`` marks a name not to be split (an organisation)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    family: str | None = None
    given: str | None = None
    particle: str | None = None
    dropping_particle: str | None = None
    suffix: str | None = None
    literal: bool = False
    orcid: str | None = None
    affiliation: str | None = None

    @classmethod
    def from_parts(cls, family: str | None = None, given: str | None = None, name: str | None = None,
                   **extra: Any) -> "Author":
        family = (family or "").strip() or None
        given = (given or "").strip() or None
        display = (name or "").strip() or " ".join(p for p in (given, family) if p)
        if not family and not given and display:
            return cls(name=display, **_display_parts(display.split()), **extra)
        return cls(name=display or "Anonymous", family=family, given=given, **extra)


_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})


def _display_parts(words: list[str]) -> dict[str, str | None]:
    """Parts of a name written given name first (``Ludwig van der Waals``, ``Martin Luther King, Jr.``):
    the family name is the last word, after any lower-case particles, before any suffix."""
    suffix = None
    if len(words) > 2 and words[-1].rstrip(".").lower() in _SUFFIXES:
        suffix, words = words[-1], [*words[:-2], words[-2].rstrip(",")]
    start = len(words) - 1
    while start > 1 and words[start - 1].isalpha() and words[start - 1].islower():
        start -= 1
    return {"given": " ".join(words[:start]) or None, "particle": " ".join(words[start:-1]) or None,
            "family": words[-1], "suffix": suffix}


class Work(BaseModel):
    """Metadata of one scholarly work, as resolved from one or more sources."""

    model_config = ConfigDict(extra="forbid")

    doi: str | None = None
    arxiv: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    openalex: str | None = None
    title: str | None = None
    abstract: str | None = None
    authors: list[Author] = Field(default_factory=list)
    venue: str | None = None
    year: int | None = None
    published: str | None = None
    type: str | None = None
    publisher: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    url: str | None = None
    license: str | None = None
    language: str | None = None
    oa_status: str | None = None
    oa_url: str | None = None
    cited_by_count: int | None = None
    contributors: dict[str, list[Author]] = Field(
        default_factory=dict, description="names in roles other than author, by CSL variable: editor, "
        "translator, container-author, collection-editor, ...")
    citekey: str | None = Field(default=None, description="the citation key (BibTeX key / CSL citation-key)")
    extra: dict[str, Any] = Field(
        default_factory=dict, description="every other field, kept for export: CSL variables by their CSL "
        "name (ISBN, publisher-place, note, accessed, ...), BibTeX fields without a CSL variable under "
        "'bibtex', the original BibTeX entry type under 'bibtex-type'")
    # Filled by the upstream parsers; adding a work stores them as citation edges. A stored Entry
    # never carries them (the list is empty): its references are the graph's edges (Library.related,
    # connect, graph_export).
    references: list[str] = Field(default_factory=list, description=(
        "cited works as ref strings, e.g. 'doi:10.1/x', as an upstream source lists them; empty on a stored "
        "entry, whose references are citation edges (see related, connect, graph_export)"))
    sources: list[str] = Field(default_factory=list, description="which upstream sources contributed")
    updates: list[UpdateNotice] | None = Field(default=None, description=(
        "retraction, correction and other update notices (Crossref updated-by/update-to, OpenAlex "
        "is_retracted); None when no source that states them was asked"))

    @property
    def authors_cut_short(self) -> bool:
        """Whether the author list ended in "and others" (et al.): more people made the work."""
        return cut_short(self.extra)

    def names_by_role(self) -> list[tuple[str, list[Author]]]:
        """Each role's names, CSL role → persons: the authors first, then :attr:`contributors`."""
        return [("author", self.authors), *self.contributors.items()]

    def ids(self) -> dict[str, str]:
        """The canonical identifiers this work carries, kind → id."""
        return {kind: value for kind in ID_FIELDS if (value := getattr(self, kind))}

    def refs(self) -> list[Ref]:
        return [Ref.of(kind, value) for kind, value in self.ids().items()]

    def primary_ref(self) -> Ref:
        refs = self.refs()
        if not refs:
            raise DoigetError(ErrorCode.INVALID_INPUT, "work has no identifier (doi, arxiv, pmid, pmcid or openalex)")
        return refs[0]

    def merged(self, other: "Work") -> "Work":
        """This work with every empty field filled from ``other`` (this one wins on conflicts)."""
        data = self.model_dump()
        for key, value in other.model_dump().items():
            if key == "sources":
                data[key] = list(dict.fromkeys(data[key] + value))
            elif key == "references":
                data[key] = list(dict.fromkeys(data[key] + value))
            elif key == "updates":  # None (not asked) yields to a list; two lists are joined
                if data[key] is None or value is None:
                    data[key] = value if data[key] is None else data[key]
                else:
                    data[key] = list({json.dumps(n, sort_keys=True): n for n in data[key] + value}.values())
            elif key == "extra":
                data[key] = {**{k: v for k, v in value.items() if not spells_other_type(k, self.type, other.type)},
                             **data[key]}
            elif key == "contributors":
                data[key] = {**value, **data[key]}
            elif data.get(key) in (None, "", []):
                data[key] = value
        return Work.model_validate(data)


class Artefact(BaseModel):
    kind: str
    sha256: str
    size: int
    mime: str | None = None
    source: str | None = None
    url: str | None = None
    created_at: str


class Entry(Work):
    """A work as stored in the library, with its local state."""

    model_config = ConfigDict(extra="forbid")

    id: int
    tags: list[str] = Field(default_factory=list)
    collections: list[str] = Field(default_factory=list)
    annotation: str | None = None
    has_pdf: bool = False
    is_stub: bool = False
    artefacts: list[Artefact] = Field(default_factory=list)
    created_at: str
    updated_at: str

    @property
    def ref(self) -> Ref:
        return self.primary_ref()

    @property
    def ref_label(self) -> str:
        """How to name this entry: its canonical ref, or ``#<id>`` for an entry known only by its title
        (an imported PDF without identifiers); the Library accepts both."""
        from doiget.present import label

        return label(self.ids(), self.id)

    def __repr__(self) -> str:
        from doiget.reprs import short

        first = self.authors[0].name if self.authors else "?"
        who = first + (" et al." if len(self.authors) > 1 or self.authors_cut_short else "")
        return f"<Entry {self.ref_label} {who} ({self.year or 'n.d.'}) {short(self.title)!r}>"

    def _repr_html_(self) -> str:
        from doiget.reprs import entry_html

        return entry_html(self)


class SearchHit(BaseModel):
    id: int
    ref: str
    title: str | None
    authors: list[str]
    year: int | None
    venue: str | None
    tags: list[str]
    has_pdf: bool
    score: float = Field(description="bm25 rank, lower is better")
    snippet: str
    update_status: str | None = Field(default=None, description="retracted, withdrawn, partially retracted, "
                                      "expression of concern, corrected or updated, when a notice updates it")
    fulltext: "ChunkMatch | None" = Field(default=None, description="best matching passage of the paper's text "
                                          "(only with include_fulltext)")

    def __repr__(self) -> str:
        from doiget.reprs import short

        return f"<SearchHit {self.ref} ({self.year or 'n.d.'}) {short(self.title)!r} score={self.score:.3g}>"


class ChunkMatch(BaseModel):
    """Where a full-text query matched inside a paper: read on with ``text(ref, format, offset=char_start)``."""

    format: str = Field(description="artefact kind the text was extracted from: html, jats, bioc, pdf, tex")
    heading: str | None
    page: int | None = Field(description="1-based PDF page (PDF text only)")
    char_start: int
    char_end: int
    score: float = Field(description="bm25 rank, lower is better")
    snippet: str


class TextHit(ChunkMatch):
    """A full-text search hit: one passage of one paper."""

    id: int
    ref: str
    title: str | None
    year: int | None

    def __repr__(self) -> str:
        from doiget.reprs import short

        where = f"p. {self.page}" if self.page else f"offset {self.char_start}"
        return f"<TextHit {self.ref} {where} {short(self.snippet.replace('**', ''), 60)!r}>"


def ok(**data: Any) -> dict[str, Any]:
    """A success envelope: ``{"ok": true, ...data}``."""
    return {"ok": True, **data}


def failure(error: DoigetError) -> dict[str, Any]:
    """A failure envelope: ``{"ok": false, "error": {"code", "message"}}``."""
    return {"ok": False, "error": error.to_dict()}


class Anchor(BaseModel):
    """Where in the paper a note points: a page, a character range of the extracted text, a quote."""

    model_config = ConfigDict(extra="forbid", strict=True)

    page: Annotated[int, Field(ge=1, le=limits.MAX_PDF_PAGE)] | None = None
    start: Annotated[int, Field(ge=0, le=1_000_000_000)] | None = None
    end: Annotated[int, Field(ge=0, le=1_000_000_000)] | None = None
    quote: Annotated[str, Field(min_length=1, max_length=limits.MAX_QUOTE)] | None = None

    @model_validator(mode="after")
    def _coherent(self) -> Anchor:
        if self.page is None and self.start is None and self.end is None and self.quote is None:
            raise ValueError("an anchor needs at least one of page, start, end, quote")
        if self.start is not None and self.end is not None and self.end < self.start:
            raise ValueError("anchor end is before its start")
        return self


Model = TypeVar("Model", bound=BaseModel)
_new = object.__new__
# The setters of a model's four slots, called directly (object.__setattr__ would look each up per call).
_set_dict, _set_fields_set, _set_extra, _set_private = (vars(BaseModel)[slot].__set__ for slot in (
    "__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))


def unvalidated(cls: type[Model], values: dict[str, Any], fields_set: set[str]) -> Model:
    """The ``cls`` instance validation would make of ``values`` (every field, in field order, already of
    its type), made without validating, as ``model_construct`` does but without its per-field bookkeeping:
    for values read from the store or made typed by a reader. Each caller tests its results equal
    validated ones."""
    model = _new(cls)
    _set_dict(model, values)
    _set_fields_set(model, fields_set)
    _set_extra(model, None)
    _set_private(model, None)
    return model
