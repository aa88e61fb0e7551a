"""The shared layout-and-chunking helper."""
from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from doiget.fulltext.builder import MAX_CHUNK_CHARS, TextBuilder
from invariants import assert_well_formed

SENTENCE = "The mean soil respiration rate rose by a third after rewetting. "


def test_headings_are_markdown_and_chunks_carry_them():
    builder = TextBuilder()
    builder.heading("A Title", 1)
    builder.paragraph("Intro text.")
    builder.heading("  Methods\n of  work ", 2)
    builder.paragraph("First.\n\n\nSecond line\nthird line")
    builder.heading("Deep", 5)
    builder.paragraph("Deep text.")
    doc = builder.build("jats", title="A Title")
    assert doc.text == ("# A Title\n\nIntro text.\n\n## Methods of work\n\nFirst.\nSecond line\nthird line"
                        "\n\n### Deep\n\nDeep text.")
    assert [(c.heading, c.text) for c in doc.chunks] == [
        ("A Title", "Intro text."),
        ("Methods of work", "First.\nSecond line\nthird line"),
        ("Deep", "Deep text."),
    ]
    assert_well_formed(doc)


def test_small_paragraphs_merge_until_the_limit_then_split_at_paragraphs():
    builder = TextBuilder(max_chars=100)
    for i in range(6):
        builder.paragraph(f"Paragraph {i} " + "x" * 30)
    doc = builder.build("bioc")
    assert [c.text.count("Paragraph") for c in doc.chunks] == [2, 2, 2]
    assert all("\n\n" in c.text for c in doc.chunks)
    assert_well_formed(doc)


def test_long_paragraph_splits_at_sentence_ends():
    builder = TextBuilder()
    builder.paragraph(SENTENCE * 60)
    doc = builder.build("bioc")
    assert len(doc.chunks) >= 3
    assert all(c.text.endswith("rewetting.") for c in doc.chunks)
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in doc.chunks)
    assert_well_formed(doc)


def test_text_without_sentence_ends_splits_at_spaces_or_hard():
    builder = TextBuilder(max_chars=50)
    builder.paragraph("word " * 40)
    builder.paragraph("y" * 120)
    doc = builder.build("bioc")
    assert all(c.text.replace(" ", "").isalpha() for c in doc.chunks)
    assert [len(c.text) for c in doc.chunks][-3:] == [50, 50, 20]
    assert_well_formed(doc)


def test_page_breaks_split_chunks_and_record_offsets():
    builder = TextBuilder()
    builder.page_break(1)
    builder.heading("Results", 2)
    builder.paragraph("on page one")
    builder.page_break(2)
    builder.page_break(3)
    builder.paragraph("on page three")
    doc = builder.build("pdf", page_count=3, empty_pages=[2])
    assert [(c.page, c.heading, c.text) for c in doc.chunks] == [(1, "Results", "on page one"),
                                                                (3, "Results", "on page three")]
    page_three = doc.text.index("on page three")
    assert doc.page_offsets == [0, page_three, page_three]
    assert doc.empty_pages == [2]
    assert_well_formed(doc)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(
    st.tuples(st.just("h"), st.text(min_size=1, max_size=40), st.integers(1, 4)),
    st.tuples(st.just("p"), st.text(min_size=0, max_size=2500), st.just(0)),
    st.tuples(st.just("page"), st.just(""), st.just(0)),
), max_size=25))
def test_any_block_sequence_gives_consistent_chunks(blocks):
    builder = TextBuilder()
    page = 0
    builder.page_break(page := page + 1)
    for kind, text, level in blocks:
        if kind == "h":
            builder.heading(text, level)
        elif kind == "p":
            builder.paragraph(text)
        else:
            builder.page_break(page := page + 1)
    doc = builder.build("pdf", page_count=page)
    if doc.chunks:
        assert_well_formed(doc)


def test_content_sha256_is_the_digest_of_the_utf8_text():
    builder = TextBuilder()
    builder.paragraph("Müller–Ångström ∑ 数据")
    doc = builder.build("bioc")
    assert doc.content_sha256 == hashlib.sha256("Müller–Ångström ∑ 数据".encode()).hexdigest()


def test_body_line_starting_like_a_heading_is_escaped():
    builder = TextBuilder()
    builder.heading("Methods", 2)
    builder.paragraph("# of samples per site\n## 0\nC# code #1")
    doc = builder.build("pdf")
    assert doc.text == "## Methods\n\n\\# of samples per site\n\\## 0\nC# code #1"
    assert [c.heading for c in doc.chunks] == ["Methods"]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="ab #\t\r\f\v\u00a0\u2003", min_size=1, max_size=40))
def test_paragraph_spaces_collapse_as_the_pattern_says(text):
    # the pattern runs only where a run of spaces or another space character is present
    import re

    builder = TextBuilder()
    builder.paragraph(text)
    expected = re.sub(r"[ \t\r\f\v\u00a0]+", " ", text).strip()
    expected = re.sub(r"^(?=#{1,6}(?:\s|$))", r"\\", expected, flags=re.M) if "#" in expected else expected
    assert builder.build("jats").text == expected
