"""Streamlit glue for the i18n catalogue: the session's language, the switch, localized errors."""

from __future__ import annotations

import re

import streamlit as st

from tinygpt.config import ConfigError, ConfigErrors
from tinygpt.formatting import char_name, shown_text
from tinygpt.i18n import CATALOGUE, LANGUAGES, choose_language, t
from tinygpt.ui.frame.app_session import app_session

_KEY = "lang"
#: The browser's cookie keeping the language a student picked with the switch, for the next visit
#: of the plain address (a link's ``?lang=`` still wins). Streamlit reads cookies
#: (``st.context.cookies``, sent when the session starts) but has no call that sets one: the switch
#: writes it with a line of script in an ``st.html`` element, as the student's answer token is kept.
LANG_COOKIE = "tinygpt_lang"
_LANG_COOKIE_JS = "<script>document.cookie = '{name}={value}; path=/; max-age=31536000; SameSite=Lax';</script>"


def _asked() -> str | None:
    """``?lang=`` as the URL has it (None: not there)."""
    return st.query_params.get(_KEY)  # by hand: tinygpt.ui.frame.url imports this module for its messages


def _kept() -> str | None:
    """The language this browser's cookie keeps (:data:`LANG_COOKIE`), None when none or not one of LANGUAGES."""
    kept = (st.context.cookies or {}).get(LANG_COOKIE)
    return kept if kept in LANGUAGES else None


def lang() -> str:
    """The session's language: chosen before, else ?lang= in the URL, else the one the student
    picked on an earlier visit (:data:`LANG_COOKIE`), else the browser's locale.

    ``st.context.locale`` is the browser's ``navigator.language`` (e.g. "en-US"), sent with every
    rerun; it is None when the client sends none (AppTest unless ``at.context["locale"]`` is set).
    The choice is then kept in session state, so it survives page switches (st.navigation clears
    the query string on a switch; :func:`language_switch` writes ``?lang=`` back on every run).
    """
    chosen = st.session_state.get(_KEY)  # one look-up: every text of a page asks
    if chosen is None:
        asked = _asked()
        chosen = st.session_state[_KEY] = choose_language(asked if asked is not None else _kept(), st.context.locale)
        if asked and asked.strip().lower() not in LANGUAGES:
            app_session().lang_refused = asked  # language_switch says so once
    return chosen


def likely_lang() -> str:
    """The language the session has chosen, else the one it would choose now, without keeping it: for
    text drawn before a short link has put its lesson's ``?lang=`` into the URL (the opening line)."""
    chosen = st.session_state.get(_KEY)
    if chosen is not None:
        return chosen
    asked = _asked()
    return choose_language(asked if asked is not None else _kept(), st.context.locale)


def tr(key: str, **fields: object) -> str:
    """Text of ``key`` in the session's language."""
    return t(key, lang(), **fields)


def language_switch() -> None:
    """Sidebar radio over LANGUAGES (中文 / English); the choice is kept in the session, in the URL
    (?lang=) and, once the student picks one, in this browser's cookie (:data:`LANG_COOKIE`)."""
    current = lang()

    def _changed() -> None:
        st.session_state[_KEY] = st.session_state["_lang_radio"]
        app_session().lang_picked = True

    st.sidebar.radio(
        t("app.language", current),
        tuple(LANGUAGES),
        index=tuple(LANGUAGES).index(current),
        format_func=LANGUAGES.get,
        horizontal=True,
        key="_lang_radio",
        on_change=_changed,
    )
    st.query_params[_KEY] = lang()  # by hand: tinygpt.ui.frame.url imports this module for its messages
    if app_session().take_lang_picked():  # kept in this browser for the next visit
        st.sidebar.html(_LANG_COOKIE_JS.format(name=LANG_COOKIE, value=lang()), unsafe_allow_javascript=True)
    refused = app_session().take_lang_refused()
    if refused is not None:
        st.sidebar.warning(
            t("app.lang_refused", current, value=md_escape(shown_text(refused, 20)), accepted=", ".join(LANGUAGES))
        )


def listed(items: object) -> str:
    """``items`` joined with the language's list separator ("a, b" in English, "a、b" in Chinese)."""
    return tr("common.list_sep").join(str(i) for i in items)


def md_escape(text: str) -> str:
    """``text`` with Markdown's special characters escaped, so any character shows as itself."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|~<>$])", r"\\\1", text)


def accepted_text(exc: ConfigError) -> str:
    """What ``exc`` says would be accepted, in the session's language (its English text when the
    catalogue has no ``accepted.<key>``)."""
    key = f"accepted.{exc.key}"
    return tr(key, **exc.params) if key in CATALOGUE else exc.accepted


def error_text(exc: Exception) -> str:
    """A message for ``exc`` in the session's language, naming the value and what is accepted."""
    # Imported here: this module is among the first a script run imports, before torch is needed
    # (tinygpt.ui.navigation sets the page list first), and these modules import torch.
    from tinygpt.training.checkpoint import CheckpointError  # heavy: torch
    from tinygpt.training.jobs import JobRefusedError  # heavy: torch
    from tinygpt.vocab import UnknownCharError  # heavy: torch

    if isinstance(exc, UnknownCharError):  # every character named the one way (tinygpt.formatting.char_name)
        return tr(
            "err.unknown_chars",
            unknown=" ".join(md_escape(char_name(c)) for c in exc.unknown),
            known=" ".join(md_escape(char_name(c)) for c in exc.known),
        )
    if isinstance(exc, CheckpointError):
        if exc.cause is not None:  # the file's configuration: its reason in this language too
            return tr("ckpt.err.config", error=error_text(exc.cause))
        return tr(f"ckpt.err.{exc.key}", **exc.params)
    if isinstance(exc, JobRefusedError):
        return tr(exc.key, **exc.params)
    if isinstance(exc, ConfigErrors):  # several values refused at once: each named, in one message
        items = [_config_text(e, "err.config_item", "err.config_item_empty") for e in exc.errors]
        return tr("err.config_several", n=len(items), errors=tr("err.config_sep").join(items))
    if isinstance(exc, ConfigError):
        return _config_text(exc, "err.config", "err.config_empty")
    return tr("err.unexpected", error=str(exc))


def _config_text(exc: ConfigError, key: str, empty_key: str) -> str:
    """``exc`` worded by ``key`` (field, value, accepted), or by ``empty_key`` for an empty value."""
    accepted = accepted_text(exc)
    name = f"field.{exc.field}"  # a field that is not a form setting (e.g. len(text)) is named in words
    field = tr(name) if name in CATALOGUE else exc.field
    if isinstance(exc.value, str) and not exc.value.strip():  # an empty box: "=  is not accepted" reads garbled
        return tr(empty_key, field=field, accepted=accepted)
    value = shown_text(exc.value, 40) if isinstance(exc.value, str) else exc.value  # no invisible character
    return tr(key, field=field, value=value, accepted=accepted)
