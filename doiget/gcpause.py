"""The cyclic garbage collector paused around work that allocates many objects which live on.

Parsing a bibliography, building a citation graph and laying out a PDF's pages each allocate hundreds
of thousands of container objects that stay alive until the work ends; every collection the
allocations trigger walks them all (and everything else alive in the process) and frees nothing:
40% of a 6,000-entry parse, half a graph ranking, 5% of indexing a PDF. Little of what such work
makes is cyclic garbage (the known exception: pylatexenc leaves a reference cycle for each odd LaTeX
value it decodes, a few per thousand .bib values); it is freed when collection resumes afterwards.
"""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused(promote: bool = False) -> Iterator[None]:
    """Run the block with cyclic garbage collection off (left off if it already was).

    With ``promote``, what a block that ends normally leaves alive goes straight to the oldest generation
    as collection resumes, where only full collections walk it: left young, all of it would be walked by
    the next young collection and again by the middle one, freeing nothing (a 100k-record import's
    report: 0.4 s). Cyclic garbage the block made then waits for a full collection. Skipped when the
    block fails and while the process holds frozen objects (``gc.freeze``; CPython 3.12 freezes some of
    its own at start): moving ours would release them too."""
    enabled = gc.isenabled()
    gc.disable()
    ended = False
    try:
        yield
        ended = True
    finally:
        if enabled:
            if promote and ended and not gc.get_freeze_count():
                gc.freeze()  # every tracked object to the permanent generation, then all of it to the oldest: O(1)
                gc.unfreeze()
            gc.enable()
