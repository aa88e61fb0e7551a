"""How results are shown, shared by the adapters (MCP tools and CLI): the one ``label()`` of an entry
and the JSON shapes of entries, fetch results, batches and remote works."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doiget.refs import KINDS


def label(ids: Mapping[str, Any], entry_id: int) -> str:
    """How to name an entry: ``kind:id`` of its first identifier (doi, arxiv, pmid, pmcid, openalex),
    else ``#<id>`` (an imported PDF without identifiers); the Library accepts both.
    :data:`REF_SQL` spells the same rule in SQL (a test keeps them equal)."""
    kind = next((k for k in KINDS if ids.get(k)), None)
    return f"{kind}:{ids[kind]}" if kind else f"#{entry_id}"


# label() of the entry aliased ``e``, computed in SQL.
REF_SQL = ("coalesce('doi:' || e.doi, 'arxiv:' || e.arxiv, 'pmid:' || e.pmid, 'pmcid:' || e.pmcid, "
           "'openalex:' || e.openalex, '#' || e.id)")


def to_json(value: Any) -> Any:
    """A Library result as JSON-ready data: the adapters' one dumping path. A result model gives the
    fields it holds (``as_json``), a stored entry its :func:`entry_dict`, another model its full dump,
    an ``SqlResult`` its dict; dicts and lists are walked. Imports nothing (CLI start-up)."""
    if hasattr(value, "ref_label"):  # a stored Entry
        return entry_dict(value)
    if hasattr(value, "as_json"):  # a doiget.results model
        return value.as_json()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "to_dict"):  # SqlResult
        return value.to_dict()
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value


def entry_dict(entry) -> dict[str, Any]:
    """An Entry as a compact JSON-able dict (null fields left out) with its label as ``ref``, and
    ``update_status``/``update_warning`` when a notice updates it (or it is itself a notice)."""
    return {**entry.model_dump(mode="json", exclude_none=True), "ref": entry.ref_label, **update_fields(entry)}


def update_fields(entry) -> dict[str, Any]:
    """``{update_status, update_warning}`` of an entry (retracted, corrected, ...); empty when none applies."""
    from doiget.notices import status_of, warning  # on use: the CLI imports this module before pydantic

    notices = entry.updates or []
    text = warning(notices)
    if text is None:
        return {}
    status = status_of(notices)
    return {**({"update_status": status} if status else {}), "update_warning": text}


def is_grave(status: str | None) -> bool:
    """Whether an update status (retracted, withdrawn, partially retracted, expression of concern)
    makes a work unsafe to cite without saying so; a correction does not."""
    from doiget.notices import GRAVE

    return status in GRAVE


def fetch_json(result: Any, brief: bool = False) -> dict[str, Any]:
    """A fetch or plan result (or batch row) as JSON (``brief``: its entry as ref, title and year only)."""
    data = to_json(result)
    entry = data.get("entry")
    if brief and entry is not None:
        data["entry"] = {"ref": entry["ref"], "title": entry.get("title"), "year": entry.get("year")}
    return data


def batch_json(batch: Any) -> dict[str, Any]:
    """A batch result with each entry in brief."""
    data = to_json(batch)
    return {"summary": data["summary"], "results": [fetch_json(r, brief=True) for r in data["results"]]}


def work_json(work) -> dict[str, Any]:
    """A remote work (not stored) as JSON, its reference list replaced by its length."""
    data = work.model_dump(mode="json", exclude_none=True, exclude={"references"})
    return {**data, "references_count": len(work.references)}
