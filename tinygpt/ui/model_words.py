"""The model banner's words: which model a page uses, how it was trained, whether it relies on attention.

Pure text in the session's language (``tr``); the banner that draws them is
``tinygpt.ui.model_banner``, and the Train page says the same after a training
(``tinygpt.ui.train_reliance``).
"""

from __future__ import annotations

import streamlit as st

from tinygpt.explanations.why import suggested_window
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention.data import reliance
from tinygpt.ui.language import md_escape, tr

#: The uid of the session's own model when a link named it (a teacher's model, not the student's).
FROM_LINK = "_own_from_link"
#: The uid of the own model when the class's teacher leads with it.
FROM_TEACHER = "_own_from_teacher"


def settings_line(tm: ModelRecord) -> str:
    """How the model was trained (the causal mask included), in one line."""
    g, t = tm.gpt_cfg, tm.train_cfg
    loss = tm.losses[-1] if tm.losses else float("nan")
    return tr(
        "model.trained",
        d_model=g.d_model,
        n_layers=g.n_layers,
        n_heads=g.n_heads,
        steps=len(tm.losses),
        lr=f"{t.lr:g}",
        seed=t.seed,
        window=tm.window,
        loss=loss,
        mask=tr("model.mask_on" if t.causal_mask else "model.mask_off"),
    )


def own_kind(tm: ModelRecord | None) -> str:
    """What the session's own model ``tm`` is to the student: "teacher" when the class's teacher
    leads with it, "link" when a link named it, else "own" (trained or loaded by the student)."""
    if tm is not None and st.session_state.get(FROM_TEACHER) == tm.uid:
        return "teacher"
    return "link" if tm is not None and st.session_state.get(FROM_LINK) == tm.uid else "own"


def describe(tm: ModelRecord, choice: str) -> str:
    """The banner's line: which model and its text (how it was trained is :func:`settings_line`)."""
    kind = own_kind(tm) if choice == "own" else choice
    g = tm.gpt_cfg
    size = tr("model.size", d_model=g.d_model, n_layers=g.n_layers, n_heads=g.n_heads)
    return tr(f"model.banner.{kind}", text=md_escape(tm.text), trained=settings_line(tm), size=size)


def reliance_line(tm: ModelRecord) -> str:
    """Does the model rely on attention? Uniform attention in every layer against its own, on its
    training windows: "changes k of N training predictions", and at k = 0 why."""
    r = reliance(tm)
    if r.changed:
        return tr("model.relies", k=r.changed, n=r.total, L=tm.gpt_cfg.n_layers)
    window = suggested_window(tm.text, tm.gpt_cfg.max_len)
    if window is None:
        return tr("model.relies_none_text", n=r.total, L=tm.gpt_cfg.n_layers)
    return tr("model.relies_none_window", n=r.total, window=tm.window, suggest=window, L=tm.gpt_cfg.n_layers)
