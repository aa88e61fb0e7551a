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
def gc_paused() -> Iterator[None]:
    """Run the block with cyclic garbage collection off (left off if it already was)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
