"""doiget's .bib splitter (doiget/formats/bibtex_split.py) yields exactly the blocks bibtexparser 2's
splitter yields — entries (type, key, every field name and value, start line), failed blocks
(syntax errors, duplicate keys, repeated fields), @string values, preambles and comments — on
every .bib file in tests/fixtures, on odd and broken input, and on generated documents.
``DOIGET_BIBSPLIT_EXAMPLES`` sets the generated examples (default 150)."""
from __future__ import annotations

import gzip
import logging
import os
import re
from pathlib import Path

import bibtexparser
import pytest
from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock, Entry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doiget.formats.bibtex_split import BibBlock, split_bibtex

FIXTURES = Path(__file__).parent / "fixtures"
BIB_FILES = sorted(FIXTURES.rglob("*.bib")) + sorted(FIXTURES.rglob("*.bib.gz"))


def _entry(entry: Entry | BibBlock) -> tuple:
    if isinstance(entry, BibBlock):
        return entry.line, entry.type, entry.key, entry.fields
    return entry.start_line, entry.entry_type, entry.key, [(f.key, f.value) for f in entry.fields]


# A line whose first mark is "%" outside a block, as in every case here: comment text to biber, JabRef, Zotero and
# doiget, while bibtexparser reads a block start on it; its "@" is taken out for bibtexparser (and out of ours).
_COMMENTED_AT = re.compile(r"^([ \t]*%[^\n@]*)@", re.M)


def _uncommented(text: str) -> str:
    return _COMMENTED_AT.sub(r"\1(at)", text)


def _theirs(text: str) -> dict:
    logging.getLogger("bibtexparser").disabled = True  # it logs every broken block
    library = bibtexparser.parse_string(_uncommented(text), parse_stack=[])
    failed = []
    for block in library.failed_blocks:
        inner = getattr(block, "ignore_error_block", None)
        if isinstance(block, DuplicateFieldKeyBlock):
            repeated = ", ".join(sorted(block.duplicate_keys))
            failed.append((block.start_line, _entry(inner), None, f"repeated fields: {repeated}"))
        elif isinstance(block, DuplicateBlockKeyBlock):
            failed.append((block.start_line, _entry(inner) if isinstance(inner, Entry) else None, block.key,
                           str(block.error)))
        else:  # a syntax error: doiget says which (bibtexparser's exception has no message)
            failed.append((block.start_line, None, None, None))
    return {"entries": [_entry(e) for e in library.entries], "failed": failed,
            "strings": {s.key: s.value for s in library.strings}, "preambles": [p.value for p in library.preambles],
            "comments": [c.comment for c in library.comments]}


def _ours(text: str) -> dict:
    split = split_bibtex(text)
    failed = [(f.line, _entry(f.entry) if f.entry else None, f.duplicate_key, None if f.aborted else f.error)
              for f in split.failed]
    return {"entries": [_entry(e) for e in split.entries], "failed": failed, "strings": split.strings,
            "preambles": split.preambles, "comments": [_uncommented(comment) for comment in split.comments]}


def _text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


@pytest.mark.parametrize("path", BIB_FILES, ids=lambda p: p.name)
def test_fixture_files_split_as_bibtexparser_splits_them(path):
    text = _text(path)
    ours = _ours(text)
    assert ours == _theirs(text)
    assert ours["entries"]


ODD = {
    "unbalanced-open": "@article{a, title = {x {y}, year = 2000}\n@misc{b, title={ok}}",
    "unbalanced-close": "@article{a, title = {x}}}, year = 2000}\n@misc{b, title={ok}}",
    "unclosed-at-eof": "@article{a, title = {x",
    "stray-at": "x@y.org @ home\n@misc{a, note = {mail me@example.org}, title = LeQua @ {CLEF}}\n@",
    "block-start-in-value": "@misc{a, title = {x\n  @article{b, title = {y}}",
    "block-start-mid-line": "@misc{a, title = {x @article{b, title = {y}}}}",
    "nested-braces": "@misc{a, title = {a {b {c {d {e {f {g {h}}}}}}}}, x = {{{{{{{deep}}}}}}}}",
    "deep-braces": "@misc{a, title = " + "{" * 3000 + "t" + "}" * 3000 + "}",
    "quotes-in-braces": '@misc{a, title = {say "hi", "there}, b = "x {"} y", c = "{a,b}"}',
    "quote-brace-escape": '@misc{a, title = "He said {"}Hi{"}"}',
    "braces-in-quotes": '@misc{a, title = "un { balanced", year = 2000}',
    "escaped-marks": r'@misc{a, title = {\{ \} \" \, \=}, b = "x\"y", c = {\\}, d = \\{x}}',
    "concatenation": '@string{j = "Journal"}\n@misc{a, journal = j # " of " # {Things}, month = jan}',
    "string-macros": "@STRING{ak = {A. Knuth}}\n@String(pub = \"Pub\" # ak)\n@string{ak = {dup}}\n"
                     "@misc{a, author = ak, publisher = pub}",
    "duplicate-keys": "@misc{a, title={1}}\n@misc{a, title={2}}\n@misc{A, title={3}}",
    "duplicate-fields": "@misc{a, title={1}, title={2}, Title={3}}\n@misc{a, x={y}}",
    "comments-between": "% a comment\n@comment{ignored {nested} text}\nfree text\n@misc{a, t={x}}\n"
                        "junk } { \" ,\n@preamble{\"\\newcommand{\\x}{y}\"}\n@misc{b,}\ntrailing",
    "crlf": "@misc{a,\r\n  title = {x},\r\n  year = 2000\r\n}\r\n@misc{b,\r\n  title = \"y\"\r\n}\r\n",
    "bom": "\ufeff@misc{a, title = {x}}",
    "parentheses": "@misc(a, title = {x (y)}, note = \"a)b\")\n@string(s = \"v)\")\n@comment(x(y)z)",
    "no-comma-after-key": "@misc{justakey}\n@misc{k title = {x}}\n@misc{k2, title {x}}",
    "dangling-name": "@misc{a, title = {x}, dangling}\n@misc{b, title = {x},,}",
    "empty-values": "@misc{a, title = {}, b = \"\", c = , d = {x}}",
    "backslash-newline": "@misc{a,\\\n title = {x}}\n\\\n\n@misc{b, title = {y}}",
    "unicode-whitespace": "@misc{a,\u00a0title\u2003=\u2003{x}\u00a0}\n\u2028@misc{b, t={y}}",
    "type-variants": "@{a, t={x}}\n@Article  {b, t={x}}\n@commentary{c, t={x}}\n@stringy{d = {x}}",
    "only-comments": "just some text\n% and a line",
    "empty": "",
    "commented-out": "% @misc{a, title = {x}}\n@misc{b, title = {y}}\n  %@article{c,\n%  t = {w}\n%}\n"
                     "\\% @misc{d, title = {escaped}}\n% @misc{b, title = {a key taken by no block}}",
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_and_broken_input_splits_as_bibtexparser_splits_it(name):
    assert _ours(ODD[name]) == _theirs(ODD[name])


def test_syntax_errors_say_what_went_wrong():
    failed = split_bibtex("@misc{a, title = {x}\n@misc{b, t = {y}}").failed
    assert [(f.line, f.error) for f in failed] == [
        (0, "syntax error (unexpected block start '@misc' inside a field value)")]


_FRAGMENTS = ["@article{", "@misc(", "@string{", "@comment{", "@preamble{", "key,", "title = ", "{", "}", "(", ")",
              '"', '{"}', "\\", "#", ",", "=", "\n", "\r\n", " ", "@", "x", " and ", r"\%", "{{{{{{{", "}}}}}}}",
              "\n@misc{k, t = {v}}\n"]


@settings(max_examples=int(os.environ.get("DOIGET_BIBSPLIT_EXAMPLES", "150")), deadline=None,
          derandomize=os.environ.get("CI") == "true", suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=60).map("".join))
def test_generated_documents_split_as_bibtexparser_splits_them(text):
    assert _ours(text) == _theirs(text)
