"""The concept check run from the teacher's page: the teacher starts and ends the check before the
lesson and the one at the end, and sees how many students have handed each in (counts, no names).

The phase lives in the class's state (``ClassState.check``, ``tinygpt.classroom.period``): "pre" while
the check before is open (a student who joins then takes it on joining), "lesson" once it is ended
(a late joiner is not asked for it any more), "post" while the check at the end is open (every
student takes the check *after*, also one who missed the one before), "done" once it is ended;
"" before the teacher starts any (students then take it at their own pace). Students' pages read the
state every second and open the check's box (``tinygpt.ui.classwork.concept_check_view``).
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from tinygpt.classroom.period import ClassState, read_state, starting_state, write_state
from tinygpt.classroom.store import ClassError, StoreError
from tinygpt.config import ConfigError
from tinygpt.explanations.concept_check import parse_check_id
from tinygpt.ui.frame.class_store import class_store, problem_text
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.teacher_state import teacher_session

#: Seconds between two refreshes of the counts.
REFRESH_SECONDS = 3
#: Phase -> (the button's next phase, its label's key): what the teacher can do in each phase.
NEXT: dict[str, tuple[str, str]] = {
    "": ("pre", "checkrun.start_pre"),
    "pre": ("lesson", "checkrun.end_pre"),
    "lesson": ("post", "checkrun.start_post"),
    "post": ("done", "checkrun.end_post"),
    "done": ("post", "checkrun.reopen_post"),
}


def handed_in(answers) -> dict[str, int]:
    """phase -> how many distinct students answered the check in that phase (``answers``: the
    class's answers, ``tinygpt.classroom.store.Answer``)."""
    students: dict[str, set[str]] = {"pre": set(), "post": set()}
    for a in answers:
        if (parsed := parse_check_id(a.question_id)) is not None:
            students[parsed[0]].add(a.student)
    return {phase: len(s) for phase, s in students.items()}


def _state(code: str) -> ClassState:
    stored = read_state(class_store(), code)
    if stored is not None:
        return stored
    info = class_store().get_class(code)
    return starting_state(info.lesson) if info is not None else ClassState()


def _go(code: str, key: str, phase: str) -> None:
    """Widget callback: write ``phase`` into the class's state (the rest of the state as stored)."""
    try:
        write_state(class_store(), code, key, replace(_state(code), check=phase))
    except (StoreError, ClassError, ConfigError) as exc:
        teacher_session().check_problem = problem_text(exc)


@st.fragment(run_every=REFRESH_SECONDS)
def section(code: str, key: str) -> None:
    """The check's box on the teacher's page: the phase, the counts and the button of the next step."""
    with st.container(border=True, key="checkrun_box"):
        st.markdown(f"**{tr('checkrun.header')}**")
        try:
            state = _state(code)
            store = class_store()
            counts, students = handed_in(store.answers(class_code=code)), store.students(code)
        except (StoreError, ConfigError) as exc:
            st.warning(tr("teacher.store_down", reason=problem_text(exc)), icon=":material/cloud_off:")
            return
        phase = state.check if state.check in NEXT else ""
        st.markdown(tr(f"checkrun.phase_{phase or 'none'}"))
        st.caption(tr("checkrun.counts", pre=counts["pre"], post=counts["post"], students=students))
        nxt, label = NEXT[phase]
        st.button(tr(label), key="checkrun_next", on_click=_go, args=(code, key, nxt), icon=":material/quiz:")
        if phase == "":
            st.button(
                tr("checkrun.start_post"),
                key="checkrun_post",
                on_click=_go,
                args=(code, key, "post"),
                icon=":material/flag:",
            )
        if problem := teacher_session().take_check_problem():
            st.error(problem)
