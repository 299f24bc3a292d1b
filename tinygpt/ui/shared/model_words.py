"""The model banner's words: which model a page uses, how it was trained, whether it relies on attention.

Pure text in the session's language (``tr``); the banner that draws them is
``tinygpt.ui.choice.model_banner``, and the Train page says the same after a training
(``tinygpt.ui.train.train_reliance``).
"""

from __future__ import annotations

from tinygpt.explanations.why import suggested_window
from tinygpt.training.record import ModelRecord
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.frame.model_session import model_session
from tinygpt.ui.shared.attention_data import reliance


def settings_line(record: ModelRecord) -> str:
    """How the model was trained (the causal mask included), in one line."""
    g, t = record.gpt_cfg, record.train_cfg
    loss = record.losses[-1] if record.losses else float("nan")
    return tr(
        "model.trained",
        d_model=g.d_model,
        n_layers=g.n_layers,
        n_heads=g.n_heads,
        steps=len(record.losses),
        lr=f"{t.lr:g}",
        seed=t.seed,
        window=record.window,
        loss=loss,
        mask=tr("model.mask_on" if t.causal_mask else "model.mask_off"),
    )


def own_kind(record: ModelRecord | None) -> str:
    """What the session's own model ``record`` is to the student: "teacher" when the class's teacher
    leads with it, "link" when a link named it, else "own" (trained or loaded by the student)."""
    session = model_session()
    if record is not None and session.from_teacher == record.uid:
        return "teacher"
    return "link" if record is not None and session.from_link == record.uid else "own"


def describe(record: ModelRecord, choice: str) -> str:
    """The banner's line: which model and its text (how it was trained is :func:`settings_line`)."""
    kind = own_kind(record) if choice == "own" else choice
    g = record.gpt_cfg
    size = tr("model.size", d_model=g.d_model, n_layers=g.n_layers, n_heads=g.n_heads)
    return tr(f"model.banner.{kind}", text=md_escape(record.text), trained=settings_line(record), size=size)


def reliance_line(record: ModelRecord) -> str:
    """Does the model rely on attention? Uniform attention in every layer against its own, on its
    training windows: "changes k of N training predictions", and at k = 0 why."""
    r = reliance(record)
    if r.changed:
        return tr("model.relies", k=r.changed, n=r.total, L=record.gpt_cfg.n_layers)
    window = suggested_window(record.text, record.gpt_cfg.max_len)
    if window is None:
        return tr("model.relies_none_text", n=r.total, L=record.gpt_cfg.n_layers)
    return tr("model.relies_none_window", n=r.total, window=record.window, suggest=window, L=record.gpt_cfg.n_layers)
