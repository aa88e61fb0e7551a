"""CLI commands for bibliographies, citation strings and notes: export, import, cite-resolve, note, tags."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from doiget.cli import Command, common_options
from doiget.cli.common import open_lib
from doiget.errors import DoigetError, ErrorCode
from doiget.present import to_json

REPORT_ROWS_SHOWN = 20


def _write(path: str, text: str) -> dict[str, Any]:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot write {path}: {exc}") from exc
    return {"written": path, "characters": len(text)}


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"cannot read {path}: {exc}") from exc


# ---- export / import ----------------------------------------------------------------------
def cmd_export(args):
    with open_lib(args) as lib:  # (what BibTeX or RIS cannot carry: one warning on stderr, not_carried with --json)
        exported = lib.export_result(args.format, refs=args.refs or None, tag=args.tag, collection=args.collection,
                                     query=args.query)
    result = exported.output
    text = json.dumps(result, ensure_ascii=False, indent=2) + "\n" if isinstance(result, list) else result
    gaps = {"not_carried": exported.not_carried_json()}
    if args.output:
        return {"format": args.format, **_write(args.output, text), **gaps}
    if args.json:
        return {"format": args.format, ("items" if isinstance(result, list) else "text"): result, **gaps}
    return {"text": text}


def _render_export(result: dict[str, Any]) -> str:
    if "written" in result:
        return f"wrote {result['format']} to {result['written']}"
    return result["text"].rstrip("\n")


def cmd_import(args):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    text = _read(args.file) if args.file == "-" else None
    with open_lib(args) as lib, Progress(TextColumn("importing"), BarColumn(), MofNCompleteColumn(),
                                         TimeElapsedColumn(), console=_stderr(), transient=True) as bar:
        task = bar.add_task("import", total=None)
        source = Path(args.file) if args.file != "-" else text
        result = to_json(lib.import_bibliography(
            source, args.format, tags=args.tags, progress=lambda done, total: bar.update(task, completed=done, total=total),
            overwrite=args.overwrite, attach_files=args.attach_files))
        result["failed"] = len(result.get("not_found") or []) + result["skipped"]  # records not imported
        if args.fetch and result["fetchable"]:
            result["fetch"] = _fetch_all(lib, result["fetchable"], bar)
            result["failed"] += result["fetch"]["errors"]
        return result


def _fetch_all(lib, refs: list[str], bar) -> dict[str, Any]:
    """Fetch the open-access copies of imported entries, 100 at a time; a per-status summary."""
    from doiget.services.fetching import MAX_BATCH, summarize

    task = bar.add_task("fetch", total=len(refs))
    results: list[dict[str, Any]] = []
    for start in range(0, len(refs), MAX_BATCH):
        results += to_json(lib.batch_fetch(refs[start:start + MAX_BATCH],
                                           progress=lambda *_: bar.update(task, advance=1)))["results"]
    return summarize(results)


def _stderr():
    from rich.console import Console

    return Console(stderr=True)


def _kept_from(conflict: dict[str, Any]) -> str:
    """Where the value kept in a conflict comes from: the library, or an earlier record of the file."""
    return "library" if conflict.get("record") is None else f"record {conflict['record']}"


def _render_import(r: dict[str, Any]) -> str:
    lines = [f"{r['records']} records: {r['added']} added, {r['merged']} merged, {r['skipped']} skipped, "
             f"{r['conflicts']} with conflicts ({r['entries']} entries, {r['seconds']} s); "
             f"{len(r['fetchable'])} can be fetched"]
    if "attached" in r:
        lines.append(f"attached {len(r['attached'])} PDF files")
    for missing in r.get("not_found") or []:
        lines.append(f"not found: #{missing['id']}'s file {missing['file']!r}")
    if "fetch" in r:
        f = r["fetch"]
        counts = ", ".join(f"{n} {status}" for status, n in sorted(f["by_status"].items()))
        errors = ", ".join(f"{n} {code}" for code, n in sorted(f["by_error"].items()))
        lines.append(f"fetched {f['total']}: {counts or 'none'}; {f['errors']} failed" + (f" ({errors})" if errors else ""))
    notable = [row for row in r["report"] if row["status"] != "added" or row.get("problems") or row.get("conflicts")]
    if notable:
        lines += ["", f"{'#':>5}  {'status':8} {'key':24} {'entry':>6}  reason"]
        for row in notable[:REPORT_ROWS_SHOWN]:
            conflicts = [c.get("reason") or f"{c['field']}: {_kept_from(c)} {c['library']!r}, file {c['file']!r}"
                         for c in row.get("conflicts", [])]
            why = "; ".join(filter(None, [row.get("reason"), *conflicts, *row.get("problems", [])]))
            lines.append(f"{row['index']:>5}  {row['status']:8} {str(row.get('key') or '')[:24]:24} "
                         f"{row.get('id') or '':>6}  {why}")
        if len(notable) > REPORT_ROWS_SHOWN:
            lines.append(f"... {len(notable) - REPORT_ROWS_SHOWN} more (--json for the full report)")
    return "\n".join(lines)


# ---- duplicates and keys ------------------------------------------------------------------
def cmd_dedupe(args):
    with open_lib(args) as lib:
        return {"groups": lib.dedupe()}


def _render_dedupe(r: dict[str, Any]) -> str:
    if not r["groups"]:
        return "no likely duplicates"
    lines = []
    for group in r["groups"]:
        lines.append(f"{group['reason']}:")
        lines += [f"  #{e['id']:<6} {e['citekey'] or '':28} {e['ref']:28} {e['title'] or '(untitled)'} "
                  f"({e['year'] or 'n.d.'})" for e in group["entries"]]
    return "\n".join(lines + ["merge with: doiget merge KEEP DROP"])


def cmd_merge(args):
    with open_lib(args) as lib:
        return lib.merge(args.keep, args.drop, force=args.force)


def _render_merge(r: dict[str, Any]) -> str:
    moved = ", ".join(f"{k}: {v if isinstance(v, int) else len(v)}" for k, v in r["moved"].items())
    kept = f"; values that differed kept in extra.merged: {', '.join(r['differing'])}" if r["differing"] else ""
    return f"merged #{r['merged']} into #{r['kept']} ({moved}){kept}"


def cmd_citekey(args):
    with open_lib(args) as lib:
        entry = lib.set_citekey(args.ref, args.key)
    return {"ref": entry.ref_label, "id": entry.id, "citekey": entry.citekey}


# ---- citations ----------------------------------------------------------------------------
def cmd_cite(args):
    with open_lib(args) as lib:
        return lib.cite(args.refs, args.style, args.format)


def cmd_cite_resolve(args):
    with open_lib(args) as lib:
        return lib.resolve_citation(args.citation, args.limit)


def _render_candidates(r: dict[str, Any]) -> str:
    lines = [f"{i}. [{c['confidence']} {c['score']:.2f}] {c['ref'] or c['id']}  {c['title'] or '(untitled)'} "
             f"({c['year'] or 'n.d.'}){' [in library]' if c['in_library'] else ''}"
             for i, c in enumerate(r["candidates"], 1)]
    if not lines:
        lines = ["no candidate scores 0.5 or more"]
    return "\n".join(lines + ([f"note: {r['note']}"] if r.get("note") else []))


# ---- notes --------------------------------------------------------------------------------
def _anchor(args) -> list[dict[str, Any]] | None:
    anchor = {k: getattr(args, k) for k in ("page", "start", "end", "quote") if getattr(args, k) is not None}
    return [anchor] if anchor else None


def cmd_note(args):
    with open_lib(args) as lib:
        if args.action == "create":
            body = sys.stdin.read() if args.body == "-" else args.body
            return {"note": lib.note_create(body, args.ref, _anchor(args), args.tags, args.author)}
        if args.action == "show":
            return {"note": lib.note_read(args.id)}
        if args.action == "edit":
            body = sys.stdin.read() if args.body == "-" else args.body
            return {"note": lib.note_update(args.id, body, _anchor(args), args.tags)}
        if args.action == "delete":
            return lib.note_delete(args.id)
        if args.action == "search":
            return lib.note_search(args.keyword, args.ref, args.tag, args.since, args.until, args.limit, args.offset)
        markdown = lib.note_export(args.id)
    return _write(args.output, markdown) if args.output else {"markdown": markdown}


def _note_line(note: dict[str, Any]) -> str:
    about = note["entry"] or (f"entry {note['entry_id']}" if note["entry_id"] else "(no entry)")
    first = note["body"].splitlines()[0][:80]
    tags = f"  #{' #'.join(note['tags'])}" if note["tags"] else ""
    return f"[{note['id']}] {note['created_at'][:16]}  {about}: {first}{tags}"


def _render_note(r: dict[str, Any]) -> str:
    if "markdown" in r:
        return r["markdown"].rstrip("\n")
    if "written" in r:
        return f"wrote {r['written']}"
    if "deleted" in r:
        return f"deleted note {r['deleted']}"
    if "notes" in r:
        lines = [_note_line(n) for n in r["notes"]] or ["no notes"]
        if r["next_offset"] is not None:
            lines.append(f"(more: --offset {r['next_offset']})")
        return "\n".join(lines)
    note = r["note"]
    anchors = [", ".join(f"{k} {json.dumps(v, ensure_ascii=False)}" for k, v in a.items()) for a in note["anchors"]]
    return "\n".join([_note_line(note), *(f"  at {a}" for a in anchors), "", note["body"]])


def cmd_tags(args):
    with open_lib(args) as lib:
        return {"tags": lib.tags()}


def register(command: Command) -> None:
    """Add this module's subcommands through ``command(name, handler, render, help)``."""
    p = command("export", cmd_export, _render_export, "export entries as BibTeX, CSL-JSON or RIS")
    p.add_argument("refs", nargs="*", metavar="REF", help="entries to export (default: all selected)")
    p.add_argument("--format", choices=("bibtex", "csl-json", "ris"), default="bibtex")
    p.add_argument("--tag")
    p.add_argument("--collection")
    p.add_argument("--query", help="export the best 100 hits of this search")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    p = command("import", cmd_import, _render_import, "import a CSL-JSON, BibTeX or RIS file ('-' reads stdin); records it cannot import "
                "are listed and make the exit status 3")
    p.add_argument("file")
    p.add_argument("--format", choices=("auto", "csl-json", "bibtex", "ris"), default="auto")
    p.add_argument("--overwrite", action="store_true",
                   help="replace fields the library already has (default: fill empty fields, report conflicts)")
    p.add_argument("--attach-files", action="store_true",
                   help="store the PDFs named by the records' file fields (Zotero, Mendeley, JabRef); "
                        "those not found are listed and make the exit status 3")
    p.add_argument("--tag", dest="tags", action="append", default=[], help="tag every imported entry (repeatable)")
    p.add_argument("--fetch", action="store_true",
                   help="then fetch the open-access copies of the imported papers that have an identifier")
    command("dedupe", cmd_dedupe, _render_dedupe,
            "list likely duplicate entries (same DOI, or same title, year and first author)")
    p = command("merge", cmd_merge, _render_merge, "merge entry DROP into entry KEEP (nothing is lost)")
    p.add_argument("keep", metavar="KEEP")
    p.add_argument("drop", metavar="DROP")
    p.add_argument("--force", action="store_true", help="merge even when the two DOIs differ")
    p = command("citekey", cmd_citekey, lambda r: f"{r['ref']}: {r['citekey']}",
                "set an entry's citation key by hand")
    p.add_argument("ref", metavar="REF")
    p.add_argument("key", metavar="KEY")
    p = command("cite", cmd_cite, lambda r: "\n".join(r["references"]),
                "print formatted references in a citation style (APA, Vancouver, Nature, ... or a .csl file)")
    p.add_argument("refs", nargs="+", metavar="REF")
    p.add_argument("--style", default="apa",
                   help="apa, vancouver, nature, ieee, mla, ama, harvard, or the path of a .csl file")
    p.add_argument("--format", choices=("text", "html"), default="text")
    p = command("cite-resolve", cmd_cite_resolve, _render_candidates,
                "find the DOI of a reference string (library first, then Crossref)")
    p.add_argument("citation")
    p.add_argument("-n", "--limit", type=int, default=5)
    p = command("note", cmd_note, _render_note, "create, show, edit, delete, search or export notes")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    common = common_options()  # --json and --home after the action too
    for action, help_ in (("create", "write a note ('-' body reads stdin)"), ("edit", "change a note")):
        a = actions.add_parser(action, parents=[common], help=help_)
        if action == "create":
            a.add_argument("body")
            a.add_argument("--ref", help="the paper the note is about")
            a.add_argument("--author")
        else:
            a.add_argument("id", type=int)
            a.add_argument("--body")
        a.add_argument("--page", type=int, help="anchor: page number")
        a.add_argument("--start", type=int, help="anchor: first character offset in the extracted text")
        a.add_argument("--end", type=int, help="anchor: end character offset")
        a.add_argument("--quote", help="anchor: quoted passage")
        a.add_argument("--tag", dest="tags", action="append", default=None, help="tag (repeatable)")
    for action in ("show", "delete", "export"):
        a = actions.add_parser(action, parents=[common], help=f"{action} a note")
        a.add_argument("id", type=int)
        if action == "export":
            a.add_argument("-o", "--output", metavar="FILE", help="write the Markdown to FILE")
    a = actions.add_parser("search", parents=[common], help="find notes (newest first without a keyword)")
    a.add_argument("keyword", nargs="?")
    a.add_argument("--ref")
    a.add_argument("--tag")
    a.add_argument("--since", help="ISO date or datetime")
    a.add_argument("--until", help="ISO date or datetime (a date includes that day)")
    a.add_argument("-n", "--limit", type=int, default=20)
    a.add_argument("--offset", type=int, default=0)
    command("tags", cmd_tags, lambda r: "\n".join(f"{t['name']} ({t['count']})" for t in r["tags"]) or "no tags",
            "list tags with their entry counts")
