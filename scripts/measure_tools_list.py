"""Size of ``tools/list`` as an MCP client sees it: bytes of the JSON result and its tokens.

Tokens are counted with the cl100k_base BPE (the ``bpe-openai`` package ships the vocabulary, so no
download; tiktoken itself fetches its vocabulary at run time, which offline machines cannot do).
Run: ``python scripts/measure_tools_list.py [--profile full|offline|read-only]``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def count_tokens(text: str) -> int:
    """cl100k_base tokens of ``text``."""
    import bpe_openai

    return len(bpe_openai.get_encoding("cl100k_base").encode(text))


async def tools_list_json(profile: str, doiget: tuple[str, ...] = (sys.executable, "-m", "doiget.cli")) -> str:
    """The JSON of tools/list served by ``doiget serve`` under ``profile`` (on an empty home); ``doiget``
    is the command that runs doiget."""
    with tempfile.TemporaryDirectory() as home:
        params = StdioServerParameters(command=doiget[0], args=[*doiget[1:], "serve"],
                                       env={**os.environ, "DOIGET_HOME": home, "DOIGET_PROFILE": profile})
        async with Client(params) as client:
            result = await client.list_tools()
    # compact, as the SDK writes JSON-RPC frames (pydantic model_dump_json)
    return json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True), ensure_ascii=False,
                      separators=(",", ":"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full", choices=["full", "offline", "read-only"])
    args = parser.parse_args()
    body = anyio.run(tools_list_json, args.profile)
    tools = json.loads(body)["tools"]
    print(json.dumps({"profile": args.profile, "tools": len(tools), "bytes": len(body.encode()),
                      "tokens_cl100k": count_tokens(body)}))


if __name__ == "__main__":
    main()
