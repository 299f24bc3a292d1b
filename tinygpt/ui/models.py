"""The cached model core behind the pages.

Training is deterministic for (text, GPTConfig, TrainConfig), so finished models are shared
process-wide, read-only (``TrainedModel.freeze``), keyed by those settings (``st.cache_resource``).
A session's own model is the last one its training job finished (or a checkpoint it uploaded);
before that, pages use the default (seed) model, trained once per process in a background thread
started with the first page (``start_default_model``), so no page waits for it unless it needs it. Nothing a session
does changes a model another session sees: shared models are frozen, the Trainer refuses them,
and uploads stay in the session that made them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass, field

import streamlit as st

from tinygpt.attention import AttentionTrace
from tinygpt.config import DEFAULT_GPT, DEFAULT_TRAIN, SEED_TEXT, GPTConfig, TrainConfig
from tinygpt.explain import trace_of
from tinygpt.train import TrainedModel, train

ModelKey = tuple[str, GPTConfig, TrainConfig]

#: The shelf keeps finished models up to this many parameters in all (float32: × 4 bytes),
#: dropping the least recently used; sessions still holding a dropped model keep it.
MAX_SHELF_PARAMETERS = 60_000_000


@dataclass
class ModelShelf:
    """Process-wide store of finished, frozen models, keyed by (text, GPTConfig, TrainConfig), LRU."""

    models: OrderedDict[ModelKey, TrainedModel] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    max_parameters: int = MAX_SHELF_PARAMETERS

    def get(self, key: ModelKey) -> TrainedModel | None:
        """The model trained with these settings, or None."""
        with self.lock:
            tm = self.models.get(key)
            if tm is not None:
                self.models.move_to_end(key)
            return tm

    def put(self, key: ModelKey, tm: TrainedModel) -> TrainedModel:
        """Store ``tm`` (frozen) unless the key is there; return the stored model for the key."""
        with self.lock:
            if key in self.models:
                self.models.move_to_end(key)
                return self.models[key]
            self.models[key] = tm.freeze()
            total = sum(m.gpt_cfg.n_parameters() for m in self.models.values())
            while total > self.max_parameters and len(self.models) > 1:
                _, old = self.models.popitem(last=False)
                total -= old.gpt_cfg.n_parameters()
            return tm


@st.cache_resource(show_spinner=False)
def shelf() -> ModelShelf:
    """The one ModelShelf of this server process."""
    return ModelShelf()


def model_key(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> ModelKey:
    """Cache key of a training run's result (the vocab size follows from the text)."""
    from tinygpt.vocab import CharVocab

    vocab_size = len(CharVocab.from_text(text))
    if gpt_cfg.vocab_size != vocab_size:
        gpt_cfg = GPTConfig(**{**gpt_cfg.to_dict(), "vocab_size": vocab_size})
    return (text, gpt_cfg, train_cfg)


def _train_default(models: ModelShelf, future: Future[TrainedModel]) -> None:
    """Train the seed settings' model and put it on ``models`` (runs in the warm-up thread)."""
    try:
        tm = train(SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN)
        future.set_result(models.put(model_key(SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN), tm))
    except BaseException as exc:  # the pages re-raise it where they wait for the model
        future.set_exception(exc)


@st.cache_resource(show_spinner=False)
def _default_training() -> Future[TrainedModel]:
    """Start training the default model in a background thread, once per process; its Future.

    The thread uses ``tinygpt.train.TRAIN_THREADS`` (one core), so the first page renders on the
    other core meanwhile instead of waiting for the model (about 1–2.5 s for the seed config).
    """
    future: Future[TrainedModel] = Future()
    future.set_running_or_notify_cancel()
    threading.Thread(target=_train_default, args=(shelf(), future), name="tinygpt-default-model", daemon=True).start()
    return future


def start_default_model() -> None:
    """Begin training the default model at process start if it has not begun (returns at once)."""
    _default_training()


def default_model_ready() -> bool:
    """True once the default model is trained (or its training failed: ``default_model`` raises)."""
    return _default_training().done()


def default_model() -> TrainedModel:
    """The seed settings' model (你好世界, 512/8/6/2048, Adam 1e-4, early stop), trained once per process.

    Waits for the warm-up thread started by ``start_default_model`` (starting it if needed).
    """
    return _default_training().result()


def current_model(wait: bool = True) -> tuple[TrainedModel | None, bool]:
    """(the model this session's pages use, True if it is the session's own).

    A training job that finished while the student was on another page is adopted here, so
    every page uses the latest finished model. With ``wait=False`` the result is (None, False)
    while the default model is still being trained, instead of waiting for it.
    """
    job = st.session_state.get("job")
    finished = job.finished_model() if job is not None and hasattr(job, "finished_model") else None
    if finished is not None and st.session_state.get("_adopted_job_model") != finished.uid:
        st.session_state["_adopted_job_model"] = finished.uid
        set_own_model(finished)
    own = st.session_state.get("own_model")
    if own is not None:
        return own, True
    if not wait and not default_model_ready():
        return None, False
    if default_model_ready():
        return default_model(), False
    from tinygpt.ui.i18n import tr

    with st.spinner(tr("model.loading")):
        return default_model(), False


def set_own_model(tm: TrainedModel) -> None:
    """Make ``tm`` this session's model (it is finished and never trained further)."""
    st.session_state["own_model"] = tm


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs={TrainedModel: lambda tm: tm.uid})
def attention_trace(tm: TrainedModel, text: str, layer: int) -> AttentionTrace:
    """The model's own attention trace of ``text`` at ``layer`` (default switches), cached per
    model (its ``uid``), text and layer.

    Pages derive what-if traces from it with ``AttentionTrace.with_switches``.
    """
    trace = trace_of(tm.model, tm.vocab.encode(text)[None], layer)
    trace.tokens = list(text)
    return trace
