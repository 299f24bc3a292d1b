"""Retention on a clock: the class store's expired records deleted by a timer, not only by a write.

Reads never show what has expired (:class:`tinygpt.classroom.store.Store` filters by time); this deletes it,
so a class nobody writes to any more does not keep its answers on the disk past their days.
"""

from __future__ import annotations

import threading

from tinygpt.classroom.store import PURGE_EVERY_S, Store, StoreError


def keep_purging(store: Store, every_s: float = PURGE_EVERY_S, stop: threading.Event | None = None) -> threading.Thread:
    """Run ``store.purge()`` now and then every ``every_s`` seconds in a daemon thread, until
    ``stop`` is set (None: as long as the process runs). A failure is logged by the store and
    tried again at the next tick. Returns the started thread."""
    stop = stop or threading.Event()

    def run() -> None:
        while True:
            try:
                store.purge()
            except StoreError:  # logged by the store; the next tick tries again
                pass
            if stop.wait(every_s):
                return

    thread = threading.Thread(target=run, name="tinygpt-store-purge", daemon=True)
    thread.start()
    return thread
