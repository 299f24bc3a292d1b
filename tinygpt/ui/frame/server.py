"""What the server does as it starts, before anyone visits: import the app's modules.

A first visit's script run otherwise spends about 2 s importing torch, pandas, Altair and the
app's own modules before it draws anything (torch alone is 1.7 s on a 2-core host). Started from
the :class:`streamlit.App` lifespan (``streamlit_app.py``), :func:`preload` does that work in a
background thread while the server starts serving and the first browser loads Streamlit's
JavaScript; a script run that imports a module the thread is still importing waits for it (Python's
import lock), and never imports anything twice. Before torch, the thread does the few one-offs that
a fresh server's first script run otherwise pays before its "opening" line (:func:`warm_first_run`).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import pkgutil
import sys
import threading
from collections.abc import AsyncIterator

import tinygpt
from tinygpt.classroom.settings import setting_lines

_LOG = logging.getLogger(__name__)

#: Imported first: the heavy libraries every page needs, torch before all (the app's modules
#: import it at their top, so the first page waits for it most).
LIBRARIES = ("torch", "pandas", "pyarrow", "altair")

#: Seconds a thread holds the GIL while another waits for it, during the server's preload
#: (Python's default is 0.005). Importing torch holds the GIL for most of 1.5 s; the server's
#: event loop, which sends the first browser its HTML and JavaScript over many small writes, and
#: the first script run (its "opening" line) wait up to the interval for the GIL after every
#: write. A shorter interval lets them in sooner; the default is restored once the imports are done.
PRELOAD_SWITCH_INTERVAL_S = 0.0005


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
    at once, so the server does not wait for it before it answers. A ``TINYGPT_*`` setting the app
    refuses is logged here, as the server starts (:func:`log_settings`)."""
    log_settings()
    threading.Thread(target=_preload_in_background, name="tinygpt-preload", daemon=True).start()
    yield


def log_settings() -> list[str]:
    """Log each ``TINYGPT_*`` setting the app refuses (:func:`tinygpt.classroom.settings.setting_lines`) as an
    error of the server's log; returns the lines."""
    lines = setting_lines()
    for line in lines:
        _LOG.error("%s", line)
    return lines


def warm_first_run() -> None:
    """The one-offs of a process's first script run, up to the session's "opening" line
    (``navigation.run_app``), done ahead of it: the entry script's own import (by name, as
    :func:`preload` imports), what ``st.set_page_config`` needs for the page icon (NumPy, Pillow
    and its standard image formats, the system's MIME table) and Streamlit's check, on the first
    element a process draws, of whether it runs in a REPL (``inspect.stack()``, which reads the
    source of every frame: about 0.2 s under a script run's deep stack, a few milliseconds in this
    thread). Each step is skipped, logged, if it fails; the first run then does it itself."""
    import mimetypes

    def page_icon() -> None:
        import numpy  # noqa: F401 - Streamlit's image_to_url imports it
        from PIL import Image

        Image.preinit()  # the standard formats' plugins (PNG), which Image.open loads first

    def repl_check() -> None:
        from streamlit import delta_generator

        check = getattr(delta_generator, "_maybe_print_use_warning", None)
        if callable(check):
            check()

    steps = (lambda: importlib.import_module("tinygpt.ui.navigation"), page_icon, mimetypes.init, repl_check)
    for step in steps:
        try:
            step()
        except Exception:  # noqa: BLE001 - an optimisation only
            _LOG.warning("warming the first script run failed", exc_info=True)


def _preload_in_background() -> None:
    """:func:`warm_first_run`, then :func:`preload`, with the GIL handed over more often meanwhile
    (:data:`PRELOAD_SWITCH_INTERVAL_S`)."""
    default = sys.getswitchinterval()
    sys.setswitchinterval(min(default, PRELOAD_SWITCH_INTERVAL_S))
    try:
        warm_first_run()
        preload()
    finally:
        sys.setswitchinterval(default)
