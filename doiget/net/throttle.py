"""Process-wide pacing (rate limits per source lane) and failure cool-downs."""
from __future__ import annotations

import threading
from collections.abc import Callable

from doiget.errors import DoigetError
from doiget.net.policy import ARXIV_INTERVAL, ARXIV_SOURCES, GLOBAL_INTERVAL


class _Lane:
    """Requests spaced ``interval`` seconds apart, optionally at most ``connections`` at once."""

    def __init__(self, interval: float, connections: int | None = None) -> None:
        self.interval = interval
        self.gate = threading.BoundedSemaphore(connections) if connections else None
        self._lock = threading.Lock()
        self._next = float("-inf")

    def wait(self, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
        # Reserve a start time under the lock, sleep outside it, so threads queue in order.
        with self._lock:
            now = clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            sleep(start - now)


class Throttle:
    """Rate limits and failure cool-downs shared by every :class:`HttpClient` in the process.

    Global: 5 requests/s. arXiv (``arxiv``, ``arxiv_pdf``, ``ar5iv`` together, as arXiv asks
    of all its hosts): one request per 3 s and one connection at a time. Other APIs' published
    limits (Crossref, OpenAlex ~10/s) are looser than the global one.
    """

    LANE_OF = dict.fromkeys(ARXIV_SOURCES, "arxiv")

    def __init__(self) -> None:
        self._global = _Lane(GLOBAL_INTERVAL)
        self._lanes = {"arxiv": _Lane(ARXIV_INTERVAL, connections=1)}
        self._lock = threading.Lock()
        self._cooling: dict[str, tuple[float, DoigetError]] = {}

    def acquire(self, source: str, clock: Callable[[], float],
                sleep: Callable[[float], None]) -> Callable[[], None]:
        """Wait for ``source``'s turn; returns the release to call when the response is closed."""
        lane = self._lanes.get(self.LANE_OF.get(source, ""))
        if lane is None:
            self._global.wait(clock, sleep)
            return nothing
        if lane.gate:
            lane.gate.acquire()
        try:
            lane.wait(clock, sleep)
            self._global.wait(clock, sleep)
        except BaseException:
            if lane.gate:
                lane.gate.release()
            raise
        return lane.gate.release if lane.gate else nothing

    def cool(self, key: str, until: float, error: DoigetError) -> None:
        with self._lock:
            self._cooling[key] = (until, error)

    def cooling(self, key: str, now: float) -> tuple[float, DoigetError] | None:
        """(seconds left, the failure) while ``key`` is cooling down, else None."""
        with self._lock:
            entry = self._cooling.get(key)
            if entry is None or entry[0] <= now:
                self._cooling.pop(key, None)
                return None
            return entry[0] - now, entry[1]


def nothing() -> None:
    return None


SHARED_THROTTLE = Throttle()
