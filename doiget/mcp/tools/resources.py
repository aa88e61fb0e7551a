"""MCP resources: a paper's metadata and a page of its text, addressed by the entry's local id.

``doiget://entry/{id}/metadata`` is the entry as JSON; ``doiget://entry/{id}/text?offset=&max_chars=``
is a page of its full text as Markdown, with the paging fields (next_offset, next_uri, total_chars,
content_sha256, ...) in the contents' ``_meta``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from doiget import limits
from doiget.errors import DoigetError, ErrorCode
from doiget.mcp.tools.paging import decode, page, window_size
from doiget.present import entry_dict, to_json

if TYPE_CHECKING:
    from doiget.library import Library

DEFAULT_MAX_CHARS = 15000
MAX_CHARS = limits.MAX_TEXT_CHARS
_PATH = re.compile(r"/(\d{1,18})/(metadata|text)")


@dataclass(frozen=True)
class Template:
    name: str
    uri_template: str
    mime_type: str
    description: str


TEMPLATES = [
    Template("entry-metadata", "doiget://entry/{id}/metadata", "application/json",
             "Stored metadata of the library entry with this local id (the `id` in tool results)."),
    Template("entry-text", "doiget://entry/{id}/text{?offset,max_chars}", "text/markdown",
             "A page of the entry's full text (Markdown headings), from offset, at most max_chars "
             f"(default {DEFAULT_MAX_CHARS}, at most {MAX_CHARS}); _meta carries next_offset and next_uri."),
]


def metadata_uri(entry_id: int) -> str:
    return f"doiget://entry/{entry_id}/metadata"


def text_uri(entry_id: int, offset: int = 0, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    query: dict[str, int] = {}
    if offset:
        query["offset"] = offset
    if max_chars != DEFAULT_MAX_CHARS:
        query["max_chars"] = max_chars
    return f"doiget://entry/{entry_id}/text" + (f"?{urlencode(query)}" if query else "")


RESOURCES_PER_PAGE = 100
_LISTING_SCOPE = "resources/list"


def list_resources(library: Library, cursor: str | None) -> tuple[list[dict[str, Any]], str | None]:
    """One page of resources/list: the metadata resource of each entry, newest first, and the next cursor."""
    offset = decode(cursor, _LISTING_SCOPE)
    window = library.recent(window_size(offset, RESOURCES_PER_PAGE))
    shown, next_cursor = page(window, offset, RESOURCES_PER_PAGE, _LISTING_SCOPE, size=lambda _: 1)
    return [{"uri": metadata_uri(e.id), "name": e.ref_label, "title": e.title, "mime_type": "application/json"}
            for e in shown], next_cursor


def read_resource(library: Library, uri: str) -> tuple[str, str, dict[str, Any] | None]:
    """(mime type, text, _meta) of the resource at ``uri``; INVALID_INPUT for a URI doiget does not serve."""
    parts = urlsplit(uri)
    match = _PATH.fullmatch(parts.path)
    if parts.scheme != "doiget" or parts.netloc != "entry" or not match:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown resource {uri[:200]!r}; templates: "
                          + ", ".join(t.uri_template for t in TEMPLATES))
    entry_id, what = int(match.group(1)), match.group(2)
    query = _query(parts.query) if what == "text" else {}
    if what == "metadata":
        if parts.query:
            raise DoigetError(ErrorCode.INVALID_INPUT, "the metadata resource takes no parameters")
        return "application/json", json.dumps(entry_dict(library.info(entry_id)), ensure_ascii=False), None
    page = to_json(library.text(entry_id, offset=query.get("offset", 0),
                                max_chars=query.get("max_chars", DEFAULT_MAX_CHARS)))
    body = page.pop("text")
    page["next_uri"] = None if page["next_offset"] is None else text_uri(
        entry_id, page["next_offset"], query.get("max_chars", DEFAULT_MAX_CHARS))
    return "text/markdown", body, page


def _query(raw: str) -> dict[str, int]:
    values: dict[str, int] = {}
    for key, value in parse_qsl(raw, keep_blank_values=True):
        if key not in ("offset", "max_chars") or not value.isdigit() or len(value) > 16:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"bad resource parameter {key}={value[:40]!r}: "
                              "offset and max_chars take non-negative integers")
        values[key] = int(value)
    if not 1 <= values.get("max_chars", DEFAULT_MAX_CHARS) <= MAX_CHARS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"max_chars must be from 1 to {MAX_CHARS}")
    return values
