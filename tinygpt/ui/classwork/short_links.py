"""Short links (``?s=<code>``): the query a code stands for, in place of the code, before anything
reads the URL; a resume link's page opened once the navigation is set."""

from __future__ import annotations

import math
from collections.abc import Mapping
from urllib.parse import parse_qsl

import streamlit as st

from tinygpt.classroom.class_links import PAGE_PARAM
from tinygpt.classroom.store import StoreError, read_link_code
from tinygpt.config import ConfigError
from tinygpt.formatting import shown_text
from tinygpt.ui.classwork.class_guard import attempts, client_id
from tinygpt.ui.frame import url
from tinygpt.ui.frame.app_session import app_session
from tinygpt.ui.frame.class_store import class_store, problem_text, say
from tinygpt.ui.frame.language import md_escape, tr

#: Seconds between two tries of a store that could not be reached.
RETRY_SECONDS = 3


def open_short_link() -> None:
    """``?s=<code>``: replace the URL's query by the one the code stands for (before anything
    reads the URL: the lesson, the language, the model), the code typed in any case. A code that
    does not exist or is malformed gets a message and the app opens as without it (a client that
    tries too many waits: :mod:`tinygpt.ui.classwork.class_guard`); while the store cannot be reached the
    page says so and nothing else, and opens the lesson by itself once the store answers."""
    raw = url.app_param("s")
    session = app_session()
    if raw is None or raw == session.short_seen:
        return
    guard, client = attempts("short"), client_id()
    if wait := guard.wait_s(client):
        say(tr("short.too_many", seconds=math.ceil(wait)))
        url.drop("s")
        return
    session.short_seen = raw
    try:
        code = read_link_code(raw)
        query = class_store().resolve(code)
    except ConfigError:  # not a code the app makes: to a student, a link that does not exist
        guard.failed(client)
        say(tr("short.unknown", code=md_escape(shown_text(raw, 20))))
        url.drop("s")
        return
    except StoreError as exc:
        session.short_seen = None  # the next run tries again
        st.warning(
            tr("short.waiting", code=md_escape(shown_text(raw, 20)), reason=problem_text(exc)),
            icon=":material/cloud_off:",
        )
        _wait_for_store()
        st.stop()
    if query is None:
        guard.failed(client)
        say(tr("short.unknown", code=md_escape(code)))
        url.drop("s")
        return
    params = dict(parse_qsl(query, keep_blank_values=True))
    session.short_page = params.pop(PAGE_PARAM, None)
    lang = url.app_param("lang")
    url.replace_query(params)
    if "lang" not in params and lang:
        url.put("lang", lang)


@st.fragment(run_every=RETRY_SECONDS)
def _wait_for_store() -> None:
    """While the store cannot be reached: try again every few seconds; the whole run again when it answers."""
    try:
        class_store().check()
    except (StoreError, ConfigError):
        return
    st.rerun(scope="app")


def follow_short_link(url_path: str, files: Mapping[str, str]) -> None:
    """After the navigation is set: open the page a resolved short link names (a resume link),
    with the link's query; ``files`` maps URL paths to page files. Does nothing otherwise."""
    target = app_session().take_short_page()
    if target and target != url_path and target in files:
        st.switch_page(files[target], query_params=url.query())
