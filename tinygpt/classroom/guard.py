"""Guessing slowed per client: failed attempts (a teacher's link that opens no class, a short link
that does not exist) counted in a sliding window, so that a client who fails too often waits.

A class code has 32⁶ ≈ 10⁹ values, a short link 57⁷ ≈ 2·10¹², a teacher's key 2¹⁴⁴: with
:data:`LIMIT` failures a minute, finding one by guessing takes years, while a student who mistypes
a link a few times never waits. Streamlit-free; one :class:`Attempts` per process and kind.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

#: Failed attempts a client may make within :data:`WINDOW_S` seconds before it waits.
LIMIT = 8
WINDOW_S = 60.0
#: Clients remembered at most (the oldest are forgotten first), so memory stays bounded.
MAX_CLIENTS = 20_000


class Attempts:
    """Failed attempts per client (any hashable name: an address, a session) in a sliding window.

    Args:
        limit: failures allowed within ``window_s`` seconds; the next attempt waits until the oldest
            of them leaves the window.
        clock: monotonic seconds (tests pass their own).
    Thread-safe.
    """

    def __init__(self, limit: int = LIMIT, window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic):
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        times = self._failures.get(client, deque())
        while times and now - times[0] >= self.window_s:
            times.popleft()
        return times

    def wait_s(self, client: str) -> float:
        """Seconds ``client`` must wait before its next attempt (0.0: it may try now)."""
        with self._lock:
            now = self.clock()
            times = self._recent(client, now)
            if len(times) < self.limit:
                return 0.0
            return max(0.0, self.window_s - (now - times[-self.limit]))

    def failed(self, client: str) -> None:
        """Count one failed attempt of ``client``."""
        with self._lock:
            now = self.clock()
            times = self._recent(client, now)
            times.append(now)
            self._failures.pop(client, None)
            self._failures[client] = times  # the most recent client last
            while len(self._failures) > MAX_CLIENTS:
                self._failures.pop(next(iter(self._failures)))
