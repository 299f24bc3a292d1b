"""The student's class session and one answer as the session keeps it: what ``tinygpt.ui.classwork.student``
(the session and the store), ``tinygpt.ui.classwork.my_answers`` (the sidebar), ``tinygpt.ui.classwork.class_sync``,
``tinygpt.ui.frame.class_store``, ``tinygpt.ui.classwork.class_retry``, ``tinygpt.ui.classwork.concept_check_view`` and
``tinygpt.ui.follow`` read and write.
No widget owns these values: they live in one :class:`ClassSession` under one private key, and
what ``tinygpt.ui.follow`` keeps of the class period in one :class:`FollowSession`."""

from __future__ import annotations

from collections.abc import Collection, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import streamlit as st

if TYPE_CHECKING:
    from tinygpt.classroom.period import ClassState
    from tinygpt.classroom.store import NewAnswer

K_NICKNAME = "class_nickname"  # the nickname input (drawn in the sidebar while in a class)
#: The browser's cookie holding the student's anonymous token (a reload brings the answers back).
COOKIE = "tinygpt_me"


@dataclass(frozen=True)
class AnswerEntry:
    """One answer of this student: what "my answers" lists and what is sent to the store."""

    question_id: str
    question_text: str
    answer: str  # choice ids, comma-separated
    answer_text: str
    right: bool
    at: float
    class_code: str
    record: dict | None = None  # the question as the store keeps it (None: loaded from the store)
    sent: bool = False
    round: int = 0  # a class vote's round (1, or 2 after the discussion); 0: an exercise's answer


def entry_key(question_id: str, rnd: int = 0) -> str:
    """The key of an answer in :attr:`ClassSession.answers`: its question id, and a class vote's round
    after ``#`` (each round of a vote is an answer of its own)."""
    return f"{question_id}#{rnd}" if rnd else question_id


#: The question ids of the concept check start so (``tinygpt.explanations.concept_check.PREFIX``; not
#: imported here, which would bring torch to a first page); the check at the end's with ``check:post:``.
CHECK_PREFIX, POST_CHECK_PREFIX = "check:", "check:post:"


def is_check(entry: AnswerEntry) -> bool:
    """Whether ``entry`` answers the concept check (it has its own before/after line, not the score)."""
    return entry.question_id.startswith(CHECK_PREFIX)


def check_over(entries: Iterable[AnswerEntry]) -> bool:
    """Whether the student handed in the check at the end (its answers, before and after, come then)."""
    return any(e.question_id.startswith(POST_CHECK_PREFIX) for e in entries)


def is_hidden(entry: AnswerEntry, shown: Collection[str], check_done: bool = False) -> bool:
    """Whether the student is not told yet if ``entry`` was right: a class vote the teacher has not
    revealed (``shown``: the revealed vote ids; votes stay blind until the reveal), or an answer of
    the concept check before she handed in the check at the end (``check_done``): told before, she
    could learn the answers between the two checks and the report's gain would measure that."""
    if is_check(entry):
        return not check_done
    return bool(entry.round) and entry.question_id not in shown


def score_of(entries: Iterable[AnswerEntry], shown: Collection[str] = frozenset()) -> tuple[int, int]:
    """(right, asked) of ``entries``: each question once, a class vote by its latest round (the
    answer after the discussion) and only once revealed (its id in ``shown``); the concept check's
    answers are not in it (the check says its own before and after)."""
    latest: dict[str, AnswerEntry] = {}
    for e in entries:
        if is_check(e) or is_hidden(e, shown):
            continue
        if e.question_id not in latest or e.round > latest[e.question_id].round:
            latest[e.question_id] = e
    return sum(e.right for e in latest.values()), len(latest)


@dataclass
class ClassSession:
    """The student's class as this browser session keeps it (no widget owns any of it)."""

    me: str | None = None  # the student's anonymous token (None: not made yet)
    answers: dict[str, AnswerEntry] = field(default_factory=dict)  # entry_key -> this student's answer
    code: str | None = None  # the class the session answers in (None: none)
    status: str | None = None  # "open", "closed", "unknown" or None (not checked: the store was down)
    seen: str | None = None  # the class= value last read
    note: str | None = None  # why answers do not go to a class (a bad code, an unknown or closed class)
    store_down: str | None = None  # why the last attempt to send an answer failed (None: it did not)
    resume: tuple[str, str] | None = None  # (the resume link, a note about it) last made
    cookie: str | None = None  # the token this session last put in the browser's cookie
    page: str = ""  # the URL path of the page shown (a resume link comes back to it)
    messages: list[tuple[str, str]] = field(default_factory=list)  # (kind, text) for the next run's top
    checked_at: float = float("-inf")  # time.monotonic() of the last look at a class seen closed
    waited: bool = False  # answers waited at the last try (the next says they have been sent)
    check_post: bool = False  # the student asked for the concept check's round at the end of the lesson
    shown: frozenset[str] = frozenset()  # the class votes the teacher revealed (their verdicts may be shown)
    check_opened: str = ""  # the teacher's check phase whose box this page last opened by itself

    @property
    def in_class(self) -> bool:
        """Whether answers go to a class now: one is named and open (or not yet checked)."""
        return bool(self.code) and self.status in ("open", None)


#: The one session key the class session lives under.
K_CLASS_SESSION = "_class"


def class_session(state: MutableMapping[str, Any] | None = None) -> ClassSession:
    """This session's :class:`ClassSession`, made on first use; ``state``: the session state to
    look in (default ``st.session_state``; a test passes its ``AppTest.session_state``)."""
    ss = st.session_state if state is None else state
    if K_CLASS_SESSION not in ss:
        ss[K_CLASS_SESSION] = ClassSession()
    return ss[K_CLASS_SESSION]


@dataclass
class FollowSession:
    """A student's class period as this session keeps it (``tinygpt.ui.follow``; no widget owns any of it)."""

    #: The controls the teacher opened while leading (None: the student does not follow); every
    #: other lockable control is locked (``tinygpt.ui.views.lesson.visible``).
    open: frozenset[str] | None = None
    state: ClassState | None = None  # the class state this page last read
    applied: dict[str, object] = field(default_factory=dict)  # session key -> the teacher's value last put there
    votes: dict[tuple[str, int], str] = field(default_factory=dict)  # (question id, round) -> answer ids sent
    waiting: list[NewAnswer] = field(default_factory=list)  # votes the store could not take yet
    loaded: set[str] = field(default_factory=set)  # the questions whose earlier votes were read from the store
    refused: bool = False  # the class refused a vote of this student: it is closed (said on the page)
    full_run: bool = False  # set while the whole page runs (the fragment then reruns nothing)
    reruns: tuple[int | None, int] = (None, 0)  # (state version, how many whole-page reruns it caused)
    check_seen: str = ""  # the teacher's concept check phase the whole page last ran with


#: The one session key the class period lives under.
K_FOLLOW_SESSION = "_follow"


def follow_session(state: MutableMapping[str, Any] | None = None) -> FollowSession:
    """This session's :class:`FollowSession`, made on first use; ``state``: the session state to
    look in (default ``st.session_state``; a test passes its ``AppTest.session_state``)."""
    ss = st.session_state if state is None else state
    if K_FOLLOW_SESSION not in ss:
        ss[K_FOLLOW_SESSION] = FollowSession()
    return ss[K_FOLLOW_SESSION]
