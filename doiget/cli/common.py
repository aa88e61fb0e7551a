"""Helpers shared by the CLI command modules: opening the library and rendering results."""
from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from doiget.config import load_config

if TYPE_CHECKING:
    from doiget.library import Library


def open_lib(args: argparse.Namespace) -> Library:
    from doiget.library import Library  # on use: building the parser must not import SQLAlchemy

    return Library(load_config(args.home))


def entry_line(entry: dict[str, Any]) -> str:
    authors = entry.get("authors") or []
    names = [a["name"] if isinstance(a, dict) else a for a in authors]
    who = names[0] + (" et al." if len(names) > 1 or _cut_short(entry) else "") if names else "?"
    year = entry.get("year") or "n.d."
    flags = " [pdf]" if entry.get("has_pdf") else ""
    if entry.get("update_status"):
        flags += f" [{entry['update_status'].upper()}]"
    tags = f"  #{' #'.join(entry['tags'])}" if entry.get("tags") else ""
    return f"{entry.get('ref') or ''}  {who} ({year}) {entry.get('title') or '(untitled)'}{flags}{tags}"


def _cut_short(entry: dict[str, Any]) -> bool:
    """Whether the entry's author list ended in BibTeX's ``and others`` (et al.)."""
    if not entry.get("extra"):  # search hits carry none: their read path stays without pydantic
        return False
    from doiget.models import cut_short

    return cut_short(entry["extra"])


def render_entry(result: dict[str, Any]) -> str:
    e = result["entry"]
    lines = [e.get("title") or "(untitled)"]
    if e.get("update_warning"):
        from doiget.present import is_grave

        lines.append(("WARNING " if is_grave(e.get("update_status")) else "note: ") + e["update_warning"])
    if e.get("authors"):
        lines.append(", ".join(a["name"] for a in e["authors"]) + (", et al." if _cut_short(e) else ""))
    lines.append(" · ".join(str(x) for x in (e.get("venue"), e.get("year"), e.get("type")) if x))
    names = [f"{k}:{e[k]}" for k in ("doi", "arxiv", "pmid", "pmcid", "openalex") if e.get(k)]
    names += [f"#{e['id']}"] + ([f"@{e['citekey']}"] if e.get("citekey") else [])
    lines.append("ids: " + ", ".join(names))  # each one names the entry wherever a REF is taken
    for label, key in (("tags", "tags"), ("collections", "collections")):
        if e.get(key):
            lines.append(f"{label}: {', '.join(e[key])}")
    if e.get("annotation"):
        lines.append(f"annotation: {e['annotation']}")
    for artefact in e.get("artefacts", []):
        lines.append(f"artefact: {artefact['kind']} {artefact['size']} bytes sha256:{artefact['sha256'][:12]}")
    if e.get("abstract"):
        lines += ["", e["abstract"]]
    return "\n".join(line for line in lines if line is not None)


def render_hits(result: dict[str, Any]) -> str:
    if not result["hits"]:
        return "no matches"
    return "\n".join(f"{i}. {entry_line(h)}\n   {h['snippet']}" for i, h in enumerate(result["hits"], 1))


def render_entries(result: dict[str, Any]) -> str:
    return "\n".join(entry_line(e) for e in result["entries"]) or "the library is empty"


def render_table(result: dict[str, Any]) -> str:
    rows = [result["columns"]] + [["" if v is None else str(v) for v in row] for row in result["rows"]]
    widths = [min(60, max(len(str(r[i])) for r in rows)) for i in range(len(result["columns"]))]
    lines = ["  ".join(str(v)[:60].ljust(w) for v, w in zip(row, widths)) for row in rows]
    if result.get("truncated"):
        lines.append(f"(cut at {len(result['rows'])} rows)")
    return "\n".join(lines)


def render_kv(result: dict[str, Any]) -> str:
    return "\n".join(f"{k}: {json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v}"
                     for k, v in result.items())


