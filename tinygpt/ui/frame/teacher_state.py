"""The teacher's session: what the teacher's view (``tinygpt.ui.teacher.teacher_view``), the key guard
(``tinygpt.ui.classwork.class_guard``) and the lead view (``tinygpt.ui.teacher.lead_view``) keep between runs. No
widget owns these values: they live in one :class:`TeacherSession` under one private key."""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st


@dataclass
class TeacherSession:
    """The teacher's classes as this browser session keeps them (no widget owns any of it)."""

    keys: dict[str, str] = field(default_factory=dict)  # class code -> the teacher's key this session holds
    key_cookies: set[str] = field(default_factory=set)  # class codes whose key this session put in a cookie
    done: str | None = None  # what the last action on the class did, said once on the next run
    lead_loaded: str | None = None  # the class whose stored state the lead view's widgets were given
    lead_problem: str | None = None  # why the last lead action failed, said once where it is drawn
    lead_note: bool = False  # this tab took the lead of a silent tab: "You lead the class from this tab", once
    check_problem: str | None = None  # why the last start or end of the concept check failed, said once
    forgotten: set[str] = field(default_factory=set)  # class codes whose key this session was told to forget
    tab: str = ""  # this tab's id as the leader of a class (tinygpt.ui.teacher.lead_view.tab_id)

    def take_done(self) -> str | None:
        """:attr:`done`, once (cleared as it is read)."""
        done, self.done = self.done, None
        return done

    def take_lead_note(self) -> bool:
        """:attr:`lead_note`, once (cleared as it is read)."""
        note, self.lead_note = self.lead_note, False
        return note

    def take_check_problem(self) -> str | None:
        """:attr:`check_problem`, once (cleared as it is read)."""
        problem, self.check_problem = self.check_problem, None
        return problem

    def take_lead_problem(self) -> str | None:
        """:attr:`lead_problem`, once (cleared as it is read)."""
        problem, self.lead_problem = self.lead_problem, None
        return problem


#: The one session key the teacher's session lives under.
K_TEACHER_SESSION = "_teacher"


def teacher_session(state: MutableMapping[str, Any] | None = None) -> TeacherSession:
    """This session's :class:`TeacherSession`, made on first use; ``state``: the session state to
    look in (default ``st.session_state``; a test passes its ``AppTest.session_state``)."""
    ss = st.session_state if state is None else state
    if K_TEACHER_SESSION not in ss:
        ss[K_TEACHER_SESSION] = TeacherSession()
    return ss[K_TEACHER_SESSION]
