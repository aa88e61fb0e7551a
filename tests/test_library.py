"""The Library façade's local operations, on real SQLite files in temp dirs."""
from __future__ import annotations

import pytest

from doiget import Author, DoigetError, ErrorCode, Work, open_library
from doiget.demo import demo_works, load_demo
from doiget.demo import has_pdf as demo_has_pdf


@pytest.fixture(scope="module")
def lib(demo_library):
    """The module's demo library, shared by the tests that only read it."""
    return demo_library


@pytest.fixture
def own_lib(tmp_path):
    """A demo library of the test's own, for tests that write (or try to)."""
    library = open_library(tmp_path / "lib")
    load_demo(library)
    yield library
    library.close()


def test_search_ranks_title_hits_first_and_highlights(lib):
    hits = lib.search("fuzzing")
    assert hits[0].title.startswith("Active Fuzzing")
    assert "**" in hits[0].snippet
    assert [h.score for h in hits] == sorted(h.score for h in hits)


def test_hits_equal_validated_hits(lib):
    """Hits are built from the store's rows without validation: each equals the validated model of its own
    fields, in its JSON too (byte for byte: what the MCP tool and the CLI print)."""
    from doiget.models import SearchHit

    hits = lib.search("test* OR cancer", limit=100)
    assert any(h.has_pdf for h in hits) and any(not h.has_pdf for h in hits) and any(h.tags for h in hits)
    for hit in hits:
        validated = SearchHit.model_validate(hit.model_dump())
        assert hit == validated and hit.model_dump_json() == validated.model_dump_json()
        assert hit.model_fields_set == validated.model_fields_set
        assert hit.model_copy(update={"score": 1.0}).score == 1.0 and hit.score != 1.0

def test_search_filters(lib):
    everything = {h.ref for h in lib.search("test* OR cancer", limit=100)}
    assert len(everything) == 12
    assert {h.ref for h in lib.search("test* OR cancer", limit=100, tag="oncology")} == {
        str(w.primary_ref()) for w in demo_works() if w.pmid}
    pdf_refs = {str(w.primary_ref()) for i, w in enumerate(demo_works()) if demo_has_pdf(i)}
    with_pdf = lib.search("test* OR cancer", limit=100, has_pdf=True)
    assert {h.ref for h in with_pdf} == everything & pdf_refs and all(h.has_pdf for h in with_pdf)
    assert {h.ref for h in lib.search("test* OR cancer", limit=100, has_pdf=False)} == everything - pdf_refs != set()
    recent = lib.search("test* OR cancer", limit=100, year_from=2024)
    assert recent and all(h.year >= 2024 for h in recent)
    assert lib.search("test* OR cancer", limit=100, collection="demo")
    assert lib.search("cancer", collection="nonexistent") == []


@pytest.mark.parametrize("query", ['"unclosed', "a AND", "(a OR b", "NOT a", "x" * 2000, "   "])
def test_malformed_queries_are_invalid_query(lib, query):
    with pytest.raises(DoigetError) as info:
        lib.search(query)
    assert info.value.code is ErrorCode.INVALID_QUERY


def test_punctuation_in_plain_queries_is_not_syntax(lib):
    assert lib.search("testing: a comparative (study)") is not None


def test_info_recent_tag_and_collections(own_lib):
    ref = str(demo_works()[6].primary_ref())
    entry = own_lib.info(ref)
    assert entry.tags == ["demo", "software-testing"] and entry.collections == ["demo"]
    assert own_lib.tag(ref, ["to-read", "to-read"]) == ["demo", "software-testing", "to-read"]
    assert own_lib.untag(ref, ["demo"]) == ["software-testing", "to-read"]
    assert len(own_lib.recent(5)) == 5
    own_lib.collection_create("thesis", "chapter 2 sources")
    own_lib.collection_add("thesis", [ref])
    assert [c.count for c in own_lib.collections() if c.name == "thesis"] == [1]
    assert [e.id for e in own_lib.collection_entries("thesis")] == [entry.id]
    own_lib.collection_remove("thesis", [ref])
    own_lib.collection_delete("thesis")
    assert [c.name for c in own_lib.collections()] == ["demo"]
    with pytest.raises(DoigetError) as info:
        own_lib.collection_entries("thesis")
    assert info.value.code is ErrorCode.NOT_FOUND


def test_unknown_and_invalid_refs(lib):
    for bad, code in (("10.9999/not-here", ErrorCode.NOT_FOUND), ("nonsense", ErrorCode.INVALID_REF)):
        with pytest.raises(DoigetError) as info:
            lib.info(bad)
        assert info.value.code is code


def test_delete_removes_rows_then_only_unshared_blobs(own_lib):
    works = demo_works()
    first, second = str(works[0].primary_ref()), str(works[5].primary_ref())
    shared = own_lib.pdf_path(first).read_bytes()
    own_lib.add_artefact(second, "pdf", shared)  # the same bytes now back two entries
    result = own_lib.delete(first)
    assert result.blobs_removed == 0 and own_lib.pdf_path(second).read_bytes() == shared
    assert own_lib.delete(second).blobs_removed == 1
    assert own_lib.sql("SELECT count(*) FROM entries")["rows"] == [[len(works) - 2]]


def test_sql_is_read_only(own_lib):
    result = own_lib.sql("SELECT ref, authors, tags FROM v_entries ORDER BY id LIMIT 2")
    assert result["columns"] == ["ref", "authors", "tags"] and len(result["rows"]) == 2
    for statement in ("DELETE FROM entries", "INSERT INTO tags (name) VALUES ('x')", "DROP VIEW v_entries",
                      "ATTACH DATABASE 'other.db' AS other", "PRAGMA query_only = 0", "PRAGMA journal_mode = DELETE"):
        with pytest.raises(DoigetError) as info:
            own_lib.sql(statement)
        assert info.value.code is ErrorCode.READ_ONLY, statement
    with pytest.raises(DoigetError) as info:
        own_lib.sql("SELECT 1; DELETE FROM entries")
    assert info.value.code is ErrorCode.INVALID_QUERY
    assert own_lib.sql("SELECT count(*) FROM entries")["rows"] == [[len(demo_works())]]
    assert own_lib.sql("SELECT value FROM json_each('[1,2,3]')", max_rows=2) == {
        "columns": ["value"], "rows": [[1], [2]], "truncated": True}


def test_health_creates_nothing_for_a_missing_store(tmp_path):
    from doiget.config import load_config
    from doiget.library import health_report

    report = health_report(load_config(tmp_path / "absent"))
    assert report.exists is False and report.status == "empty"
    assert not (tmp_path / "absent").exists()


def test_read_only_profile_refuses_writes(tmp_path, monkeypatch):
    open_library(tmp_path).add(Work(doi="10.1000/x", title="x"))
    monkeypatch.setenv("DOIGET_PROFILE", "read-only")
    lib = open_library(tmp_path)
    assert lib.info("10.1000/x").title == "x"
    with pytest.raises(DoigetError) as info:
        lib.tag("10.1000/x", ["t"])
    assert info.value.code is ErrorCode.CAPABILITY_DENIED


def test_hits_show_each_entrys_own_spelling_of_its_authors_only(tmp_path):
    # Two spellings of one person share an index row; the hit of each entry shows its own, without editors.
    with open_library(tmp_path / "lib") as lib:
        lib.add(Work(doi="10.1000/a", title="Fluid dynamics one", authors=[Author(name="Sònia Ruiz")]))
        lib.add(Work(doi="10.1000/b", title="Fluid dynamics two", authors=[Author(name="Sonia Ruiz")],
                     contributors={"editor": [Author(name="Ed Itor")]}))
        assert len(lib.sql("SELECT * FROM authors WHERE key = 'name:sonia ruiz'").rows) == 1
        assert {h.ref: h.authors for h in lib.search("fluid")} == {"doi:10.1000/a": ["Sònia Ruiz"],
                                                                   "doi:10.1000/b": ["Sonia Ruiz"]}
