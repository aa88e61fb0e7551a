"""The entry filters (year range, tag, collection, has a PDF) as SQL conditions on the entry aliased ``e``.

No SQLAlchemy here: the search path imports this module."""
from __future__ import annotations


def filter_clauses(*, year_from: int | None = None, year_to: int | None = None, tag: str | None = None,
                   collection: str | None = None, has_pdf: bool | None = None,
                   entry_id: int | None = None) -> tuple[list[str], dict[str, object]]:
    """SQL conditions on the entry aliased ``e`` (to AND together) and their parameters; None means no filter."""
    clauses: list[str] = []
    params: dict[str, object] = {}
    if entry_id is not None:
        clauses.append("e.id = :entry_id")
        params["entry_id"] = entry_id
    if year_from is not None:
        clauses.append("e.year >= :year_from")
        params["year_from"] = year_from
    if year_to is not None:
        clauses.append("e.year <= :year_to")
        params["year_to"] = year_to
    if tag is not None:
        clauses.append("EXISTS (SELECT 1 FROM entry_tags et JOIN tags t ON t.id = et.tag_id "
                       "WHERE et.entry_id = e.id AND t.name = :tag)")
        params["tag"] = tag
    if collection is not None:
        clauses.append("EXISTS (SELECT 1 FROM collection_entries ce JOIN collections c ON c.id = ce.collection_id "
                       "WHERE ce.entry_id = e.id AND c.name = :collection)")
        params["collection"] = collection
    if has_pdf is not None:
        clauses.append(("" if has_pdf else "NOT ") +
                       "EXISTS (SELECT 1 FROM artefacts a WHERE a.entry_id = e.id AND a.kind = 'pdf')")
    return clauses, params
