"""``#<id>`` names an entry everywhere the façade takes a ref: read calls and fetch calls agree."""
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
        Ref.parse("Smith2020", local=True)  # a citation key: the error says how to name an entry instead
    assert "or #<id>: a library entry's id" in str(err.value)


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
