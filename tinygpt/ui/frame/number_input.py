"""A number input whose range is checked by the app, so a refused value is said in the page's language.

``st.number_input(min_value=…, max_value=…)`` refuses a typed value outside its range with a
message of Streamlit's own, in English whatever the page's language. :func:`ranged_number_input`
draws the input without them; its callback refuses such a value, puts back the one in use and
leaves a message (which value, what is accepted, what is kept) that the next run shows under the
input, once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import streamlit as st

from tinygpt.ui.frame.app_session import app_session
from tinygpt.ui.frame.language import tr


def _shown(value: float) -> str:
    """A whole number in full (a seed of 10 digits), any other as ``{:g}``."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}"


def _check(key: str, label: str, lo: float, hi: float, after: Callable[[], None] | None) -> None:
    """The input's callback: ``after()`` for a value in [lo, hi]; otherwise the value in use again and
    the message for the next run."""
    value = st.session_state.get(key)
    if value is not None and math.isfinite(value) and lo <= value <= hi:
        if after is not None:
            after()
        return
    kept = app_session().number_kept[key]
    app_session().number_refused[key] = tr(
        "err.number_refused",
        label=label,
        value="" if value is None else _shown(value),
        lo=_shown(lo),
        hi=_shown(hi),
        kept=_shown(kept),
    )
    st.session_state[key] = kept


def ranged_number_input(
    where: Any,
    label: str,
    key: str,
    lo: float,
    hi: float,
    *,
    on_change: Callable[[], None] | None = None,
    **kwargs: Any,
) -> float:
    """``where.number_input(label, key=key, **kwargs)`` taking values from ``lo`` to ``hi``: a value
    outside them (or an emptied box) is refused in the page's language ("err.number_refused", under
    the input) and the value in use is kept; ``on_change`` runs for an accepted value only. The
    session value of ``key`` must already be in range (a page's default). Returns the value in use."""
    app_session().number_kept[key] = st.session_state.get(key)
    value = where.number_input(label, key=key, on_change=_check, args=(key, label, lo, hi, on_change), **kwargs)
    if (refused := app_session().take_number_refused(key)) is not None:
        where.warning(refused)
    return value
