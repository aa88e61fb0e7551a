"""doiget's pure-Python PageRank gives networkx's (scipy) answer, so ranking needs no scipy."""
from __future__ import annotations

import networkx as nx
import pytest
from synthetic_graph import citation_dag

from doiget.pagerank import pagerank

pytest.importorskip("scipy", reason="the reference networkx.pagerank runs on scipy (a test dependency only)")


@pytest.mark.parametrize("make", [  # built by the test, not by every process that collects this file
    lambda: citation_dag(2_000, seed=3),
    lambda: nx.gnp_random_graph(300, 0.02, directed=True, seed=1),  # cycles and dangling nodes
    lambda: nx.DiGraph([(1, 2), (2, 3), (3, 1), (4, 1)]),
    lambda: nx.DiGraph([(1, 2)]),
], ids=["citation-dag", "random", "cycle", "one-edge"])
def test_equals_networkx_pagerank(make):
    G = make()
    ours, theirs = pagerank(G), nx.pagerank(G)
    assert ours.keys() == theirs.keys()
    assert [ours[n] for n in G] == pytest.approx([theirs[n] for n in G], rel=1e-9, abs=1e-12)
    assert sum(ours.values()) == pytest.approx(1.0)


def test_isolated_nodes_and_empty_graph():
    G = nx.DiGraph()
    assert pagerank(G) == {}
    G.add_nodes_from([1, 2, 3])
    assert pagerank(G) == pytest.approx({1: 1 / 3, 2: 1 / 3, 3: 1 / 3})


def test_no_convergence_raises_as_networkx_does():
    with pytest.raises(nx.PowerIterationFailedConvergence):
        pagerank(nx.gnp_random_graph(50, 0.1, directed=True, seed=2), max_iter=1)
