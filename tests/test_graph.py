"""doiget.ranking on hand-made graphs (answers worked out by hand) and a seeded 10k-node citation DAG."""
from __future__ import annotations

import json
import math
import random
import xml.etree.ElementTree as ET

import networkx as nx
import pytest
from synthetic_graph import citation_dag

from doiget import ranking as graph
from doiget.errors import DoigetError, ErrorCode
from doiget.pagerank import pagerank  # equal to networkx.pagerank: tests/test_pagerank.py
from doiget.ranking import Step, build_graph, connect, export_graph, literature_review, related

LN2, LN3 = math.log(2), math.log(3)


def _graph(edges, **attrs_by_node) -> nx.DiGraph:
    ids = {n for e in edges for n in e} | {int(k[1:]) for k in attrs_by_node}
    return build_graph([{"id": n, **attrs_by_node.get(f"n{n}", {})} for n in sorted(ids)], edges)


@pytest.fixture
def small() -> nx.DiGraph:
    """Seed 1 is cited by 10, 11, 12 (which also cite 2, 2, 3) and cites 20, 21 (also cited by 4, 4, 5)."""
    edges = [(10, 1), (10, 2), (11, 1), (11, 2), (12, 1), (12, 3), (1, 20), (1, 21), (4, 20), (4, 21), (5, 20)]
    return _graph(edges,
                  n2={"title": "Graph kernels", "year": 2020, "authors": ["Ada", "Bo"], "venue": "JMLR"},
                  n3={"authors": ["Ada"], "venue": "JMLR"},
                  n4={"authors": ["Ada", "Cy"], "venue": "NeurIPS"},
                  n5={"authors": ["Bo"]})


# --- build_graph -----------------------------------------------------------------------------------

def test_build_graph_fills_defaults_adds_bare_endpoints_and_drops_self_citations():
    G = build_graph([{"id": 1, "year": 2001, "title": "T", "authors": ["A"]}], [(1, 2), (1, 1), (1, 2)])
    assert G.nodes[1] == {"year": 2001, "title": "T", "authors": ["A"], "venue": None, "type": None}
    assert G.nodes[2] == {"year": None, "title": None, "authors": [], "venue": None, "type": None}
    assert list(G.edges) == [(1, 2)]


# --- related: similarity -----------------------------------------------------------------------------

def test_similarity_components_match_hand_counts(small):
    got = {r.node: r for r in related(small, [1], limit=None)}
    # Candidates: the two-hop undirected neighbourhood of 1, without 1.
    assert set(got) == {2, 3, 4, 5, 10, 11, 12, 20, 21}
    assert got[2].components == pytest.approx({"co_citation": 2, "coupling": 0, "adamic_adar": 2 / LN2})
    assert got[3].components == pytest.approx({"co_citation": 1, "coupling": 0, "adamic_adar": 1 / LN2})
    assert got[4].components == pytest.approx({"co_citation": 0, "coupling": 2, "adamic_adar": 1 / LN3 + 1 / LN2})
    assert got[5].components == pytest.approx({"co_citation": 0, "coupling": 1, "adamic_adar": 1 / LN3})
    for direct in (10, 11, 12, 20, 21):
        assert got[direct].components == {"co_citation": 0, "coupling": 0, "adamic_adar": 0}


def test_similarity_score_is_sum_of_max_normalised_components_in_order(small):
    ranked = related(small, [1], limit=None)
    # Peaks: co-citation 2 (node 2), coupling 2 (node 4), Adamic-Adar 2/ln2 (node 2).
    peak_aa = 2 / LN2
    assert [r.node for r in ranked] == [2, 4, 3, 5, 10, 11, 12, 20, 21]
    assert [r.score for r in ranked[:4]] == pytest.approx([
        1 + 0 + 1, 0 + 1 + (1 / LN3 + 1 / LN2) / peak_aa, 0.5 + 0 + (1 / LN2) / peak_aa, 0 + 0.5 + (1 / LN3) / peak_aa])
    assert related(small, [1], limit=2) == ranked[:2]


def test_seeds_are_excluded_and_counts_pool_over_seeds(small):
    got = {r.node: r for r in related(small, [1, 2, 1], limit=None)}
    assert 1 not in got and 2 not in got
    # 10 and 11 cite both seeds, so 3 is still co-cited once (by 12, a citer of seed 1).
    assert got[3].components["co_citation"] == 1
    # Adamic-Adar sums over seeds: AA(1,10) = 0, AA(2,10) = 0 (10 is adjacent to both, shares no neighbour).
    assert got[10].components["adamic_adar"] == 0


def test_related_rejects_bad_input(small):
    with pytest.raises(DoigetError) as err:
        related(small, [1, 999])
    assert err.value.code is ErrorCode.NOT_FOUND and err.value.details["missing"] == [999]
    for bad in ({"seeds": []}, {"seeds": [1], "ranking": "popularity"}):
        with pytest.raises(DoigetError) as err:
            related(small, **bad)
        assert err.value.code is ErrorCode.INVALID_INPUT


# --- related: influence and recent ----------------------------------------------------------------------

def test_influence_and_recent_rank_the_neighbourhood_by_pagerank(small):
    small.nodes[4]["year"], small.nodes[5]["year"], small.nodes[12]["year"] = 2023, 2021, 2024
    influence = related(small, [1], "influence", limit=None)
    pr = pagerank(small)
    assert [r.node for r in influence] == sorted({2, 3, 4, 5, 10, 11, 12, 20, 21}, key=lambda n: (-pr[n], n))
    assert influence[0].node == 20 and influence[0].components == {"pagerank": pr[20]}
    recent = related(small, [1], "recent", now_year=2024, limit=None)
    # 2024-2 = 2022: nodes 4 and 12 qualify (2 is from 2020, 5 from 2021); neither cites the other.
    assert {r.node for r in recent} == {4, 12}
    assert [r.score for r in recent] == [0.5, 0.5]


# --- connect ------------------------------------------------------------------------------------------

@pytest.fixture
def paths() -> nx.DiGraph:
    """1 cites 2, 3 cites 2 and 4; 7 cites 1 and 8, 4 cites 8; 1 -> 9 -> 10 -> 11 -> 4; 99 is alone."""
    return _graph([(1, 2), (3, 2), (3, 4), (7, 1), (7, 8), (4, 8), (1, 9), (9, 10), (10, 11), (11, 4)], n99={})


def test_connect_reports_real_edge_directions(paths):
    short = [[Step(2, "cites"), Step(3, "cited_by"), Step(4, "cites")],
             [Step(7, "cited_by"), Step(8, "cites"), Step(4, "cited_by")]]
    long_ = [Step(9, "cites"), Step(10, "cites"), Step(11, "cites"), Step(4, "cites")]
    got = connect(paths, 1, 4, max_len=3)
    assert sorted(got) == sorted(short)
    got = connect(paths, 1, 4)
    assert sorted(got[:2]) == sorted(short) and got[2:] == [long_]
    assert len(connect(paths, 1, 4, max_paths=1)) == 1
    assert connect(paths, 1, 4, max_len=2) == []
    assert connect(paths, 4, 1, max_len=3)[0][-1].node == 1


def test_connect_without_path_same_node_and_unknown_node(paths):
    assert connect(paths, 1, 99) == []
    assert connect(paths, 1, 1) == [[]]
    with pytest.raises(DoigetError) as err:
        connect(paths, 1, 12345)
    assert err.value.code is ErrorCode.NOT_FOUND


# --- literature_review on hand-made graphs ---------------------------------------------------------------

def test_review_candidates_are_labelled_heuristic():
    # Seed 1 is cited by 2 (which cites 30 papers), 3 (a survey by title) and 4 (neither);
    # 60..79 cite two papers each so that 30 references is far above the 95th percentile.
    edges = [(2, 1), (3, 1), (4, 1)] + [(2, r) for r in range(30, 59)] + [(p, r) for p in range(60, 80) for r in (30, 31)]
    G = _graph(edges, n2={"title": "Folding energy"}, n3={"title": "A Survey of protein folding"},
               n4={"title": "Folding kinetics, reviewed"})
    reviews = literature_review(G, [1], sections=["reviews"])["sections"]["reviews"]
    assert reviews["heuristic"] is True
    assert [(i["node"], i["heuristic"]) for i in reviews["items"]] == [(3, True), (2, True)]
    assert reviews["items"][0]["reasons"] == ["title says 'survey'"]
    assert reviews["items"][1]["reasons"][0].startswith("cites 30 papers")


def test_top_authors_and_venues_count_related_papers(small):
    out = literature_review(small, [1], sections=["authors", "venues"], limit=2)
    assert out["partial"] is False and list(out["sections"]) == ["authors", "venues"]
    assert out["sections"]["authors"]["items"] == [{"name": "Ada", "count": 3}, {"name": "Bo", "count": 2}]
    assert out["sections"]["venues"]["items"] == [{"name": "JMLR", "count": 2}, {"name": "NeurIPS", "count": 1}]


def test_literature_review_rejects_unknown_sections(small):
    with pytest.raises(DoigetError) as err:
        literature_review(small, [1], sections=["similar", "gossip"])
    assert err.value.code is ErrorCode.INVALID_INPUT


# --- export ----------------------------------------------------------------------------------------------

def test_export_graphml_joins_lists_and_drops_none(small):
    root = ET.fromstring(export_graph(small, "graphml"))
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    keys = {k.get("id"): k.get("attr.name") for k in root.iterfind("g:key", ns)}
    node2 = root.find("g:graph/g:node[@id='2']", ns)
    data = {keys[d.get("key")]: d.text for d in node2.iterfind("g:data", ns)}
    assert data == {"year": "2020", "title": "Graph kernels", "authors": "Ada; Bo", "venue": "JMLR"}
    assert len(root.findall("g:graph/g:edge", ns)) == small.number_of_edges()
    assert nx.is_isomorphic(nx.parse_graphml(export_graph(small)), small)


def test_export_json_round_trips(small):
    back = nx.node_link_graph(json.loads(export_graph(small, "json")), edges="edges")
    assert sorted(back.edges) == sorted(small.edges) and back.nodes[2]["authors"] == ["Ada", "Bo"]
    with pytest.raises(DoigetError):
        export_graph(small, "gexf")


# --- the synthetic 10k-node graph --------------------------------------------------------------------------

BIG = 4_000


@pytest.fixture(scope="module")
def big() -> nx.DiGraph:
    return citation_dag(BIG, seed=0)


@pytest.fixture(scope="module")
def seeds() -> list[int]:
    return random.Random(1).sample(range(BIG), 40)


@pytest.fixture(scope="module")
def neighbourhood(big, seeds) -> set[int]:
    """Everything within two undirected hops of a seed, by networkx's own BFS."""
    U = big.to_undirected()
    return set().union(*(nx.single_source_shortest_path_length(U, s, cutoff=2) for s in seeds)) - set(seeds)


def test_synthetic_influence_is_pagerank(big, seeds, neighbourhood):
    got = related(big, seeds, "influence", limit=None)
    pr = pagerank(big)
    expected = sorted(neighbourhood, key=lambda n: (-pr[n], n))
    assert [r.node for r in got] == expected
    assert [r.score for r in got] == [pr[n] for n in expected]


def test_synthetic_recent_equals_pagerank_of_last_three_years(big, seeds, neighbourhood):
    got = related(big, seeds, "recent", now_year=2024, limit=None)
    sub = big.subgraph(n for n, y in big.nodes(data="year") if y >= 2022)
    pr = pagerank(sub)
    assert [r.node for r in got] == sorted(neighbourhood & set(sub), key=lambda n: (-pr[n], n))
    assert all(r.score == pr[r.node] and big.nodes[r.node]["year"] >= 2022 for r in got)
    assert got  # the seeds do have recent neighbours


def test_synthetic_similarity_components_equal_brute_force(big, seeds, neighbourhood):
    ranked = related(big, seeds, limit=None)
    assert {r.node for r in ranked} == neighbourhood
    U = big.to_undirected()
    seed_citers = set().union(*(big.pred[s] for s in seeds))
    seed_refs = set().union(*(big.succ[s] for s in seeds))
    for r in random.Random(2).sample(ranked[:50] + ranked[-2000:], 200):
        c = r.node
        assert r.components["co_citation"] == len(set(big.pred[c]) & seed_citers)
        assert r.components["coupling"] == len(set(big.succ[c]) & seed_refs)
        assert r.components["adamic_adar"] == pytest.approx(
            sum(p for _, _, p in nx.adamic_adar_index(U, [(s, c) for s in seeds])))
    assert ranked[0].score > ranked[-1].score


def test_synthetic_review_failing_section_is_partial(big, seeds, monkeypatch):
    whole = literature_review(big, seeds, now_year=2024)
    assert whole["partial"] is False and list(whole["sections"]) == list(graph.SECTIONS)
    assert all(whole["sections"][s]["items"] for s in graph.SECTIONS)
    assert whole["sections"]["similar"]["items"][0]["node"] == related(big, seeds, limit=1)[0].node

    H = big.copy()
    victim = whole["sections"]["similar"]["items"][0]["node"]
    H.nodes[victim]["authors"] = 42
    broken = literature_review(H, seeds, now_year=2024)
    assert broken["partial"] is True
    assert broken["sections"]["authors"]["partial"] is True
    assert broken["sections"]["authors"]["error"]["code"] == "INTERNAL_ERROR"
    assert f"node {victim}: authors" in broken["sections"]["authors"]["error"]["message"]
    assert {k: v for k, v in broken["sections"].items() if k != "authors"} == \
        {k: v for k, v in whole["sections"].items() if k != "authors"}

    def no_pagerank(*args, **kwargs):
        raise RuntimeError("pagerank did not converge")
    monkeypatch.setattr(graph, "pagerank", no_pagerank)
    broken = literature_review(big, seeds, now_year=2024)
    assert broken["partial"] is True
    assert {s for s, v in broken["sections"].items() if v.get("partial")} == {"important", "recent"}
    assert broken["sections"]["important"]["error"]["message"] == "RuntimeError: pagerank did not converge"
    assert broken["sections"]["similar"] == whole["sections"]["similar"]


def test_synthetic_connect_finds_short_paths_with_true_directions(big):
    last, middle = BIG - 1, BIG // 2
    found = connect(big, last, middle)
    assert 1 <= len(found) <= 5
    lengths = [len(p) for p in found]
    assert lengths == sorted(lengths) and lengths[0] == nx.shortest_path_length(big.to_undirected(), last, middle)
    for path in found:
        prev = last
        for step in path:
            assert big.has_edge(prev, step.node) if step.direction == "cites" else big.has_edge(step.node, prev)
            prev = step.node
        assert prev == middle
