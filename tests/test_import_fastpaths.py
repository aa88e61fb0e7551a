"""The CSL import's shortcuts give what the general code gives: text cleaning that skips the split of a
long line needing none, keyword strings split without a regex, ISO dates, the empty-field filter, integer
dates, DOIs already bare, the streamed array's white-space skips — on generated values; the CSL reader's
Works built without validation equal validated ones, on every CSL fixture and on generated items."""
from __future__ import annotations

import json
import re

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from doiget import safejson
from doiget.formats import csl_read, record
from doiget.formats.csl_read import _issued, _issued_once

CSL_FILES = sorted((Path(__file__).parent / "fixtures" / "bib").glob("*.json"))

TEXT = st.text(st.sampled_from("ab ,;-\t\n\r\x0b\x0c\x1c\x1f\u00a0\u2003\u3000é"), max_size=300)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=6)


def test_one_line_knows_every_ascii_white_space():
    assert {c for c in map(chr, range(128)) if c.isspace()} - {" "} <= set(record._NOT_ONE_LINE)


@settings(max_examples=250, deadline=None)
@given(TEXT)
def test_clean_gives_the_split_and_join_whether_or_not_it_looks_first(text):
    for value in (text, text * 40):  # short and long: only long text is looked at
        assert record.clean(value) == (" ".join(value.split()) or None)
        if record.one_line(value):
            assert " ".join(value.split()) == value


@settings(max_examples=150, deadline=None)
@given(TEXT | JSON)
def test_keywords_split_as_the_separator_regex_splits(value):
    text = str(value or "")  # ';' separates unless a bare ',' shows a comma list (test_import_zotero_spelling)
    parts = value if isinstance(value, list) else re.split(";" if re.search(r";", text) and not re.search(
        r",[^\s]", text) else ",", text)
    assert record.keywords(value) == list(dict.fromkeys(t for t in (record.clean(p) for p in parts) if t))


@given(st.lists(st.integers(min_value=-10**6, max_value=10**6), min_size=0, max_size=5))
def test_iso_date_joins_year_month_day(parts):
    expected = "-".join(f"{n:02d}" if i else str(n) for i, n in enumerate(parts[:3])) if len(parts) >= 2 else None
    assert record.iso_date(parts) == expected


@given(JSON)
def test_the_empty_field_filter_tests_truth_first(value):
    assert bool(value or value not in record.EMPTY) == (value not in record.EMPTY)


# Integer parts are the shortcut's one case: drawn on their own, or ~3 in 100 dates test it (and each of the
# others draws tens of JSON values: 12x the time)
INTEGER_PARTS = st.lists(st.lists(st.integers(min_value=-10**6, max_value=10**6), max_size=5), max_size=2)


@given(st.dictionaries(st.sampled_from(["date-parts", "raw", "season"]),
                       INTEGER_PARTS | JSON | st.lists(st.lists(JSON, max_size=3), max_size=2), max_size=3))
@example({"date-parts": [[0, 0]]})  # month 0 is no calendar month: the date is the year alone
def test_integer_dates_are_read_as_the_general_loop_reads_them(issued):
    parts_list = issued.get("date-parts") or [[]]
    parts = parts_list[0] if isinstance(parts_list, list) and parts_list and isinstance(parts_list[0], list) else []
    if not all(type(p) is int for p in parts):
        return  # only the shortcut's case
    try:
        year, published, richer = _issued(issued)
    except (TypeError, ValueError):
        return
    if parts:
        assert (year, published) == (parts[0], record.iso_date(record.calendar_parts(parts[:3])))


def _reading(read, issued):
    try:
        return read(issued)
    except (TypeError, ValueError) as exc:
        return type(exc)


DATE_PARTS = st.lists(st.integers(min_value=-3, max_value=2100) | st.booleans() | st.sampled_from(["2020", 5.0, None]),
                      max_size=4)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["date-parts", "raw", "season"]),
                                st.lists(DATE_PARTS, max_size=2) | JSON, max_size=2)
                | st.builds(lambda parts: {"date-parts": [parts]}, DATE_PARTS), max_size=6))
def test_dates_read_once_per_file_read_as_each_alone(dates):
    memo = {}
    for issued in dates + dates:  # the second time from the memo
        assert _reading(lambda value: _issued_once(value, memo), issued) == _reading(_issued, issued)
    assert all(type(part) is int for key in memo for part in key)  # True and 1 are one key: bools never are


@settings(max_examples=150, deadline=None)
@given(st.lists(JSON, max_size=6), st.lists(st.sampled_from(["", " ", "\n", "\t ", "\r\n  "]), min_size=8, max_size=8),
       st.integers(min_value=1, max_value=9))
def test_streamed_arrays_with_any_white_space_read_as_json_loads(values, spaces, size):
    text = spaces[0] + "[" + spaces[1] + ("," + spaces[2]).join(json.dumps(v) + spaces[3] for v in values) + "]" + spaces[4]
    pieces = [text[i:i + size] for i in range(0, len(text), size)]
    assert list(safejson.items(pieces, "CSL-JSON")) == json.loads(text)


@given(st.from_regex(r"\A\s*\{?\s*(10\.|doi:|DOI\s*:\s*|info:doi/|https?://(dx\.)?doi\.org/)?[0-9a-z./%:{} -]{0,12}\Z"))
def test_bare_dois_skip_the_prefix_pattern_that_could_not_match(value):
    text = value.strip().strip("{}").strip()
    text = record._DOI_PREFIX.sub("", text).strip()
    assert record.bare_doi(value) == (record.unquote(text) if "%" in text else text)


def _both_ways(monkeypatch, item):
    """The CSL record of ``item`` with its Work built without validation, then validated."""
    typed = csl_read.csl_record(0, item)
    validate = record.make_record
    monkeypatch.setattr(csl_read, "make_record", lambda *args, typed=False: validate(*args))
    checked = csl_read.csl_record(0, item)
    monkeypatch.setattr(csl_read, "make_record", validate)
    return typed, checked


def _same(typed, checked):
    assert typed.work == checked.work and typed.problems == checked.problems
    assert typed.work.model_fields_set == checked.work.model_fields_set
    assert typed.work.model_dump_json() == checked.work.model_dump_json()  # types too: 2000 is not 2000.0
    assert {k: type(v) for k, v in vars(typed.work).items()} == {k: type(v) for k, v in vars(checked.work).items()}


@pytest.mark.parametrize("path", CSL_FILES, ids=lambda p: p.name)
def test_csl_works_built_without_validation_equal_validated_ones(path, monkeypatch):
    for item in json.loads(path.read_text(encoding="utf-8")):
        _same(*_both_ways(monkeypatch, item))


CSL_VALUE = JSON | st.lists(st.dictionaries(st.sampled_from(["family", "given", "literal", "suffix", "x"]), JSON,
                                            max_size=3), max_size=3)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["title", "container-title", "type", "volume", "issue", "page", "URL", "DOI",
                                        "PMID", "abstract", "language", "publisher", "author", "editor", "issued",
                                        "accessed", "keyword", "id", "custom", "note", "number"]), CSL_VALUE, max_size=8))
def test_generated_csl_items_give_the_same_work_either_way(item):
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same(*_both_ways(monkeypatch, item))


def test_names_of_numbers_and_booleans_are_each_read_as_written():
    """1, 1.0 and True are one dictionary key: the file's memo of names must not give one the Author of another."""
    items = [{"id": f"k{i}", "title": "T", "author": [{"family": value, "given": "X"}]}
             for i, value in enumerate([1, True, 1.0, "1", 1, True])]
    names = [record.work.authors[0].name for record in csl_read.parse_csl(json.dumps(items))]
    assert names == ["X 1", "X True", "X 1.0", "X 1", "X 1", "X True"]
