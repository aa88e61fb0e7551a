"""Time ``Library.import_bibliography`` on a generated CSL-JSON file shaped like a Zotero export.

Run from the repository root: ``python scripts/bench_import.py`` (10k entries) or
``python scripts/bench_import.py --large`` (100k). Each run uses a fresh temp library, then
imports the same file again to time the all-merged path.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from doiget.config import Config  # noqa: E402
from doiget.library import Library  # noqa: E402

FAMILIES = ("Smith Müller García Nguyen Kowalski O'Brien Rossi Tanaka Ødegaard Dubois Novák Silva Kim Ivanova "
            "Papadopoulos Van der Berg Schmidt Łukasik Hernández Chen").split()
GIVEN = "Anna Ben Chloé David Eun-ji Farid Greta Hiro Ines Jan Kamala Luis Maja Noor Olu Pia".split()
WORDS = ("learning neural protein folding dynamics graph citation network climate model evidence synthesis "
         "bayesian inference cartilage hypoxia tissue engineering retrieval augmented verification widget "
         "detection ecology chemical signalling genome assembly quantum error correction survey benchmark "
         "robust sparse transformer language corpus annotation").split()
VENUES = ("Nature", "Proceedings of the National Academy of Sciences", "PLOS ONE", "Journal of Chemical Ecology",
          "Bioinformatics", "Physical Review Letters", "NeurIPS", "JAMIA Open")
TYPES = ("article-journal",) * 6 + ("paper-conference", "chapter", "book", "report")


def item(i: int, rng: random.Random) -> dict:
    """One CSL-JSON item: 1-8 authors, a 6-14 word title, 80% with a DOI, 10% arXiv-only, keywords."""
    year = rng.randint(1990, 2025)
    entry = {
        "id": f"item{i}", "type": rng.choice(TYPES),
        "title": " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + f" {i}",
        "author": [{"family": rng.choice(FAMILIES), "given": rng.choice(GIVEN)} for _ in range(rng.randint(1, 8))],
        "container-title": rng.choice(VENUES), "issued": {"date-parts": [[year, rng.randint(1, 12)]]},
        "volume": str(rng.randint(1, 120)), "issue": str(rng.randint(1, 12)),
        "page": f"{(p := rng.randint(1, 900))}–{p + rng.randint(3, 30)}",
        "keyword": ", ".join(rng.sample(WORDS, rng.randint(0, 3))),
    }
    kind = rng.random()
    if kind < 0.8:
        entry["DOI"] = f"10.{rng.randint(1000, 9999)}/bench.{i}"
    elif kind < 0.9:
        entry["URL"] = f"https://arxiv.org/abs/{2000 + i // 100000:04d}.{i % 100000:05d}"
    if rng.random() < 0.5:
        entry["abstract"] = " ".join(rng.choice(WORDS) for _ in range(120))
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--large", action="store_true", help="100k entries instead of 10k")
    parser.add_argument("-n", type=int, help="number of entries (overrides --large)")
    args = parser.parse_args()
    n = args.n or (100_000 if args.large else 10_000)
    rng = random.Random(0)
    document = json.dumps([item(i, rng) for i in range(n)])
    print(f"{n} generated CSL-JSON entries, {len(document) / 1e6:.1f} MB")
    with tempfile.TemporaryDirectory() as home, Library(Config(home=Path(home), profile="offline")) as lib:
        for label in ("fresh library", "same file again"):
            wall, cpu = time.perf_counter(), time.process_time()
            result = lib.import_bibliography(document)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            # CPU time too: on a shared machine the wall clock also measures the neighbours.
            print(f"{label:16} {wall:7.2f} s wall ({n / wall:6.0f} entries/s), {cpu:7.2f} s CPU "
                  f"({n / cpu:6.0f} entries/s); added {result.added}, merged {result.merged}, "
                  f"skipped {result.skipped}")


if __name__ == "__main__":
    main()
