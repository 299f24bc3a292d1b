"""Short links (``?s=<code>``): the query a code stands for, in place of the code, before anything
reads the URL; a resume link's page opened once the navigation is set."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl

import streamlit as st

from tinygpt.classroom import PAGE_PARAM
from tinygpt.config import ConfigError
from tinygpt.formatting import shown_text
from tinygpt.store import StoreError, read_link_code
from tinygpt.ui.class_store import class_store, problem_text, say
from tinygpt.ui.i18n import md_escape, tr

K_SHORT_SEEN = "_short_seen"  # the s= value last resolved
K_SHORT_PAGE = "_short_page"  # the page a resolved short link names


def open_short_link() -> None:
    """``?s=<code>``: replace the URL's query by the one the code stands for (before anything
    reads the URL: the lesson, the language, the model). A code that does not exist or is
    malformed gets a message and the app opens as without it; a store that cannot be reached
    keeps ``s=`` so a reload tries again."""
    raw = st.query_params.get("s")
    ss = st.session_state
    if raw is None or raw == ss.get(K_SHORT_SEEN):
        return
    ss[K_SHORT_SEEN] = raw
    try:
        code = read_link_code(raw)
        query = class_store().resolve(code)
    except ConfigError:  # not a code the app makes: to a student, a link that does not exist
        say(tr("short.unknown", code=md_escape(shown_text(raw, 20))))
        del st.query_params["s"]
        return
    except StoreError as exc:
        say(tr("short.unreachable", code=md_escape(raw[:20]), reason=problem_text(exc)))
        return
    if query is None:
        say(tr("short.unknown", code=code))
        del st.query_params["s"]
        return
    params = dict(parse_qsl(query, keep_blank_values=True))
    ss[K_SHORT_PAGE] = params.pop(PAGE_PARAM, None)
    lang = st.query_params.get("lang")
    st.query_params.clear()
    st.query_params.update(params)
    if "lang" not in params and lang:
        st.query_params["lang"] = lang


def follow_short_link(url_path: str, files: Mapping[str, str]) -> None:
    """After the navigation is set: open the page a resolved short link names (a resume link),
    with the link's query; ``files`` maps URL paths to page files. Does nothing otherwise."""
    target = st.session_state.pop(K_SHORT_PAGE, None)
    if target and target != url_path and target in files:
        st.switch_page(files[target], query_params=st.query_params.to_dict())
