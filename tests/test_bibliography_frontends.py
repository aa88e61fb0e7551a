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
from export_helpers import ZOTERO_BIB, ZOTERO_CSL
from test_cli import run
from test_mcp import session_calls

GOBEE_DOI = "10.1002/ca.21185"
GOBEE = ("Gobée OP, Jansma D, DeRuiter MC. AnatomicalTerms.info: heading for an online solution to the anatomical "
         "synonym problem. Clin Anat. 2011;24(7):817-30.")


def test_mcp_import_export_resolve_and_notes(tmp_path):
    home = tmp_path / "lib"
    content = ZOTERO_CSL.read_text(encoding="utf-8")
    calls = [
        ("doiget_batch_from_bibliography", {"content": content, "tags": ["zotero"]}),
        ("doiget_batch_from_bibliography", {"content": content}),
        ("doiget_bibtex_export", {"tag": "zotero"}),
        ("doiget_csl_export", {"refs": [GOBEE_DOI]}),
        ("doiget_ris_export", {"query": "anatomical"}),
        ("doiget_resolve_citation", {"citation": GOBEE}),
        ("doiget_batch_resolve_citations", {"citations": [GOBEE, "zzzz qqqq"], "limit": 1}),
        ("doiget_note_create", {"body": "Anatomical synonyms", "ref": GOBEE_DOI,
                                "anchors": [{"page": 818, "quote": "synonym problem"}], "tags": ["anatomy"]}),
        ("doiget_note_update", {"id": 1, "tags": ["anatomy", "review"]}),
        ("doiget_note_search", {"keyword": "synonyms", "limit": 1}),
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
    # 208 items, 103 of them with a DOI or a PMID/PMCID in their note
    assert (first["added"], first["fetchable_total"], again["merged"], again["added"]) == (208, 103, 208, 0)
    assert first["report"][0]["status"] == "added"
    assert first["report_truncated"] and len(first["report"]) == 200  # the tool's cap; the file has 208
    parsed = bibtexparser.parse_string(bib["text"])
    assert bib["count"] == len(parsed.entries) == 208 and not parsed.failed_blocks
    assert csl["count"] == 1 and csl["items"][0]["id"] == "gobée:2011anatomicalterms"  # the key of the imported file
    assert ris["count"] >= 1 and ris["text"].startswith("TY  - ")
    assert "not_carried" not in csl  # (CSL-JSON carries every field; BibTeX no date in words beside its year)
    assert bib["not_carried"] == [{"field": "issued", "entries": 2}]  # Zotero's "1975_2013", "2012_2013"
    assert {"field": "number-of-pages", "entries": 4} in ris["not_carried"]  # (RIS has no tag for it)
    assert resolved["answered_from"] == "library" and resolved["candidates"][0]["confidence"] == "exact"
    assert batch["results"][0]["candidates"][0]["in_library"]
    assert "network access is disabled" in batch["results"][1]["note"]
    assert note["note"]["anchors"] == [{"page": 818, "quote": "synonym problem"}]
    assert updated["note"]["tags"] == ["anatomy", "review"]
    assert found["count"] == 1 and found["next_cursor"] is None
    front = yaml.safe_load(exported["markdown"].split("\n---\n")[0].removeprefix("---\n"))
    assert front["entry"] == f"doi:{GOBEE_DOI}" and front["tags"] == ["anatomy", "review"]
    assert {"name": "zotero", "count": 208} in listed["tags"] and listed["collections"] == []
    assert deleted["deleted"] == 1 and gone["error"]["code"] == "NOT_FOUND"
    assert bad["error"]["code"] == "INVALID_INPUT"
    # Content is always the text of a bibliography, never a path to read on the server.
    assert path["error"]["code"] == "INVALID_INPUT" and "not a bibliography" in path["error"]["message"]


def test_cli_import_export_notes_and_latex(tmp_path):
    home = tmp_path / "home"
    imported = run(home, "import", str(ZOTERO_BIB), "--tag", "terms")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith("240 records: 240 added, 0 merged, 0 skipped")
    again = json.loads(run(home, "--json", "import", str(ZOTERO_BIB)).stdout)
    assert (again["merged"], len(again["report"])) == (240, 240)
    tags = run(home, "tags").stdout.splitlines()
    assert "terms (240)" in tags and "history of medicine (10)" in tags  # a Better BibTeX keyword of 10 entries

    bib = tmp_path / "refs.bib"
    written = run(home, "export", "--tag", "terms", "-o", str(bib))
    assert written.returncode == 0 and written.stdout.strip() == f"wrote bibtex to {bib}"
    library = bibtexparser.parse_string(bib.read_text(encoding="utf-8"))
    assert len(library.entries) == 240 and not library.failed_blocks
    csl = json.loads(run(home, "export", "--format", "csl-json", GOBEE_DOI).stdout)
    assert [item["DOI"] for item in csl] == [GOBEE_DOI]
    ris = run(home, "--json", "export", "--format", "ris", "--tag", "terms", "-o", str(tmp_path / "refs.ris"))
    gaps = json.loads(ris.stdout)["not_carried"]
    assert {"field": "BibTeX field rights", "entries": 24} in gaps
    (warning,) = [line for line in ris.stderr.splitlines() if "RIS has no tag for" in line]
    assert "BibTeX field rights (24 entries)" in warning
    if shutil.which("pdflatex") and shutil.which("bibtex"):
        _compile(tmp_path, bib, len(library.entries))

    created = run(home, "note", "create", "Anatomical synonyms", "--ref", GOBEE_DOI,
                  "--page", "818", "--quote", "synonym", "--tag", "idea")
    assert created.returncode == 0, created.stderr
    assert created.stdout.startswith("[1] ") and "  at page 818, quote \"synonym\"" in created.stdout
    assert run(home, "note", "search", "synonyms").stdout.startswith("[1] ")
    out = tmp_path / "note.md"
    assert run(home, "note", "export", "1", "-o", str(out)).returncode == 0
    assert yaml.safe_load(out.read_text().split("\n---\n")[0][4:])["anchors"] == [{"page": 818, "quote": "synonym"}]
    assert run(home, "note", "delete", "1").stdout.strip() == "deleted note 1"
    missing = run(home, "note", "show", "1")
    assert missing.returncode == 1 and "NOT_FOUND" in missing.stderr

    resolved = run(home, "cite-resolve", "Banay GL. An introduction to medical terminology. I. Greek and Latin "
                   "derivations. Bull Med Libr Assoc 1948;36:1-27", env={"DOIGET_PROFILE": "offline"})
    assert resolved.returncode == 0, resolved.stderr
    assert resolved.stdout.startswith("1. [") and "An Introduction to Medical Terminology" in resolved.stdout


def _compile(tmp_path, bib, n):
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{url}\n"
        f"\\begin{{document}}\\nocite{{*}}\\bibliographystyle{{plain}}\\bibliography{{{bib.stem}}}\\end{{document}}\n")
    latex = lambda *cmd: subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True,  # TeX logs 8-bit text
                                        errors="replace", timeout=60)
    latex("pdflatex", "-interaction=nonstopmode", "doc.tex")
    assert "error message" not in latex("bibtex", "doc").stdout
    assert latex("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex").returncode == 0
    assert (tmp_path / "doc.bbl").read_text(encoding="latin-1").count("\\bibitem") == n


@pytest.mark.parametrize("args", [["export", "--format", "endnote"], ["import", "/nonexistent.bib"]])
def test_cli_errors(tmp_path, args):
    result = run(tmp_path, *args)
    assert result.returncode in (1, 2) and result.stdout == ""
