"""``doiget serve``: the stdio MCP server. A table of tools, each a thin adapter over one
``Library`` method: validate the arguments, call, and shape an ``{ok: ...}`` envelope. The table is
imported by the first tool call; tools/list is answered from its snapshot (``listing.py``).

stdout carries JSON-RPC frames only; logs go to stderr (level from ``DOIGET_LOG``).
"""
from __future__ import annotations

import json
import logging
import os
import sys
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
from doiget.mcp.lifecycle import Lifecycle, serve_until_eof
from doiget.mcp.listing import listed_tools
from doiget.mcp.tools import resources
from doiget.mcp.tools.access import LibraryHolder

log = logging.getLogger("doiget.mcp")
MAX_RESULT_CHARS = 200_000
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for resources/read of an unknown resource


def call_tool(holder: LibraryHolder, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Run one tool and return its envelope. Never raises."""
    from doiget import models, present  # the first call imports the tool table and what it needs (listing.py)
    from doiget.mcp.tools import TOOLS, coerce, shapes

    spec = TOOLS.get(name)
    if spec is None:
        return models.failure(DoigetError(ErrorCode.INVALID_INPUT, f"unknown tool {name!r}; see tools/list"))
    arguments = arguments if arguments is not None else {}
    if not spec.enabled(holder.config):
        return shapes.failure(DoigetError(ErrorCode.CAPABILITY_DENIED, f"{name} is disabled by the "
                              f"'{holder.config.profile}' profile (set DOIGET_PROFILE=full to enable it)"), arguments)
    try:
        params = spec.params.model_validate(coerce.without_nulls(spec.params, arguments))
        return models.ok(**present.to_json(spec.run(holder.view(spec.read_only), params)))
    except ValidationError as exc:
        if "dry_run" in arguments and "dry_run" not in spec.params.model_fields:
            return shapes.failure(DoigetError(ErrorCode.INVALID_REF, f"dry_run does not apply to {name}"), arguments)
        return shapes.failure(coerce.validation_error(exc), arguments)
    except DoigetError as exc:
        return shapes.failure(exc, arguments)
    except Exception:  # boundary: nothing may escape as a traceback to the client
        log.exception("tool %s failed", name)
        return shapes.failure(DoigetError(ErrorCode.INTERNAL_ERROR, f"{name} failed unexpectedly; see the server "
                                          "log"), arguments)


def cancelled(arguments: dict[str, Any]) -> dict[str, Any]:
    """The envelope of a call still running when the grace period after stdin's EOF ran out."""
    from doiget.mcp.tools import shapes

    return shapes.failure(DoigetError(ErrorCode.FETCH_TIMEOUT, "cancelled: the client closed stdin and the server is "
                                      "shutting down"), arguments)


def resource_contents(holder: LibraryHolder, uri: str) -> tuple[str, str, dict[str, Any] | None]:
    """Read one ``doiget://`` resource; a failure becomes a JSON-RPC error carrying the doiget code."""
    try:
        return resources.read_resource(holder.reader(), uri)
    except DoigetError as exc:
        code = RESOURCE_NOT_FOUND if exc.code is ErrorCode.NOT_FOUND else types.INVALID_PARAMS
        raise MCPError(code, f"{exc.code.value}: {exc.message}", exc.to_dict()) from exc
    except Exception as exc:  # boundary: nothing may escape as a traceback to the client
        log.exception("reading %s failed", uri)
        raise MCPError(types.INTERNAL_ERROR, "INTERNAL_ERROR: reading the resource failed; see the server log") from exc


def build_server(config: Config, lifecycle: Lifecycle | None = None) -> tuple[Server, LibraryHolder]:
    holder = LibraryHolder(config)
    lifecycle = lifecycle or Lifecycle()
    tools = listed_tools(config)

    async def list_tools(_ctx, _params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(_ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        envelope = await lifecycle.run_call(lambda: call_tool(holder, params.name, params.arguments),
                                            lambda: cancelled(params.arguments or {}))
        body = json.dumps(envelope, ensure_ascii=False, default=str)
        if len(body) > MAX_RESULT_CHARS:
            from doiget.models import failure

            envelope = failure(DoigetError(ErrorCode.INVALID_INPUT, f"result larger than {MAX_RESULT_CHARS} "
                                           "characters; ask for less (smaller limit or max_chars)"))
            body = json.dumps(envelope)
        return types.CallToolResult(content=[types.TextContent(type="text", text=body)],
                                    structured_content=json.loads(body), is_error=not envelope["ok"])

    async def on_list_resources(_ctx, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        try:
            shown, next_cursor = await anyio.to_thread.run_sync(
                lambda: resources.list_resources(holder.reader(), cursor))
        except DoigetError as exc:
            raise MCPError(types.INVALID_PARAMS, f"{exc.code.value}: {exc.message}") from exc
        return types.ListResourcesResult(resources=[types.Resource(**r) for r in shown], next_cursor=next_cursor)

    async def list_resource_templates(_ctx, _params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(name=t.name, uri_template=t.uri_template, mime_type=t.mime_type,
                                   description=t.description) for t in resources.TEMPLATES])

    async def on_read_resource(_ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        mime, body, meta = await anyio.to_thread.run_sync(resource_contents, holder, params.uri)
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=params.uri, mime_type=mime, text=body, _meta=meta)])

    server = Server("doiget", version=__version__, instructions=INSTRUCTIONS,
                    on_list_tools=list_tools, on_call_tool=on_call_tool,
                    on_list_resources=on_list_resources, on_list_resource_templates=list_resource_templates,
                    on_read_resource=on_read_resource)
    return server, holder


INSTRUCTIONS = ("doiget is a local library of scholarly papers. Every tool returns {ok: true, ...} or "
                "{ok: false, ref?, error: {code, message, denial_context?}}. Identifiers: DOI, arXiv id, PMID, PMCID "
                "or OpenAlex W id; a library entry also as #<id> or @<citation key>. In tool descriptions, INPUTS "
                "lists parameter names with * marking required ones (the inputSchema has types and bounds). Read-only tools never create the library: an absent "
                "library reads as empty. Growing results page: pass next_cursor back as cursor.")


def configure_logging() -> None:
    level = os.environ.get("DOIGET_LOG", "WARNING").upper()
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.WARNING),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def serve(home: str | None = None) -> None:
    """Serve MCP over stdin/stdout until stdin closes."""
    configure_logging()
    lifecycle = Lifecycle()
    server, holder = build_server(load_config(home), lifecycle)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await serve_until_eof(lambda r, w: server.run(r, w, server.create_initialization_options()),
                                  read_stream, write_stream, lifecycle)

    try:
        anyio.run(main)
    finally:
        if lifecycle.cancel.is_set():  # a worker thread is stuck upstream: do not wait for it
            sys.stdout.flush()
            os._exit(0)
        holder.close()

