"""Rankings through the Library over a synthetic citation graph stored in a real temp library, checked
against networkx's own computations on the original graph."""
from __future__ import annotations

import datetime
import json
import random
import xml.etree.ElementTree as ET

import networkx as nx
import pytest
from synthetic_graph import citation_dag, store_graph

from doiget import DoigetError, ErrorCode, open_library
from doiget.pagerank import pagerank  # equal to networkx.pagerank: tests/test_pagerank.py
from doiget.ranking import SECTIONS

N = 1000


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    G = citation_dag(N, seed=3, first_year=datetime.date.today().year - 20, last_year=datetime.date.today().year)
    lib = open_library(tmp_path_factory.mktemp("graph") / "lib")
    store_graph(lib, G)
    yield G, lib
    lib.close()


def ref(n: int) -> str:
    return f"openalex:W{n + 1}"


def node(ref: str) -> int:
    return int(ref.removeprefix("openalex:W")) - 1


@pytest.fixture(scope="module")
def seeds() -> list[int]:
    return random.Random(4).sample(range(N), 20)


@pytest.fixture(scope="module")
def pool(stored, seeds) -> set[int]:
    U = stored[0].to_undirected()
    return set().union(*(nx.single_source_shortest_path_length(U, s, cutoff=2) for s in seeds)) - set(seeds)


def test_influence_is_pagerank_of_the_stored_graph(stored, seeds, pool):
    G, lib = stored
    got = lib.related([ref(s) for s in seeds], "influence", limit=1000)
    pr = pagerank(G)
    expected = sorted(pool, key=lambda n: (-pr[n], n))[:1000]
    assert [node(i.ref) for i in got.items] == expected
    assert [i.score for i in got.items] == pytest.approx([pr[n] for n in expected], rel=1e-9)
    assert got.items[0].components == {"pagerank": got.items[0].score}
    assert got.heuristic is True and "heuristic" in got.note
    first = got.items[0]
    assert first.title == G.nodes[node(first.ref)]["title"] and first.year == G.nodes[node(first.ref)]["year"]


def test_recent_is_pagerank_among_the_last_three_years(stored, seeds, pool):
    G, lib = stored
    since = datetime.date.today().year - 2
    got = lib.related([ref(s) for s in seeds], "recent", limit=1000)
    sub = G.subgraph(n for n, y in G.nodes(data="year") if y >= since)
    pr = pagerank(sub)
    assert [node(i.ref) for i in got.items] == sorted(pool & set(sub), key=lambda n: (-pr[n], n))
    assert got.items


def test_similarity_components_equal_brute_force(stored, seeds, pool):
    G, lib = stored
    got = lib.related([ref(s) for s in seeds], "similarity", limit=1000)
    assert {node(i.ref) for i in got.items} <= pool and len(got.items) == min(1000, len(pool))
    scores = [i.score for i in got.items]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1]
    U = G.to_undirected()
    citers = set().union(*(G.pred[s] for s in seeds))
    refs = set().union(*(G.succ[s] for s in seeds))
    for item in got.items[:50] + got.items[-50:]:
        c = node(item.ref)
        assert item.components["co_citation"] == len(set(G.pred[c]) & citers)
        assert item.components["coupling"] == len(set(G.succ[c]) & refs)
        assert item.components["adamic_adar"] == pytest.approx(
            sum(p for _, _, p in nx.adamic_adar_index(U, [(s, c) for s in seeds])))


def test_connect_names_papers_and_true_directions(stored):
    G, lib = stored
    got = lib.connect(ref(N - 1), ref(N // 2), max_paths=3)
    assert got.from_.ref == ref(N - 1) and got.to.ref == ref(N // 2)
    assert 1 <= len(got.paths) <= 3
    assert len(got.paths[0]) == nx.shortest_path_length(G.to_undirected(), N - 1, N // 2)
    for path in got.paths:
        prev = N - 1
        for step in path:
            here = node(step.ref)
            assert G.has_edge(prev, here) if step.direction == "cites" else G.has_edge(here, prev)
            assert step.title == G.nodes[here]["title"]
            prev = here
        assert prev == N // 2


def test_literature_review_by_refs_and_by_tag(stored, seeds):
    G, lib = stored
    review = lib.literature_review([ref(s) for s in seeds])
    assert review.partial is False and list(review.sections) == list(SECTIONS)
    top = review.sections["similar"].items[0]
    assert top.ref == lib.related([ref(s) for s in seeds], limit=1).items[0].ref and top.title
    assert all(i.heuristic for i in review.sections["reviews"].items)
    assert {s.ref for s in review.seeds} == {ref(s) for s in seeds}
    for s in seeds[:5]:
        lib.tag(ref(s), ["seedset"])
    by_tag = lib.literature_review(tag="seedset", sections=["authors", "venues"])
    assert {s.ref for s in by_tag.seeds} == {ref(s) for s in seeds[:5]}
    assert list(by_tag.sections) == ["authors", "venues"]


def test_export_graphml_and_json_name_nodes_by_ref(stored, seeds):
    G, lib = stored
    whole = lib.graph_export("graphml")
    assert (whole.nodes, whole.edges) == (G.number_of_nodes(), G.number_of_edges())
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    root = ET.fromstring(whole.text)
    assert len(root.findall(".//g:node", ns)) == N and root.find(".//g:node", ns).get("id").startswith("openalex:W")
    around = lib.graph_export("json", refs=[ref(seeds[0])])
    data = json.loads(around.text)
    expected = {seeds[0], *G.succ[seeds[0]], *G.pred[seeds[0]]}
    assert {node(n["id"]) for n in data["nodes"]} == expected


def test_errors_name_the_problem(stored):
    _, lib = stored
    for call, code in ((lambda: lib.related(["openalex:W99999999"]), ErrorCode.NOT_FOUND),
                       (lambda: lib.related([ref(1)], "popularity"), ErrorCode.INVALID_INPUT),
                       (lambda: lib.literature_review(tag="no-such-tag"), ErrorCode.INVALID_INPUT),
                       (lambda: lib.literature_review([ref(n) for n in range(501)]), ErrorCode.INVALID_INPUT),
                       (lambda: lib.graph_export("dot"), ErrorCode.INVALID_INPUT)):
        with pytest.raises(DoigetError) as err:
            call()
        assert err.value.code is code
