"""Answers waiting for the store, sent by themselves: a fragment in the sidebar that says how many
wait and tries again every :data:`RETRY_SECONDS`, so a student who stops clicking loses nothing."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from tinygpt.ui.language import tr

#: Seconds between two tries of sending the waiting answers.
RETRY_SECONDS = 5
K_WAITED = "_class_waited"  # answers waited at the last try (the next says they have been sent)


@st.fragment(run_every=RETRY_SECONDS)
def waiting_answers(send: Callable[[], None], waiting: Callable[[], int], reason: Callable[[], str | None]) -> None:
    """While answers wait: ``send`` them (the store may be back), then say how many still wait
    (``waiting``) and why (``reason``); once they have gone, say so until the next tick."""
    ss = st.session_state
    if waiting():
        send()
    left = waiting()
    if left:
        st.warning(tr("class.not_sent", n=left, reason=reason() or "…"), icon=":material/cloud_off:")
    elif ss.get(K_WAITED):
        st.success(tr("class.sent_now"), icon=":material/cloud_done:")
    ss[K_WAITED] = bool(left)
