"""The ``doiget`` command end to end, as a subprocess in a temp home."""
from __future__ import annotations

import json

from cli_process import run_doiget
from doiget.store.migrate import HEAD


run = run_doiget


def test_demo_then_search_info_tag_sql(tmp_path):
    home = tmp_path / "home"
    demo = run(home, "demo")
    assert demo.returncode == 0, demo.stderr
    assert "13 papers, 10 PDFs, 11 citations" in demo.stdout

    search = run(home, "--json", "search", "fuzzing")
    assert search.returncode == 0
    hits = json.loads(search.stdout)["hits"]
    assert hits[0]["title"].startswith("Active Fuzzing")
    ref = hits[0]["ref"]

    human = run(home, "search", "fuzzing", "-n", "1")
    assert human.stdout.startswith(f"1. {ref}") and "**" in human.stdout

    assert run(home, "tag", ref, "security").stdout.strip().endswith("demo, security, software-testing")
    info = run(home, "info", ref)
    assert "Active Fuzzing" in info.stdout and "tags: demo, security, software-testing" in info.stdout

    sql = run(home, "sql", "SELECT count(*) AS n FROM v_entries WHERE tags LIKE '%security%'")
    assert sql.returncode == 0 and sql.stdout.split() == ["n", "1"]
    assert json.loads(run(home, "--json", "sql", "-", stdin="SELECT 2 AS two").stdout)["rows"] == [[2]]


def test_sql_refuses_writes_with_message_and_exit_code(tmp_path):
    run(tmp_path, "demo")
    result = run(tmp_path, "sql", "DELETE FROM entries")
    assert result.returncode == 1
    assert "READ_ONLY" in result.stderr and result.stdout == ""
    assert run(tmp_path, "sql", "SELECT count(*) FROM entries WHERE is_stub = 0").stdout.split()[-1] == "13"


def test_errors_go_to_stderr_with_nonzero_exit(tmp_path):
    bad = run(tmp_path, "info", "not-an-id")
    assert bad.returncode == 1 and "INVALID_REF" in bad.stderr and bad.stdout == ""
    missing = run(tmp_path, "--json", "info", "10.1000/missing")
    assert missing.returncode == 1 and json.loads(missing.stdout)["error"]["code"] == "NOT_FOUND"
    assert run(tmp_path, "search").returncode == 2


def test_health_and_migrate(tmp_path):
    health = run(tmp_path / "new", "--json", "health")
    assert json.loads(health.stdout)["exists"] is False and not (tmp_path / "new").exists()
    migrate = json.loads(run(tmp_path / "new", "--json", "migrate").stdout)
    assert (migrate["revision_before"], migrate["revision"]) == (None, HEAD)
    assert json.loads(run(tmp_path / "new", "--json", "health").stdout)["status"] == "ok"


def test_collections_annotate_delete_gc(tmp_path):
    run(tmp_path, "demo")
    ref = json.loads(run(tmp_path, "--json", "search", "fuzzing").stdout)["hits"][0]["ref"]
    assert run(tmp_path, "collection", "add", "reading", ref).stdout.strip() == "reading (1 entries)"
    assert "reading (1)" in run(tmp_path, "collection", "list").stdout
    assert run(tmp_path, "annotate", ref, "-", stdin="great threat model").returncode == 0
    assert json.loads(run(tmp_path, "--json", "search", "threat").stdout)["hits"][0]["ref"] == ref
    assert run(tmp_path, "delete", ref).returncode == 0
    assert "removed 0 unreferenced" in run(tmp_path, "gc", "--grace", "0").stdout
