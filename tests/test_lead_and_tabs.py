"""One leader and one student's two tabs (AppTest and the store): a second teacher tab takes the lead
visibly and the first stops writing; a reloaded teacher's page leads by itself once the old tab is
silent (a clock moved by hand); a student's tab whose vote lost the race shows the store's."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
import torch
from helpers import open_link
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.period import LEAD_EXPIRES_S, ClassState, question_from_data, read_state, write_state
from tinygpt.classroom.store import new_student
from tinygpt.config import GPTConfig
from tinygpt.explanations.exercises import argmax_key_question
from tinygpt.explanations.explain import trace_of
from tinygpt.i18n import t
from tinygpt.model import GPT
from tinygpt.ui.frame.class_store import class_store
from tinygpt.ui.frame.controls import SCORE
from tinygpt.ui.frame.teacher_state import teacher_session


def teacher_tab(code: str, key: str) -> AppTest:
    """The teacher's link opened in a tab: ``/teacher?class=…&key=…`` (its first run is the teacher's page)."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update({"lang": "en", "class": code, "key": key})
    at.switch_page("pages/teacher.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def students_see(state: ClassState) -> ClassState:
    """``state`` without what a waiting tab may write (its name as the successor, and so the version)."""
    return replace(state, version=0, successor="")


def said(at: AppTest) -> list[str]:
    return [e.value for e in (*at.markdown, *at.info, *at.success, *at.caption, *at.error, *at.warning)]


def test_a_second_teacher_tab_takes_the_lead_and_the_first_stops_writing(store):
    code, key = store.create_class("lesson=1&pages=predict,attention,theory&model=context&lang=en")
    first = teacher_tab(code, key)
    first.button(key="lead_follow").click().run()
    led = read_state(store, code)
    assert led.follow and led.leader
    second = teacher_tab(code, key)
    assert t("period.other_tab", "en") in said(second)  # it says another tab leads, and writes nothing
    assert "lead_mask" not in {w.key for w in second.toggle}
    assert students_see(read_state(store, code)) == students_see(led)
    assert read_state(store, code).successor == tab_of(second)  # the tab used last leads next

    second.button(key="lead_take").click().run()
    taken = read_state(store, code)
    assert taken.leader != led.leader and taken.version > led.version and taken.successor == ""
    assert taken.views == led.views  # the lead changes hands on the view students see
    assert t("period.other_tab", "en") not in said(second)
    second.toggle(key="lead_mask").set_value(False).run()
    assert "mask=0" in read_state(store, code).view("attention")

    before = read_state(store, code)
    first.toggle(key="lead_mask").set_value(True).run()  # the first tab's change is not written
    assert students_see(read_state(store, code)) == students_see(before)
    assert t("period.other_tab", "en") in said(first)


class Clock:
    """A clock the test moves by hand (Unix seconds, from the time the test starts)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(store, monkeypatch) -> Clock:
    """The clock of the store the app's sessions use (``class_store``), moved by hand."""
    c = Clock()
    store.check(write=True)  # the tables exist before the app's store (and its purging thread) starts
    monkeypatch.setattr(class_store(), "clock", c)
    return c


def tab_of(at: AppTest) -> str:
    return teacher_session(at.session_state).tab


def test_a_reloaded_teachers_page_leads_by_itself_once_the_old_tab_is_silent(store, clock):
    code, key = store.create_class("lesson=1&pages=predict,attention,theory&model=context&lang=en")
    first = teacher_tab(code, key)
    first.button(key="lead_follow").click().run()
    led = read_state(store, code)
    assert led.leader == tab_of(first)

    clock.now += LEAD_EXPIRES_S + 1  # the first tab was reloaded: it sends no heartbeat any more
    reloaded = teacher_tab(code, key)  # a new session, so a new tab id
    assert t("period.other_tab", "en") not in said(reloaded)
    assert any(x.startswith(t("period.you_lead", "en")) for x in said(reloaded))
    taken = read_state(store, code)
    assert taken.leader == tab_of(reloaded) != led.leader
    assert taken.views == led.views and taken.follow and taken.version == led.version + 1
    reloaded.toggle(key="lead_mask").set_value(False).run()
    assert "mask=0" in read_state(store, code).view("attention")
    assert not any(x.startswith(t("period.you_lead", "en")) for x in said(reloaded))  # said once

    before = read_state(store, code)
    first.toggle(key="lead_mask").set_value(True).run()  # the old session, if it comes back, writes no view
    assert students_see(read_state(store, code)) == students_see(before)
    assert t("period.other_tab", "en") in said(first)


def test_a_second_tab_waits_while_the_leader_is_alive_and_the_two_never_both_write(store, clock):
    code, key = store.create_class("lesson=1&pages=predict,attention,theory&model=context&lang=en")
    first = teacher_tab(code, key)
    first.button(key="lead_follow").click().run()
    for _ in range(2):  # the leading tab's heartbeats (its watch runs with each run of the page)
        clock.now += LEAD_EXPIRES_S - 2
        first.run()
    second = teacher_tab(code, key)
    assert t("period.other_tab", "en") in said(second)  # the leader is alive: "Take the lead here" as before
    assert second.button(key="lead_take") and "lead_mask" not in {w.key for w in second.toggle}
    assert read_state(store, code).leader == tab_of(first)

    first.toggle(key="lead_mask").set_value(False).run()  # the leader writes
    assert "mask=0" in read_state(store, code).view("attention")
    clock.now += LEAD_EXPIRES_S + 1  # the leader goes silent; the waiting tab's next look takes the lead
    second.run()
    assert any(x.startswith(t("period.you_lead", "en")) for x in said(second))
    assert read_state(store, code).leader == tab_of(second)
    before = read_state(store, code)
    first.toggle(key="lead_mask").set_value(True).run()  # the first tab no longer writes, and says so
    assert students_see(read_state(store, code)) == students_see(before)
    assert t("period.other_tab", "en") in said(first)


def test_the_tab_whose_vote_lost_the_race_shows_and_counts_the_answer_the_store_kept(store):
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8)).eval()
    question = argmax_key_question(trace_of(model, torch.tensor([[0, 1, 2, 3]]), layer=0), head=0, query=3)
    code, key = store.create_class("lesson=1&pages=attention&model=context&lang=en")
    state = write_state(store, code, key, ClassState(follow=True).with_question(question))
    me = new_student()
    tabs = [open_link("attention", **{"class": code, "me": me}) for _ in range(2)]  # one student, two tabs
    vote_key = f"period_vote_{state.question_id}_1"
    q = question_from_data(state.question)
    right = sorted(q.answers)[0]
    wrong = next(c.id for c in q.choices if c.id not in q.answers)
    tabs[0].button_group(key=vote_key).set_value(wrong).run()  # the first tab's wrong vote reaches the store
    tabs[1].button_group(key=vote_key).set_value(right).run()  # the second tab had drawn the vote before it
    assert not tabs[1].exception, [e.value for e in tabs[1].exception]
    assert [a.answer for a in store.answers(code)] == [wrong]
    assert tabs[1].session_state[SCORE] == (0, 0)  # blind before the reveal, and never "1 of 1 right"

    write_state(store, code, key, replace(read_state(store, code), revealed=True))
    for tab in tabs:
        tab.run()
        assert not any(x.startswith(t("ex.right", "en", reason="")) for x in [e.value for e in tab.success])
        assert tab.button_group(key=vote_key).value == wrong
        assert tab.session_state[SCORE] == (0, 1)  # after the reveal: the wrong answer the store kept


def test_the_tab_whose_exercise_answer_lost_the_race_shows_and_counts_the_stored_one(store):
    code, _ = store.create_class("lesson=1&pages=attention&model=textbook&step=softmax&guess=1")
    me = new_student()
    lesson = {"class": code, "me": me, "lesson": "1", "pages": "attention", "step": "softmax", "guess": "1"}
    tabs = [open_link("attention", model="textbook", **lesson) for _ in range(2)]  # one student, two tabs
    pick = "attn_ex_argmax_key_pick"
    tabs[0].button_group(key=pick).set_value("0").run()  # this answer reaches the store first
    tabs[1].button_group(key=pick).set_value("1").run()
    assert not tabs[1].exception, [e.value for e in tabs[1].exception]
    kept = [a.answer for a in store.answers(code)]
    assert kept == ["0"]
    assert tabs[1].button_group(key=pick).value == "0"  # the tab shows what the store kept
    assert tabs[1].session_state[SCORE] == tabs[0].session_state[SCORE]  # and counts it as the first tab did
