"""The Streamlit side of the models behind the pages: the process-wide shelf, the session's model.

Finished models are shared process-wide, read-only, on one ``tinygpt.training.jobs.ModelShelf`` (an
``st.cache_resource``). A session's own model is the last one its training job finished (or a
checkpoint it uploaded, or the model of a link it opened); before that, pages use the default
(seed) model. The examples' models (the default is the textbook example) are trained once per
process in background threads started with the first page (``start_default_model``), so no page
waits for them unless it needs them. Which of them the Predict and Attention pages show is the
session's choice (``tinygpt.ui.choice.model_choice``). Nothing a session does changes a model another session
sees: shared
models are frozen, the Trainer refuses them, and uploads stay in the session that made them.
"""

from __future__ import annotations

import streamlit as st

from tinygpt.attention import AttentionTrace, Switches
from tinygpt.config import ConfigError
from tinygpt.examples import EXAMPLES
from tinygpt.explanations.explain import trace_of
from tinygpt.training.jobs import ModelShelf, default_training, example_training
from tinygpt.training.model_library import ModelLibrary
from tinygpt.training.record import ModelRecord
from tinygpt.ui.frame.class_store import class_store
from tinygpt.ui.frame.controls import K_MODEL
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.model_session import model_session


@st.cache_resource(show_spinner=False)
def shelf() -> ModelShelf:
    """The one ModelShelf of this server process, backed by the shipped models and the class store
    (``tinygpt.training.model_library``): every server sharing the store hands out the same weights."""
    try:
        store = class_store()
    except ConfigError:  # a malformed TINYGPT_ANSWER_DAYS: the class pages say so; models stay this server's
        store = None
    return ModelShelf(library=ModelLibrary(store))


#: Session key of the model choice (textbook / context / own), shared by the Predict and Attention pages.
K_JOB = "job"  # the session's training job (tinygpt.training.jobs.TrainingJob): no widget owns it
K_OWN = "own_model"  # the session's own trained model (ModelRecord): no widget owns it


def start_default_model() -> None:
    """Begin training every example's model (the default first) at process start if it has not
    begun (returns at once)."""
    for name in EXAMPLES:
        example_training(name, shelf())


def example_model(name: str, wait: bool = True) -> ModelRecord | None:
    """The model of ``EXAMPLES[name]``, trained once per process; None while it trains if not ``wait``."""
    future = example_training(name, shelf())
    if not wait and not future.done():
        return None
    if not future.done():
        with st.spinner(tr("model.loading_example", name=tr(f"model.choice.{name}"))):
            return future.result()
    return future.result()


def session_token() -> str:
    """This session's token: it marks the training jobs the session started (``TrainingJob.owner``)."""
    return model_session().token


def set_choice(name: str) -> None:
    """Make ``name`` (context / textbook / own) the model the Predict and Attention pages show.

    Call before the choice control is drawn in this run (a callback, or earlier in the script).
    """
    st.session_state[K_MODEL] = name


def default_model_ready() -> bool:
    """True once the default model is trained (or its training failed: ``default_model`` raises)."""
    return default_training(shelf()).done()


def default_model() -> ModelRecord:
    """The seed settings' model (你好世界, 512/8/6/2048, Adam 1e-4, early stop), trained once per process.

    Waits for the warm-up thread started by ``start_default_model`` (starting it if needed).
    """
    return default_training(shelf()).result()


def current_model(wait: bool = True) -> tuple[ModelRecord | None, bool]:
    """(the model this session's pages use, True if it is the session's own).

    A training job that finished while the student was on another page is adopted here, so
    every page uses the latest finished model. With ``wait=False`` the result is (None, False)
    while the default model is still being trained, instead of waiting for it.
    """
    job = st.session_state.get(K_JOB)
    finished = job.finished_model() if job is not None and hasattr(job, "finished_model") else None
    session = model_session()
    if finished is not None and session.adopted != finished.uid:
        session.adopted = finished.uid
        set_own_model(finished)
    own = st.session_state.get(K_OWN)
    if own is not None:
        return own, True
    if not wait and not default_model_ready():
        return None, False
    if default_model_ready():
        return default_model(), False
    with st.spinner(tr("model.loading")):
        return default_model(), False


def set_own_model(record: ModelRecord) -> None:
    """Make ``record`` this session's model (it is finished and never trained further) and the one
    the Predict and Attention pages show."""
    st.session_state[K_OWN] = record
    set_choice("own")


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs={ModelRecord: lambda record: record.uid})
def attention_trace(record: ModelRecord, text: str, layer: int, earlier: Switches | None = None) -> AttentionTrace:
    """The attention trace of ``text`` at ``layer`` under the default switches there, the blocks before
    it under ``earlier`` (the switches of "all layers"; None: the model's own attention, the causal mask
    as it trained), cached.

    The cache knows a model by its ``uid``. Pages derive what-if traces from it with
    ``AttentionTrace.with_switches``.
    """
    ids = record.vocab.encode(text)[None]  # (1, T)
    own = Switches(causal_mask=record.train_cfg.causal_mask)
    trace = trace_of(record.model, ids, layer, earlier=own if earlier is None else earlier)
    trace.tokens = list(text)
    return trace
