"""README's "Use it from an MCP host" snippets parse, and each names a command that starts the server."""
from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

README = Path(__file__).resolve().parent.parent / "README.md"
DOIGET_SERVE = ["doiget", "serve"]


def host_section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Use it from an MCP host")
    return text[start:text.index("\n## ", start + 1)]


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", host_section(), re.S)


def server_commands() -> list[list[str]]:
    """Each snippet's server command line, with launchers (uvx, pipx) peeled off."""
    commands = []
    for block in blocks("json"):
        (server,) = json.loads(block)["mcpServers"].values()
        commands.append([server["command"], *server["args"]])
    for line in blocks("sh"):
        words = shlex.split(line)
        assert words[:3] == ["claude", "mcp", "add"]
        commands.append(words[words.index("--") + 1:])
    pipx = re.search(r"`(pipx run [^`]+)`", host_section()).group(1)
    commands.append(shlex.split(pipx))
    return commands


def unwrap(command: list[str]) -> list[str]:
    if command[:2] == ["uvx", "--from"] and command[2] == "doiget":
        return command[3:]
    if command[:3] == ["pipx", "run", "--spec"] and command[3] == "doiget":
        return command[4:]
    return command


def test_every_snippet_parses_and_runs_doiget_serve():
    commands = server_commands()
    assert len(commands) == 4  # Claude Desktop, generic uvx, claude mcp add, pipx
    assert all(unwrap(c) == DOIGET_SERVE for c in commands), commands


def test_the_named_command_starts_a_server_a_client_can_list(tmp_path):
    # `doiget` is the console script; `python -m doiget` is the same entry point without PATH lookups.
    params = StdioServerParameters(command=sys.executable, args=["-m", *DOIGET_SERVE],
                                   env={"DOIGET_HOME": str(tmp_path), "DOIGET_PROFILE": "read-only"})

    async def tools() -> list[str]:
        async with Client(params) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert "doiget_search_local" in anyio.run(tools)
