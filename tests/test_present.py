"""One label per entry: the Python rule (present.label), the SQL spelling (present.REF_SQL) and
search summaries name every entry the same way, identifiers or not."""
from __future__ import annotations

from doiget import Work, open_library
from doiget.present import entry_dict, fetch_json, label
from doiget.store import citations as citation_store
from doiget.store import search as search_store


def test_label_prefers_the_first_identifier_then_the_local_id():
    assert label({"doi": None, "arxiv": "2101.01234", "pmid": "5"}, 7) == "arxiv:2101.01234"
    assert label({}, 7) == "#7"


def test_every_spelling_of_the_label_agrees(tmp_path):
    with open_library(tmp_path) as lib:
        works = [Work(doi="10.1234/a", pmid="12", title="alpha one"), Work(pmcid="PMC5", title="alpha two"),
                 Work(openalex="W9", arxiv="2101.01234", title="alpha three"), Work(title="alpha four")]
        stored = [lib.add(w) for w in works]
        ids = [e.id for e in stored]
        with lib.store.read() as conn:
            sql_refs = {i: d["ref"] for i, d in citation_store.describe(conn, ids).items()}
        with lib.store.query_raw("test") as conn:
            summary_refs = {i: s["ref"] for i, s in search_store.shown(conn, '"alpha"', ids).items()}
        expected = {e.id: e.ref_label for e in stored}
        assert expected == sql_refs == summary_refs
        assert expected[ids[3]] == f"#{ids[3]}" and expected[ids[0]] == "doi:10.1234/a"
        assert {h.id: h.ref for h in lib.search("alpha")} == expected
        bare = stored[3]
        assert entry_dict(bare)["ref"] == f"#{bare.id}"
        assert fetch_json({"entry": bare}, brief=True)["entry"]["ref"] == f"#{bare.id}"
