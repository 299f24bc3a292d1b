"""A class nothing can stop, in the app: the teacher's key leaves the address, guessing is slowed per
client and "no class" reads as "wrong key", a short link typed in any case opens, one student's bad
nickname on PostgreSQL holds up nobody, a refused answer is said and not sent again, and a deleted
data folder is said to the teacher (tinygpt.classroom.guard, tinygpt.ui.classwork.class_guard,
tinygpt.ui.classwork.student)."""

from __future__ import annotations

import shutil

import pytest
from helpers import open_link, tables
from streamlit.testing.v1 import AppTest
from test_classroom import answer_both, make_class

from tinygpt.classroom.guard import Attempts
from tinygpt.classroom.store import Store, StoreError, database_url
from tinygpt.i18n import t
from tinygpt.ui.frame.student_state import K_NICKNAME, class_session


def test_attempts_are_counted_per_client_in_a_sliding_window():
    now = [0.0]
    guard = Attempts(limit=3, window_s=60, clock=lambda: now[0])
    for _ in range(3):
        assert guard.wait_s("1.2.3.4") == 0.0
        guard.failed("1.2.3.4")
    assert guard.wait_s("1.2.3.4") == 60.0 and guard.wait_s("5.6.7.8") == 0.0
    now[0] = 59.0
    assert guard.wait_s("1.2.3.4") == 1.0
    now[0] = 60.0  # the first failure left the window
    assert guard.wait_s("1.2.3.4") == 0.0


@pytest.fixture
def one_client(monkeypatch):
    """Every session of the test comes from one address; the counts of failures start empty."""
    from tinygpt.ui.classwork import class_guard

    monkeypatch.setattr(class_guard, "client_id", lambda: "203.0.113.7")
    for module in ("teacher.teacher_view", "classwork.short_links"):
        monkeypatch.setattr(f"tinygpt.ui.{module}.client_id", lambda: "203.0.113.7")
    class_guard.attempts.clear()
    yield
    class_guard.attempts.clear()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_teachers_key_leaves_the_address_at_once_and_a_reload_keeps_the_class(lang, store, monkeypatch):
    from tinygpt.ui.classwork import class_guard

    code, key = store.create_class("lesson=1&pages=attention")
    view = open_link("teacher", lang, **{"class": code, "key": key})
    assert "key" not in view.query_params and view.query_params["class"] == code
    assert t("teacher.class_header", lang, code=code) in [h.value for h in view.header]
    cookie = [h.value for h in view.get("html") if "tinygpt_teacher_" in h.value]
    assert cookie and f"tinygpt_teacher_{code}={key};" in cookie[0]
    monkeypatch.setattr(class_guard, "browser_cookies", lambda: {f"tinygpt_teacher_{code}": key})
    reloaded = open_link("teacher", lang, **{"class": code})  # the address as it stands: no key in it
    assert t("teacher.class_header", lang, code=code) in [h.value for h in reloaded.header]
    monkeypatch.setattr(class_guard, "browser_cookies", dict)
    stranger = open_link("teacher", lang, **{"class": code})  # another browser, the same address
    assert [e.value for e in stranger.error] == [t("teacher.no_key", lang)] and not stranger.header


def test_guessing_teacher_links_is_slowed_per_client_and_no_class_reads_as_a_wrong_key(store, one_client):
    code, key = store.create_class("lesson=1")
    other, _ = store.create_class("lesson=1")
    messages = set()
    for n in range(8):
        guess = open_link("teacher", "en", **{"class": [code, "ZZZZZZ"][n % 2], "key": f"{n:024d}"})
        messages.add(tuple(e.value for e in guess.error))
    assert messages == {(t("teacher.no_access", "en"),)}  # an existing code and a missing one read the same
    blocked = open_link("teacher", "en", **{"class": other, "key": key})
    (error,) = [e.value for e in blocked.error]
    assert error.startswith(t("teacher.too_many", "en", seconds=0)[:30]) and not blocked.header


def test_guessing_short_links_is_slowed_per_client(store, one_client):
    real = store.shorten("lesson=1&pages=attention")
    for n in range(8):
        open_link(None, "en", s=f"zzzzzz{'abcdefgh'[n]}")
    blocked = open_link(None, "en", s=real)
    assert any(w.value.startswith(t("short.too_many", "en", seconds=0)[:30]) for w in blocked.warning)
    assert "pages" not in blocked.query_params  # the lesson was not opened


def test_a_short_link_typed_in_lower_case_opens_the_lesson(store, monkeypatch):
    from tinygpt.classroom import store as store_module

    monkeypatch.setattr(store_module, "random_code", lambda alphabet, n: "pqCKLSV"[:n])
    assert store.shorten("lesson=1&pages=attention&step=softmax") == "pqCKLSV"
    at = open_link(None, "en", s="pqcklsv")  # as a phone typed it from the projector
    assert not at.warning and at.query_params["step"] == "softmax" and "s" not in at.query_params


def test_a_nickname_holding_nul_on_postgresql_holds_up_no_other_student(postgres_url, monkeypatch):
    monkeypatch.setenv("TINYGPT_DATABASE_URL", postgres_url)
    pg = Store(database_url())
    code, _ = pg.create_class("lesson=1&pages=attention&step=softmax&guess=1")
    try:
        others = [open_link("attention", "en", step="softmax", guess="1", **{"class": code}) for _ in range(2)]
        odd = open_link("attention", "en", step="softmax", guess="1", **{"class": code})
        odd.sidebar.text_input(key=K_NICKNAME).input("Zo\x00e").run()
        answer_both(odd)
        for other in others:  # right after the odd write, as a class answers together
            answer_both(other)
            waiting = t("class.not_sent", "en", n=1, reason="")[:12]
            assert not [w.value for w in other.warning if w.value.startswith(waiting)]  # nothing waits
            assert not other.sidebar.warning
        assert sorted(a.nickname or "" for a in pg.answers(code))[-2:] == ["Zoe", "Zoe"]
        assert pg.count_answers(code) == 6
    finally:
        pg.dispose()


def test_an_answer_the_store_refuses_is_said_once_and_not_sent_again(store, monkeypatch):
    calls = []

    def refuse(self, new):
        calls.append(new.question_id)
        raise StoreError("store.refused", "refused", reason="value too long")

    monkeypatch.setattr(Store, "record_answer", refuse)
    at = open_link("attention", "en", step="softmax", guess="1")
    answer_both(at)
    said = t("class.refused", "en", n=1, reason=t("store.refused", "en", reason="value too long"))
    assert said in [w.value for w in at.warning]
    at.run()
    at.run()
    assert said not in [w.value for w in at.warning] and len(calls) == 2  # each answer tried once only
    captions = [c.value for c in at.caption]
    assert any(t("ex.score", "en", right=r, asked=2) in captions for r in range(3))  # the student goes on


def test_a_deleted_data_folder_is_said_to_the_teacher(store, tmp_path):
    teacher, _, code, _ = make_class("en")
    shutil.rmtree(tmp_path / "store")
    teacher.run()
    (error,) = [e.value for e in teacher.error]
    assert error == t("teacher.store_down", "en", reason=t("store.gone", "en"))


def test_a_reopened_class_takes_the_answers_of_a_student_who_saw_it_closed(store):
    teacher, short, code, _ = make_class("en")
    teacher.button(key="teacher_close").click().run()
    student = open_link(None, "en", s=short.split("s=")[1])
    assert t("class.closed", "en", code=code) in [w.value for w in student.sidebar.warning]
    banner = t("class.banner_main", "en", code=code)
    assert banner not in [c.value for c in student.main.caption]  # not told that guesses go to the teacher
    teacher.button(key="teacher_reopen").click().run()
    answer_both(student)
    assert store.count_answers(code) == 2  # counted in the class, not kept under no class
    assert banner in [c.value for c in student.main.caption]


def test_two_tabs_answering_differently_are_told_which_answer_counts(store, monkeypatch):
    from tinygpt.ui.classwork import student as student_ui

    _, short, code, _ = make_class("en")
    first = open_link(None, "en", s=short.split("s=")[1])
    me = class_session(first.session_state).me
    monkeypatch.setattr(student_ui, "browser_token", lambda: me)  # the second tab shares the browser's cookie
    second = open_link(None, "en", s=short.split("s=")[1])
    assert class_session(second.session_state).me == me
    first.button_group(key="attn_ex_argmax_key_pick").set_value("2").run()
    second.button_group(key="attn_ex_argmax_key_pick").set_value("3").run()
    (kept,) = store.answers(class_code=code)
    assert kept.answer == "2"
    said = [w.value for w in second.warning if "another tab" in w.value]
    assert said and kept.answer_text in said[0]
    assert {e.answer for e in class_session(second.session_state).answers.values()} == {"2"}


def test_the_teacher_sees_the_nicknames_students_typed(store):
    teacher, short, code, _ = make_class("en")
    ann = open_link(None, "en", s=short.split("s=")[1])
    ann.sidebar.text_input(key=K_NICKNAME).input("Ann").run()
    answer_both(ann, argmax="2", row_sum="1")
    answer_both(open_link(None, "en", s=short.split("s=")[1]), argmax="3", row_sum="1")
    teacher.run()
    (box,) = [e for e in teacher.expander if e.label.startswith("Who answered")]
    assert box.label == t("teacher.roster", "en", n=2)
    (who,) = [tb.value for tb in tables(teacher) if "questions answered" in tb.value.columns]
    assert who.values.tolist() == [["Ann", 2, 2], ["—", 2, 1]]
    assert "Ann" not in " ".join(m.value for m in teacher.main.markdown)  # nowhere but in that box


def test_a_link_only_this_computer_can_open_is_said_under_its_qr_code(store):
    from tinygpt.ui.teacher.lesson_builder import local_host

    for url, host in (
        ("http://localhost:8501/?s=Ab3xYz7", "localhost"),
        ("http://127.0.0.1:8501/?s=Ab3xYz7", "127.0.0.1"),
        ("http://[::1]:8501/", "::1"),
        ("http://0.0.0.0:8501/", "0.0.0.0"),
        ("http://192.168.1.20:8501/?s=Ab3xYz7", None),
        ("https://tinygpt.school.example/?s=Ab3xYz7", None),
    ):
        assert local_host(url) == host, url
    teacher, short, _, _ = make_class("en")
    assert short.startswith("http://localhost") or short.startswith("http://127.")
    host = local_host(short)
    assert t("builder.local_link", "en", host=host) in [w.value for w in teacher.warning]


def test_a_short_link_opens_in_its_lessons_language_whatever_the_browser_speaks(store):
    code = store.shorten("lesson=1&pages=attention&step=softmax&lang=en")
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.context["locale"] = "zh-CN"  # a Chinese phone opens an English lesson's short link
    at.query_params["s"] = code
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["lang"] == "en" and at.query_params["lang"] == "en"
