"""tools/list stays small enough for an agent's context: at most 8,000 cl100k tokens for the full
profile (measured as scripts/measure_tools_list.py does, on the compact JSON the SDK sends), and a
profile lists only the tools it enables."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from cli_process import doiget_command

sys.path.insert(0, str(Path(__file__).parents[1] / "scripts"))
from measure_tools_list import count_tokens, tools_list_json  # noqa: E402

from doiget.mcp.tools import TOOLS  # noqa: E402

MAX_TOKENS = 8000


def test_full_tools_list_fits_in_8k_tokens():
    body = anyio.run(tools_list_json, "full", tuple(doiget_command()))
    assert len(json.loads(body)["tools"]) == len(TOOLS)
    assert count_tokens(body) <= MAX_TOKENS


def test_profiles_list_only_the_tools_they_enable():
    listed = {profile: {t["name"] for t in json.loads(anyio.run(tools_list_json, profile, tuple(doiget_command())))["tools"]}
              for profile in ("read-only", "offline")}
    assert listed["read-only"] == {name for name, spec in TOOLS.items() if spec.read_only and not
                                   (spec.open_world and not spec.offline_ok)}
    assert "doiget_tag" not in listed["read-only"] and "doiget_fetch_paper" not in listed["offline"]
    assert {"doiget_tag", "doiget_resolve_citation", "doiget_add_pdf"} <= listed["offline"]
