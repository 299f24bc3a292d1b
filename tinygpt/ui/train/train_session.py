"""What the Train page keeps between runs that no widget owns: the form as last read and the
page's defaults (its ``form=`` link), a ``trained=`` model to bring back, how many uploaded files
were read, the upload's message and the settings it brings to the form, and a Stop's or Reset's
notice. They live in one :class:`TrainSession` under one private key."""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import streamlit as st

if TYPE_CHECKING:
    from tinygpt.config import GPTConfig, TrainConfig


@dataclass
class TrainSession:
    """The Train page's values that no widget owns, as this browser session keeps them."""

    #: (text, configs) of the form as last read (configs None while it holds refused settings).
    form: tuple[str, tuple[GPTConfig, TrainConfig] | None] | None = None
    defaults: dict[str, object] = field(default_factory=dict)  # the page's default widget values
    wanted: tuple[str, GPTConfig, TrainConfig] | None = None  # the settings of a trained= just read
    uploads_read: int = 0  # uploaded files read (each gives the uploader a new key)
    upload_message: tuple[str, str] | None = None  # ("success" or "error", text) of the last upload
    #: The settings of a checkpoint just loaded, {widget key: value}: put in the form before its widgets.
    loaded_form: dict[str, object] = field(default_factory=dict)
    notice: str | None = None  # the message a Stop or Reset left for the next run, shown once

    def take_wanted(self) -> tuple[str, GPTConfig, TrainConfig] | None:
        """:attr:`wanted`, once (cleared as it is read)."""
        wanted, self.wanted = self.wanted, None
        return wanted

    def take_loaded_form(self) -> dict[str, object]:
        """:attr:`loaded_form`, once (cleared as it is read)."""
        loaded, self.loaded_form = self.loaded_form, {}
        return loaded

    def take_notice(self) -> str | None:
        """:attr:`notice`, once (cleared as it is read)."""
        notice, self.notice = self.notice, None
        return notice


#: The one session key the Train page's own values live under.
K_TRAIN_SESSION = "_train"


def train_session(state: MutableMapping[str, Any] | None = None) -> TrainSession:
    """This session's :class:`TrainSession`, made on first use; ``state``: the session state to
    look in (default ``st.session_state``; a test passes its ``AppTest.session_state``)."""
    ss = st.session_state if state is None else state
    if K_TRAIN_SESSION not in ss:
        ss[K_TRAIN_SESSION] = TrainSession()
    return ss[K_TRAIN_SESSION]
