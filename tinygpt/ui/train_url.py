"""The Train page in its URL: a reload brings back the settings and the student's trained model.

- ``form=``: the form's settings, in the format of a model link's ``train=`` (``tinygpt.links``:
  ``v1;d_model=64;…;text=…``, only what differs from the seed's settings), written while the form
  holds valid settings that differ from the page's defaults; read back into the form when the
  page opens with it.
- ``trained=``: the settings of the session's own model, when training reproduces it
  (``tinygpt.links.reproducible_settings``). Training is deterministic, so opening the page with
  it takes that model from the server's shelf at once, or trains it again as the session's job,
  whose progress the page shows as for any training (``tinygpt.ui.jobs``); the finished model
  becomes the session's own, as a trained one does.

Both are read once per value (a reload, a link) and refused values get a message in the user's
language naming the value; the form then keeps its defaults.
"""

from __future__ import annotations

import streamlit as st

from tinygpt.config import ConfigError, GPTConfig, TrainConfig
from tinygpt.jobs import MemoryLimitError, model_key
from tinygpt.links import decode_train, encode_train, reproducible_settings
from tinygpt.ui.i18n import error_text, tr
from tinygpt.ui.jobs import start_job
from tinygpt.ui.train_view import settings_values

FORM, TRAINED = "form", "trained"
_SEEN = {FORM: "_train_form_seen", TRAINED: "_train_trained_seen"}


def _new(name: str) -> str | None:
    """The URL's value of ``name`` when this session has not read or written it yet."""
    raw = st.query_params.get(name)
    if raw is None or raw == st.session_state.get(_SEEN[name]):
        return None
    st.session_state[_SEEN[name]] = raw
    return raw


def restore() -> None:
    """Top of the Train page, before its widgets: the URL's form into the form, and the trained
    model back (from the shelf, or its training started with its progress shown)."""
    ss = st.session_state
    raw = _new(FORM)
    if raw is not None:
        try:
            ss.update(settings_values(*decode_train(raw)))
        except ConfigError as exc:
            st.warning(tr("train.url_form_bad", error=error_text(exc).rstrip(".。")))
    raw = _new(TRAINED)
    if raw is None:
        return
    try:
        settings = decode_train(raw)
    except ConfigError as exc:
        st.warning(tr("train.url_trained_bad", error=error_text(exc).rstrip(".。")))
        return
    own, job = ss.get("own_model"), ss.get("job")
    have = reproducible_settings(own) if own is not None else None
    if have is not None and model_key(*have) == model_key(*settings):
        return
    if job is not None and job.active:  # the session is training already: that run goes on
        return
    try:
        ss["job"] = start_job(*settings)  # from the shelf at once, or trained again (shared with equal requests)
    except MemoryLimitError as exc:
        st.warning(tr("train.url_trained_failed", reason=error_text(exc)))


def write(text: str, configs: tuple[GPTConfig, TrainConfig] | None, defaults: dict[str, object]) -> None:
    """After the form is read: ``form=`` for valid settings whose form values are not the page's
    ``defaults`` (widget key -> value), ``trained=`` for the session's own model when training
    reproduces it; each parameter is removed when there is nothing to write."""
    ss = st.session_state
    values: dict[str, str | None] = {}
    if configs is not None:
        shown = {k: str(v) for k, v in settings_values(text, *configs).items()}
        values[FORM] = None if shown == {k: str(v) for k, v in defaults.items()} else encode_train(text, *configs)
    own = ss.get("own_model")
    settings = reproducible_settings(own) if own is not None else None
    values[TRAINED] = encode_train(*settings) if settings is not None else None
    for name, value in values.items():
        if value is None:
            if name in st.query_params:
                del st.query_params[name]
        elif st.query_params.get(name) != value:
            st.query_params[name] = value
        ss[_SEEN[name]] = value
