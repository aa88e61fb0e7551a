"""Which library a tool call sees. Writing tools open the library (creating it on first use);
read-only tools read it when it exists, else an empty stand-in in a temporary directory, so a
read-only call never creates anything in the user's home and an absent library reads as empty."""
from __future__ import annotations

import dataclasses
import shutil
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from doiget.config import Config

if TYPE_CHECKING:
    from doiget.library import Library


class LibraryHolder:
    """Opens the library on the first call that needs it; listing tools or asking for health opens nothing."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._library: Library | None = None
        self._empty: Library | None = None
        self._empty_dir: str | None = None
        self._lock = threading.Lock()

    def get(self) -> Library:
        """The user's library, created (and migrated) if needed: for tools that write."""
        from doiget.library import Library  # on the first call: the server starts without it

        with self._lock:
            if self._library is None:
                self._library = Library(self.config)
            return self._library

    def reader(self) -> Library:
        """The user's library if it exists, else an empty one that lives in a temporary directory."""
        from doiget.library import Library, library_exists

        if self._library is not None or library_exists(self.config):
            return self.get()
        with self._lock:
            if self._empty is None:
                self._empty_dir = tempfile.mkdtemp(prefix="doiget-empty-")
                self._empty = Library(dataclasses.replace(self.config, home=Path(self._empty_dir)))
            return self._empty

    def view(self, read_only: bool) -> "LibraryView":
        return LibraryView(self, read_only)

    def close(self) -> None:
        for library in (self._library, self._empty):
            if library is not None:
                library.close()
        if self._empty_dir is not None:
            shutil.rmtree(self._empty_dir, ignore_errors=True)


@dataclasses.dataclass(frozen=True)
class LibraryView:
    """What one tool handler gets: ``get()`` is the reader for read-only tools, the library otherwise."""

    holder: LibraryHolder
    read_only: bool

    @property
    def config(self) -> Config:
        return self.holder.config

    def get(self) -> Library:
        return self.holder.reader() if self.read_only else self.holder.get()
