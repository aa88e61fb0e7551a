"""Formatted references of library entries (the façade's ``cite``)."""
from __future__ import annotations

from typing import Any

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.cite import format_references
from doiget.notices import GRAVE

MAX_CITE_REFS = 500


def cite(lib: Any, refs: list, style: str, fmt: str) -> dict[str, Any]:
    """``{style, format, references}``: the entries' CSL-JSON export rendered in ``style``."""
    if not isinstance(refs, list) or not 1 <= len(refs) <= MAX_CITE_REFS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"give 1 to {MAX_CITE_REFS} refs to cite")
    items = lib.export("csl-json", refs=refs)
    result = {"style": style, "format": fmt, "references": format_references(items, style, fmt)}
    flagged = [f"{item.get('DOI') or item['id']}: {item['status']}" for item in items if item.get("status") in GRAVE]
    return {**result, "warnings": flagged} if flagged else result
