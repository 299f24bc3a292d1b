"""What the server does as it starts, before anyone visits: import the app's modules.

A first visit's script run otherwise spends about 2 s importing torch, pandas, Altair and the
app's own modules before it draws anything (torch alone is 1.7 s on a 2-core host). Started from
the :class:`streamlit.App` lifespan (``streamlit_app.py``), :func:`preload` does that work in a
background thread while the server starts serving and the first browser loads Streamlit's
JavaScript; a script run that imports a module the thread is still importing waits for it (Python's
import lock), and never imports anything twice.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import pkgutil
import threading
from collections.abc import AsyncIterator

import tinygpt

_LOG = logging.getLogger(__name__)

#: Imported first: the heavy libraries every page needs, torch before all (the app's modules
#: import it at their top, so the first page waits for it most).
LIBRARIES = ("torch", "pandas", "pyarrow", "altair")


def app_modules() -> list[str]:
    """Every module of the ``tinygpt`` package, its UI included (not ``tinygpt.__main__``, the CLI)."""
    return sorted(
        info.name for info in pkgutil.walk_packages(tinygpt.__path__, "tinygpt.") if not info.name.endswith("__main__")
    )


def preload() -> list[str]:
    """Import :data:`LIBRARIES`, then :func:`app_modules`; returns the names imported. A module
    that fails to import is logged and skipped: the script run that needs it raises the error
    in the visitor's page, as it would without this. A session's first page calls it too
    (``navigation.run_app``, under its "opening" line): it then waits for what the server's
    thread has not imported yet, and costs a lookup per module on a warm server."""
    done = []
    for name in LIBRARIES + tuple(app_modules()):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - reported where the page imports it
            _LOG.warning("preloading %s failed", name, exc_info=True)
        else:
            done.append(name)
    return done


@contextlib.asynccontextmanager
async def lifespan(_app: object) -> AsyncIterator[None]:
    """The :class:`streamlit.App` lifespan: starts :func:`preload` in a daemon thread and returns
    at once, so the server does not wait for it before it answers."""
    threading.Thread(target=preload, name="tinygpt-preload", daemon=True).start()
    yield
