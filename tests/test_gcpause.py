"""The cyclic GC paused around large work (doiget/gcpause.py): collection resumes afterwards, and with
``promote`` what the work leaves alive is in the oldest generation (no young collection walks it again),
unless the work failed or the process holds frozen objects (CPython 3.12 freezes some at start: there
nothing is promoted)."""
from __future__ import annotations

import gc
from pathlib import Path

import pytest

from doiget import open_library
from doiget.gcpause import gc_paused

ZOTERO_CSL = Path(__file__).parent / "fixtures" / "bib" / "zotero_latin_greek_terminology.csl.json"


def _promotes() -> bool:
    return not gc.get_freeze_count()


@pytest.fixture(autouse=True)
def _young_counts_at_zero():
    """A full collection first: with the counts an earlier test left, the first automatic collection after a
    block could be a middle one, which moves what the block made to the oldest generation by itself (seen
    as a flaky failure under xdist)."""
    gc.collect()


def _oldest(objects: list[object]) -> bool:
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    return all(id(o) in oldest for o in objects)


def test_promote_moves_what_the_block_made_to_the_oldest_generation():
    with gc_paused(promote=True):
        assert not gc.isenabled()
        promoted = [[i] for i in range(1000)]
    assert gc.isenabled() and _oldest(promoted) == _promotes()
    gc.collect()
    with gc_paused():
        young = [[i] for i in range(1000)]
    assert gc.isenabled() and not _oldest(young)


def test_a_failed_block_is_not_promoted():
    made = []
    with pytest.raises(ValueError), gc_paused(promote=True):
        made.extend([i] for i in range(1000))
        raise ValueError
    assert gc.isenabled() and not _oldest(made)


def test_frozen_objects_of_the_process_stay_frozen():
    held = [[]]
    freeze = _promotes()  # nothing is frozen yet: freeze what the test process holds (released after)
    if freeze:
        gc.freeze()
    try:
        with gc_paused(promote=True):
            made = [[i] for i in range(1000)]
        assert gc.isenabled() and not _oldest(made)
        assert not freeze or id(held) not in {id(o) for o in gc.get_objects()}  # still frozen
    finally:
        if freeze:
            gc.unfreeze()


def test_nested_pause_leaves_collection_off_until_the_outer_one_ends():
    with gc_paused(promote=True):
        with gc_paused(promote=True):
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_import_report_is_in_the_oldest_generation(tmp_path):
    with open_library(tmp_path) as lib:
        result = lib.import_bibliography(ZOTERO_CSL)
        assert result.added and gc.isenabled()
        assert _oldest([result, *result.report]) == _promotes()
