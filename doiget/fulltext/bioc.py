"""PMC BioC JSON (``pmcoa.cgi/BioC_json/...``) -> sectioned text.

Passages carry ``infons.section_type`` (TITLE, ABSTRACT, INTRO, METHODS, ..., REF) and
``infons.type`` (front, abstract, title_1, title_2, paragraph, fig_caption, table, ...).
``front`` is the title, ``title_N`` types are headings, REF passages are dropped.
"""
from __future__ import annotations

from doiget import safejson
from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext.builder import TextBuilder, clean_inline
from doiget.fulltext.document import Document

_SKIPPED_SECTIONS = {"REF"}
_SKIPPED_TYPES = {"ref"}
_SECTION_NAMES = {"ABSTRACT": "Abstract"}


def extract_bioc(data: bytes) -> Document:
    """Extract the first document of a BioC JSON collection (or a bare collection object)."""
    payload = safejson.loads(data, "BioC")
    passages = _passages(payload)
    builder = TextBuilder()
    title = None
    last_section = None
    for passage in sorted(passages, key=_offset):
        infons = passage.get("infons")
        infons = infons if isinstance(infons, dict) else {}
        section, kind = str(infons.get("section_type") or ""), str(infons.get("type") or "")
        text = clean_inline(str(passage.get("text") or ""))
        if not text or section in _SKIPPED_SECTIONS or kind in _SKIPPED_TYPES:
            continue
        if kind == "front" and title is None:
            title = text
            builder.heading(text, 1)
        elif kind.startswith("title") or kind.endswith("_title_1"):
            builder.heading(text, 3 if kind.endswith("_2") or kind.endswith("_3") else 2)
        else:
            if section in _SECTION_NAMES and section != last_section:
                builder.heading(_SECTION_NAMES[section], 2)
            builder.paragraph(text)
        last_section = section
    return builder.build("bioc", title=title)


def _passages(payload: object) -> list[dict]:
    collection = payload[0] if isinstance(payload, list) and payload else payload
    try:
        passages = collection["documents"][0]["passages"]
    except (KeyError, IndexError, TypeError) as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, "BioC JSON has no documents[0].passages") from exc
    if not isinstance(passages, list):
        raise DoigetError(ErrorCode.INVALID_INPUT, "BioC passages is not a list")
    return [p for p in passages if isinstance(p, dict)]


def _offset(passage: dict) -> int:
    offset = passage.get("offset")
    return offset if isinstance(offset, int) and not isinstance(offset, bool) else 0
