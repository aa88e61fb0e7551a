"""``doiget graph expand|related|connect|review|export``: the citation graph from the shell."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from doiget.cli import Command, common_options
from doiget.cli.common import open_lib
from doiget.present import to_json


def cmd_expand(args):
    from rich.progress import Progress, TextColumn

    with open_lib(args) as lib, Progress(TextColumn("{task.description}"), console=_stderr(), transient=True) as bar:
        task = bar.add_task("expanding…")

        def progress(requests: int, nodes: int) -> None:
            bar.update(task, description=f"expanding: {requests}/{args.max_requests} requests, {nodes} papers")

        return lib.expand_citation_graph(args.ref, args.direction, args.depth, args.max_nodes, args.max_requests,
                                         progress=progress)


def cmd_related(args):
    with open_lib(args) as lib:
        return lib.related(args.refs, args.ranking, args.limit)


def cmd_connect(args):
    with open_lib(args) as lib:
        return lib.connect(args.from_ref, args.to_ref, args.max_paths)


def cmd_review(args):
    with open_lib(args) as lib:
        return lib.literature_review(args.refs, tag=args.tag, collection=args.collection,
                                     sections=args.sections, limit=args.limit)


def cmd_export(args):
    with open_lib(args) as lib:
        result = to_json(lib.graph_export(args.format, args.refs or None))
    if args.output:
        Path(args.output).write_text(result.pop("text"), encoding="utf-8")
        result["path"] = args.output
    return result


def _stderr():
    from rich.console import Console

    return Console(file=sys.stderr)


def paper(p: dict[str, Any]) -> str:
    name = p.get("ref") or f"entry {p['id']}"
    stub = " (stub)" if p.get("is_stub") else ""
    return f"{name}  ({p.get('year') or 'n.d.'}) {p.get('title') or '(untitled)'}{stub}"


def _render_expand(r: dict[str, Any]) -> str:
    cut = f"truncated ({r['truncated_reason']})" if r["truncated"] else "complete"
    lines = [f"{paper(r['seed'])}",
             f"{r['direction']}, depth {r['depth']}: {r['nodes']} papers, {r['edges']} citations among them; "
             f"{r['nodes_added']} papers and {r['edges_added']} citations new; {r['requests_made']} requests; {cut}"]
    if r.get("error"):
        lines.append(f"upstream error: {r['error']['code']}: {r['error']['message']}")
    lines += [f"  hop {p['hop']}  {paper(p)}" for p in r["reached"][:20]]
    if len(r["reached"]) > 20:
        lines.append(f"  … {len(r['reached']) - 20} more (--json lists all)")
    return "\n".join(lines)


def _components(c: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.3g}" for k, v in c.items())


def _render_related(r: dict[str, Any]) -> str:
    lines = [f"{i}. [{item['score']:.3g}: {_components(item['components'])}] {paper(item)}"
             for i, item in enumerate(r["items"], 1)]
    return "\n".join(lines or ["no related papers in the local graph (try `doiget graph expand REF`)"]) + \
        f"\n({r['note']})"


def _render_connect(r: dict[str, Any]) -> str:
    if not r["paths"]:
        return f"no citation path between {r['from']['ref']} and {r['to']['ref']} in the local graph"
    arrows = {"cites": "cites →", "cited_by": "cited by ←"}
    blocks = []
    for i, path in enumerate(r["paths"], 1):
        steps = [f"path {i}: {paper(r['from'])}"] + [f"  {arrows[s['direction']]} {paper(s)}" for s in path]
        blocks.append("\n".join(steps))
    return "\n\n".join(blocks)


def _render_review(r: dict[str, Any]) -> str:
    out = [f"literature review around {len(r['seeds'])} paper(s)" + (" — PARTIAL" if r["partial"] else "")]
    for name, section in r["sections"].items():
        out.append(f"\n## {name}")
        if not section.get("items") and "error" not in section:
            out.append("  (none in the local graph)")
        if "error" in section:
            out.append(f"  failed: {section['error']['code']}: {section['error']['message']}")
            continue
        for item in section["items"]:
            if "name" in item:
                out.append(f"  {item['count']:>4}  {item['name']}")
            else:
                reasons = f"  [{'; '.join(item['reasons'])}]" if item.get("reasons") else ""
                out.append(f"  {item['score']:.3g}  {paper(item)}{reasons}")
    out.append(f"\n({r['note']})")
    return "\n".join(out)


def _render_export(r: dict[str, Any]) -> str:
    if "path" in r:
        return f"wrote {r['nodes']} papers and {r['edges']} citations as {r['format']} to {r['path']}"
    return r["text"]


def register(command: Command) -> None:
    """Add ``doiget graph ACTION`` through ``command(name, handler, render, help)``."""
    # Every ACTION sets its own handler and renderer; these defaults are never used (ACTION is required).
    graph = command("graph", cmd_related, _render_related, "expand, rank and export the citation graph")
    actions = graph.add_subparsers(dest="action", required=True, metavar="ACTION")
    # --json and --home again after the action, so `doiget graph related X --json` works.
    common = common_options()

    def action(name: str, handler, render, help_: str) -> argparse.ArgumentParser:
        p = actions.add_parser(name, parents=[common], help=help_, description=help_)
        p.set_defaults(handler=handler, render=render)
        return p

    p = action("expand", cmd_expand, _render_expand, "walk OpenAlex from a paper, storing what it meets")
    p.add_argument("ref")
    p.add_argument("--direction", choices=("references", "cited_by", "both"), default="references")
    p.add_argument("--depth", type=int, choices=(1, 2), default=1)
    p.add_argument("--max-nodes", type=int, default=100)
    p.add_argument("--max-requests", type=int, default=20)
    p = action("related", cmd_related, _render_related, "papers related to seed papers in the local graph")
    p.add_argument("refs", nargs="+")
    p.add_argument("--ranking", choices=("similarity", "influence", "recent"), default="similarity")
    p.add_argument("-n", "--limit", type=int, default=20)
    p = action("connect", cmd_connect, _render_connect, "citation paths between two papers")
    p.add_argument("from_ref")
    p.add_argument("to_ref")
    p.add_argument("--max-paths", type=int, default=5)
    p = action("review", cmd_review, _render_review, "a literature review around seed papers, a tag or a collection")
    p.add_argument("refs", nargs="*")
    p.add_argument("--tag")
    p.add_argument("--collection")
    p.add_argument("--sections", nargs="+", choices=("similar", "important", "reviews", "recent", "authors", "venues"))
    p.add_argument("-n", "--limit", type=int, default=10)
    p = action("export", cmd_export, _render_export, "the graph as GraphML (Gephi) or node-link JSON")
    p.add_argument("refs", nargs="*", help="only these papers and their neighbours (default: everything)")
    p.add_argument("--format", choices=("graphml", "json"), default="graphml")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
