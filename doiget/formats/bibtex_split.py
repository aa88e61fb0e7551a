"""A .bib file's text cut into blocks: the same blocks as bibtexparser 2's splitter, faster.

bibtexparser's splitter walks every "mark" (``{ } " , = @type{`` and newlines) in Python. Here a
``{``-delimited entry is read field by field with possessive regular expressions that accept only
what that walk would read the same way (values with braces nested at most 6 deep, no block start
``@type{`` inside); any block they do not accept — ``@string``, ``@comment``, ``@preamble``,
``(``-delimited blocks, deep braces, broken entries — is read by :class:`_Scanner`, a port of
bibtexparser's mark walk (same marks, same error recovery, same start lines), so the two cannot
disagree on a block. ``tests/test_bibtex_split.py`` compares both with bibtexparser itself. One
difference: between blocks, a ``%`` comments out the rest of its line, as biber, JabRef and Zotero
read it, so an entry commented out line by line (``% @article{...``) is comment text, no block.

:class:`_Scanner` is adapted from bibtexparser 2's ``splitter.py``, Copyright (c) 2021 Michael Weiss,
MIT License (``LICENSES/bibtexparser-MIT.txt``).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_AT = r"@\w*[ \t]*(?=[{(])"  # a block start: bibtexparser's mark for "@type" before "{" or "("
_BLOCK_START = re.compile(_AT)
_MARK = re.compile(r"(?<!\\)[{}\",=]|" + _AT)
_COMMENT = re.compile(r"(?<!\\)%")  # a comment's start between blocks
_PAREN_MARK = re.compile(r"(?<!\\)[{}\",=)]|" + _AT)

# Tokens that are no mark: a backslash run escapes the character after it (as the splitter's
# (?<!\\) look-behind does), an "@" is plain unless it starts a block.
_ESCAPE = r"(?>\\+[^@]?)"
_PLAIN_AT = r"@(?!\w*[ \t]*[{(])"
_NAME = rf"(?:[^{{}}\",=\\@]++|{_ESCAPE}|{_PLAIN_AT})*+"
_QUOTED = rf"\"(?:[^\"\\@]++|{_ESCAPE}|{_PLAIN_AT}|(?<=\{{)\"(?=\}}[\s\S]))*+\""  # braces are text in quotes
_BRACED = r"\{(?:[^{}\\@]++|" + _ESCAPE + "|" + _PLAIN_AT + r")*+\}"
for _ in range(5):
    _BRACED = r"\{(?:[^{}\\@]++|" + _ESCAPE + "|" + _PLAIN_AT + "|" + _BRACED + r")*+\}"
_VALUE = rf"(?:[^{{}}\",\\@]++|{_ESCAPE}|{_PLAIN_AT}|{_QUOTED}|{_BRACED})*+"
_ENTRY_HEAD = re.compile(rf"\{{({_NAME})([,}}])")
_FIELD = re.compile(rf"({_NAME})(?:=({_VALUE})([,}}])|\}})")


@dataclass(slots=True)
class BibBlock:
    """An ``@type{key, name = value, ...}`` entry: lower-cased type, key and fields as written
    (values with their delimiters, stripped), ``line`` counted from 0."""

    line: int
    type: str
    key: str
    fields: list[tuple[str, str]]


@dataclass(slots=True)
class Failed:
    """A block bibtexparser would put in ``failed_blocks``: unreadable (``entry`` None), an entry
    whose key an earlier entry has (``duplicate_key``), or an entry with a repeated field name."""

    line: int
    error: str
    entry: BibBlock | None = None
    duplicate_key: str | None = None

    @property
    def aborted(self) -> bool:
        """A syntax error (not a duplicate key or field)."""
        return self.entry is None and self.duplicate_key is None


@dataclass(slots=True)
class SplitFile:
    """The blocks of one file, grouped as bibtexparser's ``Library`` groups them."""

    entries: list[BibBlock] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)
    strings: dict[str, str] = field(default_factory=dict)  # first @string of each (case-sensitive) name
    preambles: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)  # @comment bodies and text between blocks


class _Aborted(Exception):
    """A block that cannot be read (bibtexparser's BlockAbortedException)."""


def split_bibtex(text: str) -> SplitFile:
    """The blocks of ``text``; never raises on malformed input (broken blocks land in ``failed``)."""
    return _Scanner(text).split()


class _Scanner:
    """bibtexparser's Splitter with positions instead of an iterator (its comments say why each
    step is as it is); newlines are no marks here, lines are counted from positions instead."""

    def __init__(self, text: str) -> None:
        self.s = "\n" + text  # as bibtexparser: a block may start right at the beginning
        self.pos = 0  # where the next mark search starts
        self.pending: tuple[int, int, str] | None = None  # a mark put back: (start, end, text)
        self.index = 0  # start of the last mark returned
        self.marks = _MARK
        self.closing = "}"
        self.out = SplitFile()
        self._line_pos = 0
        self._line = -1
        self._entry_keys: set[str] = set()

    # ---- marks ---------------------------------------------------------------------------------

    def _next(self) -> tuple[int, int, str]:
        """The next mark inside a block: (start, end, text)."""
        if self.pending is not None:
            mark, self.pending = self.pending, None
            self.index = mark[0]
            return mark
        match = self.marks.search(self.s, self.pos)
        if match is None:
            self.index = len(self.s)
            raise _Aborted("unexpected end of file")
        self.pos = match.end()
        self.index = match.start()
        return match.start(), match.end(), match.group()

    def _line_at(self, pos: int) -> int:
        """bibtexparser's line count at ``pos``: newlines not preceded by a backslash (block starts
        come in file order, so the count goes on from the last one)."""
        start = self._line_pos
        self._line += self.s.count("\n", start, pos) - self.s.count("\\\n", max(start - 1, 0), pos)
        self._line_pos = pos
        return self._line

    def _at_line_start(self, pos: int) -> bool:
        for index in range(pos - 1, -1, -1):
            char = self.s[index]
            if char == "\n":
                return True
            if not char.isspace():
                return False
        return True

    # ---- the file ------------------------------------------------------------------------------

    def split(self) -> SplitFile:
        s = self.s
        comment_start = 0
        while True:
            mark, self.pending = self.pending, None
            if mark is None or mark[2][0] != "@":  # outside blocks only block starts count
                match = _BLOCK_START.search(s, self.pos)
                while match is not None and _COMMENT.search(s, max(s.rfind("\n", 0, match.start()), comment_start),
                                                            match.start()):
                    match = _BLOCK_START.search(s, match.end())  # after a "%" on its line: a comment's text
                if match is None:
                    break
                mark = match.start(), match.end(), match.group()
                self.pos = match.end()
            self.index = mark[0]
            self._comment(s[comment_start:mark[0]])
            line = self._line_at(mark[0])
            kind = mark[2].lower()
            if not self._fast_entry(mark, kind, line):
                try:
                    self._open(mark)
                    if kind.startswith("@comment"):
                        self.out.comments.append(s[mark[1] + 1:self._to_closing(track_quotes=False)].strip())
                    elif kind.startswith("@preamble"):
                        self.out.preambles.append(s[mark[1] + 1:self._to_closing(track_quotes=True)])
                    elif kind.startswith("@string"):
                        self._string(mark, line)
                    else:
                        self._entry(mark, kind, line)
                except _Aborted as exc:
                    self.out.failed.append(Failed(line, f"syntax error ({exc})"))
                self._close()
            comment_start = self.index + 1
        self._comment(s[comment_start:])
        return self.out

    def _comment(self, text: str) -> None:
        """Text between blocks, kept when it is more than whitespace."""
        if text.strip():
            self.out.comments.append(text.strip())

    def _open(self, mark: tuple[int, int, str]) -> None:
        if self.s[mark[1]] == "(":
            self.closing = ")"
            self.marks = _PAREN_MARK
            self.pos = mark[1] + 1
        else:
            self.closing = "}"
            self._next()

    def _close(self) -> None:
        if self.closing == ")":
            self.pos = self.pending[1] if self.pending is not None else self.index + 1
            self.marks = _MARK
            self.closing = "}"

    # ---- blocks --------------------------------------------------------------------------------

    def _fast_entry(self, mark: tuple[int, int, str], kind: str, line: int) -> bool:
        """Read a ``{``-delimited entry by regex; False (nothing consumed) when it is anything else."""
        s = self.s
        if s[mark[1]] != "{" or kind.startswith(("@comment", "@preamble", "@string")):
            return False
        head = _ENTRY_HEAD.match(s, mark[1])
        if head is None:
            return False
        fields: list[tuple[str, str]] = []
        end = head.end()
        if head.group(2) == ",":
            while True:
                item = _FIELD.match(s, end)
                if item is None:
                    return False
                name, value, after = item.groups()
                if value is None:  # "}" where a field name would start: the entry's end
                    if name.strip():
                        return False
                    end = item.end()
                    break
                fields.append((name.strip(), value.strip()))
                end = item.end()
                if after == "}":
                    break
        self._add_entry(BibBlock(line, kind[1:].strip(), head.group(1).strip(), fields))
        self.pos = end
        self.index = end - 1
        return True

    def _add_entry(self, entry: BibBlock) -> None:
        names = Counter(name for name, _ in entry.fields)
        if len(names) < len(entry.fields):
            repeated = ", ".join(sorted(name for name, count in names.items() if count > 1))
            self.out.failed.append(Failed(entry.line, f"repeated fields: {repeated}", entry))
        elif entry.key in self._entry_keys:
            self.out.failed.append(Failed(entry.line, f"Duplicate entry key '{entry.key}'", entry, entry.key))
        else:
            self._entry_keys.add(entry.key)
            self.out.entries.append(entry)

    def _entry(self, mark: tuple[int, int, str], kind: str, line: int) -> None:
        after_key = self._next()
        if after_key[2] == self.closing:
            self._add_entry(BibBlock(line, kind[1:].strip(), self.s[mark[1] + 1:after_key[0]].strip(), []))
            return
        if after_key[2] != ",":
            self.pending = after_key
            raise _Aborted(f"expected a comma after the entry key, found {after_key[2]!r}")
        key = self.s[mark[1] + 1:after_key[0]].strip()
        self._add_entry(BibBlock(line, kind[1:].strip(), key, self._fields(after_key[1])))

    def _fields(self, name_start: int) -> list[tuple[str, str]]:
        s, fields = self.s, []
        while True:
            equals = self._next()
            if equals[2] == self.closing:
                if s[name_start:equals[0]].strip():
                    raise _Aborted(f"expected '=' after {s[name_start:equals[0]].strip()!r}")
                return fields
            if equals[2] != "=":
                self.pending = equals
                raise _Aborted(f"expected '=' after a field name, found {equals[2]!r}")
            value_end = self._value_end()
            fields.append((s[name_start:equals[0]].strip(), s[equals[1]:value_end].strip()))
            after = self._next()  # the "," or closing delimiter _value_end put back
            if after[2] == ",":
                name_start = after[1]
            else:
                self.pending = after
                name_start = after[0]

    def _value_end(self) -> int:
        """Where the field value starting after the last mark ends (its ``,`` or closing delimiter,
        put back)."""
        s, quoted, depth = self.s, False, 0
        while True:
            mark = self._next()
            char = mark[2]
            if char == '"' and not depth:
                start = mark[0]
                if quoted and s[start - 1] == "{" and start + 2 < len(s) and s[start + 1] == "}":
                    continue  # {"}: a quote character inside a quoted value
                quoted = not quoted
            elif char == "{" and not quoted:
                depth += 1
            elif char == "}" and not quoted and depth:
                depth -= 1
            elif char in (",", self.closing) and not quoted and not depth:
                self.pending = mark
                return mark[0]
            elif char[0] == "@" and self._at_line_start(mark[0]):
                self.pending = mark
                raise _Aborted(f"unexpected block start {char!r} inside a field value")

    def _to_closing(self, track_quotes: bool) -> int:
        depth, quoted = 0, False
        track_quotes = track_quotes and self.closing == ")"
        while True:
            mark = self._next()
            char = mark[2]
            if char == "{":
                depth += 1
            elif char == "}" and depth:
                depth -= 1
            elif not depth and char == '"' and track_quotes:
                quoted = not quoted
            elif not depth and char == self.closing and not quoted:
                return mark[0]
            elif char[0] == "@" and self._at_line_start(mark[0]):
                self.pending = mark
                raise _Aborted(f"unexpected block start {char!r}; the block is not closed")

    def _string(self, mark: tuple[int, int, str], line: int) -> None:
        equals = self._next()
        if equals[2] != "=":
            self.pending = equals
            raise _Aborted(f"expected '=' in @string, found {equals[2]!r}")
        name = self.s[mark[1] + 1:equals[0]].strip()
        value = self.s[equals[1]:self._to_closing(track_quotes=True)].strip()
        if name in self.out.strings:
            self.out.failed.append(Failed(line, f"Duplicate entry key '{name}'", None, name))
        else:
            self.out.strings[name] = value
