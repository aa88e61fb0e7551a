"""Time doiget.ranking on the seeded 10k-node synthetic citation DAG (100 seeds, median of 5 runs), then
the same graph stored in a temp library (load from the store + literature review through the Library),
and count the requests of a depth-2 expansion against a fake OpenAlex with a known fan-out.

Run from the repository root: ``python scripts/bench_graph.py``.
"""
from __future__ import annotations

import gc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fake_openalex import FakeOpenAlexHttp, wid  # noqa: E402
from synthetic_graph import citation_dag, store_graph  # noqa: E402

from doiget.services import graph as citation_graph  # noqa: E402
from doiget.config import load_config  # noqa: E402
from doiget.ranking import build_graph, connect, literature_review, related  # noqa: E402
from doiget.library import Library  # noqa: E402

RUNS = 5
NOW = 2024


def median_ms(call) -> tuple[float, float]:
    """Median wall-clock and median CPU milliseconds of ``RUNS`` calls."""
    wall, cpu = [], []
    for _ in range(RUNS):
        w, c = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def main() -> None:
    start = time.perf_counter()
    G = citation_dag(10_000, seed=0)
    print(f"graph: {G.number_of_nodes()} nodes, {G.number_of_edges()} edges, "
          f"built in {time.perf_counter() - start:.2f} s")
    seeds = random.Random(1).sample(sorted(G), 100)
    start = time.perf_counter()
    related(G, seeds, "influence")
    print(f"first PageRank call (imports scipy): {time.perf_counter() - start:.3f} s\n")
    cases = {f"related {r}": (lambda r=r: related(G, seeds, r, now_year=NOW))
             for r in ("similarity", "influence", "recent")}
    cases["literature_review (6 sections)"] = lambda: literature_review(G, seeds, now_year=NOW)
    cases["connect 9999 -> 5000"] = lambda: connect(G, 9999, 5000)
    print(f"{'call (100 seeds), median of ' + str(RUNS):34} {'wall ms':>9} {'CPU ms':>9}")
    for name, call in cases.items():
        print(f"{name:34} {'%9.1f %9.1f' % median_ms(call)}")
    # Much of the time above is the cyclic GC walking the graph's ~10^5 dicts on every collection;
    # a long-lived process that holds the graph can exempt it with gc.freeze().
    gc.freeze()
    print(f"{'literature_review after gc.freeze()':34} {'%9.1f %9.1f' % median_ms(cases['literature_review (6 sections)'])}")


def store_backed(G, seeds: list[int]) -> None:
    """The Library path: the graph is read from SQLite on every call."""
    with tempfile.TemporaryDirectory() as home, Library(load_config(home)) as lib:
        start = time.perf_counter()
        store_graph(lib, G)
        print(f"\nstored in a temp library in {time.perf_counter() - start:.1f} s")
        refs = [f"openalex:W{n + 1}" for n in seeds]
        lib.literature_review(refs)  # warm
        cases = {"load graph (GC left on)": lambda: citation_graph.load(lib.store),
                 "Library.related similarity": lambda: lib.related(refs),
                 "Library.literature_review": lambda: lib.literature_review(refs)}
        print(f"{'store-backed call (100 seeds)':34} {'wall ms':>9} {'CPU ms':>9}")
        for name, call in cases.items():
            print(f"{name:34} {'%9.1f %9.1f' % median_ms(call)}")


def expansion_requests(fan: int = 10) -> None:
    """Requests of depth-2 expansions from a seed that cites ``fan`` works each citing ``fan`` more,
    and is cited by ``fan`` works each cited by ``fan`` more."""
    edges, nxt = [], 1
    for direction in ("references", "cited_by"):
        for _ in range(fan):
            child, nxt = nxt, nxt + 1
            edges.append((0, child) if direction == "references" else (child, 0))
            for _ in range(fan):
                edges.append((child, nxt) if direction == "references" else (nxt, child))
                nxt += 1
    G = build_graph([{"id": n, "title": f"Paper {n}", "year": 2020} for n in range(nxt)], edges)
    print(f"\ndepth-2 expansion, fan-out {fan} (seed not yet in the library)")
    print(f"{'direction':12} {'nodes':>6} {'edges':>6} {'requests':>9} {'repeat':>7} {'wall ms':>8}")
    for direction in ("references", "cited_by", "both"):
        with tempfile.TemporaryDirectory() as home:
            http = FakeOpenAlexHttp(G)
            with Library(load_config(home), http=http) as lib:
                start = time.perf_counter()
                first = lib.expand_citation_graph(f"openalex:{wid(0)}", direction, depth=2, max_nodes=500,
                                                  max_requests=100)
                wall = (time.perf_counter() - start) * 1000
                repeat = lib.expand_citation_graph(f"openalex:{wid(0)}", direction, depth=2, max_nodes=500,
                                                   max_requests=100)
            print(f"{direction:12} {first.nodes:>6} {first.edges:>6} {first.requests_made:>9} "
                  f"{repeat.requests_made:>7} {wall:>8.0f}")


if __name__ == "__main__":
    main()
    G = citation_dag(10_000, seed=0)
    store_backed(G, random.Random(1).sample(sorted(G), 100))
    expansion_requests()
