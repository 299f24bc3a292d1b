"""The concept check on the Attention page: five questions before the lesson and again after it.

An expander holds a form of the five questions of :func:`tinygpt.explanations.concept_check.check_questions`
(computed from the model and text the page shows). Handed in once before (``check:pre:…``): the
student sees the score only, so the answers do not give the check away. Handed in again after
(``check:post:…``): the score before and after per idea, and for each question the right answer,
the reason and the wrong idea a wrong answer reveals. The answers go where every answer goes
(``tinygpt.ui.classwork.student.answered``): "my answers", and the class's answers for the teacher's report.
While the round at the end is open and not handed in, the address says so (``check=post``), so a
reload goes on with it.

In a class whose teacher runs the check (``ClassState.check``, ``tinygpt.ui.teacher.check_control``)
the teacher's phase decides: while the check before is open a student (also one who joins late)
takes it and the box opens by itself; once it is over a student who missed it is not asked for it;
while the check at the end is open every student takes the check *after*, even without the one
before (the report counts such a student apart: ``tinygpt.classroom.report``).
"""

from __future__ import annotations

import streamlit as st

from tinygpt.explanations.answers import question_record
from tinygpt.explanations.concept_check import CONCEPTS, MIN_T, check_id, check_questions, own_results, phase_done
from tinygpt.explanations.exercises import Question
from tinygpt.explanations.misconceptions import misconceptions
from tinygpt.training.record import ModelRecord
from tinygpt.ui.classwork import student
from tinygpt.ui.frame import url
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.frame.student_state import class_session, follow_session
from tinygpt.ui.frame.tables import show_table, text_table
from tinygpt.ui.shared.common import resend
from tinygpt.ui.shared.models import attention_trace
from tinygpt.ui.views.attention_table import K_CHECK
from tinygpt.ui.views.lesson import lesson

#: The app-wide parameter that keeps the round at the end open across a reload (``check=post``).
CHECK_PARAM, POST = "check", "post"


def _fields(fields) -> dict[str, object]:
    return {name: md_escape(v) if isinstance(v, str) else v for name, v in fields}


def _labels(question: Question) -> dict[str, str]:
    return {c.id: tr(c.key) if c.key else (md_escape(c.text) if c.text.strip() else "␣") for c in question.choices}


def _mine() -> list[tuple[str, bool, float]]:
    """(question id, right, time) of this student's answers."""
    return [(e.question_id, e.right, e.at) for e in class_session().answers.values()]


def section(record: ModelRecord, text: str | None = None) -> None:
    """The check's expander (drawn only while open): the form of the phase due, or the results.

    ``text``: the text the page shows; None for the model's first training window (a page
    without a text of attention, e.g. Predict)."""
    text = record.text[: record.window][: record.gpt_cfg.max_len] if text is None else text
    if (current := lesson()) is not None and not current.visible(K_CHECK):  # a lesson link may hide it;
        return  # a teacher leading the class does not: the check is the student's own answers
    mine = _mine()
    pre_done, post_done = phase_done(mine, "pre"), phase_done(mine, "post")
    phase = teacher_phase()
    due = {"pre": not pre_done, "post": not post_done}.get(phase, False)
    cs = class_session()
    if due and cs.check_opened != phase:  # the teacher opened a phase this student has not handed in
        cs.check_opened = phase
        st.session_state[K_CHECK] = True
    box = st.expander(tr("check.header"), key=K_CHECK, on_change="rerun", icon=":material/quiz:")
    if not box.open:
        return
    with box:
        if len(text) < MIN_T:
            st.info(tr("check.short", n=MIN_T))
            return
        questions = check_questions(attention_trace(record, text, 0), head=0)
        results = own_results(mine)
        if url.app_param(CHECK_PARAM) == POST:  # a reload during the round at the end: it goes on
            cs.check_post = True
        st.caption(tr("check.intro", text=md_escape(text)))
        if phase:
            _teachers_phase(phase, questions, results, pre_done, post_done)
        elif not pre_done:
            _form("pre", questions)
        elif post_done:
            url.drop(CHECK_PARAM)
            _results(results, questions)
        else:
            right = sum(results.get(c, {}).get("pre", False) for c in CONCEPTS)
            st.markdown(tr("check.pre_done", right=right, total=len(CONCEPTS)))
            if cs.check_post:
                url.put(CHECK_PARAM, POST)  # the address a reload opens keeps the round
                _form("post", questions)
            else:
                st.button(tr("check.start_post"), key="check_start_post", on_click=_ask_post, icon=":material/replay:")


def teacher_phase() -> str:
    """The phase of the check the student's class is in (``ClassState.check``): "" outside a class,
    before its teacher writes a state, or while the teacher runs no check."""
    if not class_session().in_class:
        return ""
    state = follow_session().state
    return state.check if state is not None else ""


def _teachers_phase(
    phase: str, questions: dict[str, Question], results: dict[str, dict[str, bool]], pre_done: bool, post_done: bool
) -> None:
    """The check as the teacher's phase has it: the form due, a wait, or the results."""
    right = sum(results.get(c, {}).get("pre", False) for c in CONCEPTS)
    if post_done:
        url.drop(CHECK_PARAM)
        _results(results, questions)
    elif phase == "post":
        if pre_done:
            st.markdown(tr("check.pre_score", right=right, total=len(CONCEPTS)))
        _form("post", questions)
    elif phase == "pre" and not pre_done:
        _form("pre", questions)
    elif pre_done:
        st.markdown(tr("check.pre_done_class", right=right, total=len(CONCEPTS)))
    else:
        st.caption(tr("check.closed_class"))


def notice() -> None:
    """In a class whose teacher has a phase of the check open that this student has not handed in:
    one line saying so, on every page (the check's box is on the Attention and Predict pages)."""
    phase = teacher_phase()
    if phase in ("pre", "post") and not phase_done(_mine(), phase):
        st.info(tr(f"check.open_{phase}"), icon=":material/quiz:")


def _form(phase: str, questions: dict[str, Question]) -> None:
    """The five questions of ``phase`` as one form; handing it in records every answer."""
    with st.form(f"check_form_{phase}", border=False):
        st.markdown(f"**{tr(f'check.{phase}')}**")
        for n, concept in enumerate(CONCEPTS, 1):
            q = questions[concept]
            labels = _labels(q)
            prompt = f"{n}. " + tr(q.prompt_key, **_fields(q.prompt_fields))
            resend(f"check_{phase}_{concept}")  # the browser knows a pick by its label (the language changes it)
            st.pills(
                prompt,
                list(labels),
                selection_mode="multi" if q.multiple else "single",
                format_func=labels.get,
                key=f"check_{phase}_{concept}",
            )
        submitted = st.form_submit_button(tr("check.submit"), icon=":material/send:")
    if not submitted:
        return
    picks = {c: st.session_state.get(f"check_{phase}_{c}") for c in CONCEPTS}
    missing = [c for c, p in picks.items() if not p]
    if missing:
        st.warning(tr("check.missing", n=len(missing)))
        return
    for concept in CONCEPTS:  # not in the session's score: the check says its own before and after
        q = questions[concept]
        identity = check_id(phase, concept, q)
        if identity in class_session().answers:
            continue
        student.answered(q, identity, picks[concept])
    student.keep_cookie()
    st.rerun()  # the whole page: the check's box shows the next phase


def _ask_post() -> None:
    class_session().check_post = True


def _results(results: dict[str, dict[str, bool]], questions: dict[str, Question]) -> None:
    """Before and after per idea, then each question's answer and reason (and the wrong idea, when wrong)."""
    pre = sum(results.get(c, {}).get("pre", False) for c in CONCEPTS)
    post = sum(results.get(c, {}).get("post", False) for c in CONCEPTS)
    took_pre = any("pre" in results.get(c, {}) for c in CONCEPTS)
    if took_pre:
        st.markdown(tr("check.post_done", pre=pre, post=post, total=len(CONCEPTS)))
    else:  # joined after the check before: nothing to compare with
        st.markdown(tr("check.post_only_done", post=post, total=len(CONCEPTS)))
    yes, no = tr("check.right"), tr("check.wrong")
    show_table(
        text_table(
            {
                tr("check.col.concept"): [tr(f"check.concept.{c}") for c in CONCEPTS],
                tr("check.col.pre"): [
                    "—" if "pre" not in results.get(c, {}) else yes if results[c]["pre"] else no for c in CONCEPTS
                ],
                tr("check.col.post"): [yes if results.get(c, {}).get("post", False) else no for c in CONCEPTS],
            }
        ),
        hide_index=True,
        key="check_results",
    )
    entries = class_session().answers
    for n, concept in enumerate(CONCEPTS, 1):
        q = questions[concept]
        labels = _labels(q)
        answer = ", ".join(labels[c.id] for c in q.answer_choices)
        reason = tr(q.reason_key, **_fields(q.reason_fields))
        st.markdown(tr("check.answer_line", n=n, concept=tr(f"check.concept.{concept}"), answer=answer, reason=reason))
        mine = next((e for e in entries.values() if e.question_id.startswith(f"check:post:{concept}:")), None)
        if mine is None or mine.right:
            continue
        record = mine.record or (question_record(q) if mine.question_id == check_id("post", concept, q) else None)
        if record is not None and (found := misconceptions(record, mine.answer)):
            st.caption(tr("mis.you_may_think", idea=tr(f"mis.{found[0]}")))
