"""Citation edges and stub entries saved by Library.add from real Crossref and OpenAlex records."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from doiget import Work, open_library
from doiget.net import crossref, openalex
from doiget.refs import Ref
from doiget.store import citations, entries as entry_store


@pytest.fixture
def records(upstream):
    """(Crossref work, OpenAlex work) of 10.1073/pnas.1414271111 as the sources parse them."""
    registered = crossref.parse_work(json.loads(
        (upstream / "crossref" / "works_10.1073_pnas.1414271111.json").read_text())["message"])
    indexed = openalex.parse_work(json.loads(
        (upstream / "openalex" / "works_doi_10.1073_pnas.1414271111.json").read_text()))
    return registered, indexed


@pytest.fixture
def lib(tmp_path):
    with open_library(tmp_path / "lib") as library:
        yield library


def edges(lib, citing_id):
    with lib.store.read() as conn:
        return conn.execute(text("SELECT e.doi, e.openalex, e.is_stub, c.source FROM citations c "
                                 "JOIN entries e ON e.id = c.cited_id WHERE c.citing_id = :c ORDER BY e.id"),
                            {"c": citing_id}).all()


def count(lib, sql):
    with lib.store.read() as conn:
        return conn.execute(text(sql)).scalar_one()


def test_openalex_referenced_works_become_stub_edges(lib, records, upstream):
    _, indexed = records
    raw = json.loads((upstream / "openalex" / "works_doi_10.1073_pnas.1414271111.json").read_text())
    entry = lib.add(indexed)
    found = edges(lib, entry.id)
    assert len(found) == 73 == len(raw["referenced_works"])
    assert {f"https://openalex.org/{w}" for _, w, _, _ in found} == set(raw["referenced_works"])
    assert {(stub, source) for _, _, stub, source in found} == {(1, "openalex")}
    assert not entry.is_stub and count(lib, "SELECT count(*) FROM entries WHERE is_stub = 1") == 73
    assert lib.recent(100) == [lib.info(entry.id)]  # stubs stay out of the library's own listings


def test_crossref_reference_dois_become_stub_edges(lib, records, upstream):
    registered, _ = records
    raw = json.loads((upstream / "crossref" / "works_10.1073_pnas.1414271111.json").read_text())["message"]
    dois = {r["DOI"].lower() for r in raw["reference"] if "DOI" in r}
    entry = lib.add(registered)
    found = edges(lib, entry.id)
    assert {doi for doi, _, _, _ in found} == dois and len(found) == len(dois) == 65
    assert {source for *_, source in found} == {"crossref"}


def test_merged_work_counts_each_reference_once_preferring_openalex(lib, records):
    registered, indexed = records
    merged = registered.merged(indexed)
    assert len(merged.references) == 65 + 73  # the same references under two kinds of id
    entry = lib.add(merged)
    found = edges(lib, entry.id)
    assert len(found) == 73 and {source for *_, source in found} == {"openalex"}
    assert count(lib, "SELECT count(*) FROM entries WHERE is_stub = 1 AND doi IS NOT NULL") == 0


def test_openalex_list_replaces_crossref_list_and_drops_its_orphan_stubs(lib, records):
    registered, indexed = records
    entry = lib.add(registered)
    assert count(lib, "SELECT count(*) FROM entries WHERE is_stub = 1") == 65
    lib.add(registered.merged(indexed))
    assert len(edges(lib, entry.id)) == 73
    assert count(lib, "SELECT count(*) FROM entries WHERE is_stub = 1") == 73
    lib.add(registered)  # a later Crossref-only resolution never replaces OpenAlex's list
    assert {source for *_, source in edges(lib, entry.id)} == {"openalex"} and len(edges(lib, entry.id)) == 73


def test_stub_is_promoted_when_added_for_real_and_never_overwrites_real_metadata(lib, records):
    _, indexed = records
    first = indexed.references[0].removeprefix("openalex:")
    real = lib.add(Work(doi="10.1000/real", title="A real paper", year=2001))
    citing = lib.add(indexed.model_copy(update={"references": [*indexed.references, "doi:10.1000/real"]}))
    assert len(edges(lib, citing.id)) == 73  # OpenAlex's list stands: the extra DOI is not mixed in
    lib.add(Work(title="Another", doi="10.1000/other", references=["doi:10.1000/real"]))
    assert lib.info(real.id).title == "A real paper" and not lib.info(real.id).is_stub

    stub_id = lib.info(f"openalex:{first}").id
    assert lib.info(stub_id).is_stub and lib.info(stub_id).title is None
    promoted = lib.add(Work(openalex=first, doi="10.1000/promoted", title="Now in the library"))
    assert promoted.id == stub_id and not promoted.is_stub and promoted.title == "Now in the library"
    assert (citing.id, stub_id) in {(c, d) for c, d in _all_edges(lib)}


def test_stubs_under_doi_and_w_id_merge_once_a_record_names_both(lib):
    a = lib.add(Work(doi="10.1000/a", title="A", references=["doi:10.1000/shared"]))
    b = lib.add(Work(openalex="W1", title="B", references=["openalex:W2"]))
    assert count(lib, "SELECT count(*) FROM entries WHERE is_stub = 1") == 2
    shared = lib.add(Work(doi="10.1000/shared", openalex="W2", title="Shared"))
    assert count(lib, "SELECT count(*) FROM entries WHERE is_stub = 1") == 0
    assert {(a.id, shared.id), (b.id, shared.id)} == set(_all_edges(lib))


def test_add_without_references_writes_no_edges(lib):
    lib.add(Work(doi="10.1000/plain", title="Plain"))
    assert count(lib, "SELECT count(*) FROM citations") == 0


def _all_edges(lib):
    with lib.store.read() as conn:
        return [tuple(r) for r in conn.execute(text("SELECT citing_id, cited_id FROM citations"))]


def test_a_reference_list_finds_the_entries_held_and_stubs_the_rest_as_one_by_one(lib):
    with lib.store.write() as conn:
        held = entry_store.upsert_work(conn, Work(doi="10.1000/held", title="Held"))
        conn.execute(text("UPDATE entries SET doi = '10.1000/HELD' WHERE id = :id"), {"id": held})  # DOIs: NOCASE
        indexed = entry_store.upsert_work(conn, Work(openalex="W2741809807", arxiv="1707.08567"), stub=True)
        refs = [Ref.parse(r) for r in ("doi:10.1000/held", "doi:10.1000/new", "W2741809807",
                                       "arXiv:1707.08567v2", "doi:10.1000/new")]
        found = citations.stub_ids(conn, refs)
        assert found[0] == held and found[2] == found[3] == indexed and found[1] == found[4] not in (held, indexed)
        assert found == [citations.stub_ids(conn, [ref])[0] for ref in refs]  # and nothing more was made
        assert conn.execute(text("SELECT count(*) FROM entries")).scalar_one() == 3
        assert conn.execute(text("SELECT is_stub FROM entries WHERE doi = '10.1000/new'")).scalar_one() == 1
