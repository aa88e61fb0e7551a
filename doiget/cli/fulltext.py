"""CLI commands over papers' full text: text, grep, reindex, add."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from doiget.cli import Command
from doiget.cli.common import entry_line, open_lib
from doiget.errors import DoigetError, ErrorCode
from doiget.present import to_json


def cmd_text(args: argparse.Namespace) -> dict[str, Any]:
    with open_lib(args) as lib:
        return lib.text(args.ref, args.format, args.offset, args.max_chars, args.page)


def _render_text(r: dict[str, Any]) -> str:
    end = r["offset"] + len(r["text"])
    where = f"chars {r['offset']}–{end} of {r['total_chars']} ({r['format']})"
    if r.get("page_range"):
        first, last = r["page_range"]
        where += f", page {first}" + (f"–{last}" if last != first else "") + f" of {r['page_count']}"
    more = (f"; next: doiget text {r['ref']} --offset {r['next_offset']}" if r["next_offset"] is not None
            else "; end of text")
    return f"{r['text']}\n\n[{where}{more}]"


def cmd_grep(args: argparse.Namespace) -> dict[str, Any]:
    with open_lib(args) as lib:
        hits = lib.search_text(args.query, args.limit, ref=args.ref, tag=args.tag, collection=args.collection,
                               year_from=args.year_from, year_to=args.year_to)
    return {"count": len(hits), "hits": [h.model_dump(mode="json") for h in hits]}


def _render_grep(r: dict[str, Any]) -> str:
    if not r["hits"]:
        return "no matches"
    lines = []
    for i, h in enumerate(r["hits"], 1):
        where = " · ".join(x for x in (h["heading"], f"p. {h['page']}" if h["page"] else None,
                                       f"offset {h['char_start']}") if x)
        lines.append(f"{i}. {h['ref']}  {h['title'] or '(untitled)'}\n   [{where}] {h['snippet']}")
    return "\n".join(lines)


def cmd_reindex(args: argparse.Namespace) -> dict[str, Any]:
    from rich.console import Console
    from rich.progress import Progress

    with open_lib(args) as lib, Progress(console=Console(file=sys.stderr), transient=True) as progress:
        task = progress.add_task("indexing", total=None)
        return lib.reindex(args.ref, progress=lambda done, total: progress.update(task, completed=done, total=total))


def _render_reindex(r: dict[str, Any]) -> str:
    lines = [f"indexed {r['indexed']} of {r['artefacts']} artefact(s), {r['chunks']} chunks "
             f"({r['changed']} changed)"]
    lines += [f"failed: entry {f['entry_id']} {f['kind']} {f['sha256'][:12]}: {f['error']['code']}: "
              f"{f['error']['message']}" for f in r["failed"]]
    return "\n".join(lines)


ADD_SUFFIXES = (".pdf", ".xml", ".nxml")


def cmd_add(args: argparse.Namespace) -> dict[str, Any]:
    """Add each file (a directory: its PDF and XML files) in turn; one that fails is reported and the others
    are still added."""
    from rich.console import Console
    from rich.progress import Progress

    paths = _files(args.paths)
    if args.ref and len(paths) > 1:
        raise DoigetError(ErrorCode.INVALID_INPUT, "--ref names one paper; give one file with it")
    added = []
    with open_lib(args) as lib, Progress(console=Console(file=sys.stderr), transient=True) as progress:
        task = progress.add_task("adding", total=len(paths))
        for path in paths:
            progress.update(task, description=f"adding {path.name}")
            try:
                result = lib.add_file(path, args.ref)
            except DoigetError as exc:
                if len(paths) == 1:  # a single file that fails is the command failing
                    raise
                added.append({"ok": False, "path": str(path), "error": exc.to_dict()})
            else:
                added.append({"ok": True, **to_json(result), "path": str(path)})
            progress.advance(task)
    return {"added": added, "failed": sum(not a["ok"] for a in added)}


def _files(paths: list[str]) -> list[Path]:
    """The files to import: each path given, and a directory's PDF and XML files (recursively, sorted)."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in ADD_SUFFIXES))
        else:
            out.append(path)
    return out


def _render_add(r: dict[str, Any]) -> str:
    lines = [f"{a['path']}: skipped: {a['error']['code']}: {a['error']['message']}" if not a["ok"] else
             f"{a['path']}: {'already stored as' if a['duplicate'] else 'added'} {entry_line(a['entry'])}"
             + (f" ({a['citation_edges']} citation edges)" if a.get("citation_edges") else "")
             for a in r["added"]]
    lines.append(f"{len(r['added']) - r['failed']} added, {r['failed']} failed")
    return "\n".join(lines)


def register(command: Command) -> None:
    """Add this module's subcommands through ``command(name, handler, render, help)``."""
    p = command("text", cmd_text, _render_text, "print a page of a paper's full text (Markdown)")
    p.add_argument("ref")
    p.add_argument("--page", type=int, help="start at this PDF page and stop at its end")
    p.add_argument("--offset", type=int, default=0, help="start at this character offset")
    p.add_argument("--max-chars", type=int, default=15000)
    p.add_argument("--format", default="auto", choices=("auto", "html", "jats", "bioc", "pdf", "tex"))
    p = command("grep", cmd_grep, _render_grep, "search inside the papers' full text")
    p.add_argument("query")
    p.add_argument("-n", "--limit", type=int, default=20)
    p.add_argument("--ref", help="only inside this paper")
    p.add_argument("--tag")
    p.add_argument("--collection")
    p.add_argument("--year-from", type=int)
    p.add_argument("--year-to", type=int)
    p = command("reindex", cmd_reindex, _render_reindex, "re-extract and re-index full text (one paper or all)")
    p.add_argument("ref", nargs="?")
    p = command("add", cmd_add, _render_add, "import PDF and JATS XML files (or directories of them) into the "
                "library; bad files are skipped and named (exit code 3 if any failed)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--ref", help="which paper the (single) file is, when it does not say")
