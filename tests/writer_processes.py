"""Several real processes writing to one library at once: forked from a server that imported
doiget's store stack once (multiprocessing's forkserver), instead of each process importing it
anew as with spawn (~0.5 s of CPU each). Each is still its own process with its own connections."""
from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext

# What opening a library and adding, tagging and annotating in it imports.
STORE_STACK = ("doiget", "doiget.services.entries", "doiget.services.organise", "doiget.store.migrate",
               "alembic.config", "alembic.script", "alembic.runtime.migration")


def writer_processes() -> BaseContext:
    """The multiprocessing context for writer processes."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(STORE_STACK))
    return context
