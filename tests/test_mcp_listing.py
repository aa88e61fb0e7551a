"""tools/list is answered from doiget/mcp/tools_list.json (doiget/mcp/listing.py): what the server
sends must be, byte for byte, the definitions the live tool table makes, under every profile."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from stdio_client import RawServer

from doiget.config import PROFILES, Config
from doiget.mcp.listing import LISTING, listed_tools, listing_json, tool_definition, wire
from doiget.mcp.tools import TOOLS

def live_listing(config: Config) -> str:
    return json.dumps([wire(tool_definition(spec)) for spec in TOOLS.values() if spec.enabled(config)],
                      ensure_ascii=False, sort_keys=True)


def test_the_listing_file_is_the_live_table():
    assert LISTING.read_text(encoding="utf-8") == listing_json(), "run: python scripts/gen_docs.py"


@pytest.mark.parametrize("profile", PROFILES)
def test_listed_tools_are_the_live_definitions(tmp_path, profile):
    config = Config(home=tmp_path, profile=profile)
    listed = json.dumps([wire(tool) for tool in listed_tools(config)], ensure_ascii=False, sort_keys=True)
    assert listed == live_listing(config)
    assert profile == "full" or len(listed_tools(config)) < len(TOOLS)


def test_served_tools_list_is_the_live_definitions(tmp_path):
    """Over stdio, as a client reads it (the SDK writes the keys sorted); the first tool
    call then imports the table and answers; stdout carries JSON-RPC frames only (``close`` checks)."""
    server = RawServer(tmp_path / "lib", DOIGET_PROFILE="offline")
    try:
        result = server.request("tools/list", {})["result"]
        assert json.dumps(result["tools"], ensure_ascii=False, sort_keys=True) == live_listing(
            Config(home=tmp_path, profile="offline"))
        assert server.call("doiget_list_recent", {}) == {"ok": True, "count": 0, "entries": [], "next_cursor": None}
        server.close()
    finally:
        server.kill()
    assert not (tmp_path / "lib").exists()


def test_the_server_starts_without_the_tool_table(tmp_path):
    """Building the server imports neither the tool modules nor the library and its models: the
    first tool call does."""
    probe = ("import json, sys\nfrom doiget.config import load_config\nfrom doiget.mcp.server import build_server\n"
             f"build_server(load_config({str(tmp_path)!r}))\nprint(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parent.parent)
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "doiget.mcp.server" in loaded
    assert not loaded & {"doiget.mcp.tools.spec", "doiget.mcp.tools.local", "doiget.library", "doiget.models"}
