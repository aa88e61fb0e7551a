"""Formatted references (citeproc-py, bundled CSL styles) from the API, the CLI and MCP."""
from __future__ import annotations

import json
import shutil

import anyio
import pytest
from test_mcp import session_calls

from doiget import DoigetError, ErrorCode, open_library
from doiget.cli import main
from doiget.demo import load_demo
from doiget.formats.cite import STYLES, style_path

PNAS = "10.1073/pnas.1414271111"
GUI = "arxiv:1202.4527"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    path = tmp_path_factory.mktemp("cite")
    with open_library(path) as lib:
        load_demo(lib)
    return path


def test_apa_and_vancouver(home):
    with open_library(home) as lib:
        apa = lib.cite([PNAS, GUI], "apa").references
        vancouver = lib.cite([PNAS, GUI], "vancouver").references
    # Authors "Family, I. I.", "&" before the last, year in parentheses, DOI as a URL; APA's bibliography is
    # sorted by author whatever order the refs are given in.
    assert apa == [
        "Isabella, A., & Retna, E. (2012). Study Paper on Test Case generation for GUI Based Testing. International "
        "Journal of Software Engineering & Applications (IJSEA), Vol.3, No.1, January 2012. "
        "https://arxiv.org/abs/1202.4527v1",
        "Makris, E. A., Responte, D. J., Paschos, N. K., Hu, J. C., & Athanasiou, K. A. (2014). Developing functional "
        "musculoskeletal tissues through hypoxia and lysyl oxidase-induced collagen cross-linking. Proceedings of the "
        "National Academy of Sciences, 111(45). https://doi.org/10.1073/pnas.1414271111"]
    # Vancouver numbers in citation order, the number set apart, initials without dots, dates as NLM writes them.
    assert vancouver == [
        "1. Makris EA, Responte DJ, Paschos NK, Hu JC, Athanasiou KA. Developing functional musculoskeletal tissues "
        "through hypoxia and lysyl oxidase-induced collagen cross-linking. Proceedings of the National Academy of "
        "Sciences. 2014 Oct 27;111(45). doi:10.1073/pnas.1414271111",
        "2. Isabella A, Retna E. Study Paper on Test Case generation for GUI Based Testing. International Journal of "
        "Software Engineering & Applications (IJSEA), Vol3, No1, January 2012 [Internet]. 2012 Feb 21. Available "
        "from: https://arxiv.org/abs/1202.4527v1"]


def test_every_bundled_style_formats_and_html_escapes(home):
    with open_library(home) as lib:
        for style in STYLES:
            refs = lib.cite([GUI], style).references
            assert len(refs) == 1 and "Isabella" in refs[0], style
        html = lib.cite([GUI], "nature", "html").references[0]
    assert "<i>International Journal" in html and "&amp;" in html


def test_a_csl_file_path_is_a_style(home, tmp_path):
    own = tmp_path / "my-journal.csl"
    shutil.copy(style_path("nature"), own)
    with open_library(home) as lib:
        assert lib.cite([GUI], str(own)).references == lib.cite([GUI], "nature").references
        (tmp_path / "broken.csl").write_text("<not-csl/>")
        for bad in ("chicago", str(tmp_path / "broken.csl"), str(tmp_path / "missing.csl")):
            with pytest.raises(DoigetError) as info:
                lib.cite([GUI], bad)
            assert info.value.code is ErrorCode.INVALID_INPUT, bad
        with pytest.raises(DoigetError) as info:
            lib.cite(["10.1000/not-here"])
        assert info.value.code is ErrorCode.NOT_FOUND


def test_cli_cite(home, capsys, monkeypatch):
    monkeypatch.setenv("DOIGET_HOME", str(home))
    assert main(["cite", GUI, PNAS, "--style", "vancouver"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("1. Isabella A, Retna E.")
    assert main(["cite", GUI, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["references"][0].startswith("Isabella, A., & Retna, E. (2012)")


def test_mcp_cite_is_read_only_and_refuses_paths(home):
    calls = [("doiget_cite", {"refs": [GUI], "style": "ieee"}),
             ("doiget_cite", {"refs": [GUI], "style": "/etc/passwd"})]
    tools, (ieee, path) = anyio.run(session_calls, home, calls)
    tool = next(t for t in tools if t.name == "doiget_cite")
    assert tool.annotations.read_only_hint is True
    assert ieee["ok"] and ieee["references"][0].startswith("[1] A. Isabella and E. Retna")
    assert not path["ok"] and path["error"]["code"] == "INVALID_INPUT"
