"""JSON from untrusted bytes (BioC, CSL-JSON imports, upstream API bodies).

A body that does not parse, or nests deeper than the decoder's recursion bound, is a
:class:`~doiget.errors.DoigetError` with the caller's code (INVALID_INPUT for user files,
UPSTREAM_ERROR for API answers) — never a raw ``ValueError`` or ``RecursionError``. The decoder
is C code that raises ``RecursionError`` cleanly at the interpreter's recursion limit, so that
limit is the depth bound; nothing downstream walks parsed JSON recursively.
"""
from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import Any

from doiget.errors import DoigetError, ErrorCode


def loads(data: str | bytes, what: str, code: ErrorCode = ErrorCode.INVALID_INPUT, **details: object) -> Any:
    """``json.loads(data)``, failures as ``code`` with a message naming ``what`` and the problem."""
    with _failures(what, code, details):
        return json.loads(data)


_SPACE = re.compile(r"[ \t\n\r]*")
_WHITE = " \t\n\r"
_DECODER = json.JSONDecoder()


def items(source: str | Iterable[str], what: str, code: ErrorCode = ErrorCode.INVALID_INPUT,
          **details: object) -> Iterator[Any]:
    """The elements of the JSON array ``source``, decoded one at a time (the whole array of decoded values
    never exists at once); failures as in :func:`loads`, raised when the reader reaches them. ``source``
    is the text, or its pieces in order (a file read in chunks: only the piece being decoded is held;
    line and column still count from the start). It must start with ``[`` (after white space)."""
    text = _Pieces([source]) if isinstance(source, str) else _Pieces(source, forget=True)
    with _failures(what, code, details, text.where):
        pos = text.skip(0)
        if not text.buf.startswith("[", pos):
            raise ValueError("not a JSON array")
        pos = text.skip(pos + 1)
        if text.buf.startswith("]", pos):
            pos += 1
        else:
            scan = _DECODER.scan_once
            while True:
                buf = text.buf
                try:  # the usual element: whole in the text read so far, its "," or "]" right after it
                    value, end = scan(buf, pos)
                    after = buf[end]
                except (StopIteration, ValueError, IndexError):  # JSONDecodeError is a ValueError
                    after = ""
                if after != "," and after != "]":  # white space, the end of a piece, an error: as element() reads
                    value, end = text.element(pos)
                    buf = text.buf
                    after = buf[end]
                yield value
                pos = end + 1
                if after == "]":
                    break
                if pos == len(buf) or buf[pos] in _WHITE:
                    pos = text.skip(pos)
        end = text.skip(pos)
        if end != len(text.buf):
            raise json.JSONDecodeError("Extra data", text.buf, end)


class _Pieces:
    """The text of :func:`items` as far as it has been read; with ``forget``, ``buf`` keeps only what is
    not yet decoded and ``lines``/``column`` say where in the whole text it starts."""

    def __init__(self, pieces: Iterable[str], forget: bool = False) -> None:
        self.pieces, self.forget, self.buf, self.lines, self.column, self.ahead = iter(pieces), forget, "", 0, 0, 1

    def more(self) -> bool:
        """Append the next pieces (twice as many as last time when an element needed more); False at the end."""
        read = "".join(islice(self.pieces, self.ahead))
        self.ahead *= 2
        self.buf += read
        return bool(read)

    def drop(self, pos: int) -> int:
        """Forget the text before ``pos`` (counting its lines); returns where ``pos`` now is."""
        newlines = self.buf.count("\n", 0, pos)
        self.lines += newlines
        self.column = pos - self.buf.rfind("\n", 0, pos) - 1 if newlines else self.column + pos
        self.buf = self.buf[pos:]
        return 0

    def skip(self, pos: int) -> int:
        """The position of the next character that is not white space (``len(buf)`` at the end)."""
        if pos < len(self.buf) and self.buf[pos] not in _WHITE:
            return pos
        end = _SPACE.match(self.buf, pos).end()
        while end == len(self.buf) and self.more():
            end = _SPACE.match(self.buf, end).end()
        return end

    def element(self, pos: int) -> tuple[Any, int]:
        """The element at ``pos`` and the position of the ``,`` or ``]`` after it. Whatever fails while the
        text goes on may be a piece boundary (an element cut anywhere, a number cut after ``1.``), so the
        element is decoded again with more text before the failure counts."""
        if self.forget and pos > len(self.buf) // 2:
            pos = self.drop(pos)
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, pos)
                if end < len(self.buf) and self.buf[end] in _WHITE:
                    end = _SPACE.match(self.buf, end).end()
                if end < len(self.buf) and self.buf[end] in ",]":
                    self.ahead = 1
                    return value, end
                if not self.more():
                    raise json.JSONDecodeError("Expecting ',' delimiter", self.buf, end)
            except json.JSONDecodeError:
                if not self.more():
                    raise

    def where(self, pos: int) -> tuple[int, int]:
        """(line, column) of ``buf[pos]`` in the whole text, counted as :class:`json.JSONDecodeError` does."""
        newlines = self.buf.count("\n", 0, pos)
        if newlines:
            return self.lines + newlines + 1, pos - self.buf.rfind("\n", 0, pos)
        return self.lines + 1, self.column + pos + 1


@contextmanager
def _failures(what: str, code: ErrorCode, details: dict[str, object],
              where: Callable[[int], tuple[int, int]] | None = None) -> Iterator[None]:
    try:
        yield
    except RecursionError:
        raise DoigetError(code, f"{what} is nested more deeply than the JSON decoder allows (about "
                          f"{sys.getrecursionlimit()} levels); refused", limit="depth", **details) from None
    except json.JSONDecodeError as exc:
        line, column = where(exc.pos) if where else (exc.lineno, exc.colno)
        raise DoigetError(code, f"{what} is not valid JSON: {exc.msg} at line {line}, column {column}",
                          line=line, column=column, **details) from None
    except (ValueError, UnicodeDecodeError) as exc:  # bytes in no UTF encoding
        raise DoigetError(code, f"{what} is not valid JSON: {exc}", **details) from None
