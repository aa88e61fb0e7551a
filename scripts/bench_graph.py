"""Time doiget.graph on the seeded 10k-node synthetic citation DAG (100 seeds, median of 5 runs).

Run from the repository root: ``python scripts/bench_graph.py``.
"""
from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from synthetic_graph import citation_dag  # noqa: E402

from doiget.graph import connect, literature_review, related  # noqa: E402

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


if __name__ == "__main__":
    main()
