"""The class in the app: the lesson builder, short links, students' answers on the teacher's page,
"my answers" and the resume link, and every bad input getting its message (tinygpt.classroom.class_links,
tinygpt.ui.classwork.student, tinygpt.ui.teacher.lesson_builder, tinygpt.ui.teacher.teacher_view)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from helpers import open_link, served_example, tables
from streamlit.testing.v1 import AppTest

from bench.cold_start import free_port
from tinygpt.classroom.class_links import (
    LessonPlan,
    MyAnswer,
    answers_csv,
    answers_markdown,
    ascii_query,
    is_ascii_link,
    lesson_params,
    query_with_class,
)
from tinygpt.classroom.store import LINK_CODE_LEN
from tinygpt.i18n import t
from tinygpt.ui.attention.state import opening_head
from tinygpt.ui.choice.led_model import model_identity
from tinygpt.ui.frame.student_state import K_NICKNAME, class_session
from tinygpt.ui.frame.teacher_state import teacher_session
from tinygpt.ui.views.lesson import parse_lesson

PAGES = ["train", "predict", "attention", "theory"]


def codes(at: AppTest) -> list[str]:
    return [c.value for c in at.code if c.language != "python"]


def make_class(lang: str = "en", guess: bool = True) -> tuple[AppTest, str, str, str]:
    """A teacher builds a locked guess-first lesson on Attention's softmax step of the textbook example with a class:
    (the teacher's session, the students' short link, the class code, the teacher's key)."""
    at = open_link("teacher", lang, **{"from": "attention", "step": "softmax", "tau": "1"})
    at.button_group(key="builder_model").set_value("textbook").run()  # the example whose answers the tests know
    at.multiselect(key="builder_controls_attention").set_value(["attn_mask", "attn_temperature"]).run()
    if guess:
        at.toggle(key="builder_guess").set_value(True).run()
    at.button(key="builder_make").click().run()
    assert not at.exception, [e.value for e in at.exception]
    short = codes(at)[0]
    code = at.query_params["class"]
    assert "key" not in at.query_params  # the page a teacher projects holds no key in its address
    return at, short, code, teacher_session(at.session_state).keys[code]


# ---------------------------------------------------------------- pure: links in ASCII, the lesson's query


def test_links_are_ascii_and_decode_back_to_the_text():
    query = ascii_query({"text": "我爱你，你爱我。", "train": "v1;d_model=64;text=你好", "show": "a,b"})
    assert is_ascii_link("http://h/?" + query)
    assert query.startswith("text=%E6%88%91%E7%88%B1%E4%BD%A0%EF%BC%8C") and "train=v1;d_model=64;text=%E4" in query
    assert "show=a,b" in query
    assert dict(parse_qsl(query)) == {"text": "我爱你，你爱我。", "train": "v1;d_model=64;text=你好", "show": "a,b"}
    assert not is_ascii_link("http://h/?text=你好") and not is_ascii_link("http://h/?a=，")


def test_a_lesson_plan_gives_the_old_lesson_syntax_with_guess_locked_and_its_class():
    plan = LessonPlan(
        pages=("attention",),
        controls=None,
        page_controls=("model_choice", "attn_mask", "attn_guess"),
        model="own",
        train="v1;d_model=64;text=我爱你",
        view={"step": "softmax", "me": "0123456789abcdef", "key": "secret", "lang": "zh"},
        guess=True,
        class_code="K7M2QP",
        lang="en",
    )
    params = lesson_params(plan)
    assert params == [
        ("lesson", "1"),
        ("pages", "attention"),
        ("hide", "attn_guess"),  # the guess toggle is out of reach
        ("model", "own"),
        ("train", "v1;d_model=64;text=我爱你"),
        ("step", "softmax"),
        ("guess", "1"),
        ("class", "K7M2QP"),
    ]  # a student's token and the teacher's key never go into a lesson; a class's link names no language
    lesson = parse_lesson(dict(params), PAGES)
    assert lesson.pages == ("attention",) and not lesson.visible("attn_guess") and lesson.visible("attn_mask")
    locked = dict(lesson_params(LessonPlan(("predict",), (), ("model_choice", "predict_prefix"))))
    assert locked["hide"] == "model_choice,predict_prefix" and "show" not in locked
    chosen = dict(lesson_params(LessonPlan(("predict", "theory"), ("predict_prefix", "theory_tau"))))
    assert chosen["show"] == "predict_prefix,theory_tau" and chosen["pages"] == "predict,theory"
    without = ascii_query(lesson_params(LessonPlan(("attention",), lang="zh")))
    assert query_with_class(without, "K7M2QP") == ascii_query(
        lesson_params(LessonPlan(("attention",), class_code="K7M2QP", lang="zh"))
    )
    assert "lang" not in dict(parse_qsl(query_with_class(without + "&lang=en", "K7M2QP")))
    with pytest.raises(ValueError):
        lesson_params(LessonPlan(()))


def test_my_answers_as_markdown_and_csv():
    answers = [
        MyAnswer("q1", "Which key will query 3 (界) attend to most?", "2 世", True, 1_800_000_000.0, "K7M2QP"),
        MyAnswer("q2", "What does row | 3 sum to?", "4", False, 1_800_000_060.0),
    ]
    headers = ["Time", "Class", "Question", "My answer", "Right"]
    csv_text = answers_csv(answers, headers, "yes", "no")
    assert csv_text.splitlines() == [
        "Time,Class,Question,My answer,Right",
        "2027-01-15 08:00:00 UTC,K7M2QP,Which key will query 3 (界) attend to most?,2 世,yes",
        "2027-01-15 08:01:00 UTC,,What does row | 3 sum to?,4,no",
    ]
    md = answers_markdown(answers, "My answers", "Your score: 1 of 2 right.", headers, "yes", "no")
    assert md.splitlines()[:2] == ["# My answers", ""]
    assert "| 2027-01-15 08:01:00 UTC | — | What does row \\| 3 sum to? | 4 | no |" in md.splitlines()


# ---------------------------------------------------------------- the builder and the short link


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_builder_names_controls_by_their_labels_and_makes_a_short_ascii_link_and_a_class(lang, store):
    at = open_link("teacher", lang, **{"from": "attention", "step": "softmax"})
    controls = at.multiselect(key="builder_controls_attention")
    shown = list(controls.proto.options)
    assert t("attn.mask", lang) in shown and t("attn.temperature", lang) in shown  # labels, not widget keys
    assert "attn_mask" not in shown
    assert at.multiselect(key="builder_pages").value == ["attention"]  # the page it was opened from
    assert at.selectbox(key="builder_step").value == "softmax"
    assert at.button_group(key="builder_model").value == "context"  # what a student's first visit shows
    teacher, short, code, key = make_class(lang)
    base, query = short.split("?")
    assert query.startswith("s=") and len(query) == 2 + LINK_CODE_LEN and is_ascii_link(short)
    lesson = dict(parse_qsl(store.resolve(query[2:])))
    view = {k: lesson.pop(k) for k in ("layer", "head", "mask", "scale", "text", "mid")}  # the complete view
    assert lesson == {
        "lesson": "1",
        "pages": "attention",
        "show": "attn_mask,attn_temperature,attn_check,attn_marks",  # a class's check and Predict first
        "model": "textbook",
        "step": "softmax",
        "tau": "1",
        "guess": "1",
        "class": code,
    }  # no lang: each student keeps her own language
    textbook = served_example("textbook")
    assert (view["layer"], view["head"], view["mid"]) == ("0", str(opening_head(textbook)), model_identity(textbook))
    assert store.is_teacher(code, key) and store.get_class(code).is_open
    assert len(teacher.get("image")) == 1  # the QR code for the projector
    assert any(f"teacher?class={code}&key={key}" in c for c in codes(teacher))  # the teacher's own link
    assert t("teacher.class_header", lang, code=code) in [h.value for h in teacher.header]


def test_a_short_link_opens_the_locked_lesson_on_its_step(store):
    _, short, code, _ = make_class("en")
    at = open_link(None, "en", s=short.split("s=")[1])
    params = dict(at.query_params)
    assert "s" not in params and params["class"] == code and params["step"] == "softmax"
    assert at.session_state["attn_step"] == "softmax"  # the step radio is locked: the lesson opens on it
    assert [b.key for b in at.button_group if b.key.endswith("_pick")] == [
        "attn_ex_argmax_key_pick",
        "attn_ex_row_sum_pick",
    ]
    assert t("class.banner", "en", code=code) in [c.value for c in at.sidebar.caption]
    keys = {w.key for w in at.main.get("toggle")} | {w.key for w in at.main.get("select_slider")}
    assert "attn_guess" not in keys and {"attn_mask", "attn_temperature"} <= keys


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_short_code_that_does_not_exist_or_is_malformed_gets_a_message(lang, store):
    at = open_link(None, lang, s="abcdefg")
    assert t("short.unknown", lang, code="abcdefg") in [w.value for w in at.warning]
    assert "s" not in at.query_params
    at = open_link(None, lang, s="abc/../")  # not a code the app makes: to a student, a link that does not exist
    assert [w.value for w in at.warning] == [t("short.unknown", lang, code=r"abc/\.\./")]  # as Markdown shows it


# ---------------------------------------------------------------- students' answers on the teacher's page


def answer_both(at: AppTest, argmax: str = "2", row_sum: str = "1") -> None:
    at.button_group(key="attn_ex_argmax_key_pick").set_value(argmax).run()
    at.button_group(key="attn_ex_row_sum_pick").set_value(row_sum).run()
    assert not at.exception, [e.value for e in at.exception]


def test_students_answers_arrive_on_the_teachers_page_anonymously(store):
    teacher, short, code, key = make_class("en")
    code_s = short.split("s=")[1]
    ann = open_link(None, "en", s=code_s)
    assert t("class.banner_main", "en", code=code) in [c.value for c in ann.main.caption]  # seen on a phone too
    ann.sidebar.text_input(key=K_NICKNAME).input("Ann").run()
    answer_both(ann, argmax="2", row_sum="1")
    bob = open_link(None, "en", s=code_s)
    answer_both(bob, argmax="3", row_sum="depends")
    rows = store.answers(code)
    assert sorted((r.nickname or "", r.answer, r.right) for r in rows) == sorted(
        [("Ann", "2", True), ("Ann", "1", True), ("", "3", False), ("", "depends", False)]
    )
    view = open_link("teacher", "en", **{"class": code, "key": key})
    text = [m.value for m in view.markdown]
    assert t("teacher.counts", "en", answered=2, right=1, share="50 %") in text
    assert any("Which key will query 3 (界) attend to most?" in m for m in text)
    caption = [c.value for c in view.caption]
    assert any(c.startswith("2 students, 4 answers") for c in caption)
    assert len(view.get("vega_lite_chart")) == 2  # a chart per question, each with its table
    first = [tb.value for tb in tables(view) if "answer" in tb.value.columns][
        0
    ]  # which key: every position, how many picked it, the right one
    assert first.values.tolist() == [["0 你", 0, ""], ["1 好", 0, ""], ["2 世", 1, "✓"], ["3 界", 1, ""]]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_teachers_page_needs_the_key_and_shows_nothing_without_it(lang, store):
    _, short, code, key = make_class(lang)
    forged = ("A" if key[0] != "A" else "B") + key[1:]
    for params, message in (
        ({"class": code}, t("teacher.no_key", lang)),  # a student's link: its class, no key
        ({"class": code, "key": forged}, t("teacher.no_access", lang)),
        ({"class": "ZZZZZZ", "key": key}, t("teacher.no_access", lang)),  # reads as a wrong key: no code confirmed
    ):
        at = open_link("teacher", lang, **params)
        assert [e.value for e in at.error] == [message]
        assert not at.header and not at.get("vega_lite_chart") and not codes(at) and not at.button
    at = open_link("teacher", lang, **{"class": code, "key": "short"})  # a key the app never gives: it opens nothing
    assert [e.value for e in at.error] == [t("teacher.no_access", lang)]
    at = open_link("teacher", lang, **{"class": "no!", "key": key})
    (error,) = [e.value for e in at.error]
    assert error.startswith(t("teacher.bad_link", lang, error="")[:6]) and "no!" in error


def test_a_closed_class_keeps_the_students_answers_for_them_and_says_so(store):
    teacher, short, code, key = make_class("en")
    student = open_link(None, "en", s=short.split("s=")[1])
    teacher.button(key="teacher_close").click().run()
    assert not store.get_class(code).is_open
    assert t("teacher.closed", "en") in [m.value for m in teacher.markdown]
    answer_both(student)
    assert [w.value for w in student.sidebar.warning] == [t("class.closed", "en", code=code)]
    assert store.count_answers(code) == 0
    me = class_session(student.session_state).me
    assert [(a.class_code, a.right) for a in store.answers(student=me)] == [("", True), ("", True)]
    teacher.button(key="teacher_reopen").click().run()
    teacher.button(key="teacher_clear_yes").click().run()
    assert store.get_class(code).is_open and t("teacher.cleared", "en", n=0) in [s.value for s in teacher.success]


def test_a_reload_brings_back_the_answers_revealed_and_the_score(store, monkeypatch):
    from tinygpt.ui.classwork import student as student_ui

    _, short, code, _ = make_class("en")
    student = open_link(None, "en", s=short.split("s=")[1])
    me = class_session(student.session_state).me
    cookie = [h.value for h in student.get("html") if "document.cookie" in h.value]
    assert cookie and f"tinygpt_me={me};" in cookie[0]  # a student of a class: the token in this browser's cookie
    answer_both(student, argmax="0", row_sum="1")
    assert "me" not in student.query_params  # not in the address, which students copy to each other
    monkeypatch.setattr(student_ui, "browser_token", lambda: me)  # the reload sends the cookie back
    params = {k: v for k, v in student.query_params.items() if k != "lang"}
    again = open_link(None, "en", **params)  # a new session on the same address (a reload; the lesson opens Attention)
    assert again.button_group(key="attn_ex_argmax_key_pick").value == "0"
    assert again.button_group(key="attn_ex_row_sum_pick").value == "1"
    assert t("ex.score", "en", right=1, asked=2) in [c.value for c in again.caption]
    assert t("mine.restored", "en", asked=2, right=1) in [i.value for i in again.info]
    assert store.count_answers(code) == 2  # nothing counted twice


def test_my_answers_give_a_resume_link_that_brings_back_the_view_and_the_score(store):
    student = open_link("attention", "en", step="softmax", guess="1")
    answer_both(student, argmax="3", row_sum="1")
    student.sidebar.button(key="mine_resume").click().run()
    link = [c for c in codes(student) if "?s=" in c][0]
    assert is_ascii_link(link)
    resumed = open_link(None, "en", s=link.split("s=")[1])  # another browser: no cookie, the link's token
    assert t("ex.score", "en", right=1, asked=2) in [c.value for c in resumed.caption]
    assert resumed.query_params["step"] == "softmax" and "me" not in resumed.query_params
    assert class_session(resumed.session_state).me == class_session(student.session_state).me
    assert resumed.button_group(key="attn_ex_row_sum_pick").value == "1"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_store_that_cannot_be_reached_loses_nothing_and_is_said(lang, monkeypatch):
    monkeypatch.setenv("TINYGPT_DATABASE_URL", f"postgresql://postgres@127.0.0.1:{free_port()}/nowhere")
    student = open_link("attention", lang, step="softmax", guess="1", **{"class": "K7M2QP"})
    answer_both(student, argmax="3", row_sum="1")
    assert t("ex.score", lang, right=1, asked=2) in [c.value for c in student.caption]  # the student goes on
    (warning,) = [
        w.value for w in student.main.warning if w.value.startswith(t("class.not_sent", lang, n=2, reason="")[:6])
    ]
    assert "127.0.0.1" not in warning
    teacher = open_link("teacher", lang, **{"class": "K7M2QP", "key": "A" * 24})
    (error,) = [e.value for e in teacher.error]
    assert error.startswith(t("teacher.store_down", lang, reason="")[:6])
    short = open_link(None, lang, s="abcdefg")  # a short link cannot be resolved now: said, and tried again by itself
    (warning,) = [w.value for w in short.warning]
    assert warning.startswith(t("short.waiting", lang, code="abcdefg", reason="")[:8])
    assert short.query_params["s"] == "abcdefg" and not short.title  # the lesson's link, not the whole app
    assert "127.0.0.1" not in warning + error  # where the database runs is no student's business
    builder = open_link("teacher", lang, **{"from": "predict"})
    builder.button(key="builder_make").click().run()
    link = codes(builder)[0]
    assert "lesson=1" in link and is_ascii_link(link)  # the whole link, which works without the store
    assert any(w.value.startswith(t("builder.no_store", lang, reason="")[:5]) for w in builder.warning)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_bad_class_code_in_a_link_is_named_and_the_student_works_on(lang, store):
    at = open_link("attention", lang, step="softmax", guess="1", **{"class": "K7M2Q０"})
    (warning,) = [w.value for w in at.sidebar.warning]
    accepted = t("accepted.class_code", lang, n=6)
    assert warning == t("class.bad_code", lang, value="K7M2Q０", accepted=accepted)  # the value and what is accepted
    answer_both(at)
    captions = [c.value for c in at.caption]
    assert any(t("ex.score", lang, right=r, asked=2) in captions for r in range(3))  # counted: the student works on
    at = open_link("attention", lang, **{"class": "ZZZZZZ"})
    assert [w.value for w in at.sidebar.warning] == [t("class.unknown", lang, code="ZZZZZZ")]


def test_the_class_link_is_ascii_and_never_carries_a_token_or_a_key(store):
    at = open_link("attention", "en", text="你好世界", me="0123456789abcdef", key="A" * 24)
    at.sidebar.get("popover")  # the link is drawn inside the popover
    link = [c for c in codes(at) if "attention?" in c][0]
    assert is_ascii_link(link) and "me=" not in link and "key=" not in link
    assert "text=%E4%BD%A0%E5%A5%BD%E4%B8%96%E7%95%8C" in link
    assert dict(parse_qsl(urlsplit(link).query))["text"] == "你好世界"


def test_the_answer_chart_marks_right_answers_by_colour_and_symbol():
    from tinygpt.explanations.charts import RIGHT_COLOR, WRONG_COLOR, answer_spread, answer_spread_spec

    spec = answer_spread(["0 你", "1 好", "none"], [3, 0, 5], [True, False, False], title="q").to_dict()
    rows = next(iter(spec["datasets"].values()))
    assert [(r["answer"], r["count"], r["status"]) for r in rows] == [
        ("✓ 0 你", 3, "right"),
        ("1 好", 0, "wrong"),
        ("none", 5, "wrong"),
    ]
    bars = spec["layer"][0]["encoding"]
    assert bars["color"]["scale"] == {"domain": ["right", "wrong"], "range": [RIGHT_COLOR, WRONG_COLOR]}
    assert bars["x"]["axis"] == {"format": "d", "tickMinStep": 1}  # whole students
    fast = answer_spread_spec(["0 你", "1 好", "none"], [3, 0, 5], [True, False, False], title="q")
    assert list(fast["datasets"]["cells"].to_pydict()["answer"]) == [r["answer"] for r in rows]
    assert fast["layer"][0]["encoding"] == bars
    with pytest.raises(ValueError):
        answer_spread(["a"], [1, 2], [True])


def test_the_most_answered_questions_are_charts_and_the_rest_one_table(store, monkeypatch):
    from tinygpt.classroom.store import NewAnswer, new_student
    from tinygpt.ui.teacher import teacher_view

    monkeypatch.setattr(teacher_view, "MAX_CHARTS", 2)
    code, key = store.create_class("lesson=1")
    record = {"prompt_key": "ex.row_sum.prompt", "prompt_fields": [["i", 1], ["token", "好"]], "choices": []}
    for q, students in (("q1", 1), ("q2", 3), ("q3", 2)):
        for _ in range(students):
            store.record_answer(NewAnswer(code, q, f"text {q}", record, new_student(), "1", "1", True))
    view = open_link("teacher", "en", **{"class": code, "key": key})
    assert len(view.get("vega_lite_chart")) == 2
    counts = [m.value for m in view.markdown if "answered ·" in m.value]
    assert counts == ["3 answered · 3 right (100 %)", "2 answered · 2 right (100 %)"]  # q2 and q3, in their order
    assert [e.label for e in view.expander if e.label.startswith("1 more")] == ["1 more question, fewer answered"]


def test_the_builder_offers_the_model_the_teachers_pages_show(store):
    at = open_link("attention", "en", model="textbook")
    at.switch_page("pages/teacher.py")
    at.run()
    assert at.button_group(key="builder_model").value == "textbook"  # the teacher was looking at it
    assert open_link("teacher", "en").button_group(key="builder_model").value == "context"  # no choice yet


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_builder_warns_when_guess_first_opens_on_a_step_without_questions(lang, store):
    warning = t("builder.guess_no_question", lang, step="@").split("@")[0]
    at = open_link("teacher", lang, **{"from": "attention", "step": "projection"})  # step 1 asks nothing
    at.multiselect(key="builder_controls_attention").set_value(["attn_mask"]).run()
    assert any(w.value.startswith(warning) for w in at.warning)
    at.selectbox(key="builder_step").set_value("softmax").run()  # step 6 asks two questions
    assert not any(w.value.startswith(warning) for w in at.warning)
    at.selectbox(key="builder_step").set_value("projection").run()
    at.multiselect(key="builder_controls_attention").set_value(["attn_mask", "attn_step"]).run()
    assert not any(w.value.startswith(warning) for w in at.warning)  # students can move to a step that asks
    fresh = open_link("teacher", lang)  # a builder opened with no view: its defaults make a lesson that asks
    assert fresh.selectbox(key="builder_step").value != "" and fresh.toggle(key="builder_guess").value
    assert not any(w.value.startswith(warning) for w in fresh.warning)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_builder_says_which_settings_of_the_view_the_lesson_keeps(lang, store):
    at = open_link("teacher", lang, **{"from": "attention", "step": "softmax", "mask": "0", "tau": "0.5"})
    mask = t("attn.lesson_switch", lang, name=t("attn.mask", lang), value=t("attn.lesson_off", lang))
    sep = t("common.clause_sep", lang)  # "；" in zh
    assert t("builder.view", lang, settings=f"{mask}{sep}τ = 0.5") in [c.value for c in at.caption]
    plain = open_link("teacher", lang, **{"from": "attention", "step": "softmax"})
    assert not any(c.value.startswith(t("builder.view", lang, settings="")[:6]) for c in plain.caption)


def test_the_teachers_count_of_answers_is_every_answer_the_store_holds(store):
    """A class vote's second round is an answer too: the caption counts it as the store does."""
    from tinygpt.classroom.store_records import NewAnswer
    from tinygpt.classroom.store_values import new_student

    code, key = store.create_class("p=attention")
    ann = new_student()
    base = dict(class_code=code, question_id="vote:3:q1", question_text="Which key?", question={}, student=ann)
    store.record_answer(NewAnswer(**base, answer="2", answer_text="2 世", right=False, round=1))
    store.record_answer(NewAnswer(**base, answer="1", answer_text="1 好", right=True, round=2))
    assert store.count_answers(code) == 2
    view = open_link("teacher", "en", **{"class": code, "key": key})
    caption = [c.value for c in view.caption]
    assert any(c.startswith("1 student, 2 answers;") for c in caption), [c for c in caption if "answer" in c]
