"""Guess, then reveal, on any page: ask a :class:`tinygpt.explanations.exercises.Question`, reveal after the
pick, keep the session's score.

:func:`ask` draws one question and returns whether it has been revealed, so a page draws the
numbers that give the answer away only after the guess. A single-answer question reveals as soon
as a choice is picked; a several-answer question when "Check" is pressed. The pick is locked once
revealed, and each question counts once in the score (``st.session_state[SCORE]``,
right / asked, shared by every page). A new question under the same key (another prefix, step,
head…) starts unanswered.
"""

from __future__ import annotations

import streamlit as st
import torch

from tinygpt.attention import AttentionTrace, Step
from tinygpt.classroom.period import votes_blindly_on
from tinygpt.explanations.answers import answer_ids, question_id
from tinygpt.explanations.exercises import STEP_QUESTIONS, Fields, Question, question_for, theory_question
from tinygpt.model import GPT
from tinygpt.ui.classwork import misconception_view, student
from tinygpt.ui.frame.controls import SCORE
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.frame.student_state import class_session, follow_session
from tinygpt.ui.shared.common import resend

SPACE_MARK = "␣"


def _identity(question: Question) -> str:
    return question_id(question)  # the same id for every student shown this question (the class store's)


def _fields(fields: Fields) -> dict[str, object]:
    """Fields ready for Markdown: text (the student's characters) escaped, numbers as they are."""
    return {name: md_escape(value) if isinstance(value, str) else value for name, value in fields}


def _choice_labels(question: Question) -> dict[str, str]:
    """{choice id: label} in the session's language (built before the widget: format_func must not call tr())."""
    return {c.id: tr(c.key) if c.key else _shown(c.text) for c in question.choices}


def _shown(text: str) -> str:
    """A choice's text as Markdown: special characters escaped, a blank character shown as ␣."""
    return md_escape(text) if text.strip() else text.replace(" ", SPACE_MARK) or SPACE_MARK


def score() -> tuple[int, int]:
    """(right, asked) of this session."""
    right, asked = st.session_state.get(SCORE, (0, 0))
    return right, asked


def show_score() -> None:
    """The session's score as a caption, in the session's language, and once the student answered,
    "My answers" (downloads and a resume link) beside it, where the student is (the sidebar's
    copy is closed on a phone, and an answer given in a fragment does not redraw the sidebar)."""
    right, asked = score()
    if not asked:
        st.caption(tr("ex.score_none"))
        return
    left, right_box = st.columns([3, 2], vertical_alignment="center")
    left.caption(tr("ex.score", right=right, asked=asked))
    with right_box:
        student.my_answers_here()


def _reveal(question: Question, key_prefix: str) -> None:
    """Widget callback: reveal the question once a pick exists, and count it in the score once."""
    picked = st.session_state.get(f"{key_prefix}_pick")
    if not picked or st.session_state.get(f"_{key_prefix}_revealed"):
        return
    st.session_state[f"_{key_prefix}_revealed"] = True
    identity = _identity(question)
    student.answered(question, identity, picked)  # into "my answers" and the class's answers
    kept = student.prior_pick(question, identity)  # the store keeps the first answer: another tab's may be it
    if kept is not None and answer_ids(question, kept) != answer_ids(question, picked):
        st.session_state[f"{key_prefix}_pick"] = picked = kept  # this tab shows, and counts, what the store kept
    right, asked = score()
    st.session_state[SCORE] = (right + question.is_right(picked), asked + 1)


def count_theory_answer(qid: str, right_answer: str, key: str) -> None:
    """A Theory self-test question answered (its radio keyed ``key``): the first pick is counted
    in the score and kept in "my answers" (and the class's answers), as a guess is; later picks
    and reruns change nothing."""
    picked = st.session_state.get(key)
    question = theory_question(qid, right_answer)
    identity = _identity(question)
    if picked is None or identity in class_session().answers:
        return  # nothing picked, or counted already
    right, asked = score()
    st.session_state[SCORE] = (right + question.is_right(picked), asked + 1)
    student.answered(question, identity, picked)


def is_open_vote(question: Question) -> bool:
    """Whether the class this session follows votes on ``question`` now, unrevealed
    (:func:`tinygpt.classroom.period.votes_blindly_on`): the page's own exercise on it then neither
    asks nor shows its verdict."""
    state = follow_session().state
    return state is not None and votes_blindly_on(state, question)


def ask(question: Question, key_prefix: str) -> bool:
    """Draw ``question`` under the keys ``<key_prefix>_pick`` (and ``<key_prefix>_check``);
    return True once it is revealed (then the verdict, the right answer and the reason are shown).
    """
    pick_key, revealed_key, identity_key = f"{key_prefix}_pick", f"_{key_prefix}_revealed", f"_{key_prefix}_question"
    if is_open_vote(question):  # the class votes on this very question: its answer waits for the reveal
        st.info(tr("ex.class_vote"), icon=":material/how_to_vote:")
        return False
    identity = _identity(question)
    if st.session_state.get(identity_key) != identity:  # another question under these keys: start afresh
        st.session_state[identity_key] = identity
        # an empty pick written (not dropped), so the browser's pill of the last question is cleared too:
        # kept there, the next rerun (a language switch) would send it back as an answer to this question
        st.session_state[pick_key] = [] if question.multiple else None
        st.session_state.pop(revealed_key, None)
        if (before := student.prior_pick(question, identity)) is not None:  # answered before (e.g. a reload)
            st.session_state[pick_key], st.session_state[revealed_key] = before, True
    revealed = bool(st.session_state.get(revealed_key))
    labels = _choice_labels(question)
    prompt = tr(question.prompt_key, **_fields(question.prompt_fields))
    resend(pick_key)  # the browser knows a pick by its label: keep it across a language switch
    if question.multiple:
        st.pills(prompt, list(labels), selection_mode="multi", format_func=labels.get, key=pick_key, disabled=revealed)
        if not revealed:
            st.button(
                tr("ex.check"),
                key=f"{key_prefix}_check",
                on_click=_reveal,
                args=(question, key_prefix),
                disabled=not st.session_state.get(pick_key),
            )
            st.caption(tr("ex.pick_hint_multiple"))
    else:
        st.pills(
            prompt,
            list(labels),
            format_func=labels.get,
            key=pick_key,
            disabled=revealed,
            on_change=_reveal,
            args=(question, key_prefix),
        )
        if not revealed:
            st.caption(tr("ex.pick_hint"))
    if not revealed:
        return False
    student.keep_cookie()  # a reload brings this answer back
    right = question.is_right(st.session_state.get(pick_key))
    reason = tr(question.reason_key, **_fields(question.reason_fields))
    # a character is quoted ("。" would run into the sentence's own full stop); numbers and named choices are not
    answer = ", ".join(
        tr("ex.quoted", text=labels[c.id]) if not c.key and len(c.text) == 1 and not c.text.isdigit() else labels[c.id]
        for c in question.answer_choices
    )
    if right:
        st.success(tr("ex.right", reason=reason), icon=":material/check_circle:")
    else:
        st.error(tr("ex.wrong", answer=answer, reason=reason), icon=":material/cancel:")
        misconception_view.note(question, st.session_state.get(pick_key))  # the wrong idea it reveals
    if (note := student.answer_note()) is not None:  # the answer did not reach the teacher: say so here
        st.warning(note, icon=":material/school:")
    return True


def attention_exercise(
    trace: AttentionTrace,
    step: Step | str,
    head: int,
    layer: int,
    query: int,
    model: GPT | None = None,
    idx: torch.Tensor | None = None,
    key_prefix: str = "attn_ex",
) -> bool:
    """The Attention page's questions for ``step`` at ``head`` and query row ``query``; True when
    every question the step asks is revealed (also when it asks none).

    ``trace`` is the trace the page shows (its switches included) for ``layer``; ``model`` and
    ``idx`` (1, T) of its text are needed at steps 7–9 (``head_off``). Each question uses the keys
    ``<key_prefix>_<kind>_pick`` / ``_check``. Raises ValueError when ``layer`` is not the trace's.
    """
    step_id = step if isinstance(step, str) else step.id
    if layer != trace.layer:
        raise ValueError(f"layer={layer} but the trace is of layer {trace.layer}")
    kinds = STEP_QUESTIONS[step_id]
    if not kinds:
        return True
    st.markdown(f"**{tr('ex.header')}**")
    revealed = [
        ask(question_for(step_id, trace, head, query, kind, model, idx), f"{key_prefix}_{kind}") for kind in kinds
    ]
    show_score()
    return all(revealed)
