"""The teacher's page: the lesson builder, and a class's answers live for whoever holds its key.

``/teacher`` shows the lesson builder (``tinygpt.ui.teacher.lesson_builder``). ``/teacher?class=K7M2QP&key=…``
(the teacher's link, made with the class) shows the class: its students' link and QR code for the
projector, close / reopen and clear, and per question, refreshed every :data:`REFRESH_SECONDS`
(``st.fragment(run_every=…)``): how many answered, the spread of the answers as a bar chart with
its table, and the share right. The key leaves the address at once (``tinygpt.ui.classwork.class_guard``:
kept in the session and a cookie). Without the key, with a wrong one or for an unknown class the
page says the same and shows nothing of the class; a client that tries too many waits. When the
store cannot be reached the page says that answers are not being recorded and keeps trying.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import streamlit as st

from tinygpt.classroom.class_links import query_with_class
from tinygpt.classroom.period import close_period, reopen_period
from tinygpt.classroom.store import ClassError, QuestionSummary, StoreError, read_class_code, read_teacher_key
from tinygpt.classroom.summary_labels import VOTE_KIND, BlockLabel, block_labels
from tinygpt.classroom.tally import RoundTally
from tinygpt.config import ConfigError
from tinygpt.i18n import CATALOGUE
from tinygpt.ui.classwork import misconception_view
from tinygpt.ui.classwork.class_guard import (
    attempts,
    client_id,
    forget_device,
    keep_key_cookie,
    teacher_credentials,
)
from tinygpt.ui.frame.app_url import base_url
from tinygpt.ui.frame.class_store import class_store, problem_text, store_writable
from tinygpt.ui.frame.language import error_text, lang, md_escape, tr
from tinygpt.ui.frame.page_list import TEACHER_PATH
from tinygpt.ui.frame.tables import show_table, text_table
from tinygpt.ui.frame.teacher_state import teacher_session
from tinygpt.ui.projector import projector_view
from tinygpt.ui.projector.votes import draw_spread_block, spread_rows
from tinygpt.ui.teacher import check_control, class_report_view, lead_question, lead_view, lesson_builder
from tinygpt.ui.teacher.teacher_roster import roster

#: Seconds between two refreshes of the class's answers.
REFRESH_SECONDS = 3
#: Questions drawn as charts (the most answered); the others are rows of one table below them.
MAX_CHARTS = 12


def page(page_paths: list[str], page_titles: dict[str, str]) -> None:
    """The teacher's page: the class of ``class=``/``key=`` if given (else the builder alone)."""
    st.title(tr("teacher.title"))
    raw_code, raw_key = teacher_credentials()
    if raw_code is None and raw_key is None:
        lesson_builder.builder(page_paths, page_titles)
        return
    guard, client = attempts("teacher"), client_id()
    if wait := guard.wait_s(client):
        st.error(tr("teacher.too_many", seconds=math.ceil(wait)), icon=":material/lock:")
        return
    if not raw_key:
        st.error(tr("teacher.no_key"), icon=":material/lock:")
        return
    try:
        code = read_class_code(raw_code or "")
    except ConfigError as exc:
        st.error(tr("teacher.bad_link", error=error_text(exc).rstrip(".。")), icon=":material/lock:")
        return
    try:
        key = read_teacher_key(raw_key)
    except ConfigError:  # a key the app never gives: to the teacher, a key that does not open the class
        guard.failed(client)
        st.error(tr("teacher.no_access"), icon=":material/lock:")
        return
    try:
        store = class_store()
        info = store.get_class(code)
        allowed = info is not None and store.is_teacher(code, key)
    except (StoreError, ConfigError) as exc:
        st.error(tr("teacher.store_down", reason=problem_text(exc)), icon=":material/cloud_off:")
        _wait_for_store()
        return
    if not allowed:  # no such class and a wrong key read the same: the page confirms no class code
        guard.failed(client)
        st.error(tr("teacher.no_access"), icon=":material/lock:")
        return
    keep_key_cookie(code, key)
    if forget_device(code):
        return
    class_view(code, key, info.lesson, info.is_open, page_paths)
    with st.expander(tr("teacher.another"), icon=":material/add_link:"):
        st.caption(tr("teacher.another_note" if info.is_open else "teacher.another_note_closed", code=code))
        lesson_builder.builder(page_paths, page_titles)


@st.fragment(run_every=REFRESH_SECONDS)
def _wait_for_store() -> None:
    """While the store cannot be reached: try again every few seconds; the page comes back when it can."""
    try:
        class_store().check()
    except (StoreError, ConfigError):
        return
    st.rerun()


def class_view(code: str, key: str, lesson: str, is_open: bool, page_paths: list[str]) -> None:
    """The class: its link and QR code, its state with close / reopen and clear, the live answers."""
    st.header(tr("teacher.class_header", code=code), anchor=False)
    base = base_url(page_paths + [TEACHER_PATH])
    query = query_with_class(lesson, code)
    try:
        student_url, note = f"{base}?s={class_store().shorten(query)}", ""
    except (StoreError, ValueError) as exc:
        student_url, note = f"{base}?{query}", tr("builder.no_short", reason=problem_text(exc))
    lesson_builder.show_links(student_url, f"{base}?{query}", note, key="teacher")
    teacher_url = f"{base}{TEACHER_PATH}?class={code}&key={key}&lang={lang()}"
    with st.expander(tr("teacher.your_link"), icon=":material/key:"):
        st.caption(tr("teacher.your_link_help"))
        st.code(teacher_url, language=None, wrap_lines=True)
    controls(code, key, is_open)
    for section in class_sections():
        section(code, key)
    live_answers(code)
    misconception_view.section(code)  # the wrong ideas the answers reveal, each with its experiment
    class_report_view.section(code)  # the concept check before and after: what the class learned


def class_sections() -> list[Callable[[str, str], None]]:
    """The sections of a class's view between its controls and its answers, in the order drawn;
    each is called with the class code and the teacher's key. A part of the class period adds its
    section here: the concept check before and after, leading the class, the class's question and its rounds."""
    return [projector_view.projector_link, check_control.section, lead_view.lead, lead_question.question]


def controls(code: str, key: str, is_open: bool) -> None:
    """Close or reopen the class; clear its answers (after a confirmation)."""
    state = "teacher.closed" if not is_open else "teacher.open" if store_writable() else "teacher.open_not_recording"
    st.markdown(tr(state))
    left, right = st.columns(2)
    action = "close" if is_open else "reopen"
    if left.button(tr(f"teacher.{action}"), key=f"teacher_{action}", icon=":material/lock:" if is_open else None):
        _act(action, code, key)
    with right.popover(tr("teacher.clear"), icon=":material/delete:"):
        st.caption(tr("teacher.clear_confirm"))
        if st.button(tr("teacher.clear_yes"), key="teacher_clear_yes", type="primary"):
            _act("clear", code, key)
    message = teacher_session().take_done()
    if message:
        st.success(message)


def _act(action: str, code: str, key: str) -> None:
    store = class_store()
    try:
        if action == "close":  # the period ends too: students stop following, the open question closes
            close_period(store, code, key)
        elif action == "reopen":
            reopen_period(store, code, key)
        else:
            n = store.clear_class(code, key)
            teacher_session().done = tr("teacher.cleared", n=n)
    except (StoreError, ClassError) as exc:
        st.error(problem_text(exc))
        return
    st.rerun()


def question_text(summary: QuestionSummary) -> str:
    """The question in the teacher's language (from its i18n key and fields), else as a student read it."""
    q = summary.question
    key = q.get("prompt_key")
    if key in CATALOGUE:
        fields = {name: md_escape(v) if isinstance(v, str) else v for name, v in q.get("prompt_fields", [])}
        try:
            return tr(key, **fields)
        except (KeyError, ValueError, IndexError):
            pass
    return md_escape(summary.text)


@st.fragment(run_every=REFRESH_SECONDS)
def live_answers(code: str) -> None:
    """The class's answers as they arrive: per question, the count, the share right, the spread."""
    st.subheader(tr("teacher.answers_header"), anchor=False)
    try:
        store = class_store()
        store.check(write=True)  # the folder, the file, the database: answers can be written now
        summaries, students, given = store.summary(code), store.students(code), store.answers(class_code=code)
    except (StoreError, ConfigError) as exc:
        st.error(tr("teacher.not_recording", reason=problem_text(exc)), icon=":material/cloud_off:")
        return
    answers = len(given)  # every answer the store holds: a vote's second round and the concept check too
    st.caption(
        tr("teacher.live", students=students, answers=answers, time=time.strftime("%H:%M:%S"), every=REFRESH_SECONDS)
    )
    if not summaries:
        st.info(tr("teacher.none_yet"))
        return
    roster(given)  # the nicknames students typed, collapsed
    kinds = dict(zip((s.question_id for s in summaries), block_labels(summaries, given), strict=True))
    numbered = list(enumerate(summaries, 1))  # in the order first answered
    most = {n for n, _ in sorted(numbered, key=lambda x: -x[1].answered)[:MAX_CHARTS]}
    others = [(n, q) for n, q in numbered if n not in most]
    for n, summary in numbered:
        if n in most:
            _question(n, summary, kinds[summary.question_id])
    if others:
        with st.expander(tr("teacher.more", n=len(others))):
            show_table(
                text_table(
                    {
                        "#": [n for n, _ in others],
                        tr("teacher.col_question"): [question_text(q) for _, q in others],
                        tr("teacher.col_kind"): [kind_text(kinds[q.question_id]) for _, q in others],
                        tr("teacher.col_answered"): [q.answered for _, q in others],
                        tr("teacher.right"): [f"{100 * q.share_right:.0f} %" for _, q in others],
                    }
                ),
                key="teacher_more",
            )


def kind_text(label: BlockLabel) -> str:
    """What a summary block is, in words: an exercise, a concept check's question, or which vote on it."""
    return tr("teacher.kind_vote", asked=label.asked) if label.kind == VOTE_KIND else tr(f"teacher.kind_{label.kind}")


def _question(n: int, summary: QuestionSummary, label: BlockLabel) -> None:
    """One question's box: the question and what kind of block it is, how many answered and
    rightly (of a vote: each round), the chart (round 1's) and its table."""
    with st.container(border=True):
        text = question_text(summary)
        st.markdown(f"**{n}.** {text}")
        st.caption(kind_text(label))
        if label.kind == VOTE_KIND:
            for rnd, tally in sorted(label.rounds.items()):
                share = f"{100 * tally.share_right:.0f} %"
                st.markdown(
                    tr("teacher.counts_round", round=rnd, answered=tally.answered, right=tally.right, share=share)
                )
        else:
            share = f"{100 * summary.share_right:.0f} %"
            st.markdown(tr("teacher.counts", answered=summary.answered, right=summary.right, share=share))
        tally = RoundTally(summary.answered, summary.right, summary.spread)
        draw_spread_block(
            spread_rows(summary.question, tally, summary.right_answers, summary.labels),
            tr("teacher.chart_title", n=n),
            tr("teacher.chart_alt", n=n, answered=summary.answered, right=summary.right),
            f"teacher_table_{n}",
            width="content",
        )
