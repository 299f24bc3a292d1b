"""A student's page in a class the teacher leads: follow the teacher's view, and vote.

``navigation.run_app`` calls :func:`class_period` before the page runs. In a class (``class=``,
``tinygpt.ui.classwork.student``) it reads the class's state (``tinygpt.classroom.period``) and:

- while the teacher leads ("Students follow me"), puts the teacher's model (an example, or the
  model of the teacher's pages as a ``train=`` link gives it: ``tinygpt.ui.choice.led_model``), text,
  step and switches into the session before the page draws its widgets, and opens the teacher's page (so a
  student who joins late lands where the class is); every control the teacher has not opened is
  locked: ``tinygpt.ui.views.lesson.visible`` hides it while ``FollowSession.open`` holds the
  opened ones, and the page uses the teacher's value; a line says the teacher is leading;
- draws :func:`live` at the top of the page, a fragment that reads the state again every
  :data:`REFRESH_SECONDS` and reruns the whole page when the teacher's view changed, and shows the
  class's open question: the student answers without seeing anyone else's answer, once per round,
  and sees the right answer and the model's own numbers when the teacher reveals them.

A store that cannot be reached changes nothing on the page; a vote it could not take waits in the
session and is sent on the next refresh. Once the teacher closes the class
(``tinygpt.classroom.period.close_period``) the page says so, and neither follows nor asks; a vote
the closed class refused is said to have stayed with the student.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace

import streamlit as st

from tinygpt.classroom.class_links import LESSON_KEYS
from tinygpt.classroom.period import LED_PAGES, OWN, ClassState, question_from_data, read_state, votes_of
from tinygpt.classroom.store import ClassError, NewAnswer, StoreError
from tinygpt.config import ConfigError
from tinygpt.explanations.answers import answer_ids
from tinygpt.ui.attention import page_views
from tinygpt.ui.attention import state as attn
from tinygpt.ui.choice.led_model import has_led_model, led_model, model_identity, take_led_model, training_note
from tinygpt.ui.classwork import concept_check_view, student
from tinygpt.ui.classwork.class_sync import recheck_class
from tinygpt.ui.classwork.my_answers import my_answers
from tinygpt.ui.frame import url
from tinygpt.ui.frame.class_store import class_store, problem_text
from tinygpt.ui.frame.controls import K_MODEL, SCORE, view_values
from tinygpt.ui.frame.language import listed, md_escape, tr
from tinygpt.ui.frame.page_list import CLASS_VIEW_PATHS
from tinygpt.ui.frame.student_state import (
    K_NICKNAME,
    AnswerEntry,
    class_session,
    entry_key,
    follow_session,
    score_of,
)
from tinygpt.ui.predict.predict_view import follow_model as predict_follows
from tinygpt.ui.views.lesson import lesson

#: Seconds between two readings of the class's state on a student's page.
REFRESH_SECONDS = 1
MAX_RERUNS = 3


def _class_code() -> str | None:
    """The class whose period the page shows: the session's class while open, or seen closed (the
    page says it is closed, and finds out when it is opened again)."""
    cs = class_session()
    return cs.code if cs.in_class or (cs.code and cs.status == "closed") else None


def _read(code: str) -> ClassState | None:
    """The class's state (None before the teacher wrote one); the last one read when the store is down."""
    try:
        state = read_state(class_store(), code)
    except (StoreError, ConfigError):
        return follow_session().state
    follow_session().state = state
    if state is not None:
        student.shown_votes(state.all_shown())  # a revealed vote's verdict may now be shown
    return state


def wanted(state: ClassState) -> dict[str, object]:
    """The session values the teacher's view sets: widget key -> value, as the rows of the Attention
    and Predict pages read the stored views (the model apart: ``tinygpt.ui.choice.led_model.take_led_model``;
    nothing while the class's model is not here)."""
    record = led_model(state)
    if record is None:
        return {}
    values: dict[str, object] = {}
    for page in ("attention", "predict"):
        values.update(page_views.led(page, record, state.view(page)))
    return values


def _apply(state: ClassState) -> None:
    """Put the teacher's view into the session (before the widgets): locked controls always take
    the teacher's value; opened ones only when the teacher changed it."""

    ss = st.session_state
    opened = set(state.open_controls)
    applied = follow_session().applied
    changed = ss.get(K_MODEL) != state.model or not has_led_model(state)
    if (changed or state.model == OWN) and K_MODEL not in opened:
        record = take_led_model(state)  # an own model: from the shelf, or its training starts (the page shows it)
        if changed and record is not None:
            attn.follow_model(record)  # the new model's own attention and text, before the teacher's switches
            predict_follows(record)
    for key, value in wanted(state).items():
        if key not in opened or applied.get(key) != value:
            if ss.get(key) != value:
                ss[key] = value
            applied[key] = value


def class_period(url_path: str, page_files: dict[str, str]) -> None:
    """Before the page runs (``navigation.run_app``): follow the teacher if the class says so (its
    view into the session, its page opened, the other controls locked), then :func:`live`."""
    fs = follow_session()
    code = _class_code()
    if code is None or url_path in CLASS_VIEW_PATHS:
        fs.open = None
        return
    state = _read(code)
    fs.check_seen = state.check if state is not None else ""  # the check's box is drawn with this phase
    if state is not None and state.follow and not _closed(state):
        fs.open = frozenset(state.open_controls)
        _apply(state)
        current = lesson()
        if state.page != url_path and state.page in page_files and (current is None or current.page_shown(state.page)):
            keep = {k: v for k, v in url.query().items() if k in (*LESSON_KEYS, "lang")}  # not the old view
            st.switch_page(page_files[state.page], query_params=keep)
    else:
        fs.open, fs.applied = None, {}
    fs.full_run = True
    live(code, url_path)


def _out_of_step(state: ClassState, url_path: str) -> bool:
    """True when the page does not show the teacher's view (the whole page must run again)."""
    ss, fs = st.session_state, follow_session()
    if not state.follow or _closed(state):
        return fs.open is not None  # the teacher let them explore, or closed the class: the controls come back
    if fs.open != frozenset(state.open_controls):
        return True
    current = lesson()
    if state.page != url_path and (current is None or current.page_shown(state.page)):
        return True
    opened, applied = set(state.open_controls), fs.applied
    return any((ss.get(k) != v) if k not in opened else applied.get(k) != v for k, v in wanted(state).items()) or (
        (ss.get(K_MODEL) != state.model or not has_led_model(state)) and K_MODEL not in opened
    )


@st.fragment(run_every=REFRESH_SECONDS)
def live(code: str, url_path: str) -> None:
    """The class's state on a student's page, read every few seconds: the whole page runs again
    when the teacher's view changed; the line "your teacher is leading"; the open question."""
    fs = follow_session()
    full_run, fs.full_run = fs.full_run, False
    state = fs.state if full_run else _read(code)  # a whole run read it just before
    _send_waiting()
    if state is None:
        return
    if not full_run and _out_of_step(state, url_path):
        tries = fs.reruns
        count = tries[1] + 1 if tries[0] == state.version else 1
        fs.reruns = (state.version, count)
        if count <= MAX_RERUNS:  # a view the page cannot take (an unreadable text) does not loop
            st.rerun(scope="app")
    if not full_run and state.check != fs.check_seen:  # the teacher started or ended a check: its box follows
        st.rerun(scope="app")
    if _closed(state):  # no lead and no question: said on the page, where a phone shows it
        cs = class_session()
        if fs.refused:
            st.warning(tr("period.vote_refused", code=code), icon=":material/lock:")
        st.info(tr("period.closed_student", code=code) if cs.status != "unknown" else cs.note, icon=":material/lock:")
        return
    concept_check_view.notice()
    if state.follow:
        st.info(tr("period.leading", where=_where(state)), icon=":material/co_present:")
        if model_changed(state):
            st.caption(tr("period.model_changed"))
        if (note := training_note(state)) is not None:
            st.caption(note)
    if state.question is not None and state.round:
        with st.container(border=True, key="period_question"):
            _question(code, state)


def model_changed(state: ClassState) -> bool:
    """True when the class's view was made with a model of other settings than the one here (an
    update changed an example's training): its numbers may differ from what the teacher prepared."""
    record = led_model(state)
    return bool(state.model_id) and record is not None and model_identity(record) != state.model_id


def _closed(state: ClassState) -> bool:
    """True when the class is closed: its state says so, or the store refused an answer (a class
    seen closed is asked again now and then: ``tinygpt.ui.classwork.class_sync.recheck_class``)."""
    cs = class_session()
    if cs.status == "closed" and not state.closed:
        recheck_class()  # reopened: answers go to the class again
    elif state.closed and cs.status != "closed":
        cs.status, cs.note = "closed", tr("class.closed", code=cs.code)
    if cs.status == "open":
        follow_session().refused = False
    return state.closed or cs.status in ("closed", "unknown")


def _where(state: ClassState) -> str:
    """The teacher's view as the student reads it (never the student's own page, whose opened
    controls may differ): the page; on the Attention page the step and the switches away from the
    model's own (the mask always)."""
    title = tr(f"nav.{state.page}") if state.page in LED_PAGES else ""
    record = led_model(state)
    if state.page != attn.PAGE or record is None:
        return title
    view = {**view_values(attn.ATTENTION, record), **page_views.named(attn.PAGE, record, state.view(attn.PAGE))}
    step = view.get(attn.K_STEP)
    if step not in attn.NAV_IDS:
        return title
    name = tr("attn.input_nav") if step == attn.INPUT else tr(f"step.{step}.name")
    where = tr("period.where", page=title, n=attn.NAV_IDS.index(step), step=name)
    return tr("common.clause_sep").join([where, *page_views.switches_said(record, view)])


# ---------------------------------------------------------------- the vote


def _fields(fields: Iterable[tuple[str, object]]) -> dict[str, object]:
    """A question's fields ready for Markdown: text escaped, numbers as they are."""
    return {name: md_escape(value) if isinstance(value, str) else value for name, value in fields}


def _question(code: str, state: ClassState) -> None:
    """The class's question: pick an answer (once per round), then wait; the verdict after the reveal."""
    ss = st.session_state
    question = question_from_data(state.question)
    votes = follow_session().votes
    _load_votes(code, state.question_id)
    sent = votes.get((state.question_id, state.round))
    fields = _fields(question.prompt_fields)
    labels = {c.id: tr(c.key) if c.key else (md_escape(c.text) if c.text.strip() else "␣") for c in question.choices}
    st.markdown(f"#### {tr('period.question_header', round=state.round)}")
    if state.round == 2 and not state.revealed:
        st.caption(tr("period.round2_student"))
    key = f"period_vote_{state.question_id}_{state.round}"
    closed = sent is not None or state.revealed
    if sent is not None:
        ss[key] = sent.split(",") if question.multiple else sent
    prompt = tr(question.prompt_key, **fields)
    st.markdown(prompt)  # as text: a closed vote's own label would be greyed out beyond what can be read
    st.pills(
        prompt,
        list(labels),
        label_visibility="collapsed",
        format_func=labels.get,
        selection_mode="multi" if question.multiple else "single",
        key=key,
        disabled=closed,
        on_change=None if question.multiple else _vote,
        args=None if question.multiple else (code, state, key),
    )
    if question.multiple and not closed:
        st.button(
            tr("period.send"),
            key=f"period_send_{state.question_id}_{state.round}",
            on_click=_vote,
            args=(code, state, key),
        )
    if state.revealed:
        mine = votes.get((state.question_id, 2)) or votes.get((state.question_id, 1))
        reason = tr(question.reason_key, **_fields(question.reason_fields))
        right = listed(labels[c.id] for c in question.answer_choices)
        if mine is None:
            st.info(tr("period.revealed", answer=right, reason=reason), icon=":material/lightbulb:")
        elif question.is_right(mine.split(",") if question.multiple else mine):
            st.success(tr("ex.right", reason=reason), icon=":material/check_circle:")
        else:  # not an error box: a vote is a step of learning, said without alarm
            st.info(tr("ex.wrong", answer=right, reason=reason), icon=":material/lightbulb:")
    elif sent is not None:
        st.caption(tr("period.sent"))
    else:
        st.caption(tr("period.pick"))
    if sent is not None:
        _mine_here()


def _mine_here() -> None:
    """ "My answers" beside the vote: the vote is given in this fragment, which does not redraw the
    sidebar's copy, so the student sees it there at once."""
    cs = class_session()
    entries = sorted(cs.answers.values(), key=lambda e: e.at)
    if entries:
        with st.container(key="mine_vote"), st.popover(tr("mine.button"), icon=":material/assignment:"):
            my_answers(entries, cs.page, key_prefix="mine_vote")


def _load_votes(code: str, question_id: str) -> None:
    """Once per question: the votes this student cast before (a reload, another tab) from the store."""
    fs = follow_session()
    loaded = fs.loaded
    if question_id in loaded:
        return
    try:
        mine = votes_of(class_store(), code, question_id, class_session().me)
    except (StoreError, ConfigError):
        return  # tried again on the next refresh
    loaded.add(question_id)
    for rnd, answer in mine.items():
        fs.votes.setdefault((question_id, rnd), answer)


def _vote(code: str, state: ClassState, key: str) -> None:
    """Widget callback: send this student's answer for the open round (once)."""
    ss, fs = st.session_state, follow_session()
    question = question_from_data(state.question)
    picked = ss.get(key)
    if not picked or (state.question_id, state.round) in fs.votes:
        return
    ids = answer_ids(question, picked)
    labels = {c.id: c.text or tr(c.key) for c in question.choices}
    fs.votes[(state.question_id, state.round)] = ids
    vote = NewAnswer(
        class_code=code,
        question_id=state.question_id,
        question_text=tr(question.prompt_key, **dict(question.prompt_fields)),
        question=dict(state.question),
        student=class_session().me,
        answer=ids,
        answer_text=", ".join(labels.get(i, i) for i in ids.split(",") if i),
        right=question.is_right(picked),
        nickname=ss.get(K_NICKNAME),
        round=state.round,
    )
    fs.waiting.append(vote)
    mine = (vote.question_id, vote.question_text, vote.answer, vote.answer_text, vote.right, time.time(), code)
    student.voted(AnswerEntry(*mine, round=state.round))  # "my answers" and the score
    _send_waiting()


def _keep_stored(vote: NewAnswer) -> None:
    """This tab's vote the store did not take (the student voted in another tab first): the vote,
    "my answers" and the score become the one the store kept, so this tab never says "Right!" for
    an answer the teacher does not have. StoreError when the store cannot be reached."""
    kept = votes_of(class_store(), vote.class_code, vote.question_id, vote.student).get(vote.round)
    if kept is None or kept == vote.answer:
        return
    fs, answers = follow_session(), class_session().answers
    fs.votes[(vote.question_id, vote.round)] = kept
    question = question_from_data(vote.question)
    labels = {c.id: c.text or tr(c.key) for c in question.choices}
    key = entry_key(vote.question_id, vote.round)
    before = score_of(answers.values())
    if key in answers:
        text = ", ".join(labels.get(i, i) for i in kept.split(",") if i)
        right = question.is_right(kept.split(",") if question.multiple else kept)
        answers[key] = replace(answers[key], answer=kept, answer_text=text, right=right)
    after = score_of(answers.values())
    right_now, asked = st.session_state.get(SCORE, (0, 0))
    st.session_state[SCORE] = (right_now + after[0] - before[0], asked + after[1] - before[1])


def _send_waiting() -> None:
    """Send the votes the store has not taken yet. A closed (or removed) class refuses them: the vote
    is not counted as sent, and the page says the class is closed (:func:`live`)."""
    fs = follow_session()
    waiting = fs.waiting
    while waiting:
        try:
            if not class_store().record_answer(waiting[0]):  # another tab's vote reached the store first
                _keep_stored(waiting[0])
        except ClassError as exc:
            cs = class_session()
            cs.status = "closed" if exc.key == "class.closed" else "unknown"
            cs.note = tr(f"class.{cs.status}", code=exc.code)
            fs.votes.pop((waiting[0].question_id, waiting[0].round), None)
            fs.refused = True
        except (StoreError, ConfigError) as exc:
            st.caption(tr("period.waiting", n=len(waiting), reason=problem_text(exc)))
            return
        waiting.pop(0)
