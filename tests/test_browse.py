"""``doiget browse``: Datasette on the demo library, read-only, answering over its JSON API."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx
import pytest

from doiget import open_library
from doiget.demo import load_demo
from doiget.store.datasette import QUERIES

pytest.importorskip("datasette", reason="doiget[browse] is not installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def browse(tmp_path_factory):
    home = tmp_path_factory.mktemp("browse")
    with open_library(home) as lib:
        load_demo(lib)
        lib.note_create("hypoxia matters", "10.1073/pnas.1414271111")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "doiget", "browse", "--port", str(port)],
                            env={**os.environ, "DOIGET_HOME": str(home)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base, timeout=30) as client:
        for _ in range(600):  # until it listens (bounded; not a timing assertion)
            if proc.poll() is not None:
                pytest.fail(f"doiget browse exited: {proc.stderr.read().decode()[-2000:]}")
            try:
                client.get("/-/versions.json")
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield client
    proc.terminate()  # Datasette, its child, went on serving after doiget browse was stopped
    proc.wait(timeout=30)
    for _ in range(300):  # until Datasette has let go of the port (bounded; not a timing assertion)
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                break
        time.sleep(0.1)
    else:
        pytest.fail(f"Datasette still listens on port {port} after doiget browse was stopped")


def rows(client: httpx.Client, path: str, **params) -> list[dict]:
    response = client.get(path, params={"_shape": "array", **params})
    assert response.status_code == 200, response.text
    return response.json()


def test_search_over_the_json_api_uses_fts(browse):
    hits = rows(browse, "/library/entries.json", _search="fuzzing")
    assert [h["title"] for h in hits] == ["Active Fuzzing for Testing and Securing Cyber-Physical Systems"]
    assert rows(browse, "/library/v_entries.json", _search="fuzzing")[0]["ref"] == "doi:10.1145/3395363.3397376"
    passages = rows(browse, "/library/chunks.json", _search='"test case"')
    assert passages and all("test case" in p["text"].lower() or "test case" in (p["heading"] or "").lower()
                            for p in passages)
    assert rows(browse, "/library/notes.json", _search="hypoxia")[0]["body"] == "hypoxia matters"


def test_canned_queries_answer(browse):
    per_year = rows(browse, "/library/papers_per_year.json")
    assert sum(r["papers"] for r in per_year) == 13
    assert {"tag": "demo", "papers": 13} in rows(browse, "/library/papers_per_tag.json")
    unread = {r["ref"] for r in rows(browse, "/library/unread.json")}
    assert len(unread) == 9 and "doi:10.1073/pnas.1414271111" not in unread  # 10 PDFs, one has a note
    assert rows(browse, "/library/notes_by_paper.json")[0]["notes"] == 1
    assert len(rows(browse, "/library/recent_additions.json")) == 13
    assert rows(browse, "/library/fetch_failures.json") == []
    assert set(QUERIES) == {"papers_per_year", "papers_per_tag", "unread", "fetch_failures", "notes_by_paper",
                            "recent_additions"}


def test_views_are_listed_and_writes_refused(browse):
    database = browse.get("/library.json").json()
    assert {"v_entries", "v_fetch_log"} <= {v["name"] for v in database["views"]}
    refused = browse.get("/library.json", params={"sql": "DELETE FROM entries"})
    assert refused.status_code == 400
    assert sum(r["papers"] for r in rows(browse, "/library/papers_per_year.json")) == 13
