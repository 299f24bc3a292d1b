"""The cached model core behind the pages.

Training is deterministic for (text, GPTConfig, TrainConfig), so finished models are shared
process-wide, read-only, keyed by those settings (``st.cache_resource``). A session's own model
is the last one its training job finished; before that, pages use the default (seed) model,
trained once per process.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import streamlit as st

from tinygpt.attention import AttentionTrace
from tinygpt.config import DEFAULT_GPT, DEFAULT_TRAIN, SEED_TEXT, GPTConfig, TrainConfig
from tinygpt.train import TrainedModel, train

ModelKey = tuple[str, GPTConfig, TrainConfig]


@dataclass
class ModelShelf:
    """Process-wide store of finished models, keyed by (text, GPTConfig, TrainConfig)."""

    models: dict[ModelKey, TrainedModel] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, key: ModelKey) -> TrainedModel | None:
        with self.lock:
            return self.models.get(key)

    def put(self, key: ModelKey, tm: TrainedModel) -> None:
        with self.lock:
            self.models.setdefault(key, tm)


@st.cache_resource(show_spinner=False)
def shelf() -> ModelShelf:
    """The one ModelShelf of this server process."""
    return ModelShelf()


def model_key(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> ModelKey:
    """Cache key of a training run's result."""
    return (text, gpt_cfg, train_cfg)


@st.cache_resource(show_spinner=False)
def default_model() -> TrainedModel:
    """The seed settings' model (你好世界, 512/8/6/2048, Adam 1e-4, early stop), trained once per process."""
    tm = train(SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN)
    shelf().put(model_key(SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN), tm)
    return tm


def current_model() -> tuple[TrainedModel, bool]:
    """(the model this session's pages use, True if it is the session's own)."""
    own = st.session_state.get("own_model")
    if own is not None:
        return own, True
    from tinygpt.ui.i18n import tr

    with st.spinner(tr("model.loading")):
        return default_model(), False


def set_own_model(tm: TrainedModel) -> None:
    """Make ``tm`` this session's model (it is finished and never trained further)."""
    st.session_state["own_model"] = tm


@st.cache_resource(max_entries=32, show_spinner=False)
def attention_trace(_tm: TrainedModel, model_uid: str, text: str, layer: int) -> AttentionTrace:
    """The model's own attention trace of ``text`` at ``layer`` (default switches), cached.

    ``model_uid`` (TrainedModel.uid) is the cache key for the unhashable ``_tm``.
    Pages derive what-if traces from it with ``AttentionTrace.with_switches``.
    """
    ids = _tm.vocab.encode(text)[None]  # (1, T)
    trace = _tm.model.trace(ids, layer)
    trace.tokens = list(text)
    return trace
