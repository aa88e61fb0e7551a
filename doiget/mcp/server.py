"""``doiget serve``: the stdio MCP server. A table of tools, each a thin adapter over one
``Library`` method: validate the arguments, call, and shape an ``{ok: ...}`` envelope.

stdout carries JSON-RPC frames only; logs go to stderr (level from ``DOIGET_LOG``).
"""
from __future__ import annotations

import json
import logging
import os
import sys
import threading
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.server.stdio import stdio_server
from pydantic import ValidationError

from doiget import __version__
from doiget.config import Config, load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.library import Library
from doiget.mcp.tools import TOOLS
from doiget.mcp.tools.resources import TEMPLATES, read_resource
from doiget.mcp.tools.spec import ToolSpec
from doiget.models import failure, ok

log = logging.getLogger("doiget.mcp")
MAX_RESULT_CHARS = 200_000
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for resources/read of an unknown resource


class LibraryHolder:
    """Opens the library on the first tool call that needs it, so listing tools or asking for
    health creates nothing on disk."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._library: Library | None = None
        self._lock = threading.Lock()

    def get(self) -> Library:
        with self._lock:
            if self._library is None:
                self._library = Library(self.config)
            return self._library

    def close(self) -> None:
        if self._library is not None:
            self._library.close()


def call_tool(holder: LibraryHolder, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Run one tool and return its envelope. Never raises."""
    spec = TOOLS.get(name)
    if spec is None:
        return failure(DoigetError(ErrorCode.INVALID_INPUT, f"unknown tool {name!r}; see tools/list"))
    try:
        params = spec.params.model_validate(arguments if arguments is not None else {})
    except ValidationError as exc:
        return failure(DoigetError(ErrorCode.INVALID_INPUT, _validation_message(exc)))
    try:
        return ok(**spec.run(holder, params))
    except DoigetError as exc:
        return failure(exc)
    except Exception:  # boundary: nothing may escape as a traceback to the client
        log.exception("tool %s failed", name)
        return failure(DoigetError(ErrorCode.INTERNAL_ERROR, f"{name} failed unexpectedly; see the server log"))


def resource_contents(holder: LibraryHolder, uri: str) -> tuple[str, str, dict[str, Any] | None]:
    """Read one ``doiget://`` resource; a failure becomes a JSON-RPC error carrying the doiget code."""
    try:
        return read_resource(holder.get(), uri)
    except DoigetError as exc:
        code = RESOURCE_NOT_FOUND if exc.code is ErrorCode.NOT_FOUND else types.INVALID_PARAMS
        raise MCPError(code, f"{exc.code.value}: {exc.message}", exc.to_dict()) from exc
    except Exception as exc:  # boundary: nothing may escape as a traceback to the client
        log.exception("reading %s failed", uri)
        raise MCPError(types.INTERNAL_ERROR, "INTERNAL_ERROR: reading the resource failed; see the server log") from exc


def _validation_message(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        problems.append(f"{where}: {error['msg']}")
    more = f" (+{exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
    return "invalid arguments: " + "; ".join(problems) + more


def tool_definition(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description(),
        input_schema=spec.input_schema(),
        annotations=types.ToolAnnotations(
            title=spec.title, read_only_hint=spec.read_only, destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent, open_world_hint=spec.open_world),
    )


def build_server(config: Config) -> tuple[Server, LibraryHolder]:
    holder = LibraryHolder(config)
    tools = [tool_definition(spec) for spec in TOOLS.values()]

    async def list_tools(_ctx, _params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(_ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        envelope = await anyio.to_thread.run_sync(call_tool, holder, params.name, params.arguments)
        body = json.dumps(envelope, ensure_ascii=False, default=str)
        if len(body) > MAX_RESULT_CHARS:
            envelope = failure(DoigetError(ErrorCode.INVALID_INPUT,
                                           f"result larger than {MAX_RESULT_CHARS} characters; ask for less "
                                           "(smaller limit or max_chars)"))
            body = json.dumps(envelope)
        return types.CallToolResult(content=[types.TextContent(type="text", text=body)],
                                    structured_content=json.loads(body), is_error=not envelope["ok"])

    templates = [types.ResourceTemplate(name=t.name, uri_template=t.uri_template, mime_type=t.mime_type,
                                        description=t.description) for t in TEMPLATES]

    async def list_resource_templates(_ctx, _params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def on_read_resource(_ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        mime, body, meta = await anyio.to_thread.run_sync(resource_contents, holder, params.uri)
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=params.uri, mime_type=mime, text=body, _meta=meta)])

    server = Server("doiget", version=__version__, instructions=INSTRUCTIONS,
                    on_list_tools=list_tools, on_call_tool=on_call_tool,
                    on_list_resource_templates=list_resource_templates, on_read_resource=on_read_resource)
    return server, holder


INSTRUCTIONS = ("doiget is a local library of scholarly papers. Every tool returns {ok: true, ...} or "
                "{ok: false, error: {code, message}}. Identifiers: DOI, arXiv id, PMID, PMCID or OpenAlex W id.")


def configure_logging() -> None:
    level = os.environ.get("DOIGET_LOG", "WARNING").upper()
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.WARNING),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def serve(home: str | None = None) -> None:
    """Serve MCP over stdin/stdout until stdin closes."""
    configure_logging()
    server, holder = build_server(load_config(home))

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        holder.close()

