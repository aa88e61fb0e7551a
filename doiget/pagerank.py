"""PageRank by power iteration in pure Python, so ranking needs neither scipy nor numpy.

It computes what ``networkx.pagerank(G)`` computes with its defaults on doiget's unweighted
citation graphs: damping 0.85, uniform teleport, the rank of dangling nodes (no outgoing edges)
spread uniformly, stop when the L1 change is below ``len(G) * tol``, at most ``max_iter`` rounds.
"""
from __future__ import annotations

from collections.abc import Hashable

import networkx as nx


def pagerank(G: nx.DiGraph, alpha: float = 0.85, max_iter: int = 100, tol: float = 1.0e-6) -> dict[Hashable, float]:
    """``{node: rank}`` summing to 1; raises ``networkx.PowerIterationFailedConvergence`` as networkx does."""
    nodes = list(G)
    n = len(nodes)
    if n == 0:
        return {}
    index = {node: i for i, node in enumerate(nodes)}
    preds = [[index[u] for u in G.predecessors(v)] for v in nodes]
    inverse_out = [1.0 / d if (d := G.out_degree(v)) else 0.0 for v in nodes]
    dangling = [i for i, inv in enumerate(inverse_out) if not inv]
    x = [1.0 / n] * n
    for _ in range(max_iter):
        share = [xi * inv for xi, inv in zip(x, inverse_out)]
        base = (alpha * sum(x[i] for i in dangling) + 1.0 - alpha) / n
        new = [base + alpha * sum(map(share.__getitem__, p)) for p in preds]
        if sum(abs(a - b) for a, b in zip(new, x)) < n * tol:
            return dict(zip(nodes, new))
        x = new
    raise nx.PowerIterationFailedConvergence(max_iter)
