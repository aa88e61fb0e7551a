"""The MCP schemas and the façade read one limit table: each bound the schema declares is the value
the Library enforces (the largest value passes the façade's check, one more is refused)."""
from __future__ import annotations

import pytest

from doiget import DoigetError, ErrorCode, Work, limits, open_library
from doiget.mcp.tools import TOOLS

SCHEMA_BOUNDS = [  # (tool, argument, schema keyword, limit)
    ("doiget_list_recent", "n", "maximum", limits.MAX_RECENT),
    ("doiget_search_local", "limit", "maximum", limits.MAX_SEARCH_HITS),
    ("doiget_search_fulltext", "limit", "maximum", limits.MAX_SEARCH_HITS),
    ("doiget_paper_text", "max_chars", "maximum", limits.MAX_TEXT_CHARS),
    ("doiget_paper_text", "offset", "maximum", limits.MAX_OFFSET),
    ("doiget_paper_tex_source", "max_chars", "maximum", limits.MAX_TEXT_CHARS),
    ("doiget_related", "limit", "maximum", limits.MAX_RELATED),
    ("doiget_related", "refs", "maxItems", limits.MAX_GRAPH_SEEDS),
    ("doiget_literature_review", "limit", "maximum", limits.MAX_REVIEW_ITEMS),
    ("doiget_connect", "max_paths", "maximum", limits.MAX_PATHS),
    ("doiget_paper_search", "per_page", "maximum", limits.MAX_PER_PAGE),
    ("doiget_resolve_citation", "citation", "maxLength", limits.MAX_CITATION),
    ("doiget_resolve_citation", "limit", "maximum", limits.MAX_CITATION_CANDIDATES),
    ("doiget_batch_resolve_citations", "citations", "maxItems", limits.MAX_CITATIONS),
    ("doiget_note_search", "limit", "maximum", limits.MAX_NOTE_HITS),
    ("doiget_note_search", "offset", "maximum", limits.MAX_NOTE_OFFSET),
    ("doiget_note_create", "body", "maxLength", limits.MAX_NOTE_BODY),
    ("doiget_expand_citation_graph", "max_nodes", "maximum", limits.MAX_EXPANSION_NODES),
    ("doiget_expand_citation_graph", "max_requests", "maximum", limits.MAX_EXPANSION_REQUESTS),
    ("doiget_add_pdf", "content_base64", "maxLength", 4 * -(-limits.MAX_PDF_BYTES // 3)),
]


@pytest.mark.parametrize("tool, argument, keyword, limit", SCHEMA_BOUNDS)
def test_schema_declares_the_table_value(tool, argument, keyword, limit):
    assert TOOLS[tool].input_schema()["properties"][argument][keyword] == limit


def test_the_facade_enforces_the_same_values(tmp_path):
    with open_library(tmp_path) as lib:
        entry = lib.add(Work(doi="10.1234/lim", title="limits"))
        at_limit = [lambda: lib.recent(limits.MAX_RECENT), lambda: lib.search("limits", limits.MAX_SEARCH_HITS),
                    lambda: lib.related([entry.id], limit=limits.MAX_RELATED),
                    lambda: lib.note_search(limit=limits.MAX_NOTE_HITS, offset=limits.MAX_NOTE_OFFSET)]
        over = [lambda: lib.recent(limits.MAX_RECENT + 1), lambda: lib.search("limits", limits.MAX_SEARCH_HITS + 1),
                lambda: lib.related([entry.id], limit=limits.MAX_RELATED + 1),
                lambda: lib.literature_review([entry.id], limit=limits.MAX_REVIEW_ITEMS + 1),
                lambda: lib.connect(entry.id, entry.id, limits.MAX_PATHS + 1),
                lambda: lib.text(entry.id, max_chars=limits.MAX_TEXT_CHARS + 1),
                lambda: lib.note_search(limit=limits.MAX_NOTE_HITS + 1)]
        for call in at_limit:
            call()
        for call in over:
            with pytest.raises(DoigetError) as err:
                call()
            assert err.value.code is ErrorCode.INVALID_INPUT
