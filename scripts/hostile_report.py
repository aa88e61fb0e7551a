"""How many hostile cases each parser and each MCP tool was tried with, and the slowest.

Runs the named cases and ``--examples`` hypothesis-generated documents per parser
(tests/hostile_cases.py), then every hostile argument of every MCP tool through the tool boundary
in-process (``doiget.mcp.server.call_tool`` on a demo library, offline profile; the stdio
transport is covered by tests/test_hostile_mcp.py). Prints one table per kind: cases, outcomes
by code, the slowest case and its CPU and wall seconds. Fails (exit 1) on any raw exception or
INTERNAL_ERROR.

    python scripts/hostile_report.py [--examples 200]
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from hostile_cases import NAMED, PARSERS, documents, run_parser, tool_cases  # noqa: E402


class Tally:
    def __init__(self) -> None:
        self.cases = 0
        self.outcomes: collections.Counter[str] = collections.Counter()
        self.slowest = (0.0, 0.0, "")
        self.failures: list[str] = []

    def run(self, label: str, call) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            outcome = call()
        except AssertionError as exc:
            outcome = "FAILED"
            self.failures.append(f"{label}: {str(exc)[:200]}")
        except Exception as exc:  # a raw exception is exactly what this script looks for
            outcome = "FAILED"
            self.failures.append(f"{label}: {type(exc).__name__}: {str(exc)[:200]}")
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        self.cases += 1
        self.outcomes[outcome] += 1
        if wall > self.slowest[1]:
            self.slowest = (cpu, wall, label)


def parsers(examples: int) -> dict[str, Tally]:
    tallies = {}
    for name in sorted(PARSERS):
        tally = tallies[name] = Tally()
        for case, make in NAMED[name].items():
            data = make()
            tally.run(case, lambda: run_parser(name, data))

        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(documents(name))
        def generated(data: bytes) -> None:
            tally.run(f"generated ({len(data)} bytes)", lambda: run_parser(name, data))

        generated()
    return tallies


def tools() -> dict[str, Tally]:
    from doiget import open_library
    from doiget.config import load_config
    from doiget.demo import load_demo
    from doiget.mcp.server import LibraryHolder, call_tool
    from doiget.mcp.tools import TOOLS

    os.environ["DOIGET_PROFILE"] = "offline"
    home = Path(tempfile.mkdtemp(prefix="doiget-hostile-")) / "lib"
    with open_library(home) as lib:
        load_demo(lib)
    holder = LibraryHolder(load_config(home))
    tallies: dict[str, Tally] = collections.defaultdict(Tally)

    def call(tool: str, arguments: dict) -> str:
        envelope = call_tool(holder, tool, arguments)
        if envelope["ok"]:
            return "ok"
        assert envelope["error"]["code"] != "INTERNAL_ERROR", envelope["error"]["message"]
        return envelope["error"]["code"]

    try:
        for tool, case, arguments in tool_cases(TOOLS):
            tallies[tool].run(case, lambda: call(tool, arguments))
    finally:
        holder.close()
    return dict(sorted(tallies.items()))


def table(title: str, tallies: dict[str, Tally]) -> list[str]:
    lines = [f"## {title}", "", "| name | cases | outcomes | slowest case | CPU s | wall s |", "|---|---|---|---|---|---|"]
    for name, t in tallies.items():
        outcomes = ", ".join(f"{code} {n}" for code, n in t.outcomes.most_common())
        lines.append(f"| {name} | {t.cases} | {outcomes} | {t.slowest[2]} | {t.slowest[0]:.2f} | {t.slowest[1]:.2f} |")
    worst = max(tallies.items(), key=lambda item: item[1].slowest[1])
    lines += ["", f"total {sum(t.cases for t in tallies.values())} cases; slowest: {worst[0]} / {worst[1].slowest[2]} "
              f"({worst[1].slowest[1]:.2f} s wall, {worst[1].slowest[0]:.2f} s CPU)", ""]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200, help="generated documents per parser")
    args = parser.parse_args()
    results = {"Parsers": parsers(args.examples), "MCP tools": tools()}
    for title, tallies in results.items():
        print("\n".join(table(title, tallies)))
    failures = [f"{name}: {f}" for tallies in results.values() for name, t in tallies.items() for f in t.failures]
    for failure in failures:
        print("FAILED", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
