"""``doiget check-retractions``: refresh the retraction and correction notices of the library's papers."""
from __future__ import annotations

import sys
from typing import Any

from doiget.cli import Command
from doiget.cli.common import render_table
from doiget.config import load_config
from doiget.present import to_json


def cmd_check_retractions(args):
    """Ask Crossref and OpenAlex for each paper; one progress line per paper on stderr."""
    from doiget.library import Library

    def report(done: int, total: int, result: dict[str, Any]) -> None:
        state = result.get("status") or ("ok" if result["ok"] else result["error"]["code"])
        print(f"[{done}/{total}] {result.get('ref') or '#' + str(result['id'])}: {state}", file=sys.stderr, flush=True)

    with Library(load_config(args.home), no_cache=True) as lib:
        checked = lib.check_retractions(args.refs or None, progress=report)
    return {**to_json(checked), "failed": checked.summary.errors}


def _render(result: dict[str, Any]) -> str:
    rows = [[r.get("ref") or f"#{r['id']}", r.get("status") or ("no notice" if r["ok"] else r["error"]["code"]),
             (r.get("warning") or (r["error"]["message"] if "error" in r else ""))[:90]]
            for r in result["results"] if r.get("status") or not r["ok"]]
    s = result["summary"]
    counts = ", ".join(f"{n} {status}" for status, n in sorted(s["by_status"].items()))
    footer = f"{s['total']} papers checked: {counts or 'none answered'}; {s['errors']} failed"
    if not rows:
        return footer
    return render_table({"columns": ["ref", "status", "notice"], "rows": rows}) + "\n" + footer


def register(command: Command) -> None:
    """Add ``check-retractions`` through ``command(name, handler, render, help)``."""
    p = command("check-retractions", cmd_check_retractions, _render,
                "ask Crossref and OpenAlex afresh for retraction/correction notices of the library's papers")
    p.add_argument("refs", nargs="*", metavar="REF", help="papers to check (default: every paper; one without a DOI is asked of OpenAlex only)")
