"""What the session keeps of its models between runs, that no widget owns: the choice the pages
showed last (``tinygpt.ui.choice.model_choice``), the model each page showed last, where the session's own
model came from (``tinygpt.ui.shared.model_words``), an opened link's training and its messages, the
finished training last adopted and the token that marks the session's trainings
(``tinygpt.ui.shared.models``). They live in one :class:`ModelSession` under one private key.

A leaf of the Streamlit layer (it imports no other UI module). The model choice itself is a
widget's value (``tinygpt.ui.frame.controls.K_MODEL``); the session's training job and own model are
``tinygpt.ui.shared.models.K_JOB`` and ``K_OWN``.
"""

from __future__ import annotations

import uuid
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st


@dataclass
class ModelSession:
    """The session's models as this browser session keeps them (no widget owns any of it)."""

    shown: str | None = None  # the choice the pages showed last: what a control that comes back without a value shows
    predict_uid: str | None = None  # the uid of the model the Predict page showed last
    from_link: str | None = None  # the uid of the own model when a link named it (a teacher's model)
    from_teacher: str | None = None  # the uid of the own model when the class's teacher leads with it
    link_job: str | None = None  # the job id of an opened link's training, until it is adopted
    link_messages: list[str] = field(default_factory=list)  # what the last link opened said (refused settings)
    adopted: str | None = None  # the uid of the finished training last made the session's own model
    token: str = field(default_factory=lambda: uuid.uuid4().hex)  # marks the trainings the session started

    def take_link_messages(self) -> list[str]:
        """:attr:`link_messages`, once (cleared as they are read)."""
        messages, self.link_messages = self.link_messages, []
        return messages


#: The one session key the session's models' own values live under.
K_MODEL_SESSION = "_models"


def model_session(state: MutableMapping[str, Any] | None = None) -> ModelSession:
    """This session's :class:`ModelSession`, made on first use; ``state``: the session state to
    look in (default ``st.session_state``; a test passes its ``AppTest.session_state``)."""
    ss = st.session_state if state is None else state
    if K_MODEL_SESSION not in ss:
        ss[K_MODEL_SESSION] = ModelSession()
    return ss[K_MODEL_SESSION]
