"""The docs describe the code as it is."""
from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from doiget import ErrorCode, open_library
from doiget.mcp.tools import tools_markdown

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_mcp_tools_doc_matches_live_tool_table():
    assert (DOCS / "MCP_TOOLS.md").read_text(encoding="utf-8") == tools_markdown(), \
        "run `python scripts/gen_docs.py`"


def test_errors_doc_lists_exactly_the_error_codes():
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", (DOCS / "ERRORS.md").read_text(), re.M))
    assert documented == {code.value for code in ErrorCode}


def test_schema_doc_names_every_table_and_view(tmp_path):
    open_library(tmp_path).close()
    conn = sqlite3.connect(tmp_path / "library.sqlite3")
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                                        "AND name NOT LIKE '%fts_%' AND name NOT LIKE 'sqlite_%'")}
    documented = set(re.findall(r"^### `(\w+)`", (DOCS / "SCHEMA.md").read_text(), re.M))
    assert names == documented
