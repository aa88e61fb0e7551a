"""JATS articles you have, imported: front matter fills the entry, the reference list becomes citation
edges (stubs for the cited works), tables/footnotes/summaries/sub-articles are searchable; the CLI
``add`` takes files and directories, and the MCP tool takes base64 JATS. Real files: see SOURCES.md."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cli_process import run_doiget
from doiget.cli import EXIT_PARTIAL
from doiget.config import load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext.jats import extract_jats
from doiget.fulltext.jatsmeta import read_jats_article
from doiget.library import Library
from doiget.store import citations as citation_store

PAPERS = Path(__file__).resolve().parent.parent / "fixtures" / "papers"
JATS = PAPERS / "jats"

# file -> (ids, first author, references (<ref> elements), distinct cited works) read off each file.
TRUTH = {
    "PMC5828200.nxml": ({"doi": "10.18632/oncotarget.24369", "pmid": "29535835", "pmcid": "PMC5828200"},
                        "Yi-Heng Tai", 52, 52),
    "PMC6398430.nxml": ({"doi": "10.1093/beheco/ary157", "pmid": "30846892", "pmcid": "PMC6398430"},
                        "Florian Uhl", 80, 80),
    "PMC7417471.nxml": ({"doi": "10.1186/s40580-020-00237-4", "pmid": "32776254", "pmcid": "PMC7417471"},
                        "Adel Mohammed Al-Dhahebi", 206, 206),
    "PMC4113009.xml": ({"doi": "10.1186/1475-2875-13-210", "pmid": "24888439", "pmcid": "PMC4113009"},
                       "Binh V Le", 62, 62),
    "f1000research.5879.2.xml": ({"doi": "10.12688/f1000research.5879.2"}, "Gabriel M. Leal", 43, 43),
    "fpsyg.2014.01582.xml": ({"doi": "10.3389/fpsyg.2014.01582"}, "Friederike Range", 97, 97),
    "ptag100.xml": ({"doi": "10.1093/ptep/ptag100"}, "Jeong Ryeol Choi", 55, 55),
}


@pytest.mark.parametrize("name", sorted(TRUTH))
def test_front_matter_and_reference_list(name):
    ids, first_author, refs, _ = TRUTH[name]
    article = read_jats_article((JATS / name).read_bytes())
    assert article.work.ids() == ids
    assert article.work.authors[0].name == first_author
    assert article.work.title and article.work.abstract and article.work.year
    assert len(article.references) == refs


def test_affiliations_keywords_and_reference_ids():
    article = read_jats_article((JATS / "PMC6398430.nxml").read_bytes())
    uhl = article.work.authors[0]
    assert uhl.affiliation == "Department of Cognitive Biology, University of Vienna, Vienna, Austria"
    assert uhl.orcid == "0000-0002-3609-5983"
    assert article.keywords[:3] == ["Corvus corone", "crows", "fission"]
    assert article.work.venue == "Behavioral Ecology" and article.work.volume == "30"
    graphene = read_jats_article((JATS / "PMC7417471.nxml").read_bytes()).references
    assert sum(1 for r in graphene if r.doi) == 128 and sum(1 for r in graphene if not r.ids()) == 37
    assert graphene[0].title.startswith("A review on graphene-based nanocomposites")
    ptep = read_jats_article((JATS / "ptag100.xml").read_bytes()).references
    assert [r.arxiv for r in ptep if r.arxiv] == ["2408.15986"]


def test_tables_footnotes_summaries_and_sub_articles_are_text():
    crows = extract_jats((JATS / "PMC6398430.nxml").read_bytes()).text
    assert "Paired Wilcoxon signed-rank test" in crows  # a table footnote
    assert "## Summary" in crows  # the teaser abstract
    f1000 = extract_jats((JATS / "f1000research.5879.2.xml").read_bytes()).text
    assert "## Referee response for version 2" in f1000  # referee reports are sub-articles
    assert "## Response\n\nWe appreciate your time and effort" in f1000  # the authors' reply nested in a report
    frontiers = extract_jats((JATS / "fpsyg.2014.01582.xml").read_bytes()).text
    assert "Social tolerance refers to the close proximity of individuals" in frontiers  # a boxed "key concept"
    labels = re.findall(r"<boxed-text>\s*<label>([^<]+)</label>", (JATS / "fpsyg.2014.01582.xml").read_text())
    assert len(labels) == 4  # each box's label is its title: "KEY CONCEPT 1. Social tolerance"
    assert all(f"\n\n{label}\n\n" in frontiers for label in labels)


def test_floats_group_tables_become_text():
    # PMC hoists floats out of <body> for some publishers; none of the real files above does, so this
    # one is written by hand in that shape.
    xml = b"""<article><front><article-meta><title-group><article-title>Hoisted</article-title></title-group>
    </article-meta></front><body><sec><title>Results</title><p>See Table 1.</p></sec></body>
    <floats-group><table-wrap id="t1"><label>Table 1</label><caption><p>Main variants.</p></caption>
    <table><tr><th>Variant</th><th>P</th></tr><tr><td>COL4A1</td><td>1e-9</td></tr></table>
    <table-wrap-foot><fn><p>P from a two-sided test.</p></fn></table-wrap-foot></table-wrap></floats-group></article>"""
    text = extract_jats(xml).text
    assert "Table 1 Main variants." in text and "COL4A1 | 1e-9" in text and "P from a two-sided test." in text


@pytest.fixture
def lib(tmp_path, monkeypatch):
    monkeypatch.setenv("DOIGET_PROFILE", "offline")
    with Library(load_config(tmp_path / "lib")) as lib:
        yield lib


def edges(lib: Library, entry_id: int) -> list[int]:
    with lib.store.read() as conn:
        return citation_store.neighbours(conn, entry_id, "references")


@pytest.mark.parametrize("name", sorted(TRUTH))
def test_add_jats_turns_references_into_edges(lib, name):
    ids, _, refs, distinct = TRUTH[name]
    result = lib.add_jats(JATS / name)
    entry = result.entry
    assert (result.references, result.citation_edges) == (refs, distinct)
    assert len(edges(lib, entry.id)) == distinct
    assert {k: getattr(entry, k) for k in ids} == ids
    again = lib.add_jats(JATS / name)
    assert again.duplicate and len(edges(lib, entry.id)) == distinct


def test_add_jats_fills_an_existing_entry_and_table_text_is_searchable(lib):
    stub = lib.add({"doi": "10.1093/beheco/ary157", "title": "Counting crows (my note)"})
    result = lib.add_jats(JATS / "PMC6398430.nxml")
    entry = result.entry
    assert entry.id == stub.id and entry.title == "Counting crows (my note)"  # yours stays
    assert entry.pmid == "30846892" and entry.abstract and len(entry.authors) == 6  # empty fields filled
    hits = lib.search_text('"Wilcoxon signed-rank"')
    assert hits and hits[0].ref == "doi:10.1093/beheco/ary157" and hits[0].format == "jats"


def test_cli_add_takes_files_and_directories_and_names_bad_files(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(JATS / "PMC5828200.nxml", folder)
    shutil.copy(PAPERS / "pdf" / "arxiv-2201.11903-p1.pdf", folder)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\n not really")
    (folder / "notes.txt").write_text("ignored: not a PDF or XML name")
    (tmp_path / "stray.xml").write_text("<article><unclosed></article>")
    env = {"DOIGET_PROFILE": "offline", "PATH": "/usr/bin:/bin"}
    run = run_doiget(None, "--home", str(tmp_path / "home"), "--json", "add", str(folder), str(tmp_path / "stray.xml"),
                     env=env)
    assert run.returncode == EXIT_PARTIAL, run.stderr
    out = json.loads(run.stdout)
    ok = [a for a in out["added"] if a["ok"]]
    assert sorted(Path(a["path"]).name for a in ok) == ["PMC5828200.nxml", "arxiv-2201.11903-p1.pdf"]
    assert out["failed"] == 2 and {Path(a["path"]).name: a["error"]["code"] for a in out["added"] if not a["ok"]} == {
        "broken.pdf": "INVALID_INPUT", "stray.xml": "INVALID_INPUT"}
    jats = next(a for a in ok if a["format"] == "jats")
    assert jats["citation_edges"] == 52 and jats["entry"]["ref"] == "doi:10.18632/oncotarget.24369"
    ok = run_doiget(None, "--home", str(tmp_path / "home"), "add", str(JATS / "ptag100.xml"), env=env)
    assert ok.returncode == 0 and "1 added, 0 failed" in ok.stdout


def test_add_file_refuses_what_is_neither_pdf_nor_xml(lib, tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(b"GIF89a")
    with pytest.raises(DoigetError) as err:
        lib.add_file(path)
    assert err.value.code is ErrorCode.INVALID_INPUT and "neither a PDF nor an XML" in err.value.message
