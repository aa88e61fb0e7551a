"""The MCP tool table: every ``doiget_*`` tool, in the order tools/list shows them."""
from __future__ import annotations

import json

from doiget.mcp.tools.bibliography import BIBLIOGRAPHY_TOOLS
from doiget.mcp.tools.fetch import FETCH_TOOLS
from doiget.mcp.tools.fulltext import FULLTEXT_TOOLS
from doiget.mcp.tools.graph import GRAPH_TOOLS
from doiget.mcp.tools.local import LOCAL_TOOLS
from doiget.mcp.tools.spec import ToolSpec

TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in [*LOCAL_TOOLS, *FETCH_TOOLS, *FULLTEXT_TOOLS,
                                                           *BIBLIOGRAPHY_TOOLS, *GRAPH_TOOLS]}


def tools_markdown() -> str:
    """docs/MCP_TOOLS.md, generated from this table (``python scripts/gen_docs.py`` rewrites it)."""
    lines = ["# MCP tools", "", "Generated from `doiget/mcp/tools/` by `python scripts/gen_docs.py`; a test fails "
             "when this file and the live tool table disagree.", "",
             "Every tool answers `{ok: true, ...}` or `{ok: false, error: {code, message}}` (codes: "
             "[ERRORS.md](ERRORS.md)), as structuredContent and as a JSON text copy.", ""]
    for spec in TOOLS.values():
        hints = [name for name, on in (("read-only", spec.read_only), ("destructive", spec.destructive),
                                       ("idempotent", spec.idempotent), ("open-world", spec.open_world)) if on]
        lines += [f"## `{spec.name}` — {spec.title}", "", f"_{', '.join(hints) or 'writes'}_", "", spec.summary, ""]
        for label, body in (("When to use", spec.when), ("Inputs", spec.inputs_text()), ("Outputs", spec.outputs),
                            ("Costs", spec.costs), ("Side effects", spec.side_effects), ("Limits", spec.limits)):
            lines.append(f"- **{label}:** {body}")
        lines += ["", "<details><summary>inputSchema</summary>", "", "```json",
                  json.dumps(spec.input_schema(), indent=2), "```", "", "</details>", ""]
    return "\n".join(lines)
