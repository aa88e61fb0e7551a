"""tools/list without the tool table: ``doiget serve`` answers it from ``tools_list.json``, the tool
definitions (name, description, inputSchema, annotations) and the tools each profile enables, written
from the live table in ``doiget/mcp/tools/`` by ``python scripts/gen_docs.py``.

Importing the table (its pydantic input models, the library and result models they refer to) and
generating the schemas was most of what the server did at start beyond the SDK's own import; the
table is now imported by the first tool call. ``tests/test_mcp_listing.py`` fails when the file and
the table disagree.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mcp_types as types

from doiget.config import PROFILES, Config

if TYPE_CHECKING:
    from doiget.mcp.tools.spec import ToolSpec

LISTING = Path(__file__).with_name("tools_list.json")


def listed_tools(config: Config) -> list[types.Tool]:
    """The tools tools/list shows under ``config``'s profile, in the table's order."""
    listing = json.loads(LISTING.read_text(encoding="utf-8"))
    enabled = set(listing["profiles"][config.profile])
    return [types.Tool.model_validate(tool) for tool in listing["tools"] if tool["name"] in enabled]


def tool_definition(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        description=spec.description(),
        input_schema=spec.input_schema(),
        annotations=types.ToolAnnotations(**hints(spec)),
    )


def hints(spec: ToolSpec) -> dict[str, bool]:
    """The tool's annotations, each sent only where it differs from the MCP default (readOnly false,
    destructive true, idempotent false, openWorld true) or is meaningful (destructive and idempotent
    only for tools that write): a client reading the defaults sees the same four answers."""
    if spec.read_only:
        return {"read_only_hint": True, "open_world_hint": spec.open_world}
    sent = {"destructive_hint": spec.destructive, "open_world_hint": spec.open_world}
    return {**sent, "idempotent_hint": True} if spec.idempotent else sent


def listing_json() -> str:
    """The text of ``tools_list.json``, made from the live tool table."""
    from doiget.mcp.tools import TOOLS

    listing: dict[str, Any] = {
        "tools": [wire(tool_definition(spec)) for spec in TOOLS.values()],
        "profiles": {profile: [name for name, spec in TOOLS.items() if spec.enabled(_profile_config(profile))]
                     for profile in PROFILES},
    }
    return json.dumps(listing, ensure_ascii=False, indent=1) + "\n"


def wire(tool: types.Tool) -> dict[str, Any]:
    """``tool`` as tools/list sends it."""
    return tool.model_dump(by_alias=True, mode="json", exclude_none=True)


def _profile_config(profile: str) -> Config:
    return Config(home=Path("."), profile=profile)
