"""Clean exits while background training runs: a process that imports the app (a test, a script, the
server on Ctrl-C) and exits while a training thread is inside torch would otherwise be torn down under
it (C++ ends with "terminate called without an active exception" and SIGABRT). At exit, the threads
registered here are asked to stop at their next step and are waited for, so the process exits with its
own code. Streamlit-free.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections.abc import Callable

_LOG = logging.getLogger(__name__)

#: Seconds the exit waits in all for the training threads to reach a step boundary.
EXIT_WAIT_S = 30.0

_exiting = threading.Event()
_threads: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_stoppers: list[Callable[[], None]] = []
_lock = threading.Lock()


def exiting() -> bool:
    """True once the process has begun to exit: a training loop stops at its next step."""
    return _exiting.is_set()


def track(thread: threading.Thread) -> threading.Thread:
    """Wait for ``thread`` at exit (after the stoppers have asked it to end); returns it."""
    with _lock:
        _threads.add(thread)
    return thread


def on_exit(stop: Callable[[], None]) -> None:
    """Call ``stop`` (no arguments) as the process exits, before the tracked threads are waited for."""
    with _lock:
        _stoppers.append(stop)


def stop_all(wait_s: float = EXIT_WAIT_S) -> list[str]:
    """Ask every training thread to stop and wait up to ``wait_s`` seconds in all: the names of the
    threads still running after that (logged)."""
    _exiting.set()
    with _lock:
        stoppers, threads = list(_stoppers), [t for t in _threads if t is not threading.current_thread()]
    for stop in stoppers:
        try:
            stop()
        except Exception:  # noqa: BLE001 - the other threads are still stopped
            _LOG.warning("stopping a training at exit failed", exc_info=True)
    deadline = time.monotonic() + wait_s
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    left = [t.name for t in threads if t.is_alive()]
    if left:
        _LOG.warning("threads still running at exit: %s", ", ".join(left))
    return left


atexit.register(stop_all)
