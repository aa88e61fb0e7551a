"""Start-up cost against the limit, paired and interleaved in one run (median of ``--rounds``):

- ``doiget --help`` vs ``python -c pass``;
- ``doiget search <query>`` on a library vs a python + sqlite3 script running the same bm25 query
  with snippets on the same file and printing the rows;
- ``doiget serve`` spawn -> initialize -> tools/list vs a bare one-tool mcp SDK server.

    python scripts/bench_startup.py --home /tmp/doiget-bench-search/lib100000

(the library built by scripts/bench_search.py). Figures are the CPU time (user + system) of the
child processes, so a shared machine does not inflate them; wall time is not reported. doiget's
modules are compiled to bytecode first, as an installed wheel's are (with PYTHONDONTWRITEBYTECODE
set, an editable tree would otherwise compile its source at every start while the SDK's is compiled).
"""
from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench import BARE_SERVER, serve_and_list  # noqa: E402

QUERY = "protein folding"
RAW_SEARCH = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT rowid, bm25(entries_fts, 10.0, 3.0, 5.0, 2.0, 1.0, 4.0, 2.0) AS s, "
                  "snippet(entries_fts, -1, '**', '**', '…', 16) FROM entries_fts WHERE entries_fts MATCH ? "
                  "ORDER BY s LIMIT 20", (sys.argv[2],)).fetchall()
for row in rows:
    print(*row)
"""


def child_cpu(fn) -> float:
    """CPU seconds (user + system) of the child processes ``fn`` runs and waits for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def run(argv: list[str], env: dict[str, str]) -> float:
    return child_cpu(lambda: subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            check=True))


def paired(pairs: dict[str, tuple], rounds: int) -> dict[str, tuple[float, float]]:
    times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in pairs}
    for r in range(rounds):
        for name, (ours, anchor) in pairs.items():
            first, second = (ours, anchor) if r % 2 == 0 else (anchor, ours)
            a, b = first(), second()
            mine, limit = (a, b) if r % 2 == 0 else (b, a)
            times[name][0].append(mine)
            times[name][1].append(limit)
    return {name: (statistics.median(d), statistics.median(a)) for name, (d, a) in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="an existing doiget library")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", nargs="+", choices=["help", "search", "mcp"], help="which pairs to run")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "doiget", quiet=1)
    env = {**os.environ, "DOIGET_HOME": str(args.home)}
    doiget = [sys.executable, "-m", "doiget.cli"]
    with tempfile.TemporaryDirectory() as work:
        bare = Path(work) / "bare_server.py"
        bare.write_text(BARE_SERVER)
        raw = Path(work) / "raw_search.py"
        raw.write_text(RAW_SEARCH)
        pairs = {
            "doiget --help": (lambda: run([*doiget, "--help"], env), lambda: run([sys.executable, "-c", "pass"], env)),
            "doiget search": (lambda: run([*doiget, "search", QUERY], env),
                              lambda: run([sys.executable, str(raw), str(args.home / "library.sqlite3"),
                                           '"protein" "folding"'], env)),
            "MCP start": (lambda: child_cpu(lambda: serve_and_list([*doiget, "serve"], env)),
                          lambda: child_cpu(lambda: serve_and_list([sys.executable, str(bare)], env))),
        }
        chosen = {"help": "doiget --help", "search": "doiget search", "mcp": "MCP start"}
        results = paired({name: pair for name, pair in pairs.items()
                          if not args.only or name in {chosen[o] for o in args.only}}, args.rounds)
    goals = {"doiget --help": (5.0, "python -c pass"), "doiget search": (6.0, "python+sqlite3 script, same query"),
             "MCP start": (1.15, "bare one-tool SDK server")}
    print("| goal | doiget | anchor | ratio | target | |\n|---|---|---|---|---|---|")
    for name, (ours, anchor) in results.items():
        target, what = goals[name]
        ratio = ours / anchor
        print(f"| {name} | {ours * 1000:.0f} ms | {what} {anchor * 1000:.0f} ms | {ratio:.2f}x | <= {target}x | "
              f"{'pass' if ratio <= target else 'FAIL'} |")


if __name__ == "__main__":
    main()
