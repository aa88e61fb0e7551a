"""Notebook use: one-line reprs, HTML reprs, SQL results that pandas takes, and docs/notebook.ipynb
executed end to end (nbclient, a real kernel) against the demo library."""
from __future__ import annotations

from pathlib import Path

import pytest

from doiget import open_library
from doiget.demo import load_demo
from doiget.results import Hits, SqlResult, TextPage

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "notebook.ipynb"


@pytest.fixture(scope="module")
def lib(demo_library):
    return demo_library


def test_reprs_are_one_line_and_html_is_escaped(lib):
    entry = lib.info("arxiv:1202.4527")
    assert repr(entry) == ("<Entry arxiv:1202.4527 A. Isabella et al. (2012) "
                           "'Study Paper on Test Case generation for GUI Based Testing'>")
    long_abstract = lib.info("doi:10.1111/bjhp.12807")
    assert "\n" not in repr(long_abstract) and len(repr(long_abstract)) < 160
    assert "<b>Study Paper on Test Case generation" in entry._repr_html_()
    hits = lib.search("test*", limit=3)
    assert isinstance(hits, Hits) and isinstance(hits, list) and repr(hits) == "<3 hits>"
    assert repr(hits[0]).startswith("<SearchHit ") and "\n" not in repr(hits[0])
    assert hits._repr_html_().count("<tr>") == 4 and "**" not in hits._repr_html_()
    passages = lib.search_text('"test case"', limit=2)
    assert isinstance(passages, Hits) and repr(passages[0]).startswith("<TextHit ")
    tagged = lib.sql("SELECT '<script>' AS x")
    assert "<script>" not in tagged._repr_html_() and "&lt;script&gt;" in tagged._repr_html_()


def test_text_page_reads_as_attributes_with_an_html_view(lib):
    page = lib.text("arxiv:1202.4527", page=2)
    assert isinstance(page, TextPage) and page.page_range == [2, 2] and page.ref == "arxiv:1202.4527"
    assert repr(page).startswith("<TextPage arxiv:1202.4527 chars ")
    assert "<pre>## 1 Introduction" in page._repr_html_()


def test_sql_result_keeps_dict_access_and_is_records(lib):
    result = lib.sql("SELECT ref, year FROM v_entries ORDER BY id LIMIT 2")
    assert isinstance(result, SqlResult)
    assert result["columns"] == ["ref", "year"] and len(result["rows"]) == 2 and result["truncated"] is False
    assert dict(result) == result.to_dict() and {**result}["rows"] == result["rows"]
    assert list(result) == [dict(zip(["ref", "year"], row)) for row in result["rows"]]
    assert result[0] == {"ref": result["rows"][0][0], "year": result["rows"][0][1]}
    with pytest.raises(KeyError):
        result["nope"]


def test_pandas_takes_the_sql_result_directly(lib):
    pandas = pytest.importorskip("pandas")
    result = lib.sql("SELECT year, count(*) AS papers FROM v_entries GROUP BY year ORDER BY year")
    frame = pandas.DataFrame(result)
    assert list(frame.columns) == ["year", "papers"] and frame["papers"].sum() == 13
    assert frame.equals(result.to_pandas())
    empty = lib.sql("SELECT ref, year FROM v_entries WHERE 0").to_pandas()
    assert list(empty.columns) == ["ref", "year"] and len(empty) == 0


def test_the_docs_notebook_runs_against_the_demo_library(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    home = tmp_path / "library"
    with open_library(home) as library:
        load_demo(library)
    monkeypatch.setenv("DOIGET_HOME", str(home))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
                            ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "<table>" in html and "Study Paper on Test Case generation" in html and "<pre>" in html
