"""User SQL and searches run under a time limit (``query_time_limit`` in config.toml) and caps on
rows and value sizes: QUERY_TIMEOUT / truncation / INVALID_QUERY, never a query that runs forever.
A small configured limit keeps these tests fast."""
from __future__ import annotations

import os

import pytest

from cli_process import run_doiget
from doiget import open_library
from doiget.demo import load_demo
from doiget.errors import DoigetError, ErrorCode
from stdio_client import RawServer

NEVER_ENDING = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c")
COUNTER = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100000) SELECT x FROM c"
CROSS_JOIN = f"SELECT count(*) FROM ({COUNTER}) a, ({COUNTER}) b, ({COUNTER}) d"


def configured_home(tmp_path, seconds) -> os.PathLike:
    home = tmp_path / "lib"
    home.mkdir()
    (home / "config.toml").write_text(f"query_time_limit = {seconds}\n")
    return home


def demo_home(tmp_path, seconds) -> os.PathLike:
    home = configured_home(tmp_path, seconds)
    with open_library(home) as lib:
        load_demo(lib)
    return home


# The module's tests only read these libraries, so they share them.
@pytest.fixture(scope="module")
def small_limit(tmp_path_factory):
    return demo_home(tmp_path_factory.mktemp("small"), 0.3)


@pytest.fixture(scope="module")
def roomy_limit(tmp_path_factory):
    """For limits other than time: a loaded machine must not turn them into QUERY_TIMEOUT."""
    return demo_home(tmp_path_factory.mktemp("roomy"), 120)


@pytest.mark.parametrize("statement", [NEVER_ENDING, CROSS_JOIN], ids=["recursive-cte", "cross-join"])
def test_endless_sql_stops_with_query_timeout(small_limit, statement):
    with open_library(small_limit) as lib:
        with pytest.raises(DoigetError) as caught:
            lib.sql(statement)
        assert caught.value.code is ErrorCode.QUERY_TIMEOUT
        assert caught.value.details["limit_seconds"] == 0.3 and "query_time_limit" in caught.value.message
        # the pooled connection carries no leftover limit: ordinary reads and searches work
        assert lib.sql("SELECT count(*) FROM entries")["rows"][0][0] > 0
        assert lib.search("cancer")


def test_streaming_rows_are_cut_at_max_rows(small_limit):
    with open_library(small_limit) as lib:
        endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"
        result = lib.sql(endless, max_rows=50)
    assert result["truncated"] is True and [r[0] for r in result["rows"]] == list(range(1, 51))


def test_rows_are_cut_at_the_value_budget(roomy_limit):
    with open_library(roomy_limit) as lib:
        result = lib.sql("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 10) "
                         "SELECT printf('%.5000000c', 'x') FROM c")
    assert result["truncated"] is True and len(result["rows"]) == 4


def test_giant_value_is_invalid_query(roomy_limit):
    with open_library(roomy_limit) as lib:
        with pytest.raises(DoigetError) as caught:
            lib.sql("SELECT zeroblob(100000000)")
    assert caught.value.code is ErrorCode.INVALID_QUERY and "too big" in caught.value.message


@pytest.mark.parametrize("value", ["0", "-1", "'five'", "true", "7200"])
def test_bad_configured_limit_is_invalid_input(tmp_path, value):
    home = configured_home(tmp_path, value)
    with pytest.raises(DoigetError) as caught:
        open_library(home)
    assert caught.value.code is ErrorCode.INVALID_INPUT and "query_time_limit" in caught.value.message


def test_searches_run_under_the_limit(tmp_path):
    """A limit far below any search's running time: the search entry points report QUERY_TIMEOUT.
    (The note search runs under the same limit, but on a handful of notes it finishes before SQLite
    first calls the progress handler.)"""
    home = configured_home(tmp_path, 0.000001)
    with open_library(home) as lib:
        load_demo(lib)
        for search in (lambda: lib.search("cancer"), lambda: lib.search_text("cancer"),
                       lambda: lib.search("cancer", include_fulltext=True),
                       lambda: lib.export("bibtex", query="cancer")):
            with pytest.raises(DoigetError) as caught:
                search()
            assert caught.value.code is ErrorCode.QUERY_TIMEOUT
        assert lib.recent(3)  # other reads are not limited


def test_cli_sql_timeout_is_an_error_line_not_a_traceback(small_limit):
    result = run_doiget(None, "--home", str(small_limit), "sql", NEVER_ENDING)
    assert result.returncode == 1
    assert result.stderr.startswith("doiget: QUERY_TIMEOUT: ") and "Traceback" not in result.stderr


def test_mcp_search_timeout_is_an_envelope_and_the_server_keeps_answering(tmp_path):
    home = configured_home(tmp_path, 0.000001)
    with open_library(home) as lib:
        load_demo(lib)
    server = RawServer(home)
    try:
        for tool, field in (("doiget_search_local", "query"), ("doiget_search_fulltext", "query"),
                            ("doiget_csl_export", "query")):
            envelope = server.call(tool, {field: "cancer"})
            assert envelope["ok"] is False and envelope["error"]["code"] == "QUERY_TIMEOUT", (tool, envelope)
        assert server.call("doiget_list_recent", {"n": 2})["ok"] is True
    except BaseException:
        server.kill()
        raise
    assert "Traceback" not in server.close()
