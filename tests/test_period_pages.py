"""The class period in the app (AppTest): the teacher's view writes the class's state, a student's
page follows it with the controls the teacher has not opened locked, students vote once per round,
and the projector's page shows the answers only once revealed, never a nickname."""

from __future__ import annotations

import time
from dataclasses import replace
from urllib.parse import parse_qsl

import pytest
from helpers import open_link, served_example
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.period import LED_PAGES, ClassState, question_from_data, read_state, tally, write_state
from tinygpt.classroom.store import NewAnswer, new_student
from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.explanations.explain import trace_of
from tinygpt.i18n import t
from tinygpt.training.links import encode_train
from tinygpt.ui.frame.student_state import K_NICKNAME, class_session, follow_session
from tinygpt.ui.shared.models import K_OWN
from tinygpt.ui.teacher.lead_question import L_ROW
from tinygpt.ui.teacher.lead_view import L_PAGE
from tinygpt.ui.views.attention_table import K_HEAD
from tinygpt.ui.views.lesson import visible, who_flips
from tinygpt.ui.views.predict_table import P_PREFIX


def texts(at: AppTest) -> list[str]:
    return [e.value for e in (*at.markdown, *at.info, *at.success, *at.caption, *at.error, *at.warning)]


def keys(at: AppTest, kind: str) -> set[str]:
    return {w.key for w in at.get(kind) if getattr(w, "key", None)}


def test_a_student_follows_the_teacher_and_gets_the_controls_back_when_let_explore(store):
    code, key = store.create_class("lesson=1&pages=predict,attention,theory&model=textbook&lang=en")
    led = ClassState(page="attention", model="textbook", views={"attention": "step=mask&mask=0&tau=0.5"}, follow=True)
    write_state(store, code, key, replace(led, open_controls=("attn_temperature",)))
    student = open_link("predict", **{"class": code})  # joins late, on another page: lands where the class is
    assert student.session_state["attn_step"] == "mask"
    assert student.session_state["attn_mask"] is False and student.session_state["attn_temperature"] == 0.5
    assert student.session_state["model_choice"] == "textbook"
    assert any(x.startswith("**Your teacher is leading.**") for x in texts(student))
    assert "attn_mask" not in keys(student, "toggle")  # locked: the teacher has not opened it
    assert "attn_temperature" in keys(student, "select_slider")  # opened by the teacher
    assert any(
        t("attn.lesson_switch", "en", name=t("attn.mask", "en"), value=t("attn.lesson_off", "en")) in x
        for x in texts(student)
    )

    texted = led.with_view("attention", led.view("attention") + "&text=%E5%A5%BD%E4%B8%96")
    write_state(store, code, key, texted)  # the teacher's text, then the model's own again
    student.run()
    assert student.session_state["attn_text"] == "好世"
    write_state(store, code, key, led)
    student.run()
    assert student.session_state["attn_text"] == "你好世界"

    write_state(store, code, key, replace(led, follow=False))
    student.switch_page("pages/attention.py").run()  # (AppTest reruns the page it opened, a browser the page shown)
    assert not student.exception
    assert "attn_mask" in keys(student, "toggle")
    assert not any(x.startswith("**Your teacher is leading.**") for x in texts(student))


def test_following_locks_what_the_teacher_has_not_opened_as_a_lesson_does():
    follow_session().open = frozenset({"attn_mask"})
    try:
        assert visible("attn_mask") and not visible("attn_temperature")
    finally:
        follow_session().open = None
    assert visible("attn_temperature")


def test_a_follower_with_no_switch_open_is_told_the_teacher_flips_them(store):
    code, key = store.create_class("lesson=1&pages=predict,attention,theory&model=textbook&lang=en")
    write_state(store, code, key, ClassState(page="attention", model="textbook", follow=True))  # nothing opened
    student = open_link("attention", **{"class": code})
    assert "attn_mask" not in keys(student, "toggle") and not keys(student, "select_slider")
    said = texts(student)
    assert t("attn.intro_teacher", "en") in said and t("attn.intro", "en") not in said
    assert t("attn.effect.own_teacher", "en", T=4, layer=1, L=6) in said
    follow_session().open = frozenset({"attn_mask"})  # a switch opened: the student flips it
    try:
        assert who_flips() == "student"
        follow_session().open = frozenset()
        assert who_flips() == "teacher"
    finally:
        follow_session().open = None
    assert who_flips() == "student"  # no class, no lesson: every switch is drawn


def test_the_teacher_leads_asks_and_students_vote_in_two_rounds_then_the_projector_shows(store):
    code, key = store.create_class("lesson=1&pages=predict,attention,theory&model=context&lang=en")
    teacher = open_link("teacher", **{"class": code, "key": key})
    teacher.button(key="lead_follow").click().run()
    assert read_state(store, code).follow
    teacher.button_group(key="lead_model").set_value("textbook").run()
    teacher.toggle(key="lead_mask").set_value(False).run()
    state = read_state(store, code)
    view = dict(parse_qsl(state.view("attention")))
    assert (state.model, view["mask"], state.follow, state.question) == ("textbook", "0", True, None)
    assert {"layer", "head", "text", "step", "tau"} <= set(view) and state.model_id  # the view is stored whole
    teacher.selectbox(key=L_ROW).set_value(2).run()
    teacher.button(key="lead_ask").click().run()
    assert not teacher.exception, [e.value for e in teacher.exception]
    state = read_state(store, code)
    question = question_from_data(state.question)
    assert state.round == 1 and not state.revealed and state.question_id
    assert question.prompt_fields[0] == ("i", 2) and len(question.choices) == 4  # the mask is off: every key

    right = sorted(question.answers)[0]
    wrong = next(c.id for c in question.choices if c.id not in question.answers)
    students = [open_link("attention", **{"class": code}) for _ in range(3)]
    vote_key = f"period_vote_{state.question_id}_1"
    students[0].sidebar.text_input(key=K_NICKNAME).input("Zed").run()
    for n, student in enumerate(students):  # one right, two wrong: 33 %, the band where the class discusses
        student.button_group(key=vote_key).set_value(right if n == 0 else wrong).run()
        assert not student.exception, [e.value for e in student.exception]
        assert t("period.sent", "en") in texts(student)
        assert student.button_group(key=vote_key).disabled
    again = open_link("attention", **{"class": code, "me": class_session(students[0].session_state).me})  # a reload
    assert again.button_group(key=vote_key).disabled and again.button_group(key=vote_key).value == right
    assert t("period.sent", "en") in texts(again)
    teacher.run()
    assert any(x.startswith("Round 1: 3 answered · 1 right (33 %)") for x in texts(teacher))
    assert any("discuss with their neighbour" in x for x in texts(teacher))

    projector = open_link("projector", **{"class": code})
    assert t("projector.answered", "en", n=3, round=1) in texts(projector)
    assert not projector.get("vega_lite_chart")  # the spread stays hidden until the reveal

    teacher.button(key="lead_round2").click().run()
    assert read_state(store, code).round == 2
    for student in students:
        student.run()
        student.button_group(key=f"period_vote_{state.question_id}_2").set_value(right).run()
    votes = tally(store, code, state.question_id)
    assert (votes.of(1).answered, votes.of(1).right, votes.of(2).answered, votes.of(2).right) == (3, 1, 3, 3)
    assert (votes.to_right, votes.to_wrong) == (2, 0)

    teacher.button(key="lead_reveal").click().run()
    projector.run()
    shown = " ".join(texts(projector))
    assert t("period.compare", "en", first="33 %", n1=3, second="100 %", n2=3, to_right=2, to_wrong=0) in shown
    assert len(projector.get("vega_lite_chart")) == 2  # round 2 and round 1
    assert "Zed" in {a.nickname for a in store.answers(code)}  # kept for the teacher, never on the projector
    assert "Zed" not in shown and not any(a.student in shown for a in store.answers(code))
    students[1].run()
    assert any(x.startswith(t("ex.right", "en", reason="")) for x in [e.value for e in students[1].success])

    teacher.button(key="lead_close").click().run()
    assert read_state(store, code).question is None


def test_a_text_the_model_cannot_read_is_named_to_the_teacher_and_asks_nothing(store):
    code, key = store.create_class("lesson=1&pages=attention&model=context&lang=en")
    teacher = open_link("teacher", **{"class": code, "key": key})
    teacher.text_input(key="lead_text").input("你好Z").run()
    assert dict(parse_qsl(read_state(store, code).view("attention")))["text"] == "你好Z"
    assert any("Z" in w.value for w in teacher.warning)
    teacher.button(key="lead_ask").click().run()
    assert not teacher.exception, [e.value for e in teacher.exception]
    assert read_state(store, code).question is None
    assert any("Z" in e.value for e in teacher.error)


OWN_TEXT = "我爱你，你爱我。"
OWN_TRAIN = encode_train(OWN_TEXT, GPTConfig(d_model=16, n_heads=2, n_layers=1, d_ff=32), TrainConfig(epochs=40))


def test_a_student_follows_the_teachers_own_model_and_the_teacher_offers_it_only_when_there_is_one(store):
    code, key = store.create_class("lesson=1&pages=predict,attention,theory&model=context&lang=en")
    teacher = open_link("teacher", **{"class": code, "key": key})
    assert teacher.button_group(key="lead_model").options == [
        t("model.choice.context", "en"),
        t("model.choice.textbook", "en"),
    ]
    assert t("period.own_none", "en") in texts(teacher)  # not offered, with the reason

    write_state(store, code, key, ClassState(page="predict", model="own", train=OWN_TRAIN, follow=True))
    student = open_link("predict", **{"class": code})  # the model is on no shelf yet: it trains, and the page says so
    shown = texts(student)
    assert student.session_state["model_choice"] == "own" and "own_model" not in student.session_state
    assert t("period.own_training", "en") in shown and t("link.training_header", "en") in [
        h.value for h in student.subheader
    ]
    for _ in range(120):  # the page reruns itself when the training ends (its fragment, in a browser)
        time.sleep(0.5)
        student.run()
        assert not student.exception, [e.value for e in student.exception]
        if "own_model" in student.session_state:
            break
    own = student.session_state[K_OWN]
    assert (own.text, own.gpt_cfg.d_model, own.gpt_cfg.n_layers, len(own.losses)) == (OWN_TEXT, 16, 1, 40)
    assert student.session_state["model_choice"] == "own"
    banner = t(
        "model.banner.teacher", "en", text=OWN_TEXT, size=""
    ).strip()  # the model choice "own", from its settings
    assert any(banner in x for x in texts(student)), texts(student)
    assert student.session_state[P_PREFIX] == OWN_TEXT[: own.gpt_cfg.max_len]

    teacher.session_state[K_OWN] = own  # the teacher's pages show this model: it is offered
    teacher.run()
    assert t("period.own_choice", "en") in teacher.button_group(key="lead_model").options
    teacher.button_group(key="lead_model").set_value("own").run()
    assert not teacher.exception, [e.value for e in teacher.exception]
    state = read_state(store, code)
    assert (state.model, state.train) == ("own", OWN_TRAIN)
    asked_about = [x for x in texts(teacher) if x.startswith("Asked about layer 1, head ")]
    assert len(asked_about) == 1 and f"the text “{OWN_TEXT}”" in asked_about[0]  # about the own model's text
    teacher.button(key="lead_ask").click().run()
    assert not teacher.exception, [e.value for e in teacher.exception]
    asked = question_from_data(read_state(store, code).question)
    assert asked.prompt_fields[0] == ("i", len(OWN_TEXT) - 1) and len(asked.choices) == len(OWN_TEXT)
    assert [c.text for c in asked.choices[:3]] == ["0 我", "1 爱", "2 你"]  # keys of the own model's text
    again = open_link("predict", **{"class": code})  # the model is on the shelf now: a late student gets it at once
    assert again.session_state[K_OWN].uid == own.uid


def test_a_run_the_teacher_stopped_is_led_with_the_settings_that_rebuild_it_and_students_get_that_model(store):
    from tinygpt.training.links import decode_train
    from tinygpt.training.record import StopReason
    from tinygpt.training.train import train

    steps: list[int] = []
    text = "你爱我，我爱你。"
    stopped = train(
        text,
        GPTConfig(d_model=16, n_heads=2, n_layers=1, d_ff=32),
        TrainConfig(epochs=40),
        should_stop=lambda: steps.append(1) or len(steps) > 6,
    )
    assert stopped.stop_reason == StopReason.STOPPED and 0 < len(stopped.losses) < 40
    code, key = store.create_class("lesson=1&pages=predict,attention,theory&model=context&lang=en")
    teacher = open_link("teacher", **{"class": code, "key": key})
    teacher.session_state[K_OWN] = stopped
    teacher.run()
    teacher.button_group(key="lead_model").set_value("own").run()
    teacher.button(key="lead_follow").click().run()
    state = read_state(store, code)
    assert state.model == "own" and state.follow
    assert decode_train(state.train)[2].epochs == len(stopped.losses)  # not the 40 epochs the run was started with
    student = open_link("predict", **{"class": code})  # on the shelf under those settings: the teacher's model, at once
    assert student.session_state[K_OWN].uid == stopped.uid
    assert student.session_state["model_choice"] == "own"


def test_leading_with_a_stopped_run_publishes_it_for_other_servers_under_the_settings_that_rebuild_it(
    store, monkeypatch
):
    import streamlit as st

    from tinygpt.training.jobs import ModelShelf, model_key
    from tinygpt.training.links import decode_train
    from tinygpt.training.model_library import ModelLibrary
    from tinygpt.training.train import train
    from tinygpt.ui.choice import led_model

    steps: list[int] = []
    stopped = train(
        "你爱我，我爱你。",
        GPTConfig(d_model=16, n_heads=2, n_layers=1, d_ff=32),
        TrainConfig(epochs=40),
        should_stop=lambda: steps.append(1) or len(steps) > 6,
    )
    here = ModelShelf(library=ModelLibrary(store))
    monkeypatch.setattr(led_model, "shelf", lambda: here)
    st.session_state[K_OWN] = stopped
    try:
        train_spec, reason = led_model.teacher_train(publish=True)
    finally:
        del st.session_state[K_OWN]
    assert reason == "" and train_spec is not None
    other_server = ModelLibrary(store)  # what another server sharing the store finds
    rebuilt = other_server.get(model_key(*decode_train(train_spec)))
    assert rebuilt is not None and len(rebuilt.losses) == len(stopped.losses) < 40
    assert other_server.get(model_key(stopped.text, stopped.gpt_cfg, stopped.train_cfg)) is None  # not the full run's


def test_a_class_question_is_about_the_head_whose_steps_students_see(store):
    code, key = store.create_class("lesson=1&pages=attention&model=context&lang=en")
    teacher = open_link("teacher", **{"class": code, "key": key})
    teacher.button(key="lead_follow").click().run()
    teacher.selectbox(key=L_ROW).set_value(5).run()
    teacher.button(key="lead_ask").click().run()
    assert not teacher.exception, [e.value for e in teacher.exception]
    question = question_from_data(read_state(store, code).question)
    student = open_link("attention", **{"class": code})
    head, text = student.session_state[K_HEAD], student.session_state["attn_text"]
    record = served_example("context")
    alpha = trace_of(record.model, record.vocab.encode(text)[None], 0).state["alpha"][0, head, 5]  # (T,)
    fields = dict(question.reason_fields)
    assert float(fields["value"]) == pytest.approx(float(alpha[int(fields["j"])]), abs=1e-6)
    other = trace_of(record.model, record.vocab.encode(text)[None], 0).state["alpha"][0, 1 - head, 5]
    assert abs(float(other[int(fields["j"])]) - float(fields["value"])) > 1e-3  # the other head differs


def test_the_teacher_is_offered_only_the_pages_the_lesson_lists_and_told_why(store):
    code, key = store.create_class("lesson=1&pages=attention&model=context&lang=en")
    teacher = open_link("teacher", **{"class": code, "key": key})
    assert teacher.button_group(key=L_PAGE).options == [t("nav.attention", "en")]
    left_out = t("common.list_sep", "en").join([t("nav.predict", "en"), t("nav.theory", "en")])
    assert t("period.pages_left_out", "en", n=2, pages=left_out) in texts(teacher)
    code, key = store.create_class("lesson=1&model=context&lang=en")  # a lesson of every page
    everything = open_link("teacher", **{"class": code, "key": key})
    assert everything.button_group(key=L_PAGE).options == [t(f"nav.{p}", "en") for p in LED_PAGES]
    assert not any(x.startswith("Students can only be led") for x in texts(everything))


def test_a_reload_counts_the_latest_round_a_student_voted_in(store):
    code, _ = store.create_class("lesson=1&pages=predict,attention,theory&model=context&lang=en")
    me = new_student()
    for rnd, pick, right in ((1, "1", False), (2, "0", True)):  # wrong, then right after the discussion
        vote = NewAnswer(code, "q-vote", "Which key?", {}, me, pick, f"{pick} 你", right, round=rnd)
        assert store.record_answer(vote)
    assert [(a.round, a.right) for a in store.answers(student=me)] == [(1, False), (2, True)]
    student = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    student.query_params.update({"lang": "en", "class": code, "me": me})  # a reload (the cookie's token, here a link's)
    student.run()
    assert not student.exception, [e.value for e in student.exception]
    assert t("mine.restored", "en", asked=1, right=1) in [i.value for i in student.info]
    (entry,) = class_session(student.session_state).answers.values()
    assert (entry.answer, entry.right) == ("0", True)


def test_the_projector_names_an_unknown_class_and_a_closed_one_instead_of_asking_the_room_to_join(store):
    unknown = open_link("projector", **{"class": "ZZZZZZ"})
    assert t("projector.unknown", "en", code="ZZZZZZ") in texts(unknown)
    code, key = store.create_class("lesson=1&pages=attention&lang=en")
    store.close_class(code, key)
    closed = open_link("projector", **{"class": code})
    shown = texts(closed)
    assert t("projector.closed", "en", code=code) in shown
    assert t("projector.join", "en") not in shown and not closed.get("imgs")
