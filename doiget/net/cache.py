"""Where ``HttpClient.get(..., cache=True)`` keeps 200 responses: the interface and an in-memory one."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from doiget.net.base import HttpResponse


class ResponseCache(Protocol):
    """Where ``HttpClient.get(..., cache=True)`` keeps 200 responses.

    Keys are redacted strings (``"<source> GET <url with sorted params>"``) and carry no secret.
    Implementations must be thread-safe and treat an expired entry as absent.
    """

    def get(self, key: str) -> HttpResponse | None: ...

    def put(self, key: str, response: HttpResponse, ttl_seconds: float) -> None: ...


class MemoryCache:
    """A process-local :class:`ResponseCache` (tests, one-off scripts)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, HttpResponse]] = {}

    def get(self, key: str) -> HttpResponse | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] <= self._clock():
                del self._entries[key]
                return None
            return entry[1]

    def put(self, key: str, response: HttpResponse, ttl_seconds: float) -> None:
        with self._lock:
            self._entries[key] = (self._clock() + ttl_seconds, response)
