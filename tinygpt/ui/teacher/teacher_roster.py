"""Who answered, on the teacher's page: one row per student of the class (the nickname the student
typed, or — for one who stayed anonymous; never the anonymous token), how many questions they
answered and how many rightly. Drawn collapsed: the teacher's page is the one projected."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from tinygpt.classroom.store import Answer
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.tables import show_table, text_table


def roster_rows(answers: Sequence[Answer], anonymous: str) -> list[tuple[str, int, int]]:
    """(nickname or ``anonymous``, answered, right) per student, nicknamed students first by name,
    then the anonymous ones by how many they answered. A student's last nickname is the one shown."""
    by_student: dict[str, list] = {}
    for a in answers:  # oldest first: the last nickname wins
        row = by_student.setdefault(a.student, [None, 0, 0])
        row[0] = a.nickname or row[0]
        row[1] += 1
        row[2] += bool(a.right)
    rows = sorted(by_student.values(), key=lambda r: (r[0] is None, (r[0] or "").casefold(), -r[1]))
    return [(name or anonymous, answered, right) for name, answered, right in rows]


def roster(answers: Sequence[Answer]) -> None:
    """The collapsed "who answered" box of the class's ``answers``; nothing when there are none."""
    rows = roster_rows(answers, tr("teacher.anonymous"))
    if not rows:
        return
    with st.expander(tr("teacher.roster", n=len(rows)), icon=":material/group:"):
        st.caption(tr("teacher.roster_help"))
        show_table(
            text_table(
                {
                    tr("teacher.col_student"): [r[0] for r in rows],
                    tr("teacher.col_questions"): [r[1] for r in rows],
                    tr("teacher.col_right"): [r[2] for r in rows],
                }
            ),
            key="teacher_roster",
        )
