"""The Streamlit side of the models behind the pages: the process-wide shelf, the session's model.

Finished models are shared process-wide, read-only, on one ``tinygpt.jobs.ModelShelf`` (an
``st.cache_resource``). A session's own model is the last one its training job finished (or a
checkpoint it uploaded); before that, pages use the default (seed) model, trained once per process
in a background thread started with the first page (``start_default_model``), so no page waits
for it unless it needs it. Nothing a session does changes a model another session sees: shared
models are frozen, the Trainer refuses them, and uploads stay in the session that made them.
"""

from __future__ import annotations

import streamlit as st

from tinygpt.attention import AttentionTrace
from tinygpt.explain import trace_of
from tinygpt.jobs import ModelShelf, default_training
from tinygpt.record import TrainedModel


@st.cache_resource(show_spinner=False)
def shelf() -> ModelShelf:
    """The one ModelShelf of this server process."""
    return ModelShelf()


def start_default_model() -> None:
    """Begin training the default model at process start if it has not begun (returns at once)."""
    default_training(shelf())


def default_model_ready() -> bool:
    """True once the default model is trained (or its training failed: ``default_model`` raises)."""
    return default_training(shelf()).done()


def default_model() -> TrainedModel:
    """The seed settings' model (你好世界, 512/8/6/2048, Adam 1e-4, early stop), trained once per process.

    Waits for the warm-up thread started by ``start_default_model`` (starting it if needed).
    """
    return default_training(shelf()).result()


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
    """The model's own attention trace of ``text`` at ``layer`` (default switches), cached.

    The cache knows a model by its ``uid``. Pages derive what-if traces from it with
    ``AttentionTrace.with_switches``.
    """
    ids = tm.vocab.encode(text)[None]  # (1, T)
    trace = trace_of(tm.model, ids, layer)
    trace.tokens = list(text)
    return trace
