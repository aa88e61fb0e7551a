"""The CSL import's shortcuts give what the general code gives: text cleaning that skips the split of a
long line needing none, keyword strings split without a regex, ISO dates, the empty-field filter, integer
dates, DOIs already bare, the streamed array's white-space skips — on generated values."""
from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from doiget import safejson
from doiget.formats import record
from doiget.formats.csl_read import _issued

TEXT = st.text(st.sampled_from("ab ,;-\t\n\r\x0b\x0c\x1c\x1f\u00a0\u2003\u3000é"), max_size=300)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=6)


def test_one_line_knows_every_ascii_white_space():
    assert {c for c in map(chr, range(128)) if c.isspace()} - {" "} <= set(record._NOT_ONE_LINE)


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_clean_gives_the_split_and_join_whether_or_not_it_looks_first(text):
    for value in (text, text * 40):  # short and long: only long text is looked at
        assert record.clean(value) == (" ".join(value.split()) or None)
        if record.one_line(value):
            assert " ".join(value.split()) == value


@settings(max_examples=300, deadline=None)
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
    assert bool(value or value not in record._EMPTY) == (value not in record._EMPTY)


@given(st.dictionaries(st.sampled_from(["date-parts", "raw", "season"]), JSON | st.lists(st.lists(JSON)), max_size=3))
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
        assert (year, published) == (parts[0], record.iso_date(parts[:3]))


@settings(max_examples=300, deadline=None)
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
