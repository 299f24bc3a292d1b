"""The Predict page while its example's model loads: what needs no model is drawn first.

On a fresh server an example's model is loaded or trained in a background thread
(``tinygpt.ui.shared.models.example_model``). The page's title, explanation, prefix box and guess
switch need only the example's text, configuration and vocabulary, which ``tinygpt.examples.EXAMPLES``
holds: :func:`sketch` stands in for the model in them, so they are drawn at once. Where the
predictions go, :func:`wait_for_model` says the model is loading while the run waits for it; the
predictions follow in the same run (the student may type a prefix meanwhile; the predictions then
follow it).
"""

from __future__ import annotations

import time
from concurrent.futures import wait
from dataclasses import dataclass, field

import streamlit as st

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.examples import EXAMPLES
from tinygpt.training.jobs import example_training
from tinygpt.training.record import ModelRecord
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.shared.models import shelf
from tinygpt.vocab import CharVocab

#: Seconds a page run waits for the model, its controls drawn, before it ends and leaves the waiting
#: to :func:`_until_ready` (a model trained on a slow or busy server).
WAIT_IN_RUN_S = 120.0
#: Seconds between two checks for the model once the run has ended: a small fragment run each
#: (nothing else of the page is redrawn); the full page follows once the model is there.
POLL_S = 1.0


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


def wait_for_model(name: str) -> ModelRecord | None:
    """Where the predictions go: "the model is loading" (with the seconds waited, renewed every
    second) until example ``name``'s model is ready, then its record (the note removed). A
    model not ready within :data:`WAIT_IN_RUN_S` gives None: the note stays and the page reruns by
    itself once the model is ready (the caller stops the run). A training error is raised here, as
    ``tinygpt.ui.shared.models.example_model`` raises it.

    Each renewal of the note lets Streamlit end this run for a newer one (the student typed a prefix
    or left the page), so waiting never holds back a student's input by more than a second.
    """
    future = example_training(name, shelf())
    note, start = st.empty(), time.monotonic()
    while not future.done():
        waited = time.monotonic() - start
        note.info(tr("predict.model_loading", seconds=int(waited)), icon=":material/hourglass_top:")
        if waited >= WAIT_IN_RUN_S:
            _until_ready(name)
            return None
        wait([future], timeout=min(1.0, WAIT_IN_RUN_S - waited))
    note.empty()
    return future.result()


@st.fragment(run_every=POLL_S)
def _until_ready(name: str) -> None:
    """Check every :data:`POLL_S` seconds; redraw the whole page once the model is ready (or its
    loading failed: the page's run then shows the error)."""
    if example_training(name, shelf()).done():
        st.rerun(scope="app")
