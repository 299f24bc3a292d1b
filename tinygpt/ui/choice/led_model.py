"""The model of a class its teacher leads (``tinygpt.classroom.period.ClassState.model``), on both sides.

- The teacher: :func:`teacher_train` is the ``train=`` settings of the model of the teacher's
  pages (``tinygpt.training.links.reproducible_settings``), or why there are none; leading with it puts the
  model on the process shelf under those settings (``ModelShelf.put`` keeps the first model of a
  key, here and in the class store), so every server hands students that one model.
- Both: :func:`led_model` is the model the class sees: an example, or the own model from the
  shelf (the published one, whose numbers the teacher's questions and the students' pages share),
  else the session's own model of those settings; None while nobody here has it.
- A student: :func:`take_led_model` gives the session the class's model the way a ``train=`` link
  does (``tinygpt.ui.choice.model_choice.open_train_link``: the shelf first, else its training, whose
  progress the page shows); :func:`has_led_model` says whether the session has it or trains it.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import streamlit as st

from tinygpt.classroom.period import OWN, ClassState
from tinygpt.config import ConfigError
from tinygpt.training.jobs import ModelKey, model_key
from tinygpt.training.links import decode_train, encode_train, reproducible_settings
from tinygpt.training.record import ModelRecord
from tinygpt.ui.choice.model_choice import adopt_link_job, key_of, open_train_link, pending_link_job
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.model_session import model_session
from tinygpt.ui.shared.models import K_OWN, example_model, set_choice, shelf


def teacher_train(publish: bool = False) -> tuple[str | None, str]:
    """(the ``train=`` settings of the session's own model, "") or (None, why the class cannot be
    led with it: no own model, a model loaded from a file, a run ended at a non-finite loss).

    ``publish``: put the model on the shelf under those settings (the class leads with it). The
    shelf keeps the first model of a key, so every server and every student gets that one. A run
    stopped after k steps goes there under the settings that rebuild it (``epochs=k``), never under
    the full run's.
    """
    own = st.session_state.get(K_OWN)
    if own is None:
        return None, tr("period.own_none")
    settings = reproducible_settings(own)
    if settings is None:
        return None, tr("period.own_file" if own.init_seed is None else "period.own_run")
    if publish:
        shelf().put(model_key(*settings), own if settings[2] == own.train_cfg else replace(own, train_cfg=settings[2]))
    return encode_train(*settings), ""


def model_identity(record: ModelRecord) -> str:
    """A short id of the settings that rebuild ``record`` (its text, sizes and training), the same
    on every server and after an update that keeps them; "" for a model training cannot rebuild."""
    settings = reproducible_settings(record)
    if settings is None:
        return ""
    return hashlib.sha256(encode_train(*settings).encode("utf-8")).hexdigest()[:12]


def _key(train: str) -> ModelKey | None:
    try:
        return model_key(*decode_train(train))
    except ConfigError:
        return None


def led_model(state: ClassState) -> ModelRecord | None:
    """The model the class sees under ``state``: an example (trained here once), or the own model
    of ``state.train`` from the shelf, else the session's own model of those settings; None when
    neither is here (a student's page then trains it: :func:`take_led_model`)."""
    if state.model != OWN:
        return example_model(state.model)
    key = _key(state.train)
    if key is None:
        return None
    found = shelf().get(key)
    own = st.session_state.get(K_OWN)
    return found if found is not None else own if own is not None and key_of(own) == key else None


def has_led_model(state: ClassState) -> bool:
    """True when the session shows the class's own model, or trains it now (an example: always)."""
    if state.model != OWN:
        return True
    key, own, job = _key(state.train), st.session_state.get(K_OWN), pending_link_job()
    if key is None:
        return True  # nothing the page could take: no rerun for it
    if own is not None and key_of(own) == key:
        return True
    return job is not None and model_key(job.text, job.gpt_cfg, job.train_cfg) == key


def take_led_model(state: ClassState) -> ModelRecord | None:
    """Before the page draws: make the class's model the session's choice and return it, or None
    while its training runs (the page shows the link's progress) or when it was refused (the
    page says why, as for a link)."""
    if state.model != OWN:
        set_choice(state.model)
        return example_model(state.model)
    if not has_led_model(state):
        open_train_link(state.train)
        adopt_link_job()  # a model on the shelf comes as a finished job: the session's model at once
    own = st.session_state.get(K_OWN)
    if own is not None and key_of(own) == _key(state.train):
        set_choice(OWN)
        model_session().from_teacher = own.uid  # named "your teacher's model" on the pages
        return own
    return None


def training_note(state: ClassState) -> str | None:
    """The line "your teacher's model is being trained" while this session trains it, else None."""
    if state.model == OWN and pending_link_job() is not None and has_led_model(state):
        return tr("period.own_training")
    return None
