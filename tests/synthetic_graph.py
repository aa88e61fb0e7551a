"""A seeded synthetic citation graph for tests and scripts/bench_graph.py."""
from __future__ import annotations

import random

import networkx as nx

from doiget.graph import build_graph

TOPICS = ["graph", "protein", "language", "climate", "neural", "quantum", "genome", "market"]


def citation_dag(n: int = 10_000, seed: int = 0, first_year: int = 1990, last_year: int = 2024) -> nx.DiGraph:
    """Preferential-attachment citation DAG: paper i (years ascending with i) cites 1-20 earlier papers.

    80% of references are drawn in proportion to citations already received (so hubs emerge), the
    rest uniformly. About 3% of titles are surveys; authors and venues come from fixed pools.
    """
    rng = random.Random(seed)
    received: list[int] = []  # a paper appears once per citation it has received
    nodes, edges = [], []
    for i in range(n):
        refs: set[int] = set()
        wanted = min(i, rng.randint(1, 20))
        while len(refs) < wanted:
            refs.add(rng.choice(received) if received and rng.random() < 0.8 else rng.randrange(i))
        received.extend(refs)
        edges.extend((i, r) for r in refs)
        topic = rng.choice(TOPICS)
        title = f"A survey of {topic} methods" if rng.random() < 0.03 else f"On {topic} problem {i}"
        nodes.append({"id": i, "year": first_year + i * (last_year - first_year + 1) // n, "title": title,
                      "authors": [f"Author {rng.randrange(2000)}" for _ in range(rng.randint(1, 5))],
                      "venue": f"Venue {rng.randrange(200)}" if rng.random() < 0.9 else None,
                      "type": "article-journal"})
    return build_graph(nodes, edges)
