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
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from doiget.errors import DoigetError, ErrorCode


def loads(data: str | bytes, what: str, code: ErrorCode = ErrorCode.INVALID_INPUT, **details: object) -> Any:
    """``json.loads(data)``, failures as ``code`` with a message naming ``what`` and the problem."""
    with _failures(what, code, details):
        return json.loads(data)


_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def items(text: str, what: str, code: ErrorCode = ErrorCode.INVALID_INPUT, **details: object) -> Iterator[Any]:
    """The elements of the JSON array ``text``, decoded one at a time (the whole array of decoded values
    never exists at once); failures as in :func:`loads`, raised when the reader reaches them. ``text``
    must start with ``[`` (after white space)."""
    with _failures(what, code, details):
        pos = _SPACE.match(text).end()
        if not text.startswith("[", pos):
            raise ValueError("not a JSON array")
        pos = _SPACE.match(text, pos + 1).end()
        if text.startswith("]", pos):
            pos += 1
        else:
            while True:
                value, pos = _DECODER.raw_decode(text, pos)
                yield value
                pos = _SPACE.match(text, pos).end()
                if text.startswith(",", pos):
                    pos = _SPACE.match(text, pos + 1).end()
                elif text.startswith("]", pos):
                    pos += 1
                    break
                else:
                    raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        if _SPACE.match(text, pos).end() != len(text):
            raise json.JSONDecodeError("Extra data", text, _SPACE.match(text, pos).end())


@contextmanager
def _failures(what: str, code: ErrorCode, details: dict[str, object]) -> Iterator[None]:
    try:
        yield
    except RecursionError:
        raise DoigetError(code, f"{what} is nested more deeply than the JSON decoder allows (about "
                          f"{sys.getrecursionlimit()} levels); refused", limit="depth", **details) from None
    except json.JSONDecodeError as exc:
        raise DoigetError(code, f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                          line=exc.lineno, column=exc.colno, **details) from None
    except (ValueError, UnicodeDecodeError) as exc:  # bytes in no UTF encoding
        raise DoigetError(code, f"{what} is not valid JSON: {exc}", **details) from None
