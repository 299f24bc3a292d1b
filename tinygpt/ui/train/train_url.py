"""The Train page in its URL: a reload brings back the settings and the student's trained model.

The page's table (``tinygpt.ui.frame.url``), read by :func:`restore` before the widgets and written by
:func:`write` after them:

- ``form=``: the form's settings, in the format of a model link's ``train=`` (``tinygpt.training.links``:
  ``v1;d_model=64;…;text=…``, only what differs from the seed's settings), written while the form
  holds valid settings other than the page's defaults; read back into the form's widgets.
- ``trained=``: the settings of the session's own model, when training reproduces it
  (``tinygpt.training.links.reproducible_settings``). Training is deterministic, so opening the page with
  it takes that model from the server's shelf at once, or trains it again as the session's job,
  whose progress the page shows as for any training (``tinygpt.ui.train.training_jobs``); the finished model
  becomes the session's own, as a trained one does. While the session uses a model loaded from a
  file (no settings rebuild it), ``trained=`` keeps the model trained before it, if any.

Refused values get a message in the user's language naming the value and what is accepted; the
form then keeps its values.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.training.jobs import MemoryLimitError, model_key
from tinygpt.training.links import decode_train, encode_train, reproducible_settings
from tinygpt.ui.frame import url
from tinygpt.ui.frame.language import error_text, tr
from tinygpt.ui.shared.models import K_JOB, K_OWN
from tinygpt.ui.train.train_session import train_session
from tinygpt.ui.train.train_view import settings_values
from tinygpt.ui.train.training_jobs import start_job

PAGE = "train"


def _write_form(ss: Mapping) -> str | None:
    mine = train_session(ss)
    text, configs = mine.form or ("", None)
    if configs is None:
        return url.peek("form")  # settings being typed: the last valid ones stay
    shown = {k: str(v) for k, v in settings_values(text, *configs).items()}
    return None if shown == {k: str(v) for k, v in mine.defaults.items()} else encode_train(text, *configs)


def _write_trained(ss: Mapping) -> str | None:
    own = ss.get(K_OWN)
    if own is not None and own.init_seed is None:  # a loaded file: no link brings it back, so the
        return url.peek("trained")  # model trained before it stays reachable by a reload
    settings = reproducible_settings(own) if own is not None else None
    return encode_train(*settings) if settings is not None else None


def _read_form(raw: str, notes: list[str]) -> dict[str, object]:
    """``form=``: the settings into the form's widgets. ConfigError when refused."""
    return settings_values(*decode_train(raw, "form"))


def _read_trained(raw: str, notes: list[str]) -> dict[str, object]:
    """``trained=``: its settings kept for :func:`restore` (no widget takes them). ConfigError when refused."""
    train_session().wanted = decode_train(raw, "trained")
    return {}


#: The Train page's query parameters.
TRAIN_URL: tuple[url.Param, ...] = (
    url.Param("form", _read_form, _write_form, "train.url_form_bad"),
    url.Param("trained", _read_trained, _write_trained, "train.url_trained_bad"),
)


def restore() -> None:
    """Top of the Train page, before its widgets: the URL's form into the widgets, and the trained
    model back (from the shelf, or its training started with its progress shown); messages for
    refused values."""
    ss = st.session_state
    url.warn(url.load(PAGE, TRAIN_URL))
    wanted = train_session().take_wanted()
    if wanted is None:
        return
    own, job = ss.get(K_OWN), ss.get(K_JOB)
    have = reproducible_settings(own) if own is not None else None
    if have is not None and model_key(*have) == model_key(*wanted):
        return
    if job is not None and job.active:  # the session is training already: that run goes on
        return
    try:
        ss[K_JOB] = start_job(*wanted)  # from the shelf at once, or trained again (shared with equal requests)
    except MemoryLimitError as exc:
        st.warning(tr("train.url_trained_failed", reason=error_text(exc)))


def write(text: str, configs: tuple[GPTConfig, TrainConfig] | None, defaults: Mapping[str, object]) -> None:
    """After the form is read (``configs`` None while it holds refused settings): the URL's
    ``form=`` and ``trained=``; ``defaults`` are the page's own widget values (no ``form=`` for them)."""
    mine = train_session()
    mine.form, mine.defaults = (text, configs), dict(defaults)
    url.save(PAGE, TRAIN_URL)
