"""Answers waiting for the store, sent by themselves: a fragment in the sidebar that says how many
wait and tries again every :data:`RETRY_SECONDS`, so a student who stops clicking loses nothing."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.student_state import class_session

#: Seconds between two tries of sending the waiting answers.
RETRY_SECONDS = 5


@st.fragment(run_every=RETRY_SECONDS)
def waiting_answers(send: Callable[[], None], waiting: Callable[[], int], reason: Callable[[], str | None]) -> None:
    """While answers wait: ``send`` them (the store may be back), then say how many still wait
    (``waiting``) and why (``reason``); once they have gone, say so until the next tick."""
    cs = class_session()
    if waiting():
        send()
    left = waiting()
    if left:
        st.warning(tr("class.not_sent", n=left, reason=reason() or "…"), icon=":material/cloud_off:")
    elif cs.waited:
        st.success(tr("class.sent_now"), icon=":material/cloud_done:")
    cs.waited = bool(left)
