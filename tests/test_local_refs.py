"""``#<id>`` and ``@<key>`` name an entry everywhere the façade takes a ref: read calls and fetch calls agree."""
from __future__ import annotations

import pytest

from doiget import DoigetError, ErrorCode, Ref, Work, open_library


def test_ref_parses_local_ids_only_when_asked():
    assert Ref.parse("#12", local=True) == Ref.local(12) and str(Ref.local(12)) == "#12"
    assert Ref.local(12).entry_id == 12 and Ref.parse("doi:10.1234/x", local=True).entry_id is None
    with pytest.raises(DoigetError) as err:
        Ref.parse("#12")  # identifier fields of imported records never become local refs
    assert err.value.code is ErrorCode.INVALID_REF and "#<id>" not in str(err.value)
    with pytest.raises(DoigetError) as err:
        Ref.parse("Smith2020", local=True)  # a bare citation key: the error says how to name an entry instead
    assert "#<id> (its id) or @<key> (its citation key)" in str(err.value)
    assert Ref.parse(" @Smith2020 ", local=True) == Ref("citekey", "Smith2020") and str(Ref("citekey", "K")) == "@K"
    with pytest.raises(DoigetError):
        Ref.parse("@Smith2020")  # only the façade names entries


def test_info_and_fetch_name_the_same_entry_by_its_local_id(tmp_path):
    with open_library(tmp_path) as lib:
        bare = lib.add(Work(title="A scanned paper without identifiers"))
        known = lib.add(Work(doi="10.1234/abc", title="Known"))
        assert lib.info(f"#{known.id}").doi == "10.1234/abc"
        plan = lib.fetch(f"#{known.id}", dry_run=True)
        assert plan.ref == "doi:10.1234/abc" and plan.pdf.status == "planned"
        with pytest.raises(DoigetError) as err:
            lib.fetch(f"#{bare.id}", dry_run=True)
        assert err.value.code is ErrorCode.INVALID_REF and f"#{bare.id}" in err.value.message
        for call in (lambda: lib.info("#999"), lambda: lib.fetch("#999", dry_run=True)):
            with pytest.raises(DoigetError) as err:
                call()
            assert err.value.code is ErrorCode.NOT_FOUND
        batch = lib.batch_fetch([f"#{known.id}", "#999"], dry_run=True)
        assert [r.ok for r in batch.results] == [True, False]
        assert batch.results[1].error.code == "NOT_FOUND"


def test_a_citation_key_names_its_entry_and_a_merged_records_key_still_does(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{Smith2020, title = {Plain title}, author = {Smith, Ann}, year = 2020,\n"
                   "  journal = {J}, volume = 3, pages = {1--9}}\n"
                   "@article{Jones2019, title = {Another}, author = {Jones, Bo}, year = 2019, doi = {10.1234/abc}}\n")
    with open_library(tmp_path / "lib") as lib:
        lib.import_bibliography(bib)
        smith = lib.info("@smith2020")  # citation keys are case-insensitive, as in BibTeX
        assert smith.title == "Plain title" and smith.citekey == "Smith2020"
        assert lib.fetch("@Jones2019", dry_run=True).ref == "doi:10.1234/abc"
        with pytest.raises(DoigetError) as err:
            lib.fetch("@Smith2020", dry_run=True)
        assert err.value.code is ErrorCode.INVALID_REF and "@Smith2020" in err.value.message
        for call in (lambda: lib.info("@Nobody1999"), lambda: lib.fetch("@Nobody1999", dry_run=True)):
            with pytest.raises(DoigetError) as err:
                call()
            assert err.value.code is ErrorCode.NOT_FOUND and "fetch or resolve" not in err.value.message
        lib.merge("@Jones2019", "@Smith2020", force=True)
        assert lib.info("@Smith2020").citekey == "Jones2019"  # the old key still cites the merged entry
        assert lib.tag("@SMITH2020", ["read"]) == ["read"]
