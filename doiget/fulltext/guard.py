"""The limits every extractor of untrusted bytes runs under.

A CPU-time deadline, checked cooperatively: :func:`deadline` arms it for the current thread and
:func:`check` (called by the text builder for every block, and by the parsers' own loops) raises
INVALID_INPUT naming the limit once the thread has used more CPU than allowed. Cooperative
checks work in the MCP server's worker threads (signals only reach the main thread); one check in
:data:`CLOCK_EVERY` reads the thread's clock (a system call of ~1.4 µs, more than a paragraph's own
work), the others count down. They stop loops, not a single C call, so every pattern run over
untrusted text is linear-time and every nesting is bounded (:data:`MAX_DEPTH`) — the deadline is
the backstop.
CPU time rather than wall time, so a busy machine does not fail a large but honest document.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from doiget.errors import DoigetError, ErrorCode

EXTRACT_SECONDS = 30.0
#: Deepest element nesting accepted in XML and HTML (real JATS and LaTeXML pages stay below 60).
MAX_DEPTH = 200
#: Checks per read of the thread's CPU clock: the work between two reads stays a few paragraphs or elements.
CLOCK_EVERY = 32

_state = threading.local()


@contextmanager
def deadline(seconds: float, what: str) -> Iterator[None]:
    """Run the block with a CPU-time budget of ``seconds`` for this thread (nested calls keep the
    outer, earlier deadline)."""
    outer = getattr(_state, "armed", None)
    limit = time.thread_time() + seconds
    if outer is None or limit < outer[0]:
        _state.armed = [limit, seconds, what, CLOCK_EVERY]  # the last item: checks left before the clock
    try:
        yield
    finally:
        _state.armed = outer


def check() -> None:
    """Raise INVALID_INPUT if this thread's extraction deadline has passed."""
    armed = getattr(_state, "armed", None)
    if armed is None:
        return
    armed[3] -= 1
    if armed[3]:
        return
    armed[3] = CLOCK_EVERY
    if time.thread_time() > armed[0]:
        _state.armed = None  # report once; the caller unwinds
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{armed[2]} used more than its {armed[1]:g} s CPU limit and was "
                          "stopped; the input is too large or too convoluted to extract",
                          limit="cpu_seconds", limit_value=armed[1])


def too_deep(what: str, limit: int = MAX_DEPTH) -> DoigetError:
    """INVALID_INPUT for input nested deeper than ``limit``."""
    return DoigetError(ErrorCode.INVALID_INPUT, f"{what} is nested more than {limit} levels deep; refused",
                       limit="depth", limit_value=limit)
