"""CLI commands that reach the network: fetch, batch, resolve, search-remote.

rich and the MCP result shapers are imported inside the commands: every ``doiget`` invocation
builds this parser, and most never need them.
"""
from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING, Any

from doiget.cli import Command
from doiget.cli.common import entry_line, render_entry, render_table
from doiget.config import load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.refs import Ref

if TYPE_CHECKING:
    from doiget.library import Library


def _open(args: argparse.Namespace) -> Library:
    from doiget.library import Library

    return Library(load_config(args.home), no_cache=args.no_cache)


def cmd_fetch(args):
    """Fetch each REF in turn; with several, a failing one is reported and the rest still run."""
    from doiget.present import fetch_json
    from doiget.services import fetching as pipeline

    with contextlib.ExitStack() as stack:
        if args.dry_run:
            plan = pipeline.planner(load_config(args.home), lambda: stack.enter_context(_open(args)))
            one = lambda ref: plan(Ref.parse(ref, local=True))  # noqa: E731
        else:
            lib = stack.enter_context(_open(args))
            one = lambda ref: lib.fetch(ref, fulltext=args.fulltext)  # noqa: E731
        if len(args.refs) == 1:
            return {"results": [{"ok": True, **fetch_json(one(args.refs[0]))}], "failed": 0}
        results = []
        for ref in args.refs:
            try:
                results.append({"ok": True, **fetch_json(one(ref))})
            except DoigetError as exc:
                results.append({"ok": False, "ref": ref, "error": exc.to_dict()})
        return {"results": results, "failed": sum(not r["ok"] for r in results)}


def _render_fetch(result: dict[str, Any]) -> str:
    lines = []
    for r in result["results"]:
        if not r["ok"]:
            lines.append(f"{r['ref']}  error  {r['error']['code']}: {r['error']['message']}")
            continue
        title = (r["entry"] or {}).get("title") or ""
        pdf = r["pdf"]
        if r.get("dry_run"):
            lines.append(f"{r['ref']}  {pdf['status']}  {title}")
            lines += [f"  would request  {q['source']}  {q['url']}" for q in r["requests"]]
            lines += [f"  would try      {c['source']}  {c['url']}" for c in r["candidates"]]
            continue
        lines.append(f"{r['ref']}  {pdf['status']}  {title}")
        if pdf["path"]:
            lines.append(f"  {pdf['size']} bytes from {pdf['source']}: {pdf['path']}")
        elif pdf["reason"]:
            lines.append(f"  {pdf['reason']}: {pdf['message']}")
        lines += [f"  tried {a['source']} {a['url']}: {a['outcome']}" for a in pdf["attempts"] if a["outcome"] != "ok"]
        if r.get("suggested_arxiv_id"):
            lines.append(f"  preprint: arXiv:{r['suggested_arxiv_id']}")
        stored = [a["format"] for a in (r.get("fulltext") or {}).get("alternates", []) if a["status"] == "stored"]
        if stored:
            lines.append(f"  full text: {', '.join(stored)}")
    return "\n".join(lines)


def read_refs(source: str) -> list[str]:
    """One identifier per line of a file (``-``: stdin); blank lines and ``#`` comments skipped."""
    try:
        text = sys.stdin.read() if source == "-" else open(source, encoding="utf-8").read()
    except OSError as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot read {source}: {exc}") from exc
    refs = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return [ref for ref in refs if ref]


def cmd_batch(args):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from doiget.present import batch_json, to_json
    from doiget.services import fetching as pipeline

    refs = read_refs(args.file)
    if not refs:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"no identifiers in {args.file}")
    chunks = [refs[i:i + pipeline.MAX_BATCH] for i in range(0, len(refs), pipeline.MAX_BATCH)]
    results: list[dict[str, Any]] = []
    columns = (TextColumn("fetching"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))
    with contextlib.ExitStack() as stack:
        progress = stack.enter_context(Progress(*columns, console=Console(stderr=True), transient=False))
        task = progress.add_task("", total=len(refs))

        def advance(_done: int, _total: int, result: dict[str, Any]) -> None:
            progress.update(task, advance=1, description=str(result.get("ref") or result["input"]))

        if args.dry_run:
            plan = pipeline.planner(load_config(args.home), lambda: stack.enter_context(_open(args)))
            for chunk in chunks:
                results += pipeline.run_batch(chunk, plan, advance)["results"]
        else:
            lib = stack.enter_context(_open(args))
            for chunk in chunks:
                results += to_json(lib.batch_fetch(chunk, fulltext=args.fulltext, progress=advance))["results"]
    for i, result in enumerate(results):  # duplicate_of indexes the whole file, not the chunk
        if "duplicate_of" in result:
            result["duplicate_of"] += i // pipeline.MAX_BATCH * pipeline.MAX_BATCH
    summary = pipeline.summarize(results)
    return {**batch_json({"results": results, "summary": summary}), "failed": summary["errors"]}


def _render_batch(result: dict[str, Any]) -> str:
    rows = []
    for r in result["results"]:
        if r["ok"]:
            pdf = r["pdf"]
            note = pdf.get("source") or pdf.get("reason") or ""
            if "duplicate_of" in r:
                note = f"duplicate of line {r['duplicate_of'] + 1}"
            rows.append([r["input"], pdf["status"], note, ((r["entry"] or {}).get("title") or "")[:50]])
        else:
            rows.append([r["input"], r["error"]["code"], r["error"]["message"][:60], ""])
    s = result["summary"]
    counts = ", ".join(f"{n} {status}" for status, n in sorted(s["by_status"].items()))
    footer = f"{s['total']} refs: {counts or 'none fetched'}; {s['errors']} failed"
    if s["by_error"]:
        footer += " (" + ", ".join(f"{n} {code}" for code, n in sorted(s["by_error"].items())) + ")"
    return render_table({"columns": ["ref", "status", "detail", "title"], "rows": rows}) + "\n" + footer


def cmd_resolve(args):
    from doiget.present import entry_dict

    with _open(args) as lib:
        return {"entry": entry_dict(lib.resolve(args.ref))}


def cmd_search_remote(args):
    filters = {}
    for item in args.filter:
        key, sep, value = item.partition("=")
        if not sep:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"--filter wants key=value, got {item!r}")
        filters[key.strip()] = value
    with _open(args) as lib:
        return lib.paper_search(args.query, filters, args.cursor, args.per_page)


def _render_search(result: dict[str, Any]) -> str:
    lines = [f"{result['count']} works"]
    for i, work in enumerate(result["results"], 1):
        ref = next((f"{k}:{work[k]}" for k in ("doi", "arxiv", "pmid", "openalex") if work.get(k)), "")
        lines.append(f"{i}. {entry_line({**work, 'ref': ref})}")
    if result["next_cursor"]:
        lines.append(f"next page: --cursor '{result['next_cursor']}'")
    return "\n".join(lines)


def register(command: Command) -> None:
    """Add this module's subcommands through ``command(name, handler, render, help)``."""
    p = command("fetch", cmd_fetch, _render_fetch, "resolve papers and download their open-access PDFs")
    p.add_argument("refs", nargs="+", metavar="REF")
    p.add_argument("--dry-run", action="store_true", help="show the plan; no network, nothing written")
    p.add_argument("--no-cache", action="store_true", help="ask the upstream APIs again instead of the cache")
    p.add_argument("--no-fulltext", dest="fulltext", action="store_false",
                   help="PDF only: skip the structured full text (ar5iv, JATS, BioC)")
    p = command("batch", cmd_batch, _render_batch,
                "fetch every identifier of a file (one per line, '-' for stdin; # comments and blank lines skipped)")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--dry-run", action="store_true", help="show the plans; no network, nothing written")
    p.add_argument("--no-cache", action="store_true", help="ask the upstream APIs again instead of the cache")
    p.add_argument("--no-fulltext", dest="fulltext", action="store_false",
                   help="PDFs only: skip the structured full text (ar5iv, JATS, BioC)")
    p = command("resolve", cmd_resolve, render_entry, "resolve a paper's metadata and save it (no download)")
    p.add_argument("ref")
    p.add_argument("--no-cache", action="store_true", help="ask the upstream APIs again instead of the cache")
    p = command("search-remote", cmd_search_remote, _render_search, "search OpenAlex for papers not yet in the library")
    p.add_argument("query", nargs="?")
    p.add_argument("--filter", action="append", default=[], metavar="KEY=VALUE",
                   help="OpenAlex filter, e.g. publication_year=2020 (repeatable)")
    p.add_argument("--cursor", default="*", help="next_cursor of the previous page")
    p.add_argument("--per-page", type=int, default=10)
    p.add_argument("--no-cache", action="store_true", help="ask the upstream APIs again instead of the cache")
