"""Regenerate docs/MCP_TOOLS.md from the live MCP tool table."""
from pathlib import Path

from doiget.mcp.tools import tools_markdown

target = Path(__file__).resolve().parent.parent / "docs" / "MCP_TOOLS.md"
target.write_text(tools_markdown(), encoding="utf-8")
print(f"wrote {target}")
