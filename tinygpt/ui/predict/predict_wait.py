"""The Predict page while its example's model loads: what needs no model is drawn first.

On a fresh server an example's model is loaded or trained in a background thread
(``tinygpt.ui.shared.models.example_model``). The page's title, explanation, prefix box and guess
switch need only the example's text, configuration and vocabulary, which ``tinygpt.examples.EXAMPLES``
holds: :func:`sketch` stands in for the model in them, so they are drawn at once. Where the
predictions go, :func:`loading_note` says the model is loading and reruns the page as soon as it is
ready (the student may type a prefix meanwhile; the predictions then follow it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.examples import EXAMPLES
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.shared.models import example_model
from tinygpt.vocab import CharVocab

#: Seconds between two checks for the model while the page waits for it. A check is a small
#: fragment run (nothing else of the page is redrawn); the full page follows once the model is there.
WAIT_POLL_S = 0.5


def sketch_uid(name: str) -> str:
    """The uid the page gives example ``name``'s model while it loads (its :class:`ExampleSketch`'s):
    ``tinygpt.ui.predict.predict_view.follow_model`` takes the loaded model for the same one."""
    return f"loading:{name}"


@dataclass(frozen=True)
class ExampleSketch:
    """What the Predict page's controls read of a model, for an example whose model is not loaded:
    the ``text``, ``gpt_cfg``, ``train_cfg``, ``vocab`` and ``window`` its model will have (a
    ``tinygpt.training.record.ModelRecord``'s fields of the same names), and no weights."""

    name: str
    text: str
    gpt_cfg: GPTConfig
    train_cfg: TrainConfig
    vocab: CharVocab = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "vocab", CharVocab.from_text(self.text))  # as training builds it

    @property
    def uid(self) -> str:
        """:func:`sketch_uid` of the example."""
        return sketch_uid(self.name)

    @property
    def window(self) -> int:
        """Characters per training sequence (``ModelRecord.window`` of the example's model)."""
        return self.train_cfg.window_for(len(self.text), self.gpt_cfg.max_len)


def sketch(name: str) -> ExampleSketch:
    """The :class:`ExampleSketch` of ``tinygpt.examples.EXAMPLES[name]`` (KeyError for another name)."""
    ex = EXAMPLES[name]
    return ExampleSketch(name, ex.text, ex.gpt, ex.train)


def loading_banner(name: str) -> None:
    """The model line above the page while example ``name``'s model loads: which example and its text."""
    st.caption(tr("predict.loading_banner", name=tr(f"model.choice.{name}"), text=md_escape(EXAMPLES[name].text)))


def loading_note(name: str) -> None:
    """Where the predictions go: the model is loading; the page reruns once it is ready."""
    st.info(tr("predict.model_loading"), icon=":material/hourglass_top:")
    _until_ready(name)


@st.fragment(run_every=WAIT_POLL_S)
def _until_ready(name: str) -> None:
    """Check every :data:`WAIT_POLL_S` seconds; redraw the whole page once the model is ready (or
    its loading failed: the page's run then shows the error)."""
    try:
        ready = example_model(name, wait=False) is not None
    except Exception:  # noqa: BLE001 - the page's own run raises it where it waits for the model
        ready = True
    if ready:
        st.rerun(scope="app")
