"""Closing a class ends its period (tinygpt.classroom.period.close_period): students stop following,
the open question closes, a student's page says the class is closed, and a vote the closed class
refuses is said, never taken for sent."""

from __future__ import annotations

import pytest
from helpers import open_link
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.period import ClassState, close_period, read_state, reopen_period, write_state
from tinygpt.classroom.store import Store
from tinygpt.i18n import t


def texts(at: AppTest) -> list[str]:
    return [e.value for e in (*at.markdown, *at.info, *at.success, *at.caption, *at.error, *at.warning)]


def asking(store: Store, lang: str) -> tuple[str, str, AppTest]:
    """A class whose teacher leads and asks a question: (code, key, the teacher's page)."""
    code, key = store.create_class(f"lesson=1&pages=predict,attention&model=context&lang={lang}")
    teacher = open_link("teacher", lang, **{"class": code, "key": key})
    teacher.button(key="lead_follow").click().run()
    teacher.button(key="lead_ask").click().run()
    assert not teacher.exception, [e.value for e in teacher.exception]
    assert read_state(store, code).question is not None
    return code, key, teacher


def test_closing_ends_the_period_in_the_store_and_reopening_keeps_it_ended(store):
    code, key = store.create_class("lesson=1&pages=attention&lang=en")
    write_state(store, code, key, ClassState(follow=True, question=None))
    close_period(store, code, key)
    state = read_state(store, code)
    assert (state.closed, state.follow, state.question, state.round) == (True, False, None, 0)
    assert not store.get_class(code).is_open
    reopen_period(store, code, key)
    state = read_state(store, code)
    assert (state.closed, state.follow) == (False, False) and store.get_class(code).is_open
    other, other_key = store.create_class("lesson=1&pages=attention&lang=en")
    close_period(store, other, other_key)  # a class nobody led: no state is written
    assert read_state(store, other) is None and not store.get_class(other).is_open


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_closed_class_stops_the_vote_and_the_lead_on_students_pages_and_the_teachers(store, lang):
    code, key, teacher = asking(store, lang)
    student = open_link("attention", lang, **{"class": code})
    state = read_state(store, code)
    assert f"period_vote_{state.question_id}_1" in {w.key for w in student.button_group}
    teacher.button(key="teacher_close").click().run()
    assert not teacher.exception, [e.value for e in teacher.exception]
    said = texts(teacher)
    assert t("period.closed_teacher", lang) in said and t("period.following", lang) not in said
    student.run()
    said = texts(student)
    assert t("period.closed_student", lang, code=code) in said
    assert not any(x.startswith(t("period.leading", lang, where="@").split("@")[0]) for x in said)
    assert not any(w.key.startswith("period_vote_") for w in student.button_group)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_vote_a_closed_class_refuses_is_said_not_taken_for_sent(store, lang):
    code, key, _ = asking(store, lang)
    student = open_link("attention", lang, **{"class": code})
    state = read_state(store, code)
    store.close_class(code, key)  # closed while the student's page still shows the question
    student.button_group(key=f"period_vote_{state.question_id}_1").set_value("0").run()
    assert not student.exception, [e.value for e in student.exception]
    said = texts(student)
    assert t("period.sent", lang) not in said
    assert t("period.vote_refused", lang, code=code) in said and t("period.closed_student", lang, code=code) in said
    assert store.count_answers(code) == 0


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_projector_after_the_reveal_no_longer_asks_the_room_to_discuss(store, lang):
    code, key, teacher = asking(store, lang)
    teacher.button(key="lead_round2").click().run()
    projector = open_link("projector", lang, **{"class": code})
    assert t("projector.round2", lang) in texts(projector)  # round 2, open: the room discusses
    teacher.button(key="lead_reveal").click().run()
    projector.run()
    said = texts(projector)
    assert t("projector.round2", lang) not in said and t("projector.round2_revealed", lang) in said
