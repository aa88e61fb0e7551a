"""Resources over real stdio with the SDK's stock client: the server declares the capability,
resources/list pages through the library, templates are listed, and every ``doiget://`` URI any tool
result hands out reads back."""
from __future__ import annotations

import base64
import re
import sqlite3

import anyio
from mcp import Client
from test_mcp import server_params
from test_mcp_side_effects import snapshot  # noqa: F401 (fixture)

from doiget.demo import demo_works, paper_pdf

URI = re.compile(r"doiget://[^\s\"']+")


def uris_in(value) -> set[str]:
    if isinstance(value, str):
        return set(URI.findall(value))
    if isinstance(value, dict):
        return set().union(*map(uris_in, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(uris_in, value)) if value else set()
    return set()


async def resources_session(home, ref):
    pdf = base64.b64encode(paper_pdf(demo_works()[0].model_copy(update={"title": "A resource test paper"}))).decode()
    async with Client(server_params(home)) as client:
        capabilities = client.server_capabilities
        listed = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        handed_out: set[str] = set()
        for name, args in [("doiget_paper_text", {"ref": ref, "max_chars": 300}),
                           ("doiget_search_fulltext", {"query": "demonstration"}),
                           ("doiget_add_pdf", {"content_base64": pdf}),
                           ("doiget_fetch_fulltext", {"ref": ref})]:
            result = (await client.call_tool(name, args)).structured_content
            handed_out |= uris_in(result)
        reads = {uri: await client.read_resource(uri) for uri in sorted(handed_out | {r.uri for r in listed})}
        try:
            await client.read_resource("doiget://entry/999999/metadata")
            missing = None
        except Exception as exc:  # the SDK raises the JSON-RPC error
            missing = exc
        return capabilities, listed, templates, handed_out, reads, missing


def test_every_handed_out_uri_reads_back(snapshot):  # noqa: F811
    home, ref, _, _ = snapshot
    capabilities, listed, templates, handed_out, reads, missing = anyio.run(resources_session, home, ref)
    assert capabilities.resources is not None
    with sqlite3.connect(home / "library.sqlite3") as db:
        papers = db.execute("SELECT count(*) FROM entries WHERE is_stub = 0").fetchone()[0]
    assert len(listed) == papers and all(r.uri.endswith("/metadata") for r in listed)
    assert {t.uri_template for t in templates} == {"doiget://entry/{id}/metadata",
                                                   "doiget://entry/{id}/text{?offset,max_chars}"}
    assert any("/text" in u for u in handed_out) and any(u.endswith("/metadata") for u in handed_out)
    for uri, read in reads.items():
        assert read.contents and read.contents[0].text, uri
    assert missing is not None and "NOT_FOUND" in str(missing)
