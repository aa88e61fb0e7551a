"""Anchored notes through the Library: create, read, update, delete, search, paginate, export."""
from __future__ import annotations

import pytest
import yaml
from export_helpers import UPSTREAM

from doiget.config import Config
from doiget.errors import DoigetError, ErrorCode
from doiget.library import Library
from doiget.present import to_json

PNAS = "doi:10.1073/pnas.1414271111"


@pytest.fixture
def lib(tmp_path):
    with Library(Config(home=tmp_path / "lib", profile="offline")) as lib:
        lib.import_bibliography(UPSTREAM / "bibtex" / "crossref_transform_x-bibtex_10.1073_pnas.1414271111.bib")
        yield lib


def _code(call) -> ErrorCode:
    with pytest.raises(DoigetError) as err:
        call()
    return err.value.code


def test_create_read_update_delete(lib):
    note = lib.note_create("Hypoxia raises **collagen** cross-linking.", ref=PNAS, author="agent",
                           anchors=[{"page": 3, "quote": "lysyl oxidase"}, {"start": 120, "end": 180}],
                           tags=["cartilage", "to-verify"])
    assert note.entry == PNAS and note.entry_title.startswith("Developing functional musculoskeletal")
    assert [a.model_dump(exclude_none=True) for a in note.anchors] == [{"page": 3, "quote": "lysyl oxidase"}, {"start": 120, "end": 180}]
    assert (note.tags, note.author) == (["cartilage", "to-verify"], "agent")
    assert lib.note_read(note.id) == note
    updated = lib.note_update(note.id, body="Revised: LOX matters.", tags=["cartilage"])
    assert (updated.body, updated.tags, updated.anchors) == ("Revised: LOX matters.", ["cartilage"],
                                                                       note.anchors)
    assert updated.updated_at >= note.updated_at and updated.created_at == note.created_at
    # The note's text is part of the entry's searchable metadata.
    assert lib.search("notes:revised")[0].ref == PNAS
    assert lib.note_delete(note.id).deleted == note.id
    assert _code(lambda: lib.note_read(note.id)) is ErrorCode.NOT_FOUND
    assert lib.search("revised") == []


def test_notes_stand_alone_and_annotation_is_separate(lib):
    lib.annotate(PNAS, "the one annotation")
    free = lib.note_create("An idea about no paper in particular")
    assert (free.entry, free.entry_id, free.anchors, free.tags) == (None, None, [], [])
    assert [n.id for n in lib.note_search().notes] == [free.id]
    annotation_id = lib.sql("SELECT id FROM notes WHERE kind = 'annotation'")["rows"][0][0]
    assert _code(lambda: lib.note_read(annotation_id)) is ErrorCode.NOT_FOUND
    assert lib.info(PNAS).annotation == "the one annotation"


@pytest.mark.parametrize("anchors", [
    [{}], [{"page": 0}], [{"start": 10, "end": 5}], [{"quote": "x" * 2001}], [{"chunk": 3}], [{"page": "3"}],
    [{"page": 1}] * 51,
])
def test_invalid_anchors_are_refused(lib, anchors):
    assert _code(lambda: lib.note_create("body", PNAS, anchors=anchors)) is ErrorCode.INVALID_INPUT


def test_invalid_input(lib):
    assert _code(lambda: lib.note_create("   ")) is ErrorCode.INVALID_INPUT
    assert _code(lambda: lib.note_create("x", ref="10.1000/not-here")) is ErrorCode.NOT_FOUND
    assert _code(lambda: lib.note_update(999, body="x")) is ErrorCode.NOT_FOUND
    assert _code(lambda: lib.note_search(since="last week")) is ErrorCode.INVALID_INPUT
    assert _code(lambda: lib.note_search(keyword='"unbalanced')) is ErrorCode.INVALID_QUERY


def test_search_by_keyword_entry_tag_and_date_with_pagination(lib):
    ids = [lib.note_create(f"Observation {i} about hypoxia" + (" and hypoxia again" if i == 3 else ""),
                           ref=PNAS if i % 2 else None, tags=["odd"] if i % 2 else ["even"]).id for i in range(7)]
    first = lib.note_search(limit=3)
    assert [n.id for n in first.notes] == ids[::-1][:3] and first.next_offset == 3
    second = lib.note_search(limit=3, offset=3)
    last = lib.note_search(limit=3, offset=6)
    assert [n.id for n in second.notes + last.notes] == ids[::-1][3:] and last.next_offset is None
    ranked = lib.note_search(keyword="hypoxia").notes
    assert ranked[0].id == ids[3] and len(ranked) == 7
    assert [n.id for n in lib.note_search(ref=PNAS).notes] == [ids[5], ids[3], ids[1]]
    even = {ids[0], ids[2], ids[4], ids[6]}
    assert {n.id for n in lib.note_search(tag="even").notes} == even
    assert {n.id for n in lib.note_search(tag="even", keyword="observation").notes} == even
    created = lib.note_read(ids[0]).created_at
    day = created[:10]
    assert len(lib.note_search(since=day, until=day).notes) == 7
    assert lib.note_search(until="2000-01-01").notes == []
    assert len(lib.note_search(since=created).notes) == 7


def test_export_as_markdown_with_front_matter_that_parses_back(lib):
    note = lib.note_create("# Finding\n\nLOX + hypoxia.\n\n---\n\nkey: not front matter", ref=PNAS,
                           anchors=[{"page": 2, "quote": 'a "quoted"\npassage: yes'}], tags=["cartilage"],
                           author="reader")
    markdown = lib.note_export(note.id)
    front, body = markdown[4:].split("\n---\n", 1)
    assert markdown.startswith("---\n")
    assert yaml.safe_load(front) == {key: to_json(note)[key] for key in ("id", "entry", "entry_title", "tags", "author",
                                                                 "anchors", "created_at", "updated_at")}
    assert body == "\n" + note.body + "\n"
