"""Bibliography tools over real MCP stdio and the real CLI as a subprocess."""
from __future__ import annotations

import json
import shutil
import subprocess
from functools import partial

import anyio
import bibtexparser
import pytest
import yaml
from export_helpers import UPSTREAM
from test_cli import run
from test_mcp import session_calls

BUNGE = UPSTREAM / "bibtex" / "zotero_bbt_export_bunge_collection_901.bib"
ZOTERO_CSL = UPSTREAM / "csl_json" / "zotero_bbt_export_deterministic_ordering_1178.csl.json"
BRITTAIN = ("Brittain I. Perceptions of disability and their impact upon involvement in sport for people with "
            "disabilities at all levels. J Sport Soc Issues. 2004;28(4):429-52.")


def test_mcp_import_export_resolve_and_notes(tmp_path):
    home = tmp_path / "lib"
    content = ZOTERO_CSL.read_text(encoding="utf-8")
    calls = [
        ("doiget_batch_from_bibliography", {"content": content, "tags": ["zotero"]}),
        ("doiget_batch_from_bibliography", {"content": content}),
        ("doiget_bibtex_export", {"tag": "zotero"}),
        ("doiget_csl_export", {"refs": ["10.1177/0193723504268729"]}),
        ("doiget_ris_export", {"query": "disability"}),
        ("doiget_resolve_citation", {"citation": BRITTAIN}),
        ("doiget_batch_resolve_citations", {"citations": [BRITTAIN, "zzzz qqqq"], "limit": 1}),
        ("doiget_note_create", {"body": "Sport and disability", "ref": "10.1177/0193723504268729",
                                "anchors": [{"page": 430, "quote": "all levels"}], "tags": ["sport"]}),
        ("doiget_note_update", {"id": 1, "tags": ["sport", "review"]}),
        ("doiget_note_search", {"keyword": "disability", "limit": 1}),
        ("doiget_note_export", {"id": 1}),
        ("doiget_list_collections", {}),
        ("doiget_note_delete", {"id": 1}),
        ("doiget_note_read", {"id": 1}),
        ("doiget_note_create", {"body": "x", "anchors": [{"page": -1}]}),
        ("doiget_batch_from_bibliography", {"content": "/etc/passwd"}),
    ]
    tools, results = anyio.run(partial(session_calls, home, calls, DOIGET_PROFILE="offline"))
    by_name = {t.name: t for t in tools}
    assert by_name["doiget_note_delete"].annotations.destructive_hint
    assert by_name["doiget_resolve_citation"].annotations.open_world_hint
    first, again, bib, csl, ris, resolved, batch, note, updated, found, exported, listed, deleted, gone, bad, path = \
        results
    assert (first["added"], first["fetchable_total"], again["merged"], again["added"]) == (26, 14, 26, 0)
    assert first["report"][0]["status"] == "added" and not first["report_truncated"]
    parsed = bibtexparser.parse_string(bib["text"])
    assert bib["count"] == len(parsed.entries) == 26 and not parsed.failed_blocks
    assert csl["count"] == 1 and csl["items"][0]["id"] == "brittain2004"  # the key of the imported file
    assert ris["count"] >= 1 and ris["text"].startswith("TY  - ")
    assert resolved["answered_from"] == "library" and resolved["candidates"][0]["confidence"] == "exact"
    assert batch["results"][0]["candidates"][0]["in_library"]
    assert "network access is disabled" in batch["results"][1]["note"]
    assert note["note"]["anchors"] == [{"page": 430, "quote": "all levels"}]
    assert updated["note"]["tags"] == ["review", "sport"]
    assert found["count"] == 1 and found["next_offset"] is None
    front = yaml.safe_load(exported["markdown"].split("\n---\n")[0].removeprefix("---\n"))
    assert front["entry"] == "doi:10.1177/0193723504268729" and front["tags"] == ["review", "sport"]
    assert {"name": "zotero", "count": 26} in listed["tags"] and listed["collections"] == []
    assert deleted["deleted"] == 1 and gone["error"]["code"] == "NOT_FOUND"
    assert bad["error"]["code"] == "INVALID_INPUT"
    # Content is always the text of a bibliography, never a path to read on the server.
    assert path["error"]["code"] == "INVALID_INPUT" and "not a bibliography" in path["error"]["message"]


def test_cli_import_export_notes_and_latex(tmp_path):
    home = tmp_path / "home"
    imported = run(home, "import", str(BUNGE), "--tag", "bunge")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith("36 records: 36 added, 0 merged, 0 skipped")
    again = json.loads(run(home, "--json", "import", str(BUNGE)).stdout)
    assert (again["merged"], len(again["report"])) == (36, 36)
    assert run(home, "tags").stdout.splitlines()[:1] == ["1905 works (1)"]
    assert "bunge (36)" in run(home, "tags").stdout

    bib = tmp_path / "refs.bib"
    written = run(home, "export", "--tag", "bunge", "-o", str(bib))
    assert written.returncode == 0 and written.stdout.strip() == f"wrote bibtex to {bib}"
    library = bibtexparser.parse_string(bib.read_text(encoding="utf-8"))
    assert len(library.entries) == 36 and not library.failed_blocks
    csl = json.loads(run(home, "export", "--format", "csl-json", "10.1016/0307-904x(78)90008-2").stdout)
    assert [item["DOI"] for item in csl] == ["10.1016/0307-904x(78)90008-2"]
    if shutil.which("pdflatex") and shutil.which("bibtex"):
        _compile(tmp_path, bib, len(library.entries))

    created = run(home, "note", "create", "Systems and holism", "--ref", "10.1016/0307-904x(78)90008-2",
                  "--page", "2", "--quote", "holism", "--tag", "idea")
    assert created.returncode == 0, created.stderr
    assert created.stdout.startswith("[1] ") and "  at page 2, quote \"holism\"" in created.stdout
    assert run(home, "note", "search", "holism").stdout.startswith("[1] ")
    out = tmp_path / "note.md"
    assert run(home, "note", "export", "1", "-o", str(out)).returncode == 0
    assert yaml.safe_load(out.read_text().split("\n---\n")[0][4:])["anchors"] == [{"page": 2, "quote": "holism"}]
    assert run(home, "note", "delete", "1").stdout.strip() == "deleted note 1"
    missing = run(home, "note", "show", "1")
    assert missing.returncode == 1 and "NOT_FOUND" in missing.stderr

    resolved = run(home, "cite-resolve", "Bunge M. General systems and holism. General Systems 1977",
                   env={"DOIGET_PROFILE": "offline"})
    assert resolved.returncode == 0, resolved.stderr
    assert resolved.stdout.startswith("1. [") and "General Systems and Holism" in resolved.stdout


def _compile(tmp_path, bib, n):
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{url}\n"
        f"\\begin{{document}}\\nocite{{*}}\\bibliographystyle{{plain}}\\bibliography{{{bib.stem}}}\\end{{document}}\n")
    latex = lambda *cmd: subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    latex("pdflatex", "-interaction=nonstopmode", "doc.tex")
    assert "error message" not in latex("bibtex", "doc").stdout
    assert latex("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex").returncode == 0
    assert (tmp_path / "doc.bbl").read_text(encoding="latin-1").count("\\bibitem") == n


@pytest.mark.parametrize("args", [["export", "--format", "endnote"], ["import", "/nonexistent.bib"]])
def test_cli_errors(tmp_path, args):
    result = run(tmp_path, *args)
    assert result.returncode in (1, 2) and result.stdout == ""
