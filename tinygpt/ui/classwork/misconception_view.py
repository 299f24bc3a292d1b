"""Misconceptions on the pages: one sentence under a wrong answer, and the class's live counts for the teacher.

:func:`note` (called by ``exercise_view.ask`` and the concept check) names the wrong idea a
wrong answer reveals (:func:`tinygpt.explanations.misconceptions.misconceptions`). :func:`section` (one call
in the teacher's view) counts them over the class's answers every few seconds, each with a link
to the Attention page's experiment that shows why the idea is wrong.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from tinygpt.classroom.class_links import ascii_query
from tinygpt.explanations.answers import answer_ids, question_record
from tinygpt.explanations.misconceptions import Misconception, count, misconceptions, refuting_params
from tinygpt.ui.frame.app_url import base_url
from tinygpt.ui.frame.class_store import class_answers
from tinygpt.ui.frame.language import lang, tr
from tinygpt.ui.frame.page_list import PAGES, TEACHER_PATH

if TYPE_CHECKING:
    from tinygpt.explanations.exercises import Question

#: Seconds between two refreshes of the class's counts.
REFRESH_SECONDS = 3


def revealed(question: Question, picked: object) -> tuple[Misconception, ...]:
    """The misconceptions the pick ``picked`` (a choice id or a list of them) of ``question`` reveals."""
    return misconceptions(question_record(question), answer_ids(question, picked))


def idea_name(m: Misconception) -> str:
    """The wrong idea alone, without why it is wrong: each ``mis.<id>`` sentence opens with the
    idea in quotation marks (“…”), then says why it is wrong."""
    return tr(f"mis.{m}").split("”")[0].lstrip("“")


def note(question: Question, picked: object) -> None:
    """Under a wrong answer: the wrong idea it reveals, in one sentence (nothing when none is named)."""
    found = revealed(question, picked)
    if found:
        st.caption(tr("mis.you_may_think", idea=tr(f"mis.{found[0]}")))


def experiment_url(m: Misconception) -> str:
    """The Attention page's address showing the experiment that refutes ``m``, in the session's language."""

    base = base_url([p[3] for p in PAGES] + [TEACHER_PATH])
    return f"{base}attention?{ascii_query({**refuting_params(m), 'lang': lang()})}"


@st.fragment(run_every=REFRESH_SECONDS)
def section(code: str) -> None:
    """The teacher's view: per misconception, how many students revealed it (most first), with a
    link to the experiment that refutes it."""
    st.subheader(tr("teacher.mis.header"), anchor=False)
    st.caption(tr("teacher.mis.caption"))
    if (found := class_answers(code)) is None:
        return
    counts = count(*found)
    if not counts:
        st.info(tr("teacher.mis.none"))
        return
    for c in counts:
        with st.container(border=True, key=f"teacher_mis_{c.misconception}"):
            text_col, link_col = st.columns([4, 1], vertical_alignment="center")
            idea = tr(f"mis.{c.misconception}")
            text_col.markdown(tr("teacher.mis.row", students=c.students, answers=c.answers, idea=idea))
            link_col.link_button(
                tr("teacher.mis.try"),
                experiment_url(c.misconception),
                help=tr("teacher.mis.try_help"),
                icon=":material/science:",
            )
