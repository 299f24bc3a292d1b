""" "My answers": the student's score and answers (Markdown and CSV downloads) and a resume link
that brings back the page's view and the answers, in the sidebar and beside an exercise's score;
the class banner and the nickname box while the student is in a class."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from tinygpt.classroom.class_links import (
    PAGE_PARAM,
    PRIVATE_PARAMS,
    MyAnswer,
    answers_csv,
    answers_markdown,
    ascii_query,
)
from tinygpt.classroom.store import StoreError
from tinygpt.config import ConfigError
from tinygpt.ui.classwork.class_guard import typed_code_problem
from tinygpt.ui.frame import url
from tinygpt.ui.frame.app_url import base_url
from tinygpt.ui.frame.class_store import class_store, problem_text
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.page_list import PAGES, TEACHER_PATH
from tinygpt.ui.frame.student_state import (
    K_NICKNAME,
    AnswerEntry,
    check_over,
    class_session,
    is_hidden,
    score_of,
)


def sidebar(url_path: str) -> None:
    """The class banner, the nickname box and "my answers" in the sidebar (nothing when the student
    has neither answers nor a class)."""
    cs = class_session()
    entries = sorted(cs.answers.values(), key=lambda e: e.at)
    in_class = cs.in_class
    if not in_class and url_path in ("", "train"):  # the start page: a student may type the class's code
        join_box()
    if not entries and not in_class and not cs.note:
        return
    with st.sidebar:
        if cs.note:
            st.warning(cs.note, icon=":material/school:")
        if in_class:
            st.caption(tr("class.banner", code=cs.code))
            st.text_input(tr("class.nickname"), max_chars=24, help=tr("class.nickname_help"), key=K_NICKNAME)
        if entries:
            with st.container(key="mine_sidebar"):  # hidden while the page shows its own (tinygpt/ui/frame/style.py)
                with st.popover(tr("mine.button"), icon=":material/assignment:", width="stretch"):
                    my_answers(entries, url_path)


def join_box() -> None:
    """In the sidebar: a box to type a class code (the code the projector shows); the page then
    joins that class as a class link would (``class=`` in the address; a bad or unknown code is said)."""
    with st.sidebar.expander(tr("class.join"), icon=":material/school:"), st.form("class_join", border=False):
        typed = st.text_input(tr("class.join_code"), max_chars=12, key="class_join_code")
        if st.form_submit_button(tr("class.join_button"), icon=":material/login:") and typed.strip():
            if problem := typed_code_problem(typed):  # not a class code: said here, the box keeps it
                st.error(problem, icon=":material/school:")
                return
            url.put("class", typed.strip().upper())
            st.rerun()


def my_answers(entries: Sequence[AnswerEntry], url_path: str, key_prefix: str = "mine") -> None:
    """The student's score, "my answers" as Markdown and CSV, and the resume link (its widgets
    keyed ``<key_prefix>_…``: it is drawn in the sidebar and beside an exercise's score)."""
    shown = class_session().shown
    right, asked = score_of(entries, shown)  # a class vote counts once, by its latest round, once revealed
    score = tr("ex.score", right=right, asked=asked)
    hidden = len({e.question_id for e in entries if e.round and is_hidden(e, shown)})  # the class votes waiting
    done = check_over(entries)
    if hidden:
        score += " " + tr("mine.hidden_note", n=hidden)
    st.markdown(score)
    mine = [
        MyAnswer(
            e.question_id,
            listed_question(e),
            e.answer_text,
            None if is_hidden(e, shown, done) else e.right,
            e.at,
            e.class_code,
        )
        for e in entries
    ]
    headers = [tr(f"mine.col.{c}") for c in ("time", "class", "question", "answer", "right")]
    yes, no, later = tr("mine.yes"), tr("mine.no"), tr("mine.hidden")
    cols = st.columns(2)
    cols[0].download_button(
        tr("mine.markdown"),
        data=answers_markdown(mine, tr("mine.title"), score, headers, yes, no, later),
        file_name="my-answers.md",
        mime="text/markdown",
        on_click="ignore",
        key=f"{key_prefix}_markdown",
        icon=":material/description:",
    )
    cols[1].download_button(
        tr("mine.csv"),
        data=answers_csv(mine, headers, yes, no, later).encode("utf-8-sig"),  # a BOM: spreadsheet apps then read UTF-8
        file_name="my-answers.csv",
        mime="text/csv",
        on_click="ignore",
        key=f"{key_prefix}_csv",
        icon=":material/table:",
    )
    st.caption(tr("mine.resume_intro"))
    if st.button(tr("mine.resume"), key=f"{key_prefix}_resume", icon=":material/bookmark:"):
        class_session().resume = resume_link(url_path)
    made = class_session().resume
    if made is not None:
        url, problem = made
        st.code(url, language=None, wrap_lines=True)
        if problem:
            st.caption(problem)


def listed_question(entry: AnswerEntry) -> str:
    """The question as "my answers" lists it: a class vote's with its round."""
    if not entry.round:
        return entry.question_text
    return tr("mine.vote_round", question=entry.question_text, round=entry.round)


def resume_link(url_path: str) -> tuple[str, str]:
    """(the link that brings back this page's view and the student's answers, a note): a short
    link when the store takes it, else the whole link (ASCII) with the reason."""
    params = {k: v for k, v in url.query().items() if k not in PRIVATE_PARAMS}
    params["me"] = class_session().me
    base = base_url([p[3] for p in PAGES] + [TEACHER_PATH])
    try:
        code = class_store().shorten(ascii_query({PAGE_PARAM: url_path, **params}))
    except (StoreError, ConfigError, ValueError) as exc:
        return base + url_path + "?" + ascii_query(params), tr("mine.resume_long", reason=problem_text(exc))
    return f"{base}?s={code}", ""
