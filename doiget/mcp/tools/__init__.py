"""The MCP tool table ``TOOLS``: every ``doiget_*`` tool, in the order tools/list shows them.

The table is built on first access of ``TOOLS``: its modules and their pydantic models were most of what
``doiget serve`` did at start besides the SDK's import, so the server imports this package's helpers
(``access``, ``resources``) without it, answers tools/list from ``doiget/mcp/listing.py``'s snapshot, and
builds the table at the first tool call.
"""
from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from doiget.mcp.tools.spec import ToolSpec

    TOOLS: dict[str, ToolSpec]


def __getattr__(name: str) -> Any:
    if name == "TOOLS":
        return tool_table()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def tool_table() -> dict[str, ToolSpec]:
    """``TOOLS``: name -> spec, in tools/list order."""
    from doiget.mcp.tools.bibliography import BIBLIOGRAPHY_TOOLS
    from doiget.mcp.tools.fetch import FETCH_TOOLS
    from doiget.mcp.tools.fulltext import FULLTEXT_TOOLS
    from doiget.mcp.tools.graph import GRAPH_TOOLS
    from doiget.mcp.tools.local import LOCAL_TOOLS

    return {spec.name: spec for spec in [*LOCAL_TOOLS, *FETCH_TOOLS, *FULLTEXT_TOOLS, *BIBLIOGRAPHY_TOOLS,
                                         *GRAPH_TOOLS]}


def tools_markdown() -> str:
    """docs/MCP_TOOLS.md, generated from this table (``python scripts/gen_docs.py`` rewrites it)."""
    lines = ["# MCP tools", "", "Generated from `doiget/mcp/tools/` by `python scripts/gen_docs.py`; a test fails "
             "when this file and the live tool table disagree.", "",
             "Every tool answers `{ok: true, ...}` or `{ok: false, error: {code, message}}` (codes: "
             "[ERRORS.md](ERRORS.md)), as structuredContent and as a JSON text copy.", ""]
    for spec in tool_table().values():
        hints = [name for name, on in (("read-only", spec.read_only), ("destructive", spec.destructive),
                                       ("idempotent", spec.idempotent), ("open-world", spec.open_world)) if on]
        lines += [f"## `{spec.name}` — {spec.title}", "", f"_{', '.join(hints) or 'writes'}_", "", spec.summary, ""]
        for label, body in (("When to use", spec.when), ("Inputs", spec.inputs_text()), ("Outputs", spec.outputs),
                            ("Costs", spec.costs), ("Side effects", spec.side_effects), ("Limits", spec.limits)):
            lines.append(f"- **{label}:** {body}")
        lines += ["", "<details><summary>inputSchema</summary>", "", "```json",
                  json.dumps(spec.input_schema(), indent=2), "```", "", "</details>", ""]
    return "\n".join(lines)
