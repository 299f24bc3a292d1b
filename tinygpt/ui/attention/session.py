"""What the Attention page keeps between runs that no widget owns: the model it showed last, the
text its cell pickers index into, the shown model's trained mask, the student's prediction marks
before their last change and the prediction scored, and a refused score's message. They live in
one :class:`AttentionSession` under one private key."""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

import streamlit as st


@dataclass
class AttentionSession:
    """The Attention page's values that no widget owns, as this browser session keeps them."""

    model_uid: str | None = None  # the model the page showed last
    picker_text: str | None = None  # the text the cell pickers index into
    trained_mask: bool = True  # the causal mask the shown model was trained with
    marks_before: list[str] | None = None  # the marks before the multiselect's last change
    marks_scored: str | None = None  # the id of the prediction recorded since the last return to the model's own
    edit_refused: str | None = None  # the message for a score the editor refused, shown once

    def take_edit_refused(self) -> str | None:
        """:attr:`edit_refused`, once (cleared as it is read)."""
        refused, self.edit_refused = self.edit_refused, None
        return refused


#: The one session key the Attention page's own values live under.
K_ATTENTION_SESSION = "_attn"


def attention_session(state: MutableMapping[str, Any] | None = None) -> AttentionSession:
    """This session's :class:`AttentionSession`, made on first use; ``state``: the session state to
    look in (default ``st.session_state``; a test passes its ``AppTest.session_state``)."""
    ss = st.session_state if state is None else state
    if K_ATTENTION_SESSION not in ss:
        ss[K_ATTENTION_SESSION] = AttentionSession()
    return ss[K_ATTENTION_SESSION]
