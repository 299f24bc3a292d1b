"""Guessing slowed per client: failed attempts (a teacher's link that opens no class, a short link
that does not exist) counted in a sliding window, so that a client who fails too often waits.

A class code has 32⁶ ≈ 10⁹ values, a short link 57⁷ ≈ 2·10¹², a teacher's key 2¹⁴⁴: with
:data:`LIMIT` failures a minute, finding one by guessing takes years, while a student who mistypes
a link a few times never waits. Streamlit-free; one :class:`Attempts` per process and kind.

Who a client is: the address the connection comes from. ``X-Forwarded-For`` names the client only
when that address is one the operator trusts as a proxy (``TINYGPT_TRUSTED_PROXIES``; none by
default), so a client that reaches an app server directly cannot pick a new name for every try.
"""

from __future__ import annotations

import ipaddress
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping

from tinygpt.config import ConfigError

ENV_TRUSTED_PROXIES = "TINYGPT_TRUSTED_PROXIES"
ENV_TEACHER_HOURS = "TINYGPT_TEACHER_HOURS"
#: Hours a browser keeps a teacher's key once it has opened the class: a school day, not the answers' days.
DEFAULT_TEACHER_HOURS = 8
MAX_TEACHER_HOURS = 720
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

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


def trusted_proxies(environ: Mapping[str, str] | None = None) -> tuple[Network, ...]:
    """The proxies whose ``X-Forwarded-For`` counts: ``TINYGPT_TRUSTED_PROXIES``, addresses or networks
    separated by commas ("127.0.0.1", "10.0.0.10, 10.0.1.0/24"); none when unset or empty.

    Raises:
        ConfigError: an entry that is not an IPv4/IPv6 address or network.
    """
    env = os.environ if environ is None else environ
    networks = []
    for entry in (env.get(ENV_TRUSTED_PROXIES) or "").split(","):
        if not entry.strip():
            continue
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            accepted = "IP addresses or networks separated by commas, e.g. 127.0.0.1 or 10.0.0.0/24"
            raise ConfigError(ENV_TRUSTED_PROXIES, entry.strip(), accepted) from None
    return tuple(networks)


def _trusted(address: str, proxies: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip.version == net.version and ip in net for net in proxies)


LOOPBACK = ("127.0.0.1", "::1")


def connection_peer(shown: str | None, forwarded: str) -> str:
    """The address the connection came from, given the address the web server shows (``shown``; None
    for loopback) and ``X-Forwarded-For``. Streamlit's web server (uvicorn) trusts that header from a
    loopback peer and shows its last non-loopback hop instead: when ``shown`` is that hop, the
    connection came from loopback ("127.0.0.1")."""
    if not shown:
        return LOOPBACK[0]
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip() and hop.strip() not in LOOPBACK]
    return LOOPBACK[0] if hops and hops[-1] == shown else shown


def client_address(peer: str, forwarded: str, proxies: tuple[Network, ...]) -> str:
    """The client's address: ``peer`` (the connection's address) unless it is a trusted proxy; then
    the last address in ``forwarded`` (``X-Forwarded-For``, "a, b, c") that is not a trusted proxy
    (each proxy appends the address it saw), or ``peer`` when the header names none."""
    if not _trusted(peer, proxies):
        return peer
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, proxies):
            return hop
    return peer


def teacher_hours(environ: Mapping[str, str] | None = None) -> int:
    """Hours a browser keeps a teacher's key: ``TINYGPT_TEACHER_HOURS`` (1..720), default 8.

    Raises:
        ConfigError: a value that is not a whole number in 1..720.
    """
    env = os.environ if environ is None else environ
    raw = (env.get(ENV_TEACHER_HOURS) or "").strip()
    if not raw:
        return DEFAULT_TEACHER_HOURS
    try:
        hours = int(raw)
    except ValueError:
        hours = 0
    if not 1 <= hours <= MAX_TEACHER_HOURS:
        raise ConfigError(ENV_TEACHER_HOURS, raw, f"a whole number of hours from 1 to {MAX_TEACHER_HOURS}")
    return hours
