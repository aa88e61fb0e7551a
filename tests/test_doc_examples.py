"""Every command shown in README.md and docs/*.md runs, in order, on the demo library.

Shell lines run in bash with a ``doiget`` on PATH that is this interpreter's ``python -m doiget``;
commands that reach the network talk to the loopback fake of the upstream APIs (recorded
responses). SQL examples in docs/SCHEMA.md run through ``Library.sql`` and must return rows.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fetchenv import ARXIV_ID, PNAS_DOI, recording, serve_arxiv, serve_pnas, source_env
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401

from cli_process import doiget_bin_dir
from doiget import open_library

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# Commands not run here, each with the reason. Keep this list short.
SKIP = {
    "pip install": "installs doiget (the test runs the installed copy)",
    "python -m pytest": "the test suite itself",
    "claude mcp add": "needs Claude Code; tests/test_mcp_hosts.py checks the command it registers",
    "doiget browse": "serves Datasette until Ctrl-C; tests/test_browse.py starts it and queries its JSON API",
    "doiget graph expand": "walks OpenAlex's citation lists, which no recording holds for the demo papers; "
                           "tests/test_expansion.py runs it against a fake OpenAlex",
}
# What some commands must print on the demo library (an exit code of 0 alone could hide "no matches").
EXPECT = {
    "doiget search 'fuzz* AND security'": "Active Fuzzing",
    "doiget grep": "Test Case",
    "doiget graph related": "1. [",
    "doiget graph connect": "path 1:",
    "doiget note search": "LOX drives cross-linking",
    "doiget text arxiv:1202.4527 --page 3": "page 3 of 3",
    "doiget cite-resolve": "10.1073/pnas.1414271111",
    "doiget cite ": "Makris EA, Responte DJ",
    "doiget sql": "arxiv:1202.4527",
    "doiget fetch": "doi:10.1073/pnas.1414271111",
    "doiget resolve": "1707.08567",
    "doiget check-retractions": "CORRECTED: correction doi:10.1073/pnas.1507001112",
    "doiget add": "added",
    "doiget search-remote": "1 works",
}


def code_blocks(path: Path, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def shell_commands() -> list[str]:
    """Every command of every ``sh`` block, `&&` chains split, in document order."""
    commands = []
    for path in DOCS:
        for block in code_blocks(path, "sh"):
            for line in block.replace("\\\n", " ").splitlines():
                commands += [part.strip() for part in line.split(" && ") if part.strip()]
    return commands


def skipped(command: str) -> bool:
    return any(command.startswith(prefix) for prefix in SKIP)


@pytest.fixture
def shell_env(tmp_path, https_server, client_ca):
    serve_pnas(https_server)
    serve_arxiv(https_server)
    https_server.route("/openalex/works", Reply(200, recording("openalex/works_filter_title_search_paperqa.json"),
                                                {"Content-Type": "application/json"}))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    user_home = tmp_path / "user"
    (user_home / "Downloads").mkdir(parents=True)
    return {**os.environ, **source_env(https_server, client_ca), "HOME": str(user_home),
            "DOIGET_HOME": str(tmp_path / "library"), "PATH": os.pathsep.join((str(doiget_bin_dir()), str(bin_dir), os.environ["PATH"]))}


def example_files(cwd: Path, home: Path) -> None:
    """The files the README's commands name, as a user would have them."""
    from doiget.demo import demo_works, paper_pdf

    (cwd / "My-Library.json").write_text(json.dumps([
        {"id": "makris2014", "type": "article-journal", "DOI": PNAS_DOI,
         "title": "Developing functional musculoskeletal tissues through hypoxia and lysyl oxidase-induced "
                  "collagen cross-linking", "issued": {"date-parts": [[2014]]}},
        {"id": "notes", "type": "report", "title": "Lab notebook, 2024"}]))
    (cwd / "reading-list.txt").write_text(f"# to read\n{PNAS_DOI}\narXiv:{ARXIV_ID}\n")
    pdf = demo_works()[0].model_copy(update={"title": "A PDF from my downloads", "doi": None, "pmid": None})
    (home / "Downloads" / "paper.pdf").write_bytes(paper_pdf(pdf))


def test_every_shell_example_runs_on_the_demo_library(tmp_path, shell_env):
    commands = shell_commands()
    assert len(commands) > 30 and "doiget demo" in commands
    example_files(tmp_path, Path(shell_env["HOME"]))
    ran = []
    for command in commands:
        if skipped(command):
            continue
        if command.startswith("sqlite3") and not shutil.which("sqlite3"):
            continue
        result = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=shell_env, capture_output=True,
                                text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert result.returncode == 0, f"{command}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        assert "Traceback" not in result.stderr, command
        for prefix, expected in EXPECT.items():
            if command.startswith(prefix):
                assert expected in result.stdout, f"{command}\n{result.stdout[-2000:]}"
        ran.append(command)
    assert len(ran) >= len(commands) - len(SKIP) - 1
    assert (tmp_path / "refs.bib").read_text().startswith("@") and (tmp_path / "library.graphml").is_file()


def test_every_python_example_runs_on_the_demo_library(tmp_path, monkeypatch, capsys):
    from doiget.demo import load_demo

    monkeypatch.setenv("DOIGET_HOME", str(tmp_path / "library"))
    with open_library() as lib:
        load_demo(lib)
    blocks = [block for path in DOCS for block in code_blocks(path, "python")]
    assert blocks
    for block in blocks:
        exec(compile(block, "<README python example>", "exec"), {})
    assert "Towards Explainable Test Case Prioritisation" in capsys.readouterr().out


def sql_examples() -> list[str]:
    """The inline ``SELECT ...`` examples of docs/SCHEMA.md."""
    text = (ROOT / "docs" / "SCHEMA.md").read_text(encoding="utf-8")
    return re.findall(r"`(SELECT [^`]+)`", text)


def test_every_sql_example_in_the_docs_returns_rows(tmp_path):
    from doiget.demo import load_demo

    examples = sql_examples()
    assert len(examples) >= 2
    with open_library(tmp_path) as lib:
        load_demo(lib)
        for query in examples:
            assert lib.sql(query)["rows"], query
