""" "Link for my class": a popover in the sidebar of every page with the link (copy button) that
opens the page with this session's model and view, and the lesson builder under it."""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from tinygpt.classroom.class_links import PRIVATE_PARAMS, ascii_query
from tinygpt.classroom.store import StoreError
from tinygpt.config import ConfigError
from tinygpt.examples import EXAMPLES
from tinygpt.training.links import encode_train, reproducible_settings
from tinygpt.ui.choice.model_choice import FIRST_CHOICE
from tinygpt.ui.frame import url
from tinygpt.ui.frame.app_url import base_url
from tinygpt.ui.frame.class_store import class_store
from tinygpt.ui.frame.controls import K_MODEL
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.frame.page_list import CLASS_VIEW_PATHS
from tinygpt.ui.shared.models import K_OWN
from tinygpt.ui.teacher.lesson_builder import builder_link
from tinygpt.ui.views.lesson import lesson


def class_link_url(url_path: str, page_paths: Iterable[str]) -> tuple[str | None, str]:
    """(the link that opens this page with this session's model and view, or None; what it says).

    The view is the page's query parameters as they are now; the model is the session's choice
    (an example by name, an own model by its settings). None with the reason when the own model
    cannot be rebuilt by training (a checkpoint file, a run ended at a non-finite loss).
    """
    ss = st.session_state
    choice = ss.get(K_MODEL, FIRST_CHOICE)
    own = ss.get(K_OWN)
    params: dict[str, str] = {}
    if choice == "own" and own is not None:
        settings = reproducible_settings(own)
        if settings is None:
            reason = "link.no_link_file" if own.init_seed is None else "link.no_link_run"
            return None, tr(reason)
        params = {"model": "own", "train": encode_train(*settings)}
        note = tr("link.note_own", text=md_escape(own.text))
    else:
        choice = choice if choice in EXAMPLES else "textbook"
        params = {"model": choice}
        note = tr("link.note_example", name=tr(f"model.choice.{choice}"))
    params.update({k: v for k, v in url.query().items() if k not in ("model", "train") and k not in PRIVATE_PARAMS})
    return base_url(page_paths) + url_path + "?" + query_string(params), note


def query_string(params: dict[str, str]) -> str:
    """``k=v&…`` in ASCII only (``tinygpt.classroom.class_links.ascii_query``): chat apps cut a link at 你好 or "，"."""
    return ascii_query(params)


#: The key of the "link for my class" popover that reruns when it opens (:func:`class_link`).
K_CLASS_LINK = "class_link"


def class_link(url_path: str, page_paths: Iterable[str], fresh: bool = False) -> None:
    """ "Link for my class": a popover with the link (copy button) to this page, model and view.

    ``fresh``: opening the popover reruns the page, so its link holds the view as the URL stands
    at that moment. The Attention page's step and switches rerun only their own fragments, which
    write the URL but do not redraw the sidebar. (A fragment of its own in the sidebar would rerun
    less, but Streamlit's frontend can then fail with "Cannot set a node at a delta path" and
    leave a blank page when the main area changes shape, e.g. on the Theory page's sections.)
    Only one fresh popover per script run (it has a widget key).
    """
    if url_path in CLASS_VIEW_PATHS:  # the teacher's page has its own links (teacher_view)
        return
    if lesson() is not None:  # students in a lesson: a teacher's tool would only puzzle them
        return
    _class_link_popover(url_path, page_paths, K_CLASS_LINK if fresh else None)


@st.cache_data(ttl=30, show_spinner=False)
def _store_reachable() -> bool:
    """Whether the class store, where the server keeps each link's model, can be reached (checked at
    most every 30 s: the popover is drawn on every run)."""
    try:
        class_store().check()
    except (StoreError, ConfigError):
        return False
    return True


def _class_link_popover(url_path: str, page_paths: Iterable[str], key: str | None) -> None:
    with st.popover(
        tr("link.button"),
        icon=":material/share:",
        width="stretch",
        key=key,
        on_change="ignore" if key is None else "rerun",
    ):
        st.caption(tr("link.intro" if _store_reachable() else "link.intro_no_store"))
        url, note = class_link_url(url_path, page_paths)
        if url is None:
            st.info(note)
        else:
            st.code(url, language=None, wrap_lines=True)
            st.caption(note)
        builder_link(url_path, list(page_paths))  # the lesson builder: short link, QR code, a class
