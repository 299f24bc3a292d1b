"""The student in the Streamlit layer: the anonymous token, the class a student is in, and the
answers sent to the class store.

Everything here is reached through a few hooks:

- ``navigation.run_app`` calls :func:`student_session` before the page runs (the student's
  anonymous token, the class, "my answers" in the sidebar: ``tinygpt.ui.classwork.my_answers``);
- ``exercise_view.ask`` calls :func:`prior_pick` (a question this student answered before, e.g.
  before a reload, comes back answered) and :func:`answered` when a guess is revealed.

A student is a random token, kept in the browser's cookie once the student has answered
something or is in a class (not in the address, which students copy to each other), so a reload
brings back the answers and the score from the store; a resume link carries it as ``me=`` to
another browser.
Each answer is recorded in the store (``tinygpt.classroom.store``) under the student's class (``class=``),
or under no class; an answer the store cannot take now stays in the session and is sent by
itself every few seconds (``tinygpt.ui.classwork.class_retry``). Nothing here stops a page: a store that
cannot be reached, an unknown or closed class and a bad code each get a message in the user's
language, and the student keeps working. The session's class state is ``tinygpt.ui.frame.student_state.ClassSession``.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import replace
from typing import TYPE_CHECKING

import streamlit as st

from tinygpt.classroom.period import is_vote, read_state
from tinygpt.classroom.store import (
    CLASS_CODE_LEN,
    DEFAULT_ANSWER_DAYS,
    MARKS_PREFIX,
    ClassError,
    NewAnswer,
    StoreError,
    answer_days,
    new_student,
    read_class_code,
    read_student,
)
from tinygpt.config import ConfigError
from tinygpt.explanations.answers import answer_ids, picked_of, question_record
from tinygpt.explanations.predictions import PREFIX as PREDICTION_PREFIX
from tinygpt.ui.classwork.class_guard import lookup_missed, lookup_wait_s
from tinygpt.ui.classwork.class_retry import waiting_answers
from tinygpt.ui.classwork.class_sync import first_answer_kept, recheck_class
from tinygpt.ui.classwork.my_answers import my_answers, sidebar
from tinygpt.ui.frame import url
from tinygpt.ui.frame.class_store import class_store, say, show_messages, student_problem_text
from tinygpt.ui.frame.controls import SCORE
from tinygpt.ui.frame.language import error_text, md_escape, tr
from tinygpt.ui.frame.page_list import CLASS_VIEW_PATHS, LESSON_START, PROJECTOR_PATH
from tinygpt.ui.frame.student_state import (
    COOKIE,
    K_NICKNAME,
    AnswerEntry,
    class_session,
    entry_key,
    is_hidden,
    score_of,
)
from tinygpt.ui.views.lesson import lesson

if TYPE_CHECKING:
    from tinygpt.explanations.exercises import Question

_COOKIE_JS = "<script>document.cookie = '{name}={value}; path=/; max-age={age}; SameSite=Lax';</script>"


# ---------------------------------------------------------------- the student's session


def student_session(url_path: str) -> None:
    """Before the page runs: the student's token and answers (loaded once from the store when a
    resume link or the browser's cookie names them), the class of ``class=``, answers waiting to be
    sent, ``class=`` in the URL and the token in the cookie, the messages, and the class banner and
    "my answers" in the sidebar.
    Not on the teacher's and the projector's pages (their ``class=`` is the class they show)."""
    cs = class_session()
    cs.page = url_path
    if cs.me is None:
        _start_student()
    if url_path not in CLASS_VIEW_PATHS:
        _read_class()
        recheck_class()
        _send_waiting()
        _write_url()
    if lesson() is not None and url_path in ("", LESSON_START):  # this run only opens the lesson's first page
        return
    if url_path != PROJECTOR_PATH:  # the room's screen shows no student's own messages
        show_messages()
    if url_path not in CLASS_VIEW_PATHS:
        if cs.in_class:  # on a phone the sidebar starts closed
            st.caption(tr("class.banner_main", code=cs.code))
        keep_cookie()
        sidebar(url_path)


def _start_student() -> None:
    """The student's token: a resume link's ``me=`` (taken out of the address, so a copied address
    does not share it), else this browser's cookie (a reload), else a new one; the answers of a
    known token and their score come back from the store."""
    ss, cs = st.session_state, class_session()
    raw, me = url.app_param("me"), None  # me= leaves the address (a secret row)
    if raw is None:
        raw = browser_token()
    if raw is not None:
        try:
            me = read_student(raw)
        except ConfigError as exc:
            say(tr("mine.bad_token", error=error_text(exc).rstrip(".。")))
    cs.me, cs.answers = me or new_student(), {}
    if me is None:
        return
    try:
        loaded = class_store().answers(student=me)
    except (StoreError, ConfigError) as exc:
        say(tr("mine.not_loaded", reason=student_problem_text(exc)))
        return
    for a in loaded:  # each round of a class vote is an answer of its own; the score counts its latest
        rnd = a.round if is_vote(a.question_id) else 0
        cs.answers[entry_key(a.question_id, rnd)] = AnswerEntry(
            a.question_id, a.question_text, a.answer, a.answer_text, a.right, a.at, a.class_code, sent=True, round=rnd
        )
    cs.shown = _revealed_votes(cs.answers.values())
    if cs.answers:
        right, asked = ss[SCORE] = score_of(cs.answers.values(), cs.shown)
        say(tr("mine.restored", asked=asked, right=right), "info")
        if hidden := _hidden_count():
            say(tr("mine.hidden_note", n=hidden), "info")


def _revealed_votes(entries) -> frozenset[str]:
    """The revealed votes among the classes of ``entries``' votes (each class's state read once);
    a class whose state cannot be read reveals nothing (its votes stay blind)."""
    shown: set[str] = set()
    for code in {e.class_code for e in entries if e.round and e.class_code}:
        try:
            state = read_state(class_store(), code)
        except (StoreError, ConfigError):
            continue
        if state is not None:
            shown |= state.all_shown()
    return frozenset(shown)


def _hidden_count() -> int:
    """How many of this student's class votes wait for the teacher's reveal (their questions)."""
    cs = class_session()
    return len({e.question_id for e in cs.answers.values() if e.round and is_hidden(e, cs.shown)})


def shown_votes(shown: frozenset[str]) -> None:
    """The class's revealed votes as its state says (``tinygpt.ui.follow`` reads it): those newly
    revealed now count in the score, and "my answers" says whether they were right."""
    cs = class_session()
    if shown <= cs.shown:
        return
    before = score_of(cs.answers.values(), cs.shown)
    cs.shown = cs.shown | shown
    _add_to_score(before, score_of(cs.answers.values(), cs.shown))


def _add_to_score(before: tuple[int, int], after: tuple[int, int]) -> None:
    right, asked = st.session_state.get(SCORE, (0, 0))
    st.session_state[SCORE] = (right + after[0] - before[0], asked + after[1] - before[1])


def browser_token() -> str | None:
    """The student's token this browser keeps in its cookie (None: none yet)."""
    return (st.context.cookies or {}).get(COOKIE)


def _read_class() -> None:
    """``class=`` new to the session: check the class (unknown, closed, or the store down) and say so."""
    cs = class_session()
    raw = url.app_param("class")
    if raw is None or raw == cs.seen:
        return
    cs.seen = raw
    try:
        code = read_class_code(raw)
    except ConfigError as exc:
        value = md_escape(str(exc.value).strip())
        cs.note = tr("class.bad_code", value=value, accepted=tr("accepted.class_code", n=CLASS_CODE_LEN))
        cs.code, cs.status = None, None
        return
    if wait := lookup_wait_s():  # a class code's existence is told a few times a minute per client
        cs.note, cs.code, cs.status, cs.seen = tr("class.too_many", seconds=wait), None, None, None
        return
    cs.code = code
    try:
        info = class_store().get_class(code)
    except (StoreError, ConfigError) as exc:
        cs.status = None  # checked again when an answer is sent
        cs.store_down = student_problem_text(exc)
        return
    if info is None:
        lookup_missed()
    cs.status = "unknown" if info is None else "open" if info.is_open else "closed"
    cs.note = None if info is not None and info.is_open else tr(f"class.{cs.status}", code=code)


def _write_url() -> None:
    """Keep ``class=`` in the URL (the address a reload opens)."""
    code = class_session().code
    if code:
        url.put("class", code)


def keep_cookie() -> None:
    """Put the student's token in this browser's cookie once the student has answered or is in a
    class (once per token and session; kept as long as the answers). Called on every page's run
    and where an answer is revealed, since an answer given in a fragment reruns only that
    fragment: a reload right after it finds the token."""
    cs = class_session()
    if (cs.code or cs.answers) and cs.cookie != cs.me:
        cs.cookie = cs.me
        try:
            days = answer_days()
        except ConfigError:  # said where the store is used
            days = DEFAULT_ANSWER_DAYS
        st.html(_COOKIE_JS.format(name=COOKIE, value=cs.me, age=int(days * 86400)), unsafe_allow_javascript=True)


def _class_for_answers() -> str:
    """The class an answer goes to now: the session's class while it is open (or not yet checked)."""
    cs = class_session()
    return (cs.code or "") if cs.status in ("open", None) else ""


def _send_waiting() -> None:
    """Send the answers the store has not taken yet (oldest first); stop at the first failure."""
    cs = class_session()
    waiting = [e for e in cs.answers.values() if not e.sent]
    for entry in sorted(waiting, key=lambda e: e.at):
        try:
            store = class_store()
            if not store.record_answer(_new_answer(entry)):  # answered before, in another tab
                entry = first_answer_kept(store, entry, cs.me)
        except ClassError as exc:  # the class was closed (or removed): keep the answer for the student alone
            cs.status = "closed" if exc.key == "class.closed" else "unknown"
            cs.note = tr(f"class.{cs.status}", code=exc.code)
            entry = replace(entry, class_code="")
            try:
                store.record_answer(_new_answer(entry))
            except (StoreError, ClassError):
                cs.answers[entry.question_id] = entry
                continue
        except StoreError as exc:
            if exc.key != "store.refused":
                cs.store_down = student_problem_text(exc)
                return
            cs.answers[entry.question_id] = replace(entry, sent=True)  # refused: kept here, not sent again
            say(tr("class.refused", n=1, reason=student_problem_text(exc)))
            continue
        except ConfigError as exc:
            cs.store_down = student_problem_text(exc)
            return
        if entry.class_code and cs.status is None:
            cs.status = "open"
        cs.answers[entry.question_id] = replace(entry, sent=True)
    cs.store_down = None


def _waiting() -> int:
    """How many of this student's answers wait for the store."""
    return sum(not e.sent for e in class_session().answers.values())


def _new_answer(entry: AnswerEntry) -> NewAnswer:
    return NewAnswer(
        class_code=entry.class_code,
        question_id=entry.question_id,
        question_text=entry.question_text,
        question=entry.record or {},
        student=class_session().me,
        answer=entry.answer,
        answer_text=entry.answer_text,
        right=entry.right,
        nickname=st.session_state.get(K_NICKNAME) if entry.class_code else None,
    )


# ---------------------------------------------------------------- hooks of exercise_view.ask


def prior_pick(question: Question, identity: str) -> str | list[str] | None:
    """The pick this student made for the question ``identity`` before (this session, or loaded
    from the store after a reload), as the widget's value; None when never answered."""
    entry = class_session().answers.get(identity)
    return None if entry is None else picked_of(question, entry.answer)


def answered(question: Question, identity: str, picked: object) -> None:
    """A revealed guess: keep it in "my answers" and send it to the store (to the class, if any)."""
    cs = class_session()
    prompt = tr(question.prompt_key, **dict(question.prompt_fields))
    labels = {c.id: tr(c.key) if c.key else c.text for c in question.choices}
    if cs.me is None:
        cs.me, cs.answers = new_student(), {}
    answers = cs.answers
    if identity in answers:
        return
    recheck_class(force=True)  # a class seen closed may have been reopened
    ids = answer_ids(question, picked)
    answers[identity] = AnswerEntry(
        question_id=identity,
        question_text=prompt,
        answer=ids,
        answer_text=", ".join(labels.get(i, i) for i in ids.split(",") if i) or "—",
        right=question.is_right(picked),
        at=time.time(),
        class_code=_class_for_answers(),
        record=question_record(question),
    )
    _send_waiting()


def marked(round_of: str, picked: list[str]) -> None:
    """Marks made before a flip, sent to the class (once per round of marks) so its projector can
    count who marked before any prediction is scored; not an answer (no "my answers" row, no score).
    ``round_of``: what tells this round of marks apart (the model, text and layer). Outside a class,
    or when the store cannot take it, nothing is sent (the prediction itself is kept at the flip)."""
    cs, code = class_session(), _class_for_answers()
    if not code or not picked:
        return
    if cs.me is None:
        cs.me, cs.answers = new_student(), {}
    made = sum(1 for q in cs.answers if q.startswith(PREDICTION_PREFIX + ":"))  # predictions made: a new round each
    digest = hashlib.sha256(f"{round_of}\n{made}".encode()).hexdigest()[:12]
    mark = NewAnswer(code, MARKS_PREFIX + digest, tr("attn.marks.label"), {}, cs.me, ",".join(picked), "", False)
    try:
        class_store().record_answer(mark)
    except (StoreError, ClassError, ConfigError, ValueError):
        pass  # a count on the projector, not the student's answer: the flip records the prediction


def voted(entry: AnswerEntry) -> None:
    """A class vote sent (``tinygpt.ui.follow`` sends it, with its round): keep it in "my answers" as an
    answer of its own round; it counts in the score (a vote by its latest round) only once the
    teacher revealed it (:func:`shown_votes`): until then nothing tells the student if it was right."""
    cs = class_session()
    key = entry_key(entry.question_id, entry.round)
    if key in cs.answers:
        return
    before = score_of(cs.answers.values(), cs.shown)
    cs.answers[key] = replace(entry, sent=True)
    _add_to_score(before, score_of(cs.answers.values(), cs.shown))


def answer_note() -> str | None:
    """Under an answer: why it does not reach the teacher (the class closed, or is unknown), in the
    user's language; None when it does, or there is no class. Answers waiting for the store are
    said beside the score (:func:`my_answers_here`), where they are sent by themselves."""
    cs = class_session()
    if cs.status in ("closed", "unknown") and cs.code:
        return tr(f"class.{cs.status}", code=cs.code)
    return None


def my_answers_here() -> None:
    """ "My answers" as a popover where it is drawn (beside an exercise's score), and answers waiting
    for the store, said and sent again every few seconds (:mod:`tinygpt.ui.classwork.class_retry`)."""
    cs = class_session()
    entries = sorted(cs.answers.values(), key=lambda e: e.at)
    if entries:
        with st.container(key="mine_here"), st.popover(tr("mine.button"), icon=":material/assignment:"):
            my_answers(entries, cs.page, key_prefix="mine_here")
    if _waiting() or cs.waited:
        waiting_answers(_send_waiting, _waiting, lambda: class_session().store_down)
