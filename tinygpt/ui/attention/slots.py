"""The step view's elements keep their places from step to step.

Streamlit's browser side matches a part's elements by their position: when a step leaves out an
element another step draws (a caption only step 4 has, the output picker of the steps with three
outputs), every later element moves up one place and the browser draws them all anew (their
formulas typeset again, the heatmap set up from scratch). Drawing an empty placeholder
(``st.empty()``, not shown and taking no space) where a step has nothing keeps every step's
elements in the same places, so a move to the next step only updates what changed.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st


def drawn_or_empty(shown: bool, draw: Callable[[], object]) -> None:
    """``draw()`` (one element) when ``shown``, else an empty placeholder in its place."""
    if shown:
        draw()
    else:
        st.empty()


def empty_slots(n: int) -> None:
    """``n`` empty placeholders: the places of elements this view does not draw."""
    for _ in range(n):
        st.empty()
