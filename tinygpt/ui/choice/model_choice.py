"""Which model the Predict and Attention pages show, and links that carry it.

One control (``model_choice``, shared by both pages, so the choice follows the student) chooses
the textbook example, the context example or the session's own model (offered once the session
has one: trained, loaded from a file or opened from a link). The choice is kept in the URL:

- ``model=textbook|context|own``; ``own`` in a session without a model of its own shows the
  textbook example and says so;
- ``train=v1;…;text=…`` (``tinygpt.training.links``) beside ``model=own``: the settings of that model.
  Opening such a link takes the model from the server's shelf or trains it as a job (one training
  for equal requests: sessions opening the same link while it trains watch that one run), with
  its progress and place in line, and then shows the page's view. Settings that are refused get
  a message naming the value and what is accepted; the page works on with the textbook example.

:func:`resolve_link` reads the link before each page runs (``tinygpt.ui.navigation.run_app``);
:func:`choose_model` draws the control and returns the model. The banner that names the model is
``tinygpt.ui.choice.model_banner``, the link for a class ``tinygpt.ui.teacher.class_link``, the button to the
context example ``tinygpt.ui.shared.context_button``.
"""

from __future__ import annotations

import streamlit as st

from tinygpt.config import ConfigError
from tinygpt.examples import EXAMPLES
from tinygpt.params import read_choice
from tinygpt.training.jobs import JobRefusedError, JobStatus, ModelKey, model_key
from tinygpt.training.links import decode_train, encode_train, reproducible_settings
from tinygpt.training.record import ModelRecord, StopReason
from tinygpt.ui.frame import url
from tinygpt.ui.frame.controls import K_MODEL
from tinygpt.ui.frame.language import error_text, md_escape, tr
from tinygpt.ui.frame.model_session import model_session
from tinygpt.ui.shared import models
from tinygpt.ui.shared.common import resend
from tinygpt.ui.shared.model_words import own_kind
from tinygpt.ui.shared.models import (
    current_model,
    example_model,
    session_token,
    set_choice,
    set_own_model,
)
from tinygpt.ui.train.training_jobs import MAX_CONCURRENT_JOBS, POLL_SECONDS, start_job
from tinygpt.ui.views.lesson import visible

#: The choices, in the control's order: the page opens where attention decides (the context
#: example); "own" is offered only when the session has a model of its own.
CHOICES: tuple[str, ...] = ("context", "textbook", "own")
#: The choice of a session's first visit.
FIRST_CHOICE = "context"


# ---------------------------------------------------------------- reading a link (before the page runs)


def _read_model(raw: str, notes: list[str]) -> dict:
    choice = read_choice(raw, "model", {c: c for c in CHOICES})
    set_choice(str(choice))
    return {}


def _write_model(ss) -> str | None:
    return ss.get(K_MODEL)


def _read_train(raw: str, notes: list[str]) -> dict:
    open_train_link(raw)
    return {}


def _write_train(ss) -> str | None:
    own = ss.get(models.K_OWN)
    settings = reproducible_settings(own) if own is not None and ss.get(K_MODEL) == "own" else None
    return encode_train(*settings) if settings is not None else None


#: The model in the URL, on every page that shows one: ``model=`` (the choice) and, for an own
#: model that training reproduces, ``train=`` (its settings).
MODEL_PARAMS = (
    url.Param("model", _read_model, _write_model, "link.bad_model"),
    url.Param("train", _read_train, _write_train),
)


def resolve_link() -> None:
    """Apply the URL's ``model=`` and ``train=`` when they are new to this session (a link was
    opened or changed), and adopt the model of a link's finished training. Cheap when nothing changed."""
    for message in url.load("model", MODEL_PARAMS):
        _say(message)
    adopt_link_job()


def _say(message: str) -> None:
    model_session().link_messages.append(message)


def open_train_link(spec: str) -> None:
    """Take the model of a ``train=`` link from the shelf, or start (or join) its training."""
    ss = st.session_state
    try:
        text, gpt_cfg, train_cfg = decode_train(spec)
    except ConfigError as exc:
        _say(tr("link.bad", error=error_text(exc).rstrip(".。")))
        set_choice("textbook")
        return
    key = model_key(text, gpt_cfg, train_cfg)
    for name, ex in EXAMPLES.items():  # an example's settings: the example itself
        if model_key(ex.text, ex.gpt, ex.train) == key:
            set_choice(name)
            return
    own = ss.get(models.K_OWN)
    if own is not None and key_of(own) == key:
        set_choice("own")
        return
    job = ss.get(models.K_JOB)
    if job is not None and job.active and model_key(job.text, job.gpt_cfg, job.train_cfg) != key:
        _say(tr("link.busy"))
        return
    try:
        job = start_job(text, gpt_cfg, train_cfg)
    except JobRefusedError as exc:  # memory or the line is full: the textbook example meanwhile
        _say(tr("link.failed", reason=error_text(exc)))
        set_choice("textbook")
        return
    ss[models.K_JOB] = job
    model_session().link_job = job.job_id  # adopted when it ends (adopt_link_job)
    set_choice("own")


def key_of(record: ModelRecord) -> ModelKey | None:
    """The shelf's key of ``record``'s settings (``tinygpt.training.jobs.model_key``), or None when
    training cannot rebuild it."""
    settings = reproducible_settings(record)
    return model_key(*settings) if settings is not None else None


def adopt_link_job() -> None:
    """A link's training that ended: its model becomes the session's (even one whose loss rose:
    it is the model the link names), or a message and the textbook example if it left none."""
    session = model_session()
    job = st.session_state.get(models.K_JOB)
    if session.link_job is None or job is None or job.job_id != session.link_job or job.active:
        return
    session.link_job = None
    if job.status == JobStatus.DONE:
        set_own_model(job.result)
        session.from_link = job.result.uid
    else:
        reason = error_text(job.error) if job.error is not None else tr(f"train.reason.{StopReason.STOPPED}")
        _say(tr("link.failed", reason=reason))
        set_choice("textbook")


def pending_link_job():
    """The training job of an opened link that has not ended, or None."""
    job = st.session_state.get(models.K_JOB)
    if job is not None and job.active and job.job_id == model_session().link_job:
        return job
    return None


# ---------------------------------------------------------------- the control and the model it chooses


def choose_model(wait: bool = True) -> tuple[ModelRecord | None, str]:
    """Draw the model choice and return (the chosen model, its choice: context / textbook / own).

    While an opened link's model trains, draws its progress instead and stops the page (it reruns
    by itself when the model is ready). Keeps ``model=``/``train=`` in the URL. ``wait=False``: an
    example whose model is still loading or training gives None at once (the page draws what needs
    no model meanwhile); with ``wait`` the run waits for it under a spinner.
    """
    ss, session = st.session_state, model_session()
    show_messages()
    if pending_link_job() is not None:
        _link_progress()
        st.stop()
    own, has_own = current_model(wait=False)
    if ss.get(K_MODEL) not in CHOICES:  # the first visit, or the control's state was lost
        set_choice(session.shown or first_choice())
    if ss[K_MODEL] == "own" and not has_own:
        st.info(tr("model.own_missing"))
        set_choice("textbook")
    options = CHOICES if has_own else CHOICES[:2]
    labels = {c: tr(f"model.choice.{own_kind(own) if c == 'own' else c}") for c in CHOICES}  # not in format_func
    if visible(K_MODEL):
        resend(K_MODEL)  # drawn on another page than last time: the browser shows the kept choice again
        st.segmented_control(
            tr("model.choice"),
            options,
            format_func=labels.get,
            required=True,
            key=K_MODEL,
            persist_state="session",
            label_visibility="collapsed",
        )
    choice = ss[K_MODEL] if ss.get(K_MODEL) in options else session.shown or FIRST_CHOICE
    session.shown = choice  # what a control that comes back without a value shows
    record = own if choice == "own" else example_model(choice, wait)
    url.save("model", MODEL_PARAMS)
    return record, choice


def first_choice() -> str:
    """The model a session's first visit shows: the context example, where attention decides,
    unless the link names a text (``text=``, ``prefix=``) that only the textbook example can read
    (a link made before the pages opened on the context example)."""
    linked = url.peek("text") or url.peek("prefix") or ""
    context, textbook = (set(EXAMPLES[name].text) for name in ("context", "textbook"))
    if linked and not set(linked) <= context and set(linked) <= textbook:
        return "textbook"
    return FIRST_CHOICE


def show_messages() -> None:
    """The messages of the last link opened (refused settings, a failed training), once."""
    for message in model_session().take_link_messages():
        st.warning(message)


@st.fragment(run_every=POLL_SECONDS)
def _link_progress() -> None:
    """The link's training as it goes (place in line, step, loss); reruns the page when it ends."""
    job = st.session_state.get(models.K_JOB)
    if job is None or not job.active or job.job_id != model_session().link_job:
        st.rerun()
    p = job.progress()
    st.subheader(tr("link.training_header"))
    st.caption(tr("link.training_model", text=md_escape(job.text)))
    if p.status == JobStatus.WAITING:
        st.info(tr("link.waiting", place=p.place, slots=MAX_CONCURRENT_JOBS) if p.place else tr("link.starting"))
    elif p.status == JobStatus.PAUSED:
        st.info(tr("link.paused", step=len(p.losses)))
    else:
        loss = f"{p.losses[-1]:.3e}" if p.losses else "—"
        st.progress(
            min(len(p.losses) / p.epochs, 1.0), tr("link.running", step=len(p.losses), epochs=p.epochs, loss=loss)
        )
    if job.owner != session_token():
        st.caption(tr("link.shared"))
