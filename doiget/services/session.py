"""What every service works on: the open library's configuration, store and HTTP client.

``doiget.Library`` is the one implementation; services take it as this protocol so that none of
them imports the façade (no import cycle)."""
from __future__ import annotations

from pathlib import Path
from typing import Protocol

from doiget.config import Config
from doiget.net.base import Http
from doiget.store.store import Store


class Session(Protocol):
    config: Config
    store: Store

    @property
    def http(self) -> Http: ...

    @property
    def home(self) -> Path: ...
