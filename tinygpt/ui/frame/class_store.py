"""The class store as the pages reach it: one store per process, problems worded in the user's
language, and messages said at the top of the next run (a callback or a hook cannot draw)."""

from __future__ import annotations

import streamlit as st

from tinygpt.classroom.store import Answer, ClassError, Store, StoreError, answer_days, database_url
from tinygpt.classroom.store_upkeep import keep_purging
from tinygpt.config import ConfigError
from tinygpt.ui.frame.language import error_text, tr
from tinygpt.ui.frame.student_state import class_session


@st.cache_resource(show_spinner=False)
def _store(url: str, keep_days: int) -> Store:
    store = Store(url, keep_days=keep_days)
    keep_purging(store)  # expired records deleted hourly, whether or not anyone writes
    return store


def class_store() -> Store:
    """The server's store (``TINYGPT_DATABASE_URL`` or the SQLite file): one per process.

    Raises ConfigError for a malformed ``TINYGPT_ANSWER_DAYS``; the store's own calls raise StoreError.
    """
    return _store(database_url(), answer_days())


def problem_text(exc: Exception) -> str:
    """A message for a store, class or code problem in the user's language."""
    if isinstance(exc, StoreError):
        return tr(exc.key, **exc.params)
    if isinstance(exc, ClassError):
        return tr(exc.key, code=exc.code)
    return error_text(exc)


def student_problem_text(exc: Exception) -> str:
    """:func:`problem_text` for a student: a setting of the server (its name, its value) is the
    teacher's and the operator's business, so a student reads only that the class store is off here."""
    if isinstance(exc, ConfigError) or (isinstance(exc, StoreError) and exc.key == "store.bad_url"):
        return tr("class.store_off")
    return problem_text(exc)


def store_writable() -> bool:
    """Whether answers can be written to the class store now (its folder, file or database)."""
    try:
        class_store().check(write=True)
    except (StoreError, ConfigError):
        return False
    return True


def say(message: str, kind: str = "warning") -> None:
    """Keep ``message`` for :func:`show_messages` (``kind``: "warning" or "info")."""
    class_session().messages.append((kind, message))


def show_messages() -> None:
    """The messages of the class and of short links, once, at the top of the page."""
    cs = class_session()
    messages, cs.messages = cs.messages, []
    for kind, message in messages:
        (st.info if kind == "info" else st.warning)(message, icon=":material/school:")


def class_answers(code: str) -> tuple[list[Answer], dict[str, dict]] | None:
    """Class ``code``'s answers and its questions' records (question id -> record), or None after
    saying on the page that the store cannot give them (a section of the teacher's view draws the rest)."""
    try:
        store = class_store()
        records = {s.question_id: s.question for s in store.summary(code)}
        return store.answers(code), records
    except (StoreError, ConfigError) as exc:
        st.error(tr("teacher.not_recording", reason=problem_text(exc)), icon=":material/cloud_off:")
        return None
