"""Citation-graph expansion over a fake OpenAlex that serves a known graph in recorded response shapes."""
from __future__ import annotations

import sqlite3

import pytest
from fake_openalex import FakeOpenAlexHttp, wid
from sqlalchemy import text

from doiget import DoigetError, ErrorCode, Work
from doiget.config import load_config
from doiget.ranking import build_graph
from doiget.library import Library

FAN = 3


def tree(fan: int = FAN, levels: int = 2, extra_citers: int = 0):
    """Node 0 cites ``fan`` works, each of which cites ``fan`` more (levels deep); node 0 is cited by
    ``extra_citers`` works numbered from 10_000."""
    edges, frontier, nxt = [], [0], 1
    for _ in range(levels):
        new = []
        for parent in frontier:
            for _ in range(fan):
                edges.append((parent, nxt))
                new.append(nxt)
                nxt += 1
        frontier = new
    edges += [(10_000 + i, 0) for i in range(extra_citers)]
    ids = {n for e in edges for n in e}
    return build_graph([{"id": n, "title": f"Paper {n}", "year": 2000 + n % 25} for n in ids], edges)


def library(tmp_path, G, **fake):
    http = FakeOpenAlexHttp(G, **fake)
    return Library(load_config(tmp_path / "lib"), http=http), http


def count(lib, sql):
    with lib.store.read() as conn:
        return conn.execute(text(sql)).scalar_one()


def test_depth_two_references_requests_and_second_call_is_local(tmp_path):
    lib, http = library(tmp_path, tree())
    first = lib.expand_citation_graph(f"openalex:{wid(0)}", "references", depth=2)
    # 1 request learns the seed's W record, then one list page per expanded node (the seed, 3 children).
    assert first.requests_made == len(http.requests) == 1 + 1 + FAN
    assert (first.nodes, first.edges, first.truncated) == (1 + FAN + FAN ** 2, FAN + FAN ** 2, False)
    assert [r.hop for r in first.reached] == [1] * FAN + [2] * FAN ** 2
    assert all(r.title.startswith("Paper ") and r.is_stub for r in first.reached)
    assert {p["filter"] for _, p in http.requests[1:]} == {f"cited_by:{wid(n)}" for n in range(FAN + 1)}
    assert count(lib, "SELECT count(*) FROM citations WHERE source = 'openalex'") == FAN + FAN ** 2

    again = lib.expand_citation_graph(f"openalex:{wid(0)}", "references", depth=2)
    assert again.requests_made == 0 and len(http.requests) == first.requests_made
    assert again.reached == first.reached and (again.nodes_added, again.edges_added) == (0, 0)


def test_node_cap_is_hard_and_a_repeat_of_a_truncated_call_makes_no_request(tmp_path):
    lib, http = library(tmp_path, tree())
    capped = lib.expand_citation_graph(f"openalex:{wid(0)}", "references", depth=2, max_nodes=5)
    assert (capped.nodes, capped.truncated, capped.truncated_reason) == (5, True, "max_nodes")
    assert count(lib, "SELECT count(*) FROM entries") == 5  # nothing beyond the cap was stored
    made = len(http.requests)
    repeat = lib.expand_citation_graph(f"openalex:{wid(0)}", "references", depth=2, max_nodes=5)
    assert repeat.requests_made == 0 and repeat.truncated_reason == "max_nodes"
    wider = lib.expand_citation_graph(f"openalex:{wid(0)}", "references", depth=2, max_nodes=13)
    assert (wider.nodes, wider.truncated) == (13, False)
    assert len(http.requests) > made


def test_request_cap_is_hard(tmp_path):
    lib, http = library(tmp_path, tree())
    capped = lib.expand_citation_graph(f"openalex:{wid(0)}", "references", depth=2, max_requests=3)
    assert capped.requests_made == len(http.requests) == 3
    assert (capped.truncated, capped.truncated_reason) == (True, "max_requests")


def test_cited_by_pages_with_the_cursor_and_resumes_where_it_stopped(tmp_path):
    lib, http = library(tmp_path, tree(levels=1, extra_citers=450))
    seed = lib.add(Work(openalex=wid(0), title="Seed"))
    first = lib.expand_citation_graph(seed.id, "cited_by", max_nodes=300)
    assert first.nodes == 300 and first.truncated_reason == "max_nodes"
    assert [(p["cursor"], p["per-page"]) for _, p in http.requests] == [("*", "200"), ("200", "99")]
    rest = lib.expand_citation_graph(seed.id, "cited_by", max_nodes=500)
    assert (rest.nodes, rest.truncated) == (451, False)
    assert [p["cursor"] for _, p in http.requests[2:]] == ["299"]  # resumed, not restarted
    assert count(lib, "SELECT count(*) FROM citations") == 450
    assert count(lib, "SELECT complete FROM graph_expansions WHERE direction = 'cited_by'") == 1


def test_both_directions(tmp_path):
    lib, http = library(tmp_path, tree(levels=1, extra_citers=2))
    both = lib.expand_citation_graph(f"openalex:{wid(0)}", "both", depth=1)
    assert both.nodes == 1 + FAN + 2 and both.requests_made == 3
    assert {r.hop for r in both.reached} == {1}


def test_upstream_failure_keeps_what_was_learned(tmp_path):
    lib, http = library(tmp_path, tree(), fail_after=3)
    result = lib.expand_citation_graph(f"openalex:{wid(0)}", "references", depth=2)
    assert (result.truncated, result.truncated_reason) == (True, "upstream_error")
    assert result.error.code == "RATE_LIMITED" and result.nodes == 1 + FAN + FAN
    assert count(lib, "SELECT count(*) FROM citations") == FAN + FAN


def test_unknown_seed_and_bad_arguments(tmp_path):
    lib, _ = library(tmp_path, tree(levels=1))
    with pytest.raises(DoigetError) as missing:
        lib.expand_citation_graph("openalex:W999999")
    assert missing.value.code is ErrorCode.NOT_FOUND
    for bad in ({"depth": 3}, {"max_nodes": 501}, {"max_requests": 0}, {"direction": "sideways"}):
        with pytest.raises(DoigetError) as err:
            lib.expand_citation_graph(f"openalex:{wid(0)}", **bad)
        assert err.value.code is ErrorCode.INVALID_INPUT


def test_no_write_transaction_is_held_during_a_request(tmp_path):
    def another_writer_can_commit():
        conn = sqlite3.connect(tmp_path / "lib" / "library.sqlite3", timeout=0)
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.rollback()
        finally:
            conn.close()

    lib, http = library(tmp_path, tree(), during=another_writer_can_commit)
    assert lib.expand_citation_graph(f"openalex:{wid(0)}", "both", depth=2).requests_made > 1


def test_a_second_call_answered_locally_needs_no_network_profile(tmp_path, monkeypatch):
    lib, _ = library(tmp_path, tree(levels=1))
    first = lib.expand_citation_graph(f"openalex:{wid(0)}")
    monkeypatch.setenv("DOIGET_PROFILE", "offline")
    offline = Library(load_config(tmp_path / "lib"))
    assert offline.expand_citation_graph(f"openalex:{wid(0)}").reached == first.reached


def test_stubs_from_a_saved_reference_list_get_titles_from_the_first_listing(tmp_path):
    lib, http = library(tmp_path, tree(levels=1))
    lib.add(Work(openalex=wid(0), title="Seed", references=[f"openalex:{wid(n)}" for n in range(1, FAN + 1)]))
    assert count(lib, "SELECT count(*) FROM entries WHERE is_stub = 1 AND title IS NULL") == FAN
    result = lib.expand_citation_graph(f"openalex:{wid(0)}")
    assert result.requests_made == 1 and result.nodes_added == 0  # the seed's W id was known
    assert [r.title for r in result.reached] == [f"Paper {n}" for n in range(1, FAN + 1)]
    assert count(lib, "SELECT count(*) FROM entries WHERE title IS NULL") == 0


def test_crossref_only_stubs_are_reached_but_not_expanded(tmp_path):
    lib, http = library(tmp_path, tree(levels=1))
    lib.add(Work(openalex=wid(0), title="Seed", references=["doi:10.1000/crossref-only"]))
    result = lib.expand_citation_graph(f"openalex:{wid(0)}", depth=2)
    assert "doi:10.1000/crossref-only" in {r.ref for r in result.reached}
    assert result.not_expandable == 1 and result.nodes == 1 + FAN + 1
    assert result.requests_made == 1 + FAN  # the seed's list and each OpenAlex child's
