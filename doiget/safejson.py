"""JSON from untrusted bytes (BioC, CSL-JSON imports, upstream API bodies).

A body that does not parse, or nests deeper than the decoder's recursion bound, is a
:class:`~doiget.errors.DoigetError` with the caller's code (INVALID_INPUT for user files,
UPSTREAM_ERROR for API answers) — never a raw ``ValueError`` or ``RecursionError``. The decoder
is C code that raises ``RecursionError`` cleanly at the interpreter's recursion limit, so that
limit is the depth bound; nothing downstream walks parsed JSON recursively.
"""
from __future__ import annotations

import json
import sys
from typing import Any

from doiget.errors import DoigetError, ErrorCode


def loads(data: str | bytes, what: str, code: ErrorCode = ErrorCode.INVALID_INPUT, **details: object) -> Any:
    """``json.loads(data)``, failures as ``code`` with a message naming ``what`` and the problem."""
    try:
        return json.loads(data)
    except RecursionError:
        raise DoigetError(code, f"{what} is nested more deeply than the JSON decoder allows (about "
                          f"{sys.getrecursionlimit()} levels); refused", limit="depth", **details) from None
    except json.JSONDecodeError as exc:
        raise DoigetError(code, f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                          line=exc.lineno, column=exc.colno, **details) from None
    except (ValueError, UnicodeDecodeError) as exc:  # bytes in no UTF encoding
        raise DoigetError(code, f"{what} is not valid JSON: {exc}", **details) from None
