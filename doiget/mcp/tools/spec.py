"""What an MCP tool is: a ``ToolSpec`` calling one Library method, with a pydantic input model.

Each tool's input model forbids unknown fields and bounds every string and list; its JSON
Schema (the MCP inputSchema) is generated from that model, and so is the INPUTS section of its
description, so the schema, the validation and the docs cannot disagree.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from doiget import limits
from doiget.config import Config
from doiget.library import Library

MAX_REF = 1000
RefArg = Annotated[str, Field(min_length=1, max_length=MAX_REF,
                              description="DOI, arXiv id, PMID, PMCID or OpenAlex W id (bare, prefixed or as URL)")]
TagName = Annotated[str, Field(min_length=1, max_length=limits.MAX_NAME)]
Year = Annotated[int, Field(ge=0, le=limits.MAX_YEAR)]


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class LibraryAccess(Protocol):
    config: Config

    def get(self) -> Library: ...


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    summary: str
    when: str
    outputs: str
    costs: str
    side_effects: str
    limits: str
    params: type[Params]
    run: Callable[[LibraryAccess, Any], dict[str, Any]]
    read_only: bool
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False

    def input_schema(self) -> dict[str, Any]:
        schema = self.params.model_json_schema()
        schema.pop("title", None)
        schema["additionalProperties"] = False
        return schema

    def inputs_text(self) -> str:
        props = self.input_schema().get("properties", {})
        required = set(self.input_schema().get("required", []))
        if not props:
            return "none."
        lines = []
        for name, prop in props.items():
            kind = prop.get("type") or "/".join(p.get("type", "?") for p in prop.get("anyOf", []))
            note = prop.get("description", "")
            default = "" if name in required else f" (optional, default {json.dumps(prop.get('default'))})"
            lines.append(f"{name}: {kind}{default}{' — ' + note if note else ''}")
        return "; ".join(lines) + "."

    def description(self) -> str:
        return (f"{self.summary}\n\nWHEN TO USE: {self.when}\nINPUTS: {self.inputs_text()}\n"
                f"OUTPUTS: {self.outputs}\nCOSTS: {self.costs}\nSIDE EFFECTS: {self.side_effects}\n"
                f"LIMITS: {self.limits}")




class RefParams(Params):
    ref: RefArg


class NoParams(Params):
    pass


LOCAL_COSTS = "Local SQLite read; milliseconds; no network."
NO_SIDE_EFFECTS = "None: read-only."
