"""Paging over real stdio: results that can grow come in pages with an opaque next_cursor, and a
page is cut to the result budget instead of failing for size (a 120-paper library with long
abstracts: 100 of them are more than the 200,000 characters one result may hold)."""
from __future__ import annotations

import re
from functools import partial

import anyio
import pytest
from mcp import Client
from test_mcp import server_params

from doiget import open_library
from doiget.models import Author, Work

PAPERS = 120


@pytest.fixture(scope="module")
def big_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("big") / "lib"
    words = "cartilage collagen hypoxia lysyl oxidase tissue engineering tensile stiffness crosslink ".split()
    with open_library(home) as lib:
        for i in range(PAPERS):
            abstract = " ".join(words[(i + j) % len(words)] for j in range(400))  # ~3,500 characters
            lib.add(Work(doi=f"10.5555/paging.{i}", title=f"Engineered tissue study number {i}", year=2000 + i % 20,
                         abstract=abstract, venue="Journal of Paging", authors=[Author.from_parts("Doe", "Jane")]))
        for i in range(25):
            lib.note_create(f"note {i} about collagen", f"10.5555/paging.{i}")
    return home


async def follow(client, name, arguments, key):
    """Every page of one query: (pages, items)."""
    pages, items, cursor = [], [], None
    while True:
        result = (await client.call_tool(name, {**arguments, **({"cursor": cursor} if cursor else {})}))
        body = result.structured_content
        assert body["ok"], body
        pages.append(body)
        items += body[key] if isinstance(body[key], list) else [body[key]]
        cursor = body["next_cursor"]
        if cursor is None:
            return pages, items
        assert len(pages) < 50


async def paging_session(home):
    async with Client(server_params(home)) as client:
        out = {"recent": await follow(client, "doiget_list_recent", {"n": 100}, "entries"),
               "search": await follow(client, "doiget_search_local", {"query": "collagen", "limit": 100}, "hits"),
               "bibtex": await follow(client, "doiget_bibtex_export", {}, "text"),
               "csl": await follow(client, "doiget_csl_export", {"limit": 50}, "items"),
               "notes": await follow(client, "doiget_note_search", {"keyword": "collagen", "limit": 10}, "notes")}
        first = (await client.call_tool("doiget_search_local", {"query": "collagen"})).structured_content
        out["replayed"] = (await client.call_tool("doiget_search_local", {
            "query": "tissue", "cursor": first["next_cursor"]})).structured_content
        out["forged"] = (await client.call_tool("doiget_list_recent", {"cursor": "bm90IGEgY3Vyc29y"})).structured_content
        return out


def test_growing_results_page_instead_of_failing(big_home):
    out = anyio.run(paging_session, big_home)
    pages, entries = out["recent"]
    assert len(pages) >= 3 and pages[0]["count"] < 100  # cut to the size budget, not to n
    assert len({e["id"] for e in entries}) == PAPERS
    _, hits = out["search"]
    assert len({h["id"] for h in hits}) == PAPERS
    pages, texts = out["bibtex"]
    bib = "".join(texts)
    assert pages[0]["total"] == PAPERS and sum(p["count"] for p in pages) == PAPERS
    keys = re.findall(r"^@\w+\{([^,]+),", bib, re.MULTILINE)
    assert len(keys) == len(set(keys)) == PAPERS
    pages, items = out["csl"]
    assert all(p["count"] <= 50 for p in pages) and len(items) == len({i["DOI"] for i in items}) == PAPERS
    pages, notes = out["notes"]
    assert [p["count"] for p in pages] == [10, 10, 5] and len({n["id"] for n in notes}) == 25
    for failure in (out["replayed"], out["forged"]):
        assert failure["ok"] is False and failure["error"]["code"] == "INVALID_INPUT"
        assert "cursor" in failure["error"]["message"]
