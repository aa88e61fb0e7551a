"""The BibTeX reader's shortcuts give what the general code gives: LaTeX decoding of text without
LaTeX, name lists without braces, plain names, the one-group test of braced values — on every
value of every .bib fixture (cdl.bib's 6,315 entries included) and on generated strings."""
from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doiget.formats import bibtex_read, latex, names
from doiget.formats.bibtex_split import split_bibtex

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def values() -> list[tuple[str, str, str]]:
    """(lower-cased field name, value as written, value without its delimiters) of every field of
    every fixture: read by the tests that use them, not by every process that collects this file."""
    values = []
    for path in sorted(FIXTURES.rglob("*.bib")) + sorted(FIXTURES.rglob("*.bib.gz")):
        data = path.read_bytes()
        text = (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
        for entry in split_bibtex(text).entries:
            values += [(name.lower(), value, bibtex_read._value(value, {})) for name, value in entry.fields]
    return values


@pytest.fixture(scope="module")
def name_lists(values) -> list[str]:
    return sorted({value for name, _, value in values if name in ("author", "editor")})


def _general_untex(value: str) -> str:
    text = latex._untex_common(value)
    return " ".join((latex._LATEX.latex_to_text(value) if text is None else text).split())


def test_fixture_values_are_many(values, name_lists):
    assert len(values) > 40_000 and len(name_lists) > 5_000


def test_untex_shortcut_equals_the_general_decoder_on_every_fixture_value(values):
    plain = [value for _, _, value in values if latex._PLAIN.fullmatch(value)]
    assert len(plain) > 20_000
    assert [latex.untex.__wrapped__(v) for v in plain] == [_general_untex(v) for v in plain]


@settings(max_examples=150, deadline=None)
@given(st.text(st.sampled_from("ab -\u2013\u00a0\t\n%&#_^\ue000"), max_size=30))
def test_untex_shortcut_equals_the_general_decoder_on_generated_text(value):
    assert latex.untex.__wrapped__(value) == _general_untex(value)


def test_brace_free_name_lists_split_as_the_brace_aware_loop_splits_them(name_lists):
    lists = [value for value in name_lists if "{" not in value and "}" not in value]
    assert len(lists) > 4_000
    assert [names.split_names(v) for v in lists] == [names._split_outside_braces(v) for v in lists]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["a", "B", " ", "\t", "\n", "and", "AND", "And", ",", "x"]), max_size=20).map("".join))
def test_generated_brace_free_name_lists_split_alike(value):
    assert names.split_names(value) == names._split_outside_braces(value)


def test_plain_names_build_the_author_make_author_builds(name_lists):
    plain = {n for value in name_lists for n in names.split_names(value)
             if names._PLAIN_NAME.match(" ".join(n.split())) and n.count(",") <= 1}
    assert len(plain) > 5_000
    for name in plain:
        first, von, last = names._plain_parts(" ".join(name.split()))
        fast = names._plain_author(first, von, last)
        slow = names.make_author(given=" ".join(first), particle=" ".join(von), family=" ".join(last))
        assert (fast, fast.model_fields_set) == (slow, slow.model_fields_set)


def _one_group_by_chars(raw: str) -> bool:
    """The one-group test as it was written before (a walk over every character)."""
    depth = 0
    for index, char in enumerate(raw):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0 and index < len(raw) - 1:
                return False
    return depth == 0


@pytest.mark.parametrize("source", ["fixtures", "generated"])
def test_one_group_equals_the_character_walk(source, values):
    if source == "fixtures":
        braced = [v for _, v, _ in values if v[:1] == "{" and v[-1:] == "}"]
        assert len(braced) > 40_000
    else:
        braced = ["{" + "".join(p) + "}" for p in itertools.product("{}a", repeat=6)]
    assert [bibtex_read._one_group(v) for v in braced] == [_one_group_by_chars(v) for v in braced]
