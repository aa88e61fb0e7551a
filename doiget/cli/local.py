"""CLI commands over the local library: info, search, recent, tags, collections, annotate,
delete, gc, health, migrate, sql, demo, serve."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from doiget.cli import Command, common_options
from doiget.cli.common import (render_entries, render_entry, render_hits, render_kv, render_table,
                               open_lib)
from doiget.config import load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.present import entry_dict

def cmd_info(args):
    with open_lib(args) as lib:
        entry = lib.info(args.ref)
        return {"entry": entry_dict(entry)}


def cmd_search(args):
    with open_lib(args) as lib:
        hits = lib.search(args.query, args.limit, year_from=args.year_from, year_to=args.year_to, tag=args.tag,
                          collection=args.collection, has_pdf=args.has_pdf)
    return {"count": len(hits), "hits": [h.model_dump(mode="json") for h in hits]}


def cmd_recent(args):
    with open_lib(args) as lib:
        return {"entries": [entry_dict(e)
                            for e in lib.recent(args.n)]}


def cmd_tag(args):
    with open_lib(args) as lib:
        return {"ref": args.ref, "tags": lib.tag(args.ref, args.tags)}


def cmd_untag(args):
    with open_lib(args) as lib:
        return {"ref": args.ref, "tags": lib.untag(args.ref, args.tags)}


def cmd_collection(args):
    with open_lib(args) as lib:
        if args.action == "list":
            return {"collections": lib.collections()}
        if args.action == "create":
            return {"collection": lib.collection_create(args.name, args.description)}
        if args.action == "add":
            return {"collection": lib.collection_add(args.name, args.refs)}
        if args.action == "remove":
            return {"collection": lib.collection_remove(args.name, args.refs)}
        if args.action == "delete":
            lib.collection_delete(args.name)
            return {"deleted": args.name}
        return {"entries": [entry_dict(e)
                            for e in lib.collection_entries(args.name)]}


def _render_collection(result: dict[str, Any]) -> str:
    if "collections" in result:
        return "\n".join(f"{c['name']} ({c['count']})" + (f" — {c['description']}" if c["description"] else "")
                         for c in result["collections"]) or "no collections"
    if "entries" in result:
        return render_entries(result)
    if "deleted" in result:
        return f"deleted collection {result['deleted']}"
    c = result["collection"]
    return f"{c['name']} ({c['count']} entries)"


def cmd_annotate(args):
    text = sys.stdin.read() if args.text == "-" else ("" if args.clear else args.text)
    with open_lib(args) as lib:
        return {"ref": args.ref, "annotation": lib.annotate(args.ref, text)}


def cmd_delete(args):
    with open_lib(args) as lib:
        return lib.delete(args.ref)


def cmd_gc(args):
    with open_lib(args) as lib:
        return lib.gc(grace_seconds=args.grace, dry_run=args.dry_run)


def _render_gc(r: dict[str, Any]) -> str:
    verb = "would remove" if r["dry_run"] else "removed"
    return (f"{verb} {len(r['orphan_blobs'])} unreferenced blob(s) and {r['temp_files']} temp file(s), "
            f"{r['bytes_freed']} bytes; {r['cache_rows_expired']} expired cache row(s) dropped")


def cmd_health(args):
    from doiget.library import health_report  # on use: the library imports SQLAlchemy

    return health_report(load_config(args.home))


def cmd_migrate(args):
    with open_lib(args) as lib:
        store = lib.store
        return {"database": str(store.path), "revision_before": store.revision_before, "revision": store.revision}


def cmd_sql(args):
    query = sys.stdin.read() if args.query == "-" else args.query
    with open_lib(args) as lib:
        return lib.sql(query, max_rows=args.max_rows)


def cmd_demo(args):
    from doiget.demo import load_demo

    with open_lib(args) as lib:
        return load_demo(lib, force=args.force)


def _render_demo(r: dict[str, Any]) -> str:
    return (f"demo library ready at {r['home']}: {r['entries']} papers, {r['pdfs']} PDFs, "
            f"{r['citations']} citations among them.\n"
            "try:  doiget search 'test*'   ·   doiget recent   ·   doiget serve")


def cmd_browse(args):
    """Datasette on the library, read-only (it opens the file with mode=ro), until Ctrl-C."""
    import importlib.util
    import json
    import signal
    import subprocess
    import tempfile

    if importlib.util.find_spec("datasette") is None:
        raise DoigetError(ErrorCode.NOT_IMPLEMENTED, "doiget browse needs Datasette: pip install 'doiget[browse]'")
    with open_lib(args) as lib:
        database, metadata = lib.store.path, lib.datasette_metadata()
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/metadata.json"
        with open(path, "w", encoding="utf-8") as f:
            json.dump(metadata, f)
        command = [sys.executable, "-m", "datasette", "serve", str(database), "--metadata", path,
                   "--host", args.host, "--port", str(args.port), "--setting", "max_returned_rows", "1000"]
        print(f"doiget: Datasette on http://{args.host}:{args.port}/ (read-only); Ctrl-C stops it",
              file=sys.stderr, flush=True)
        server = subprocess.Popen(command + (["--open"] if args.open else []))
        # Stopped (a service manager's or a test's SIGTERM), doiget stops Datasette too: it went on serving.
        previous = signal.signal(signal.SIGTERM, lambda *_: server.terminate())
        try:
            server.wait()
        except KeyboardInterrupt:  # (Ctrl-C reached Datasette too)
            server.wait()
        finally:
            signal.signal(signal.SIGTERM, previous)


SERVE_BANNER = ("doiget: MCP server speaking JSON-RPC on stdin/stdout; an MCP host starts it for you "
                "(see README, 'Use it from an MCP host'). Ctrl-D stops it.")


def cmd_serve(args):
    from doiget.mcp.server import serve

    if sys.stdin.isatty():  # a person typed `doiget serve`; stdout belongs to the protocol
        print(SERVE_BANNER, file=sys.stderr, flush=True)
    serve(args.home)



def register(command: Command) -> None:
    """Add this module's subcommands through ``command(name, handler, render, help)``."""
    command("serve", cmd_serve, str, "run the MCP server on stdin/stdout")
    p = command("browse", cmd_browse, str, "browse the library in Datasette, read-only (pip install 'doiget[browse]')")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8001)
    p.add_argument("--open", action="store_true", help="open a browser tab")
    p = command("info", cmd_info, render_entry, "show one paper of the library")
    p.add_argument("ref")
    p = command("search", cmd_search, render_hits, "search the library's metadata and notes")
    p.add_argument("query")
    p.add_argument("-n", "--limit", type=int, default=20)
    p.add_argument("--year-from", type=int)
    p.add_argument("--year-to", type=int)
    p.add_argument("--tag")
    p.add_argument("--collection")
    p.add_argument("--has-pdf", action=argparse.BooleanOptionalAction, default=None)
    p = command("recent", cmd_recent, render_entries, "list the most recently added papers")
    p.add_argument("-n", type=int, default=10)
    p = command("tag", cmd_tag, lambda r: f"{r['ref']}: {', '.join(r['tags']) or '(no tags)'}", "add tags")
    p.add_argument("ref")
    p.add_argument("tags", nargs="+")
    p = command("untag", cmd_untag, lambda r: f"{r['ref']}: {', '.join(r['tags']) or '(no tags)'}", "remove tags")
    p.add_argument("ref")
    p.add_argument("tags", nargs="+")
    p = command("collection", cmd_collection, _render_collection, "manage collections")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    common = common_options()  # --json and --home after the action too
    actions.add_parser("list", parents=[common], help="list collections")
    for action in ("create", "add", "remove", "delete", "show"):
        a = actions.add_parser(action, parents=[common], help=f"{action} a collection" if action in ("create", "delete", "show")
                               else f"{action} papers")
        a.add_argument("name")
        if action in ("add", "remove"):
            a.add_argument("refs", nargs="+")
        if action == "create":
            a.add_argument("--description")
    p = command("annotate", cmd_annotate, lambda r: f"{r['ref']}: {r['annotation'] or '(annotation cleared)'}",
                "set a paper's annotation ('-' reads stdin)")
    p.add_argument("ref")
    p.add_argument("text", nargs="?", default="")
    p.add_argument("--clear", action="store_true")
    p = command("delete", cmd_delete, lambda r: f"deleted entry {r['deleted']}, {r['blobs_removed']} blob(s)",
                "delete a paper and its files from the library")
    p.add_argument("ref")
    p = command("gc", cmd_gc, _render_gc, "remove unreferenced blobs and expired cache rows")
    p.add_argument("--grace", type=float, default=900, help="keep orphans younger than this many seconds")
    p.add_argument("--dry-run", action="store_true")
    command("health", cmd_health, render_kv, "report the store's location, schema revision and counts")
    command("migrate", cmd_migrate, render_kv, "upgrade the store's schema to this version of doiget")
    p = command("sql", cmd_sql, render_table, "run one read-only SQL statement ('-' reads stdin)")
    p.add_argument("query")
    p.add_argument("--max-rows", type=int, default=1000)
    p = command("demo", cmd_demo, _render_demo, "load a small bundled sample library to try doiget offline")
    p.add_argument("--force", action="store_true", help="add the sample papers even to a library that has its own")
