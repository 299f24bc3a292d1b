"""The button that shows the context example (where attention decides) on the Predict and Attention pages."""

from __future__ import annotations

import streamlit as st

from tinygpt.ui.frame.language import tr
from tinygpt.ui.shared.models import set_choice


def offer_context_example(key: str = "model_offer_context", help: str | None = None) -> bool:
    """A button that shows the context example on the Predict and Attention pages; True when it
    was pressed, and the caller reruns the whole page (a fragment's rerun would not redraw the
    model choice)."""
    return st.button(
        tr("model.offer_context"),
        icon=":material/swap_horiz:",
        on_click=set_choice,
        args=("context",),
        key=key,
        help=help,
        type="primary",
    )
