"""Undoing end-of-line hyphenation without deleting real hyphens.

A line ending ``popula-`` followed by ``tion`` is joined to ``population``; a line ending
``population-`` followed by ``based`` keeps its hyphen (``population-based``). The document decides:
its own vocabulary (every word it prints whole, and every hyphenated compound it prints inside a
line) says which reading exists. When it knows neither, a hyphen between two words it does know
stays (a compound), anything else is joined (a word split at a syllable). Before a capital or a digit
(``COVID-`` ``19``, ``SciB-`` ``ERT``) the hyphen stays, joined without a space, unless the document
prints the two parts as one word. A non-breaking hyphen (U+2011) counts as a hyphen: Springer's typesetting breaks
words with it (``sen‑`` ``sitivity``).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

SOFT_HYPHEN = "\u00ad"
MAX_COMPOUND_CHARS = 80  # how far back a line's last hyphenated token is looked for
HYPHENS = ("-", "\u2010", "\u2011")  # hyphen-minus, hyphen, non-breaking hyphen (Springer breaks words with it)
LINE_BREAKS = (*HYPHENS, SOFT_HYPHEN)  # what a line may end in when a word is split
_WORDS = re.compile(r"[^\W\d_]+(?:[-\u2010\u2011][^\W\d_]+)*")
# A line's last hyphenated token, read from the end of the reversed line: ``state-of-the-`` reversed is
# ``-eht-fo-etats``, its groups ``eht`` and ``-fo-etats`` (a forward search with ``$`` tried every start).
_TAIL_REVERSED = re.compile(r"[-\u2010\u2011]([^\W\d_]+)((?:[-\u2010\u2011][^\W\d_]+)*)")
_HEAD = re.compile(r"[^\W\d_]+")
_AS_HYPHEN_MINUS = str.maketrans({"\u2010": "-", "\u2011": "-"})  # one spelling of a compound
_EDGES = ".,;:!?()[]{}\"'*/\u201c\u201d\u2018\u2019"  # punctuation that is never part of a word


@dataclass(slots=True)
class Vocabulary:
    """Lower-cased words and hyphenated compounds a document prints inside its lines."""

    words: set[str] = field(default_factory=set)
    compounds: set[str] = field(default_factory=set)
    joined: int = 0
    kept: int = 0

    @classmethod
    def of(cls, lines: Iterable[str]) -> "Vocabulary":
        vocab = cls()
        kept, continued = [], False
        for line in lines:
            if SOFT_HYPHEN in line:
                line = line.replace(SOFT_HYPHEN, "")
            line = line.rstrip()
            # fragments of a word broken across lines (``popula-`` / ``tion``) vouch for nothing
            if continued:
                line = line.partition(" ")[2]
            continued = line.endswith(HYPHENS)
            kept.append(line.rpartition(" ")[0] if continued else line)
        words, others = _word_parts("\n".join(kept).lower())
        hyphenated = {token for token in others if "-" in token or "\u2010" in token or "\u2011" in token}
        words.update(token for token in others if token not in hyphenated)
        vocab.words = words
        vocab.compounds = {token.translate(_AS_HYPHEN_MINUS) for token in hyphenated}
        return vocab

    def keeps_hyphen(self, left: str, right: str) -> bool:
        """Whether ``left-`` at a line end and ``right`` on the next line form a hyphenated compound."""
        parts = _parts(left, right)
        if parts is None:
            return True  # ``x-`` before a number or a symbol: a real hyphen (``COVID-`` ``19``)
        before, a, b = parts
        if f"{a}-{b}" in self.compounds or (before and f"{before}{a}-{b}" in self.compounds):
            keep = True
        elif a + b in self.words:
            keep = False
        else:
            keep = a in self.words and b in self.words and min(len(a), len(b)) > 2
        if keep:
            self.kept += 1
        else:
            self.joined += 1
        return keep

    def prints_whole(self, left: str, right: str) -> bool:
        """Whether the document prints ``left`` (without its line-end hyphen) and ``right`` as one word
        (``SciB-`` ``ERT``: SciBERT); a break before a capital or a digit is otherwise a real hyphen."""
        parts = _parts(left, right)
        return parts is not None and parts[1] + parts[2] in self.words


def _parts(left: str, right: str) -> tuple[str, str, str] | None:
    """Lower-cased, the compound's parts before the line-end hyphen's word (``state-of-the-``: ``state-of-``),
    that word and the next line's first word; None when either side starts with no letter."""
    head = _HEAD.match(right)
    tail = _TAIL_REVERSED.match(left[-MAX_COMPOUND_CHARS:][::-1])
    if head is None or tail is None:
        return None
    return (tail.group(2)[::-1].lower().translate(_AS_HYPHEN_MINUS), tail.group(1)[::-1].lower(),
            head.group(0).lower())


def _word_parts(text: str) -> tuple[set[str], list[str]]:
    """The words and compounds of ``text``: the tokens that are all letters once their punctuation is
    stripped (one word each, no hyphen), and what the pattern reads in the other tokens (it costs 40 ns a
    character). None spans whitespace, so each distinct token is read once."""
    cores = {token.strip(_EDGES) for token in set(text.split())}
    words = {core for core in cores if core.isalpha()}
    return words, _WORDS.findall("\n".join(cores - words))


def join_lines(lines: list[str], vocab: Vocabulary | None = None) -> str:
    """Join wrapped lines into one paragraph, undoing end-of-line hyphenation where ``vocab`` says to."""
    text = " ".join(lines)
    # the common case, nothing to undo: no break character before a join or at the end (a cheap test on
    # the joined text that a hyphen inside a line also trips, so the lines themselves decide)
    if not (text.endswith(LINE_BREAKS) or "- " in text or "\u2010 " in text or "\u2011 " in text
            or "\u00ad " in text) or not any(
            [line.endswith(LINE_BREAKS) for line in lines]):
        return text.replace(SOFT_HYPHEN, "") if SOFT_HYPHEN in text else text
    out = lines[0]
    for line in lines[1:]:
        if not out.endswith(LINE_BREAKS):
            out = f"{out} {line}" if out else line
        elif out.endswith(SOFT_HYPHEN):
            out = out[:-1] + line
        elif len(out) > 1 and out[-2].isalpha() and line[:1].islower():  # out ends with a hyphen
            out = out + line if vocab is not None and vocab.keeps_hyphen(out, line) else out[:-1] + line
        elif len(out) > 1 and out[-2].isalnum() and line[:1].isalnum():  # ``COVID-`` ``19``, ``SciB-`` ``ERT``
            out = out[:-1] + line if vocab is not None and vocab.prints_whole(out, line) else out + line
        else:
            out = f"{out} {line}"
    return out.replace(SOFT_HYPHEN, "")
