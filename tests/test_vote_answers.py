"""A class vote in the student's "my answers" (AppTest): each round at once, with its round, counted
in the score by its latest round, and the same after a reload."""

from __future__ import annotations

from helpers import open_link
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.period import question_from_data, read_state
from tinygpt.i18n import t
from tinygpt.ui.classwork.my_answers import listed_question
from tinygpt.ui.frame.controls import SCORE
from tinygpt.ui.frame.student_state import class_session
from tinygpt.ui.teacher.lead_view import K_ROW


def mine(at: AppTest) -> list[tuple[str, int, bool]]:
    entries = sorted(class_session(at.session_state).answers.values(), key=lambda e: (e.at, e.round))
    return [(e.question_id, e.round, e.right) for e in entries]


def markdown(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def test_each_vote_is_in_my_answers_at_once_with_its_round_and_counts_in_the_score(store):
    code, key = store.create_class("lesson=1&pages=attention&model=context&lang=en")
    teacher = open_link("teacher", **{"class": code, "key": key})
    teacher.button(key="lead_follow").click().run()
    teacher.selectbox(key=K_ROW).set_value(5).run()
    teacher.button(key="lead_ask").click().run()
    state = read_state(store, code)
    qid, question = state.question_id, question_from_data(state.question)
    right = sorted(question.answers)[0]
    wrong = next(c.id for c in question.choices if c.id not in question.answers)

    student = open_link("attention", **{"class": code})
    student.button_group(key=f"period_vote_{qid}_1").set_value(wrong).run()
    assert not student.exception
    assert mine(student) == [(qid, 1, False)]  # at once, in this session
    assert student.session_state[SCORE] == (0, 1)
    assert t("ex.score", "en", right=0, asked=1) in markdown(student)
    assert student.button(key="mine_vote_resume")  # "my answers" beside the vote (its fragment keeps the sidebar)
    entry = next(iter(class_session(student.session_state).answers.values()))
    for lang in ("en", "zh"):
        assert t("mine.vote_round", lang, question=entry.question_text, round=1).startswith(entry.question_text)
    listed = t("mine.vote_round", "zh", question=entry.question_text, round=1)  # zh: the language outside a session
    assert listed_question(entry) == listed != entry.question_text

    teacher.run()
    teacher.button(key="lead_round2").click().run()
    me = class_session(student.session_state).me
    again = open_link("attention", **{"class": code, "me": me})  # a reload during round 2
    assert mine(again) == [(qid, 1, False)] and again.session_state[SCORE] == (0, 1)
    again.button_group(key=f"period_vote_{qid}_2").set_value(right).run()
    assert not again.exception
    assert mine(again) == [(qid, 1, False), (qid, 2, True)]  # round 1 stays, round 2 beside it
    assert again.session_state[SCORE] == (1, 1)  # the vote counts once, by the answer after the discussion
    assert t("ex.score", "en", right=1, asked=1) in markdown(again)

    later = open_link("attention", **{"class": code, "me": me})  # another reload: both rounds come back
    assert mine(later) == [(qid, 1, False), (qid, 2, True)]
    assert later.session_state[SCORE] == (1, 1)
    assert [e.round for e in class_session(later.session_state).answers.values()] == [1, 2]
