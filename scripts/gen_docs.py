"""Regenerate docs/MCP_TOOLS.md and doiget/mcp/tools_list.json (what tools/list answers) from the live
MCP tool table."""
from pathlib import Path

from doiget.mcp.listing import LISTING, listing_json
from doiget.mcp.tools import tools_markdown

target = Path(__file__).resolve().parent.parent / "docs" / "MCP_TOOLS.md"
for path, text in ((target, tools_markdown()), (LISTING, listing_json())):
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
