"""After a training, on the Train page: does the model rely on attention, and if not, a training
window that would make it (a button that trains again with it)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from tinygpt.explanations.why import suggested_window
from tinygpt.training.record import ModelRecord
from tinygpt.ui.frame.language import tr
from tinygpt.ui.shared.attention_data import reliance
from tinygpt.ui.shared.model_words import reliance_line
from tinygpt.ui.shared.models import K_JOB
from tinygpt.ui.views.lesson import visible
from tinygpt.ui.views.train_table import T_WINDOW


def attention_check(record: ModelRecord, start) -> None:
    """After a training: does the model rely on attention? Uniform attention in every layer
    against its own, on its training windows (``reliance``). When nothing changes, why, and, where
    a training window would make attention matter for this text, a button that trains again
    with it (``start(text, gpt_cfg, train_cfg)`` starts the job, None when refused)."""
    st.markdown(f"**{tr('train.needs_attention')}** {reliance_line(record)}")
    window = suggested_window(record.text, record.gpt_cfg.max_len)
    if reliance(record).changed or window is None or window == record.window or not visible(T_WINDOW):
        return  # (a lesson that locks the window does not offer another one)
    if st.button(tr("train.retrain_window", window=window), key="train_retrain_window", icon=":material/replay:"):
        started = start(record.text, record.gpt_cfg, replace(record.train_cfg, window=window))
        if started is not None:
            st.session_state[K_JOB] = started
            st.session_state[T_WINDOW] = str(window)  # the form shows the settings it trains with
            st.rerun(scope="app")
