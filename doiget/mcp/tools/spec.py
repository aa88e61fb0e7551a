"""What an MCP tool is: a ``ToolSpec`` calling one Library method, with a pydantic input model.

Each tool's input model forbids unknown fields and bounds every string and list; its JSON
Schema (the MCP inputSchema) is generated from that model, and so is the INPUTS section of its
description, so the schema, the validation and the docs cannot disagree.
"""
from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from doiget import limits
from doiget.config import Config
from doiget.library import Library

MAX_REF = 1000
RefArg = Annotated[str, Field(min_length=1, max_length=MAX_REF)]  # DOI, arXiv, PMID, PMCID, OpenAlex id (instructions)
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
    offline_ok: bool = False  # an open-world tool that still answers (locally) without network access

    def enabled(self, config: Config) -> bool:
        """Whether ``config``'s profile lets this tool run (a disabled tool is not listed)."""
        needs_network = self.open_world and not self.offline_ok
        return (self.read_only or config.write_enabled) and (not needs_network or config.network_enabled)

    def input_schema(self) -> dict[str, Any]:
        """The model's JSON Schema, compacted: no titles, and an optional parameter is its plain type
        (a client that reads the type, like the MCP Inspector CLI, then sends a number as a number;
        the server still accepts null for it, as "use the default")."""
        return copy.deepcopy(_input_schema(self.params))

    def inputs_text(self) -> str:
        """The INPUTS section: parameter names, required ones marked * (the server instructions say so);
        the schema has types, bounds and meanings."""
        schema = _input_schema(self.params)
        required = set(schema.get("required", []))
        names = [f"{name}*" if name in required else name for name in schema.get("properties", {})]
        return ", ".join(names) + "." if names else "none."

    def description(self) -> str:
        """The six-section description tools/list carries (the summary is the docs' and the title's)."""
        return (f"WHEN TO USE: {self.when}\nINPUTS: {self.inputs_text()}\n"
                f"OUTPUTS: {self.outputs}\nCOSTS: {self.costs}\nSIDE EFFECTS: {self.side_effects}\n"
                f"LIMITS: {self.limits}")




class RefParams(Params):
    ref: RefArg


class NoParams(Params):
    pass


@functools.cache
def _input_schema(params: type[Params]) -> dict[str, Any]:
    """:meth:`ToolSpec.input_schema`, made once per model (pydantic's schema generation is most of what
    building tools/list costs at server start); callers get a copy."""
    schema = _compact(params.model_json_schema())
    for definition in schema.get("$defs", {}).values():
        definition.pop("description", None)  # a model's docstring; the referring property describes it
    schema["additionalProperties"] = False
    return schema


def _compact(node: Any) -> Any:
    if isinstance(node, list):
        return [_compact(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _compact(value) for key, value in node.items() if key != "title"}
    branches = node.get("anyOf")
    if branches and {"type": "null"} in branches and len(branches) == 2:
        (kept,) = [b for b in branches if b != {"type": "null"}]
        node = {**{k: v for k, v in node.items() if k != "anyOf"}, **kept}
    if "default" in node and node["default"] in (None, [], {}, False):  # absent means the same
        del node["default"]
    if node.get("minLength") == 1:  # validation still refuses empty strings; the schema need not say it
        del node["minLength"]
    return node


LOCAL_COSTS = "Local; ms."
NO_SIDE_EFFECTS = "None."
