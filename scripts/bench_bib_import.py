"""Import speed of a real BibTeX library, against bibtexparser's own parse of the same file.

    python scripts/bench_bib_import.py [--file FILE.bib[.gz]] [--baseline-ref GIT_REF] [--repeat N]
                                       [--rounds R] [--parse-only]

Default file: tests/fixtures/bib/cdl.bib.gz (ContextLab's BibDesk library, 6,315 entries). Measures
CPU time (time.process_time) of:
  anchor   bibtexparser.parse_string(text)            (bibtexparser's default parse stack)
  parse    doiget's parse step (parse_bibliography)   -> ratio to the anchor, paired: R rounds, each
           timing the anchor and the parse back to back (alternating which goes first); the ratio
           of each round, their median and range are printed
  import   Library.import_bibliography into a fresh library (parse + identity + SQLite writes), best of N
and, with --baseline-ref, the same import by the code at that git ref (extracted with git archive
into a temp dir and run in a subprocess), so "x times today's rate" is measured in the same run.
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "tests" / "fixtures" / "bib" / "cdl.bib.gz"
PARSE_GOAL = 1.5  # issue 10: the parse step within 1.5x bibtexparser's own parse

IMPORT_SNIPPET = """
import sys, time, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from doiget.config import Config
from doiget.library import Library
text = Path(sys.argv[2]).read_text(encoding="utf-8")
best = None
for _ in range(int(sys.argv[3])):
    with tempfile.TemporaryDirectory() as home:
        Library(Config(home=Path(home) / "warm", profile="full")).import_bibliography("@misc{w, title={Warm up}}")
        lib = Library(Config(home=Path(home) / "lib", profile="full"))
        start = time.process_time()
        result = lib.import_bibliography(text)
        cpu = time.process_time() - start
        lib.close()
    best = cpu if best is None else min(best, cpu)
print(best, result["records"] if isinstance(result, dict) else result.records)  # a dict before typed results
"""


def _text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def _import_cpu(source: Path, text_file: Path, repeat: int) -> tuple[float, int]:
    out = subprocess.run([sys.executable, "-c", IMPORT_SNIPPET, str(source), str(text_file), str(repeat)],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file", type=Path, default=DEFAULT)
    parser.add_argument("--baseline-ref", help="git ref whose import to time as 'today' (e.g. main)")
    parser.add_argument("--repeat", type=int, default=3, help="imports timed (best of N)")
    parser.add_argument("--rounds", type=int, default=7, help="paired anchor/parse rounds")
    parser.add_argument("--parse-only", action="store_true", help="skip the import timings")
    args = parser.parse_args()
    import bibtexparser

    from doiget.formats.importer import parse_bibliography

    from doiget.formats.latex import untex
    from doiget.formats.names import bibtex_author

    def cold_parse() -> None:  # doiget's name and LaTeX caches start empty in every repeat, as in a real import
        untex.cache_clear()
        bibtex_author.cache_clear()
        parse_bibliography(text, "bibtex")

    text = _text(args.file)
    bibtexparser.parse_string(text)  # warm-up: lazy imports and module-level tables on both sides
    cold_parse()
    ratios, anchors, parses = [], [], []
    for round_ in range(args.rounds):
        pair = [("anchor", lambda: bibtexparser.parse_string(text)), ("parse", cold_parse)]
        timed = {name: _best(fn, 1) for name, fn in (pair if round_ % 2 == 0 else pair[::-1])}
        anchors.append(timed["anchor"])
        parses.append(timed["parse"])
        ratios.append(timed["parse"] / timed["anchor"])
    ratio = statistics.median(ratios)
    rows = {"file": args.file.name, "rounds": args.rounds,
            "anchor_bibtexparser_parse_cpu_s": [round(min(anchors), 3), round(max(anchors), 3)],
            "doiget_parse_cpu_s": [round(min(parses), 3), round(max(parses), 3)],
            "parse_ratio_to_anchor_per_round": [round(r, 2) for r in ratios],
            "parse_ratio_to_anchor_median": round(ratio, 2),
            "parse_goal": f"<= {PARSE_GOAL}x: {'pass' if ratio <= PARSE_GOAL else 'FAIL'}"}
    if args.parse_only:
        print(json.dumps(rows, indent=2))
        return
    with tempfile.TemporaryDirectory() as tmp:
        text_file = Path(tmp) / "input.bib"
        text_file.write_text(text, encoding="utf-8")
        ours, records = _import_cpu(ROOT, text_file, args.repeat)
        rows.update(records=records, import_cpu_s=round(ours, 3), import_records_per_cpu_s=round(records / ours))
        if args.baseline_ref:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.baseline_ref, "doiget"],
                                     capture_output=True, check=True).stdout
            base = Path(tmp) / "baseline"
            with tarfile.open(fileobj=BytesIO(archive)) as tar:
                tar.extractall(base, filter="data")
            then, _ = _import_cpu(base, text_file, args.repeat)
            rows.update(baseline_ref=args.baseline_ref, baseline_import_cpu_s=round(then, 3),
                        baseline_records_per_cpu_s=round(records / then), speedup=round(then / ours, 2))
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
