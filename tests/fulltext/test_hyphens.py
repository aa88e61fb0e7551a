"""Hyphen joins read a line's last hyphenated token from the reversed line, and the document's words from
its distinct tokens; both give what a forward search over the whole text gives."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from doiget.fulltext import hyphens
from doiget.fulltext.hyphens import Vocabulary

# the forward form: every start position tried, anchored at the line end
_FORWARD_TAIL = re.compile(r"((?:[^\W\d_]+[-\u2010\u2011])*?)([^\W\d_]+)[-\u2010\u2011]$")
_LINES = st.text(alphabet="ab\u00e9\u0130\u00b2-\u2010\u2011\u00ad 1.(\u201d\n", max_size=60)


@settings(max_examples=200, deadline=None)
@given(_LINES)
def test_reversed_tail_equals_forward_search(line):
    line = line.rstrip("\n")
    forward = _FORWARD_TAIL.search(line)
    reversed_ = hyphens._TAIL_REVERSED.match(line[::-1])
    assert (forward is None) == (reversed_ is None)
    if forward is not None:
        assert (forward.group(1), forward.group(2)) == (reversed_.group(2)[::-1], reversed_.group(1)[::-1])


@settings(max_examples=200, deadline=None)
@given(_LINES)
def test_words_of_distinct_tokens_equal_words_of_whole_text(text):
    words, others = hyphens._word_parts(text)
    assert words | set(others) == set(hyphens._WORDS.findall(text))


def test_a_non_breaking_hyphen_at_a_line_end_is_read_as_a_hyphen():
    # Springer sets its line-end hyphens as U+2011: a broken word is joined, a compound the paper prints keeps it
    vocab = Vocabulary.of(["the well\u2011known channel", "stimulation"])
    assert vocab.compounds == {"well-known"}
    assert hyphens.join_lines(["KATP stimula\u2011", "tion by MgADP"], vocab) == "KATP stimulation by MgADP"
    assert hyphens.join_lines(["a well\u2011", "known channel"], vocab) == "a well\u2011known channel"


def test_vocabulary_sorts_words_and_compounds():
    vocab = Vocabulary.of(["a well-known state\u2010of-the-art model", "of the"])
    assert vocab.compounds == {"well-known", "state-of-the-art"}
    assert vocab.words == {"a", "model", "of", "the"}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab- \u2010\u00ad", min_size=1, max_size=12), min_size=1, max_size=5))
def test_lines_without_a_break_at_their_end_are_joined_by_spaces(lines):
    # a hyphen inside a line ("a - b") sends the join down the careful path, which must agree
    if not any(line.endswith(hyphens.LINE_BREAKS) for line in lines):
        assert hyphens.join_lines(lines, Vocabulary()) == " ".join(lines).replace(hyphens.SOFT_HYPHEN, "")


def _join_plainly(lines, vocab):
    """The careful join as first written: the text joined so far decides at every line."""
    out = ""
    for line in lines:
        if out.endswith(hyphens.SOFT_HYPHEN):
            out = out[:-1] + line
        elif out.endswith(hyphens.HYPHENS) and len(out) > 1 and out[-2].isalpha() and line[:1].islower():
            out = out + line if vocab.keeps_hyphen(out, line) else out[:-1] + line
        elif out.endswith(hyphens.HYPHENS) and len(out) > 1 and out[-2].isalnum() and line[:1].isalnum():
            out = out[:-1] + line if vocab.prints_whole(out, line) else out + line
        else:
            out = f"{out} {line}" if out else line
    return out.replace(hyphens.SOFT_HYPHEN, "")


@settings(max_examples=250, deadline=None)
@given(st.lists(st.text(alphabet="aB- \u2010\u00ad", min_size=1, max_size=8), min_size=1, max_size=6))
def test_join_equals_the_plain_line_by_line_join(lines):
    # lines as blocks give them: never empty
    def vocab():
        return Vocabulary(words={"a", "aa", "ab", "b"}, compounds={"a-b"})

    assert hyphens.join_lines(lines, vocab()) == _join_plainly(lines, vocab())


def test_a_break_before_a_capital_or_a_digit_keeps_its_hyphen_without_a_space():
    """Real line ends of SPECTER (ACL 2020), Nat Commun and BMC papers: before, each became "X- Y"."""
    vocab = Vocabulary.of(["SciBERT and SCIDOCS are used by GraphSAGE", "as in EF-1A"])
    assert hyphens.join_lines(["fine-tuned SciB-", "ERT on SCI-", "DOCS"], vocab) == "fine-tuned SciBERT on SCIDOCS"
    assert hyphens.join_lines(["the elongation factor EF-", "1A binds", "COVID-", "19 and CRISPR-", "Cas9"],
                              vocab) == "the elongation factor EF-1A binds COVID-19 and CRISPR-Cas9"
    assert hyphens.join_lines(["doi:10.1038/s41586-", "018-0337-2."], vocab) == "doi:10.1038/s41586-018-0337-2."
    assert hyphens.join_lines(["a dash -", "Then"], vocab) == "a dash - Then"  # not a word's hyphen
