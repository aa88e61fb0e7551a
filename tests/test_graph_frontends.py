"""The citation graph through the real CLI (subprocess) and the real MCP client over stdio, with OpenAlex
served by the loopback HTTPS server in recorded response shapes."""
from __future__ import annotations

import json
from functools import partial
import xml.etree.ElementTree as ET

import anyio
from fake_openalex import FakeOpenAlex, loopback_route, wid
from loopback import _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401
from test_cli import run
from test_mcp import session_calls

from doiget.ranking import build_graph


def graph():
    """0 cites 1-4; 1 and 2 both cite 5; 6 and 7 cite 0."""
    edges = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (2, 5), (6, 0), (7, 0)]
    return build_graph([{"id": n, "title": f"Paper {n}", "year": 2010 + n} for n in range(8)], edges)


def serve_openalex(server, ca_bundle) -> tuple[FakeOpenAlex, dict[str, str]]:
    api = FakeOpenAlex(graph())
    route = loopback_route(api)
    server.route("/works", route)
    server.route(f"/works/{wid(0)}", route)
    env = {"DOIGET_OPENALEX_BASE": server.url(""), "DOIGET_ALLOW_PRIVATE_HOSTS": "127.0.0.1",
           "DOIGET_CA_BUNDLE": str(ca_bundle)}
    return api, env


def test_cli_expand_related_connect_review_export(tmp_path, https_server, client_ca, monkeypatch):
    api, env = serve_openalex(https_server, client_ca)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    home, seed = tmp_path / "home", f"openalex:{wid(0)}"

    expand = run(home, "graph", "expand", seed, "--direction", "both", "--depth", "2", "--json")
    assert expand.returncode == 0, expand.stderr
    result = json.loads(expand.stdout)
    assert (result["nodes"], result["edges"], result["truncated"]) == (8, 8, False)
    assert result["requests_made"] == len(api.requests) == 1 + 2 + 2 * 6  # seed id, seed, 6 neighbours
    again = json.loads(run(home, "--json", "graph", "expand", seed, "--direction", "both", "--depth", "2").stdout)
    assert again["requests_made"] == 0 and len(api.requests) == 15

    human = run(home, "graph", "related", f"openalex:{wid(1)}")
    assert human.returncode == 0 and human.stdout.startswith("1. [")
    assert "Paper 2" in human.stdout.splitlines()[0] and "co_citation 1" in human.stdout and "heuristic" in human.stdout

    connect = run(home, "graph", "connect", "doi:10.5555/fake.6", "doi:10.5555/fake.5")
    assert connect.returncode == 0
    assert "cites → doi:10.5555/fake.0" in connect.stdout and "cites → doi:10.5555/fake.5" in connect.stdout

    run(home, "tag", seed, "core")
    review = json.loads(run(home, "--json", "graph", "review", "--tag", "core", "--sections", "similar",
                            "important").stdout)
    assert [s["title"] for s in review["seeds"]] == ["Paper 0"] and list(review["sections"]) == ["similar", "important"]
    assert review["sections"]["similar"]["items"] and review["partial"] is False

    out = tmp_path / "g.graphml"
    export = run(home, "graph", "export", "--format", "graphml", "-o", str(out))
    assert export.stdout.strip() == f"wrote 8 papers and 8 citations as graphml to {out}"
    ids = {n.get("id") for n in ET.parse(out).getroot().iter("{http://graphml.graphdrawing.org/xmlns}node")}
    assert ids == {f"doi:10.5555/fake.{n}" for n in range(8)}

    bad = run(home, "graph", "related", "openalex:W1")
    assert bad.returncode == 1 and "NOT_FOUND" in bad.stderr


def test_mcp_graph_tools(tmp_path, https_server, client_ca):
    api, env = serve_openalex(https_server, client_ca)
    home, seed = tmp_path / "home", f"openalex:{wid(0)}"
    calls = [("doiget_expand_citation_graph", {"ref": seed, "direction": "both", "depth": 2, "max_nodes": 5}),
             ("doiget_related", {"refs": [f"openalex:{wid(1)}"], "ranking": "influence", "limit": 3}),
             ("doiget_connect", {"from_ref": seed, "to_ref": f"openalex:{wid(1)}"}),
             ("doiget_literature_review", {"seeds": [seed], "sections": ["similar", "venues"]}),
             ("doiget_expand_citation_graph", {"ref": seed, "depth": 3})]
    tools, (expand, related, connect, review, bad) = anyio.run(partial(session_calls, home, calls, **env))
    by_name = {t.name: t for t in tools}
    assert by_name["doiget_expand_citation_graph"].annotations.open_world_hint is True
    assert by_name["doiget_expand_citation_graph"].annotations.read_only_hint is False
    assert all(by_name[n].annotations.read_only_hint for n in ("doiget_related", "doiget_connect",
                                                               "doiget_literature_review"))
    assert expand["ok"] and (expand["nodes"], expand["truncated_reason"]) == (5, "max_nodes")
    assert expand["reached_shown"] == 4 and expand["requests_made"] == len(api.requests)
    assert related["ok"] and related["items"] and all("pagerank" in i["components"] for i in related["items"])
    assert connect["paths"] == [[{"id": connect["to"]["id"], "ref": "doi:10.5555/fake.1", "title": "Paper 1",
                                  "year": 2011, "is_stub": True, "direction": "cites"}]]
    assert review["ok"] and review["heuristic"] is True and set(review["sections"]) == {"similar", "venues"}
    assert bad["ok"] is False and bad["error"]["code"] == "INVALID_INPUT"
