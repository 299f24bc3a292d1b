"""The class's question on the teacher's page (a section of ``teacher_view``): vote, discuss, vote again.

The teacher asks a question computed from the model's own numbers (``tinygpt.explanations.exercises``)
on the view students see (the stored Attention view: its layer, head, text and switches); students
answer without seeing anyone else's answer; the teacher sees the spread here, privately, refreshed
every :data:`REFRESH_SECONDS`; between 30 % and 70 % right the app suggests that students discuss
with a neighbour and answer again (round 2); "Reveal" shows the spread, the right answer and the
model's numbers on the projector and on every student's page. Only the tab that leads writes
(``tinygpt.ui.teacher.lead_view.leads``).
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

import streamlit as st

from tinygpt.classroom.period import ClassState, suggest_discussion, tally
from tinygpt.classroom.store import StoreError
from tinygpt.config import ConfigError
from tinygpt.explanations.charts import position_labels
from tinygpt.explanations.exercises import STEP_QUESTIONS, Question, QuestionKind, question_for
from tinygpt.formatting import number
from tinygpt.ui.attention.state import other_layers, switches
from tinygpt.ui.choice.led_model import led_model
from tinygpt.ui.frame.class_store import class_store, problem_text
from tinygpt.ui.frame.language import error_text, tr
from tinygpt.ui.frame.teacher_state import teacher_session
from tinygpt.ui.projector.votes import (
    compare_line,
    draw_spread,
    question_prompt,
    question_reason,
    right_labels,
    warn_all_right,
)
from tinygpt.ui.shared.attention_data import what_if
from tinygpt.ui.shared.models import attention_trace
from tinygpt.ui.teacher.lead_view import current_state, stored_values, write_led
from tinygpt.ui.views import attention_table as table

#: Seconds between two refreshes of the open question's answers on the teacher's view.
REFRESH_SECONDS = 2
#: The questions a teacher can ask the class (those of the Attention page's steps).
KINDS: tuple[QuestionKind, ...] = (
    QuestionKind.ARGMAX_KEY,
    QuestionKind.MASKED_CELLS,
    QuestionKind.ROW_SUM,
    QuestionKind.HEAD_OFF,
)
L_KIND, L_ROW = "lead_kind", "lead_row"


def _step_for(kind: QuestionKind, step: str) -> str:
    """The step whose question ``kind`` is: ``step`` when it asks it, else the first step that does."""
    if kind in STEP_QUESTIONS.get(step, ()):
        return step
    return next(s for s, kinds in STEP_QUESTIONS.items() if kind in kinds)


def make_question(state: ClassState, kind: QuestionKind, row: int) -> tuple[Question, str]:
    """(the question ``kind`` about query row ``row`` of the layer and head the students' steps show,
    the text it is about), computed from the model and the stored Attention view students see (its
    layer, head, text and switches). Raises UnknownCharError for a text the model cannot read,
    IndexError for a row outside it, KeyError while the model is not here."""

    record = led_model(state)
    if record is None:
        raise KeyError(state.train)
    view = stored_values(state, record)
    text = str(view[table.K_TEXT])[: record.gpt_cfg.max_len]
    layer, head = int(view[table.K_LAYER]), int(view[table.K_HEAD])
    base = attention_trace(record, text, layer, other_layers(record.gpt_cfg, view))
    trace = what_if(base, switches(record.gpt_cfg, len(text), view))
    idx = record.vocab.encode(text)[None]  # (1, T)
    step = str(view[table.K_STEP])
    return question_for(_step_for(kind, step), trace, head, row, kind, record.model, idx), text


def _ask(code: str, key: str) -> None:
    ss = st.session_state
    try:
        state = current_state(code)
        if led_model(state) is None:  # the own model is not on this server yet
            teacher_session().lead_problem = tr("period.own_missing")
            return
        q, _ = make_question(state, QuestionKind(ss[L_KIND]), int(ss.get(L_ROW) or 0))
    except (StoreError, ConfigError) as exc:
        teacher_session().lead_problem = problem_text(exc)
        return
    except (KeyError, IndexError, ValueError) as exc:
        teacher_session().lead_problem = error_text(exc)
        return
    write_led(code, key, state.with_question(q))


def _set(code: str, key: str, **changes: object) -> None:
    try:
        state = current_state(code)
    except (StoreError, ConfigError) as exc:
        teacher_session().lead_problem = problem_text(exc)
        return
    write_led(code, key, state.without_question() if changes.pop("close", False) else replace(state, **changes))


def question(code: str, key: str) -> None:
    """The class's question: the form that asks one, or the open question (:func:`open_question`)."""
    try:
        state = current_state(code)
    except (StoreError, ConfigError) as exc:
        st.error(tr("teacher.not_recording", reason=problem_text(exc)), icon=":material/cloud_off:")
        return
    if state.closed:  # a closed class asks nothing (the class's section says so)
        return
    st.subheader(tr("period.question_section"), anchor=False)
    if state.question is None:  # drawn outside the refreshing part: a pick is never redrawn under the mouse
        if (problem := teacher_session().take_lead_problem()) is not None:
            st.error(problem)
        _ask_form(state, (code, key))
        return
    open_question(code, key)


@st.fragment(run_every=REFRESH_SECONDS)
def open_question(code: str, key: str) -> None:
    """The open question's answers (private to the teacher), refreshed; round 2, reveal, close."""
    try:
        state = current_state(code)
        votes = tally(class_store(), code, state.question_id) if state.question else None
    except (StoreError, ConfigError) as exc:
        st.error(tr("teacher.not_recording", reason=problem_text(exc)), icon=":material/cloud_off:")
        return
    if state.question is None or votes is None:  # closed (in another tab): the form to ask the next one
        st.rerun(scope="app")
    if (problem := teacher_session().take_lead_problem()) is not None:
        st.error(problem)
    args = (code, key)
    st.markdown(f"**{question_prompt(state.question)}**")
    now = votes.of(state.round)
    share = f"{100 * now.share_right:.0f}"
    st.markdown(tr("period.teacher_counts", round=state.round, answered=now.answered, right=now.right, share=share))
    draw_spread(state.question, now, state.round, key="lead_spread")
    if state.round == 2:
        st.caption(compare_line(votes))
    if not state.revealed:
        discuss = state.round == 1 and now.answered > 0 and suggest_discussion(now.share_right)
        if discuss:
            st.info(tr("period.suggest", share=share), icon=":material/forum:")
        cols = st.columns(2)
        if state.round == 1:
            cols[0].button(
                tr("period.round2"),
                key="lead_round2",
                type="primary" if discuss else "secondary",
                on_click=_set,
                args=args,
                kwargs={"round": 2},
                icon=":material/forum:",
            )
        cols[1].button(
            tr("period.reveal"),
            key="lead_reveal",
            on_click=_set,
            args=args,
            kwargs={"revealed": True},
            icon=":material/visibility:",
        )
    else:
        st.success(
            tr("period.revealed_teacher", answer=right_labels(state.question), reason=question_reason(state.question))
        )
        if st.button(tr("period.close"), key="lead_close", icon=":material/done:"):
            _set(code, key, close=True)
            st.rerun(scope="app")  # the form to ask the next question is outside this part


def _ask_form(state: ClassState, args: tuple[str, str]) -> None:
    """Choose a question about the view students see, and ask it."""

    record = led_model(state)
    if record is None:
        st.info(tr("period.own_missing"))
        return
    view = stored_values(state, record)
    text = str(view[table.K_TEXT])[: record.gpt_cfg.max_len]
    kinds = {str(k): tr(f"period.kind.{k}") for k in KINDS}
    rows = dict(enumerate(position_labels(text)))
    st.session_state.setdefault(L_KIND, str(KINDS[0]))
    if st.session_state.get(L_ROW) not in rows:
        st.session_state[L_ROW] = max(rows) if rows else 0
    left, right = st.columns(2)
    left.selectbox(tr("period.kind"), list(kinds), format_func=kinds.get, key=L_KIND)
    if rows:
        right.selectbox(tr("period.row"), list(rows), format_func=rows.get, key=L_ROW)
    st.caption(tr("period.ask_help", text=text, head=number(int(view[table.K_HEAD]))))
    with contextlib.suppress(KeyError, IndexError, ValueError):  # asking says why (_ask)
        ss = st.session_state
        asked = make_question(state, QuestionKind(ss[L_KIND]), int(ss.get(L_ROW) or 0))[0]
        warn_all_right(asked, bool(view[table.K_UNIFORM]))
    st.button(tr("period.ask"), key="lead_ask", type="primary", on_click=_ask, args=args, icon=":material/how_to_vote:")
