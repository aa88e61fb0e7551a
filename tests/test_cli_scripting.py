"""What a shell script relies on: exit codes, per-item failures, closed pipes, --json anywhere,
DOIGET_LOG, config keys, and a demo that never mixes into a real library."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import pytest

from cli_process import run_doiget
from doiget.cli import EXIT_ERROR, EXIT_OK, EXIT_PARTIAL, EXIT_PIPE, EXIT_USAGE, build_parser, main


spawn = run_doiget


@pytest.fixture
def run(monkeypatch, capsys):
    """``doiget ARGS`` in this process (fast): a CompletedProcess-like result."""
    def call(home, *args, env: dict[str, str] | None = None):
        with monkeypatch.context() as m:
            m.setenv("DOIGET_HOME", str(home))
            for key, value in (env or {}).items():
                m.setenv(key, value)
            code = main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out, err)
    return call


OFFLINE = {"DOIGET_PROFILE": "offline"}


def test_batch_with_failing_items_exits_partial_and_summarises(run, tmp_path):
    refs = tmp_path / "refs.txt"
    refs.write_text("not-an-id\n10.1234/abc\n")
    result = run(tmp_path / "home", "--json", "batch", str(refs), env=OFFLINE)
    assert result.returncode == EXIT_PARTIAL, result.stderr
    out = json.loads(result.stdout)
    assert out["failed"] == 2 and out["summary"]["errors"] == 2 and len(out["results"]) == 2
    assert "2 item(s) failed" in result.stderr
    human = run(tmp_path / "home", "batch", str(refs), env=OFFLINE)
    assert human.returncode == EXIT_PARTIAL and "2 failed" in human.stdout


def test_fetch_several_refs_continues_past_a_failure(run, tmp_path):
    result = run(tmp_path, "--json", "fetch", "not-an-id", "10.1234/abc", env=OFFLINE)
    assert result.returncode == EXIT_PARTIAL
    results = json.loads(result.stdout)["results"]
    assert [r["ok"] for r in results] == [False, False]
    assert [r["error"]["code"] for r in results] == ["INVALID_REF", "CAPABILITY_DENIED"]
    one = run(tmp_path, "fetch", "not-an-id", env=OFFLINE)  # a single ref that fails is the command failing
    assert one.returncode == EXIT_ERROR and "INVALID_REF" in one.stderr


def test_add_reports_a_bad_path_and_adds_the_rest(run, tmp_path):
    from doiget.demo import demo_works, paper_pdf

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(paper_pdf(demo_works()[0]))
    result = run(tmp_path / "home", "--json", "add", str(tmp_path / "missing.pdf"), str(pdf))
    assert result.returncode == EXIT_PARTIAL, result.stderr
    added = json.loads(result.stdout)["added"]
    assert [a["ok"] for a in added] == [False, True] and added[1]["entry"]["title"]


def test_import_fetch_failures_exit_partial(run, tmp_path):
    data = tmp_path / "lib.json"
    data.write_text(json.dumps([{"DOI": "10.1234/abc", "title": "Mine", "type": "article-journal"}]))
    result = run(tmp_path / "home", "--json", "import", str(data), "--fetch", env=OFFLINE)
    assert result.returncode == EXIT_PARTIAL, result.stderr
    out = json.loads(result.stdout)
    assert out["added"] == 1 and out["fetch"]["by_error"] == {"CAPABILITY_DENIED": 1}
    plain = run(tmp_path / "home2", "import", str(data))
    assert plain.returncode == EXIT_OK


def test_import_attach_files_names_the_files_not_found_and_exits_partial(run, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a, title = {Gone}, file = {:papers/gone.pdf:pdf}}\n", encoding="utf-8")
    result = run(tmp_path / "home", "import", str(bib), "--attach-files")
    assert result.returncode == EXIT_PARTIAL, result.stderr
    assert "not found: #1's file ':papers/gone.pdf:pdf'" in result.stdout
    assert run(tmp_path / "home2", "import", str(bib)).returncode == EXIT_OK  # files not asked for


def test_an_import_that_cannot_take_a_record_names_it_and_exits_partial(run, tmp_path):
    # a record with neither identifier nor title is skipped: the import said so and exited 0
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{kept, title = {Kept}}\n@misc{empty, note = {nothing to name it by}}\n", encoding="utf-8")
    result = run(tmp_path / "home", "import", str(bib))
    assert result.returncode == EXIT_PARTIAL, result.stderr
    assert "1 added, 0 merged, 1 skipped" in result.stdout and "no identifier and no title" in result.stdout


def test_a_table_export_is_refused_by_name(run, tmp_path):
    # the first line of python-bibx's real Scopus CSV export; an abstract's "Fe3O4@SiO2 (" made it BibTeX
    # of no entry ("2 records: ... 2 skipped", exit 0)
    csv = tmp_path / "scopus.csv"
    csv.write_text('\ufeff"Authors","Author full names","Author(s) ID","Title","Year","Source title"\n'
                   '"Li, A.","Li, Ann (1)","1","Fe3O4@SiO2 (core) shells","2020","Nano"\n', encoding="utf-8")
    result = run(tmp_path / "home", "import", str(csv))
    assert result.returncode == EXIT_ERROR and "CSV" in result.stderr and "export as RIS or BibTeX" in result.stderr


def test_closed_pipe_exits_quietly(run, tmp_path):
    run(tmp_path, "demo")
    env = {**os.environ, "DOIGET_HOME": str(tmp_path)}
    # 10000 rows of 60 characters: far more than a pipe buffer holds, so the writer meets the closed pipe
    query = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 10000) "
             "SELECT printf('%060d', i) AS i FROM n")
    proc = subprocess.Popen([sys.executable, "-m", "doiget", "sql", query, "--max-rows", "10000"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"i"
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == EXIT_PIPE
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for sub in subs:
        for name, child in sub.choices.items():
            yield from _leaves(child, path + (name,))


def test_every_command_and_sub_action_takes_json_and_home_after_it():
    leaves = list(_leaves(build_parser()))
    assert len(leaves) > 30
    for path, parser in leaves:
        options = {o for a in parser._actions for o in a.option_strings}
        assert {"--json", "--home"} <= options, path


def test_json_after_note_and_collection_actions(run, tmp_path):
    run(tmp_path, "demo")
    notes = run(tmp_path, "note", "search", "--json")
    assert notes.returncode == EXIT_OK and json.loads(notes.stdout)["notes"] == []
    coll = run(tmp_path, "collection", "add", "thesis", "arxiv:1202.4527", "--json")
    assert json.loads(coll.stdout)["collection"]["count"] == 1
    created = run(tmp_path, "note", "create", "a body", "--ref", "arxiv:1202.4527", "--json")
    assert json.loads(created.stdout)["note"]["body"] == "a body"


def test_doiget_log_is_honoured_and_checked(run, tmp_path):
    info = spawn(tmp_path / "a", "migrate", env={"DOIGET_LOG": "info"})  # creating a store logs its migrations
    assert info.returncode == EXIT_OK and " INFO alembic" in info.stderr
    quiet = spawn(tmp_path / "b", "migrate")
    assert quiet.returncode == EXIT_OK and quiet.stderr == ""
    bad = run(tmp_path, "tags", env={"DOIGET_LOG": "loud"})
    assert bad.returncode == EXIT_ERROR and "DOIGET_LOG" in bad.stderr


def test_unknown_config_key_is_an_error_naming_it(run, tmp_path):
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "config.toml").write_text('profile = "offline"\ncontact_emial = "me@example.org"\n')
    result = run(tmp_path, "tags")
    assert result.returncode == EXIT_ERROR and "contact_emial" in result.stderr
    (tmp_path / "config.toml").write_text('profile = "offline"\n')
    assert run(tmp_path, "tags").returncode == EXIT_OK


def test_demo_refuses_a_library_with_papers_of_its_own(run, tmp_path):
    data = tmp_path / "lib.json"
    data.write_text(json.dumps([{"DOI": "10.1234/abc", "title": "Mine", "type": "article-journal"}]))
    home = tmp_path / "home"
    run(home, "import", str(data))
    refused = run(home, "demo")
    assert refused.returncode == EXIT_ERROR and "--force" in refused.stderr
    assert json.loads(run(home, "--json", "sql", "SELECT count(*) FROM entries").stdout)["rows"] == [[1]]
    assert run(home, "demo", "--force").returncode == EXIT_OK
    again = run(tmp_path / "demo", "demo")
    assert again.returncode == EXIT_OK and run(tmp_path / "demo", "demo").returncode == EXIT_OK  # idempotent


def test_usage_error_is_2(tmp_path):
    assert spawn(tmp_path, "search").returncode == EXIT_USAGE


def test_serve_is_silent_on_stdout_and_stderr_when_stdin_is_a_pipe(tmp_path):
    result = subprocess.run([sys.executable, "-m", "doiget", "serve"], input="", capture_output=True, text=True,
                            env={**os.environ, "DOIGET_HOME": str(tmp_path)}, timeout=60)
    assert result.stdout == "" and "MCP server" not in result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_serve_prints_one_line_on_stderr_when_stdin_is_a_tty(tmp_path):
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "doiget", "serve"], stdin=follower, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "DOIGET_HOME": str(tmp_path)})
    os.close(follower)
    line = proc.stderr.readline().decode()
    os.write(leader, b"\x04")  # Ctrl-D: end of input
    proc.wait(timeout=60)
    os.close(leader)
    assert line.startswith("doiget: MCP server") and proc.stdout.read() == b""
