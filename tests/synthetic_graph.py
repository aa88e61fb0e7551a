"""A seeded synthetic citation graph for tests and scripts/bench_graph.py."""
from __future__ import annotations

import random

import networkx as nx

from doiget.ranking import build_graph

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


def store_graph(lib, G: nx.DiGraph) -> dict[int, int]:
    """Save ``G`` into the library ``lib`` (node n as work ``W{n + 1}``, edges from OpenAlex) in one
    transaction; returns node -> entry id."""
    from doiget.models import Author, Work
    from doiget.store import citations, entries

    ids: dict[int, int] = {}
    with lib.store.write() as conn:
        for n, attrs in G.nodes(data=True):
            work = Work(openalex=f"W{n + 1}", title=attrs["title"], year=attrs["year"], venue=attrs["venue"],
                        type=attrs["type"], authors=[Author(name=a) for a in attrs["authors"]])
            ids[n] = entries.upsert_work(conn, work)
        citations.add_edges(conn, [(ids[a], ids[b]) for a, b in G.edges], "openalex")
    return ids
