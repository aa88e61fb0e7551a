"""compile_query's shortcut for plain words gives what its general tokenizer gives, on generated text."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doiget.errors import DoigetError
from doiget.store import fts
from doiget.store.search import ENTRY_FTS_COLUMNS

PIECES = st.sampled_from(["a", "bc", "é", "AND", "OR", "NOT", "and", "title", ":", "*", "(", ")", '"', "-", "'", "x*",
                          " ", "  ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\x1c", "title:bc", "covid-19"])


def _general(text: str) -> str:
    return fts._compile(text.strip(), ENTRY_FTS_COLUMNS)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=12).map("".join))
def test_plain_words_compile_as_the_general_tokenizer_compiles_them(text):
    if not text.strip() or text.count('"') % 2:  # refused before either path
        with pytest.raises(DoigetError):
            fts.compile_query(text, ENTRY_FTS_COLUMNS)
        return
    try:
        expected = _general(text)
    except DoigetError as exc:
        with pytest.raises(DoigetError, match=re.escape(str(exc))):
            fts.compile_query(text, ENTRY_FTS_COLUMNS)
    else:
        assert fts.compile_query(text, ENTRY_FTS_COLUMNS) == expected


def test_the_shortcut_spells_words_and_their_implicit_and():
    assert fts.compile_query("  cancer\u00a0cell  ") == '"cancer" AND "cell"'
    assert fts.compile_query("covid-19") == '"covid-19"'
    assert fts.compile_query("cancer AND cell") == _general("cancer AND cell")
    assert fts.compile_query("cancer*") == '"cancer"*'
