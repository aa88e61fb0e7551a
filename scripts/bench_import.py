"""CSL-JSON import against the bare-executemany limit, paired, in child processes.

    python scripts/bench_import.py [-n 10000] [--rounds 5] [--no-anchor] [--reimport] [--stages]

Generates a CSL-JSON file shaped like a Zotero export (1-8 authors, venue, volume/issue/pages, half
with a 120-word abstract, 80% with a DOI, 10% arXiv-only, 0-3 keywords), cached in the temp dir.
Each round runs, each in a fresh child process and a fresh library:

  doiget  ``Library.import_bibliography(path)`` (read, parse, identity, names, citekeys, writes)
  anchor  the limit: read the file, ``json.loads`` it, build the rows doiget writes with a plain
          mapping (entries, authors, entry_authors, tags, entry_tags, entry_search_text) and
          ``executemany`` them into a library made by doiget's own migrations (same tables,
          indexes and FTS5 table) with its triggers dropped, then fill ``entries_fts`` with one
          ``INSERT ... SELECT``; one transaction; then frees what it decoded and built (doiget's
          import frees its own before it returns, inside its clock).

Both children set up their library before the clock starts. Reported per child: CPU time of the
import (user + system of the process, ``time.process_time``), wall time, peak RSS of the whole process
(``ru_maxrss``). The ratio is doiget CPU / anchor CPU per round (the side run first alternates from round
to round); the figure is the median of the rounds, printed with their spread and with the ratio of each
side's fastest run (the run least disturbed by other work). CPU time, because the machine is shared.
``--reimport`` times importing the same file a second time into doiget's library (every record merged).
``--stages`` then runs two more children, one per side, that split its CPU time (process_time) by stage:
reading, each kind of SQL statement, the typed report, the rest.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOAL_RATIO = 1.3
GOAL_RSS_MB_100K = 600

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


def generate(n: int) -> Path:
    """The n-entry file (written once per n into the temp dir, item by item)."""
    path = Path(tempfile.gettempdir()) / f"doiget-bench-import-{n}.json"
    if not path.exists():
        rng = random.Random(0)
        partial = path.with_suffix(".part")
        with partial.open("w", encoding="utf-8") as out:
            out.write("[")
            for i in range(n):
                out.write(("," if i else "") + json.dumps(item(i, rng)))
            out.write("]")
        partial.rename(path)
    return path


# ---- children ------------------------------------------------------------------------------------

def _library(home: Path):
    from doiget.config import Config
    from doiget.library import Library
    return Library(Config(home=home, profile="offline"))


def child_doiget(path: Path, home: Path, reimport: bool) -> dict:
    lib = _library(home)
    lib.import_bibliography("[]")  # the library exists and every import module is loaded
    out = {}
    for label in ("import", "reimport")[:1 + reimport]:
        cpu, wall = _cpu(), time.perf_counter()
        result = lib.import_bibliography(path)
        out[label] = {"cpu": _cpu() - cpu, "wall": time.perf_counter() - wall,
                      "added": result.added, "merged": result.merged, "skipped": result.skipped}
    lib.close()
    return out


def child_anchor(path: Path, home: Path, stages: Stages | None = None) -> dict:
    _library(home).close()  # doiget's schema, made by its migrations
    timed = stages.connection if stages is not None else sqlite3.Connection
    conn = sqlite3.connect(home / "library.sqlite3", isolation_level=None, factory=timed)
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    stage = stages if stages is not None else _Untimed()
    if stages is not None:
        stages.clear()  # the set-up statements above are not the import's
    cpu, wall = _cpu(), time.perf_counter()
    with stage("read: file, json.loads"):
        items = json.loads(path.read_text(encoding="utf-8"))
    with stage("map items to rows"):
        entries, people, links, search, tag_names, tag_links = _anchor_rows(items)
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO authors (key, name, family, given) VALUES (?, ?, ?, ?)", people.values())
    author_ids = dict(conn.execute("SELECT key, id FROM authors"))
    conn.executemany("INSERT INTO tags (name) VALUES (?)", [(t,) for t in tag_names.values()])
    tag_ids = {name.lower(): tag_id for name, tag_id in conn.execute("SELECT name, id FROM tags")}
    conn.executemany("INSERT INTO entries (id, doi, arxiv, title, abstract, venue, year, published, type, volume, "
                     "issue, pages, url, sources, created_at, updated_at, citekey) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", entries)
    conn.executemany("INSERT INTO entry_authors (entry_id, position, author_id, role, name, family, given) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?)", [(e, p, author_ids[k], *rest) for e, p, k, *rest in links])
    conn.executemany("INSERT INTO entry_tags (entry_id, tag_id) VALUES (?, ?)",
                     [(e, tag_ids[t]) for e, t in tag_links])
    conn.executemany("INSERT INTO entry_search_text (id, authors, tags) VALUES (?, ?, ?)", search)
    conn.execute("INSERT INTO entries_fts (rowid, title, abstract, authors, venue, year, tags, notes) "
                 "SELECT * FROM entries_fts_content")
    conn.execute("COMMIT")
    added = len(entries)
    # What the import decoded and built is freed inside the clock, as doiget's import frees its own.
    del items, entries, people, links, search, tag_names, tag_links, author_ids, tag_ids
    out = {"import": {"cpu": _cpu() - cpu, "wall": time.perf_counter() - wall, "added": added}}
    conn.close()
    return out


def _anchor_rows(items: list[dict]) -> tuple[list, dict, list, list, dict, list]:
    """The anchor's rows, by a plain mapping: entries, people, name links, search text, tags, tag links."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000+00:00", time.gmtime())
    entries, people, links, search, tag_names, tag_links = [], {}, [], [], {}, []
    for entry_id, it in enumerate(items, 1):
        names = [f"{a.get('given', '')} {a.get('family', '')}".strip() for a in it.get("author", [])]
        for position, (a, name) in enumerate(zip(it.get("author", []), names)):
            key = "name:" + name.lower()
            people.setdefault(key, (key, name, a.get("family"), a.get("given")))
            links.append((entry_id, position, key, "author", name, a.get("family"), a.get("given")))
        tags = sorted({k.strip() for k in it.get("keyword", "").split(",") if k.strip()})
        for tag in tags:
            tag_names.setdefault(tag.lower(), tag)
            tag_links.append((entry_id, tag.lower()))
        url, doi = it.get("URL"), it.get("DOI")
        arxiv = url.rsplit("/", 1)[-1] if url and "arxiv.org/abs/" in url else None
        parts = it["issued"]["date-parts"][0]
        entries.append((entry_id, doi, arxiv, it.get("title"), it.get("abstract"), it.get("container-title"),
                        parts[0], f"{parts[0]}-{parts[1]:02d}", it.get("type"), it.get("volume"), it.get("issue"),
                        it.get("page"), url if not arxiv else None, '["import"]', stamp, stamp, it.get("id")))
        search.append((entry_id, "; ".join(names), " ".join(tags) or None))
    return entries, people, links, search, tag_names, tag_links


# ---- --stages: where each side's CPU time goes -----------------------------------------------------

_STATEMENT = re.compile(r"^\s*(INSERT(?: OR \w+)? INTO \w+|UPDATE \w+|DELETE FROM \w+|\w+)", re.I)


class Stages(Counter):
    """CPU seconds by stage: ``with stages(label):`` adds a block's; ``stages.connection`` is a sqlite3
    connection class that adds each statement's under its kind (``SQL INSERT INTO entries``)."""

    def __call__(self, label: str) -> _Clock:
        return _Clock(self, label)

    def statement(self, sql: str) -> _Clock:
        kind = _STATEMENT.match(sql)
        return self("SQL " + (" ".join(kind.group(1).split()) if kind else "other"))

    @property
    def connection(self) -> type[sqlite3.Connection]:
        stages = self

        class Timed(sqlite3.Connection):
            def execute(self, sql: str, *args: Any) -> Any:
                with stages.statement(sql):
                    return super().execute(sql, *args)

            def executemany(self, sql: str, *args: Any) -> Any:
                with stages.statement(sql):
                    return super().executemany(sql, *args)

        return Timed


class _Clock:
    def __init__(self, stages: Stages, label: str) -> None:
        self.stages, self.label = stages, label

    def __enter__(self) -> None:
        self.start = time.process_time()

    def __exit__(self, *exc: object) -> None:
        self.stages[self.label] += time.process_time() - self.start


class _Untimed:
    def __call__(self, label: str) -> AbstractContextManager[None]:
        return nullcontext()


def child_stages(path: Path, home: Path) -> dict:
    """doiget's import with its CPU time split: reading the file into records, each kind of SQL statement
    (commits included), the façade's typed report, and the rest (grouping, identity, citation keys, row
    building, report rows). The clocks add ~1 µs per record. The anchor's split runs in a child of its own
    (:func:`child_anchor_stages`): after doiget's import in the same process it came out ~20 µs per record
    above its plain rounds."""
    from doiget import results
    from doiget.services import bibliography

    ours = Stages()
    lib = _library(home / "doiget")
    lib.import_bibliography("[]")
    reader = bibliography.iter_bibliography
    bibliography.iter_bibliography = lambda *args: _timed_iter(ours("read: file, JSON, records"), reader(*args))
    for engine in (lib.store.reader, lib.store.writer):
        dialect = engine.dialect
        for name in ("do_execute", "do_executemany", "do_execute_no_params"):
            setattr(dialect, name, partial(_timed_statement, ours, getattr(dialect, name)))
        dialect.do_commit = partial(_timed_call, ours("SQL COMMIT"), dialect.do_commit)
    results.ImportReport.model_validate = partial(_timed_call, ours("façade: typed report"),
                                                  results.ImportReport.model_validate)
    cpu = time.process_time()
    lib.import_bibliography(path)
    ours["total"] = time.process_time() - cpu
    lib.close()
    return {"doiget": ours}


def child_anchor_stages(path: Path, home: Path) -> dict:
    """The anchor's import with its CPU time split as :func:`child_stages` splits doiget's."""
    anchor = Stages()
    anchor["total"] = child_anchor(path, home, anchor)["import"]["cpu"]
    return {"anchor": anchor}


def _timed_iter(clock: _Clock, items: Iterable) -> Iterator:
    items = iter(items)
    while True:
        with clock:
            item = next(items, clock)
        if item is clock:
            return
        yield item


def _timed_statement(stages: Stages, run: Callable, cursor: Any, sql: str, *args: Any) -> Any:
    with stages.statement(sql):
        return run(cursor, sql, *args)


def _timed_call(clock: _Clock, run: Callable, *args: Any) -> Any:
    with clock:
        return run(*args)


def _print_stages(n: int, out: dict) -> None:
    for side in ("doiget", "anchor"):
        spent = dict(out[side])
        total = spent.pop("total")
        rest = total - sum(spent.values())
        sql = sum(v for k, v in spent.items() if k.startswith("SQL "))
        print(f"{side}: {total / n * 1e6:.1f} µs per record ({total:.2f} s CPU, instrumented); SQL {sql / n * 1e6:.1f}")
        for label, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
            print(f"  {seconds / n * 1e6:6.1f}  {label}")
        print(f"  {rest / n * 1e6:6.1f}  the rest" + (": grouping, identity, citation keys, names, rows, report rows"
                                                    if side == "doiget" else ""))


def _cpu() -> float:
    return time.process_time()


def _run_child(kind: str, path: Path, reimport: bool) -> dict:
    with tempfile.TemporaryDirectory() as home:
        args = [sys.executable, __file__, "--child", kind, "--file", str(path), "--home", home]
        out = subprocess.run(args + (["--reimport"] if reimport else []), capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(out.stderr)
        return json.loads(out.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=10_000, help="number of entries")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-anchor", action="store_true", help="time doiget only (e.g. the 1M run)")
    parser.add_argument("--reimport", action="store_true", help="also import the same file again")
    parser.add_argument("--stages", action="store_true", help="also split each side's CPU time by stage (one "
                        "instrumented child per side after the rounds)")
    parser.add_argument("--child", choices=("doiget", "anchor", "stages", "anchor-stages"), help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        children = {"doiget": lambda: child_doiget(args.file, args.home, args.reimport),
                    "anchor": lambda: child_anchor(args.file, args.home), "stages": lambda: child_stages(args.file, args.home),
                    "anchor-stages": lambda: child_anchor_stages(args.file, args.home)}
        out = children[args.child]()
        out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(out))
        return
    path = generate(args.n)
    print(f"{args.n} generated CSL-JSON entries, {path.stat().st_size / 1e6:.1f} MB ({path}); "
          f"load average {os.getloadavg()[0]:.1f}")
    ratios, cpu, peak = [], {"doiget": [], "anchor": []}, 0.0
    for round_ in range(args.rounds):
        # the side that runs first alternates, so a load that rises or falls over a round favours neither
        sides = ("doiget", "anchor") if round_ % 2 == 0 else ("anchor", "doiget")
        runs = {side: _run_child(side, path, args.reimport and side == "doiget")
                for side in sides if side == "doiget" or not args.no_anchor}
        ours = runs["doiget"]
        cpu["doiget"].append(ours["import"]["cpu"])
        peak = max(peak, ours["rss_mb"])
        line = (f"round {round_ + 1}: doiget {ours['import']['cpu']:7.2f} s CPU {ours['import']['wall']:7.2f} s wall "
                f"({args.n / ours['import']['cpu']:6.0f} entries/CPU s, {ours['import']['cpu'] / args.n * 1e6:4.0f} µs "
                f"each) rss {ours['rss_mb']:6.0f} MB")
        if not args.no_anchor:
            anchor = runs["anchor"]
            cpu["anchor"].append(anchor["import"]["cpu"])
            ratios.append(ours["import"]["cpu"] / anchor["import"]["cpu"])
            line += (f" | anchor {anchor['import']['cpu']:6.2f} s CPU ({anchor['import']['cpu'] / args.n * 1e6:4.0f} µs), "
                     f"rss {anchor['rss_mb']:6.0f} MB | ratio {ratios[-1]:.2f}x")
        if args.reimport:
            again = ours["reimport"]
            line += f" | reimport {again['cpu']:.2f} s CPU ({args.n / again['cpu']:.0f}/s, merged {again['merged']})"
        print(line, flush=True)
    if ratios:
        ratio = statistics.median(ratios)
        print(f"median ratio to the bare-executemany limit: {ratio:.2f}x (goal <= {GOAL_RATIO}x: "
              f"{'pass' if ratio <= GOAL_RATIO else 'FAIL'}); rounds {min(ratios):.2f}-{max(ratios):.2f}x; "
              f"fastest run of each side: {min(cpu['doiget']) / min(cpu['anchor']):.2f}x "
              f"({min(cpu['doiget']) / args.n * 1e6:.0f} vs {min(cpu['anchor']) / args.n * 1e6:.0f} µs per record); "
              f"load average now {os.getloadavg()[0]:.1f}")
    if args.stages:
        _print_stages(args.n, {**_run_child("stages", path, False), **_run_child("anchor-stages", path, False)})
    if args.n == 100_000:
        rss = peak
        print(f"peak RSS at 100k (largest of the rounds): {rss:.0f} MB (goal <= {GOAL_RSS_MB_100K} MB: "
              f"{'pass' if rss <= GOAL_RSS_MB_100K else 'FAIL'})")


if __name__ == "__main__":
    main()
