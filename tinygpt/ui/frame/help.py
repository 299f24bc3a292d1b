"""A switch with its help beside it, not in its label: ``st.toggle(help=…)`` draws its ``?`` inside the
switch's ``<label>``, so a tap on the ``?`` (a phone has no hover) flips the switch and shows nothing.
Here the help is its own small button, a popover that opens on a tap and changes nothing."""

from __future__ import annotations

from typing import Any

import streamlit as st

#: The prefix of a help button's key; the style sheet gives every such button a 44 × 44 px tap target.
HELP_KEY_PREFIX = "help_"


def help_button(text: str, key: str) -> None:
    """A ``?`` button (keyed ``help_<key>``) whose tap shows ``text`` (Markdown) in a popover."""
    with st.popover("", icon=":material/help:", type="tertiary", key=HELP_KEY_PREFIX + key):
        st.markdown(text)


def help_toggle(label: str, help: str, key: str, **toggle: Any) -> bool:
    """``st.toggle(label, key=key, **toggle)`` with :func:`help_button` of ``help`` right after it, on
    one line; returns the switch's value."""
    with st.container(horizontal=True, gap=None, vertical_alignment="center", width="content"):
        value = st.toggle(label, key=key, **toggle)
        help_button(help, key)
    return value
