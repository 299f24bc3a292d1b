"""The class period on the pages (AppTest): marks on the strip scored after a flip against the page's
own changed positions, the wrong idea under a wrong answer, the concept check before and after,
and the teacher's live misconceptions and report; the projector's tally of a class's predictions."""

from __future__ import annotations

import dataclasses
import re

import pytest
from helpers import open_page, tables
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.store import NewAnswer
from tinygpt.explanations.answers import question_record
from tinygpt.explanations.concept_check import CONCEPTS
from tinygpt.explanations.exercises import NONE
from tinygpt.explanations.predictions import prediction_id, prediction_question, tallies
from tinygpt.i18n import t
from tinygpt.ui.frame.student_state import class_session
from tinygpt.ui.views.attention_table import K_CHECK, K_GUESS, K_MARKS

#: A column of the effect's strip: its classes and its position.
STRIP_COL = re.compile(
    r'<div class="(col[^"]*)" role="listitem"[^>]*><span class="m">[^<]*</span><span class="i">(\d+)</span>'
)
#: A column of the marks' strip: its outcome, whether it changed, its position.
MARKS_COL = re.compile(r'<div class="col (\w+)( flipped)?" role="listitem"[^>]*><span class="i">(\d+)</span>')


def html_with(at: AppTest, marker: str) -> str:
    (body,) = [h.value for h in at.get("html") if marker in h.value]
    return body


def changed_on_strip(at: AppTest) -> set[int]:
    """The positions the page's own strip marks as changed."""
    cols = STRIP_COL.findall(html_with(at, 'tg-strip" role'))
    assert cols, "the strip has columns"
    return {int(i) for css, i in cols if "changed" in css}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_marks_made_before_the_flip_are_scored_against_the_strip_after_it(lang):
    at = open_page("attention", lang, model="context")
    marks = at.multiselect(key=K_MARKS)
    assert marks.label == t("attn.marks.label", lang) and marks.options[-1] == t("attn.marks.none", lang)
    assert len(marks.options) == 16  # 15 positions and "none will change"
    picked = ["0", "1", "4", "7", "13"]
    marks.set_value(picked).run()
    at.toggle(key="attn_mask").set_value(False).run()
    assert not at.exception, [e.value for e in at.exception]
    changed = changed_on_strip(at)
    assert changed, "the mask off changes some prediction of the context example"
    columns = MARKS_COL.findall(html_with(at, "tg-marks"))
    assert [int(i) for _, _, i in columns] == list(range(15))
    marked = {int(p) for p in picked}
    for outcome, was_changed, i in columns:  # each position scored against the page's own strip
        k = int(i)
        assert bool(was_changed) == (k in changed)
        expected = ("hit" if k in marked else "miss") if k in changed else ("false_alarm" if k in marked else "quiet")
        assert outcome == expected, (k, outcome)
    hits, misses, alarms = len(marked & changed), len(changed - marked), len(marked - changed)
    score = t("attn.marks.score", lang, hits=hits, misses=misses, false_alarms=alarms, T=15)
    assert any(m.value.startswith(score) for m in at.markdown)
    text = at.session_state["attn_text"]
    missed = sorted(changed - marked)
    # each changed position's reason is said once, in the list under the marks: the missed ones first, marked
    lines = [line for m in at.markdown for line in m.value.split("\n") if line.startswith("- ")]
    reasons = [next(line for line in lines if f"**{k} {text[k]}**" in line) for k in sorted(changed)]
    assert all(sum(f"**{k} {text[k]}**" in line for line in lines) == 1 for k in changed), lines
    tag = "- " + t("attn.marks.miss", lang, why="")
    assert [r.startswith(tag) for r in reasons] == [k in missed for k in sorted(changed)]
    tagged = [line.startswith(tag) for line in lines if any(f"**{k} {text[k]}**" in line for k in changed)]
    assert tagged == sorted(tagged, reverse=True)  # the misses' reasons come first
    named = t("common.list_sep", lang).join(f"{k} {text[k]}" for k in missed)
    assert (t("attn.marks.misses", lang, n=misses, positions=named) in [m.value for m in at.markdown]) == bool(misses)
    entries = class_session(at.session_state).answers
    (qid,) = [q for q in entries if q.startswith("predict:")]
    assert qid.startswith("predict:mask:0:")
    assert entries[qid].answer == ",".join(sorted(picked, key=int))
    assert entries[qid].right == (marked == changed)
    at.toggle(key="attn_mask").set_value(True).run()  # back to the model's own: a new prediction
    assert at.multiselect(key=K_MARKS).value == []
    assert not [h for h in at.get("html") if "tg-marks" in h.value]


def test_none_will_change_excludes_the_positions_names_its_wrong_idea_and_a_flip_without_marks_says_how():
    at = open_page("attention", "en", model="context")
    at.multiselect(key=K_MARKS).set_value(["2", NONE]).run()
    assert at.multiselect(key=K_MARKS).value == [NONE]
    at.multiselect(key=K_MARKS).set_value([NONE, "3"]).run()
    assert at.multiselect(key=K_MARKS).value == ["3"]
    at.multiselect(key=K_MARKS).set_value(["3", NONE]).run()  # in the options' order: "none" just picked
    assert at.multiselect(key=K_MARKS).value == [NONE]
    at.multiselect(key=K_MARKS).set_value(["5", NONE]).run()  # a position just picked
    assert at.multiselect(key=K_MARKS).value == ["5"]
    at.multiselect(key=K_MARKS).set_value([NONE]).run()
    at.toggle(key="attn_mask").set_value(False).run()  # the mask off changes something: "none" was wrong
    assert changed_on_strip(at)
    idea = t("mis.you_may_think", "en", idea=t("mis.switch_changes_nothing", "en"))
    assert idea in [c.value for c in at.caption]
    at.toggle(key="attn_mask").set_value(True).run()
    assert at.multiselect(key=K_MARKS).value == []  # cleared for the next prediction
    at.toggle(key="attn_mask").set_value(False).run()  # a flip without marks: how to predict next time
    assert t("attn.marks.not_made", "en") in [c.value for c in at.caption]
    assert [q.split(":")[:3] for q in class_session(at.session_state).answers] == [["predict", "mask", "0"]]


def test_a_wrong_answer_names_the_wrong_idea_it_reveals():
    at = open_page("attention", "en", step="softmax")  # the textbook: the last row of 4 sums to 1
    at.toggle(key=K_GUESS).set_value(True).run()
    at.button_group(key="attn_ex_row_sum_pick").set_value("0").run()
    captions = [c.value for c in at.caption]
    assert t("mis.you_may_think", "en", idea=t("mis.weight_negative", "en")) in captions
    assert not at.exception


def answer_check(at: AppTest, phase: str, picks: dict[str, object]) -> None:
    for concept, value in picks.items():
        at.button_group(key=f"check_{phase}_{concept}").set_value(value)
    at.button(key=f"FormSubmitter:check_form_{phase}-{t('check.submit', 'en')}").click().run()
    assert not at.exception, [e.value for e in at.exception]


RIGHT = {"mask": ["2", "3"], "last": [NONE], "row_sum": "1", "softmax": "between", "tau": None}


def test_the_concept_check_before_and_after_on_the_page_a_student_is_on():
    at = open_page("attention", "en")  # 你好世界: the middle row is 1, the last 3
    at.session_state[K_CHECK] = True
    at.run()
    tau = at.button_group(key="check_pre_tau")
    right = dict(RIGHT, tau=re.search(r"gives key (\d+) the largest", tau.label).group(1))  # τ keeps the order
    answer_check(at, "pre", {"mask": ["0"], "row_sum": "0"})  # three left open: nothing recorded
    assert t("check.missing", "en", n=3) in [w.value for w in at.warning]
    assert not any(q.startswith("check:") for q in class_session(at.session_state).answers)
    answer_check(at, "pre", {"mask": ["0"], "last": [NONE], "row_sum": "0", "softmax": "between", "tau": right["tau"]})
    entries = class_session(at.session_state).answers
    pre = {q.split(":")[2]: e for q, e in entries.items() if q.startswith("check:pre:")}
    assert set(pre) == set(CONCEPTS)
    n_right = sum(e.right for e in pre.values())
    assert not pre["mask"].right and not pre["row_sum"].right and pre["last"].right
    assert t("check.pre_done", "en", right=n_right, total=5) in [m.value for m in at.markdown]
    assert not [tb for tb in tables(at) if t("check.col.post", "en") in tb.value.columns]  # the answers come at the end
    at.button(key="check_start_post").click().run()
    answer_check(at, "post", {**RIGHT, "tau": right["tau"], "row_sum": "depends"})
    post = {
        q.split(":")[2]: e for q, e in class_session(at.session_state).answers.items() if q.startswith("check:post:")
    }
    assert set(post) == set(CONCEPTS) and not post["row_sum"].right and post["mask"].right
    n_post = sum(e.right for e in post.values())
    assert t("check.post_done", "en", pre=n_right, post=n_post, total=5) in [m.value for m in at.markdown]
    table = [tb for tb in tables(at) if t("check.col.post", "en") in tb.value.columns][0].value
    assert table[t("check.col.pre", "en")].tolist()[:3] == [
        t("check.wrong", "en"),
        t("check.right", "en"),
        t("check.wrong", "en"),
    ]
    assert table[t("check.col.post", "en")].tolist()[2] == t("check.wrong", "en")
    idea = t("mis.you_may_think", "en", idea=t("mis.sum_depends", "en"))
    assert idea in [c.value for c in at.caption]  # the wrong idea of the answer after
    answers = class_session(at.session_state).answers  # after a reload the answers come from the store, without records
    class_session(at.session_state).answers = {q: dataclasses.replace(e, record=None) for q, e in answers.items()}
    at.run()
    assert idea in [c.value for c in at.caption]


def test_the_teacher_sees_misconceptions_live_with_their_experiment_and_the_report(store):
    code, key = store.create_class("lesson=1&pages=attention")
    q = prediction_question(list("你好世界"), [False, True, False, True], "mask", 0, last_layer=True)
    record = question_record(q)
    rs = {
        "kind": "row_sum",
        "prompt_key": "ex.row_sum.prompt",
        "prompt_fields": [["i", 2], ["token", "世"]],
        "choices": [
            ["0", "0", ""],
            ["1", "1", ""],
            ["3", "3", ""],
            ["4", "4", ""],
            ["depends", "", "ex.row_sum.depends"],
        ],
        "answers": ["1"],
        "multiple": False,
    }
    for n, (qid, rec, picked, right) in enumerate(
        [
            ("check:pre:row_sum:aaaa1111", rs, "0", False),
            ("check:pre:row_sum:aaaa1111", rs, "0", False),
            ("check:post:row_sum:aaaa1111", rs, "1", True),
            ("check:post:row_sum:aaaa1111", rs, "0", False),
            (prediction_id(q), record, NONE, False),
        ]
    ):
        student = f"{n % 2:016x}"  # two students, each before and after
        store.record_answer(NewAnswer(code, qid, "q", rec, student, picked, picked, right, nickname="Ann"))
    view = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    view.query_params.update({"lang": "en", "class": code, "key": key})
    view.run()
    view.switch_page("pages/teacher.py")
    view.query_params.update({"lang": "en", "class": code, "key": key})
    view.run()
    assert not view.exception, [e.value for e in view.exception]
    texts = [m.value for m in view.markdown]
    negative = t("teacher.mis.row", "en", students=2, answers=3, idea=t("mis.weight_negative", "en"))
    assert negative in texts
    assert t("teacher.mis.row", "en", students=1, answers=1, idea=t("mis.switch_changes_nothing", "en")) in texts
    urls = [b.proto.url for b in view.get("link_button")]
    assert any(u.endswith("/attention?model=context&step=softmax&lang=en") for u in urls), urls
    report = [tb for tb in tables(view) if t("report.col.gain", "en") in tb.value.columns][0].value
    row = report[report[t("report.col.concept", "en")] == t("check.concept.row_sum", "en")].iloc[0]
    assert (row[t("report.col.pre", "en")], row[t("report.col.post", "en")], row[t("report.col.gain", "en")]) == (
        "0 %",
        "50 %",
        "0.50",
    )
    assert "a weight can be negative (2 → 1)" in row[t("report.col.stayed", "en")]
    assert (str(row[t("report.col.pairs", "en")]), str(row[t("report.col.gained", "en")])) == ("2", "1")
    assert t("report.paired", "en", n=2, up=1, same=1, down=0) in texts
    assert {b.proto.label for b in view.get("download_button")} >= {t("report.markdown", "en"), t("report.csv", "en")}
    assert "Ann" not in " ".join(texts)


def test_the_projector_draws_the_latest_prediction_per_position(store):
    code, _ = store.create_class("lesson=1&pages=attention")
    q = prediction_question(list("你好世界"), [False, True, False, True], "mask", 0, last_layer=True)
    for n, picked in enumerate(["1,3", "1", NONE]):
        store.record_answer(
            NewAnswer(code, prediction_id(q), "q", question_record(q), f"{n:016x}", picked, picked, False)
        )

    def projector(code: str, reveal: bool) -> None:
        from tinygpt.ui.projector.prediction_tally import draw_prediction_tally

        draw_prediction_tally(code, reveal=reveal)

    hidden = AppTest.from_function(projector, args=(code, False), default_timeout=60)
    hidden.query_params["lang"] = "en"
    hidden.run()
    assert [m.value for m in hidden.markdown] == [t("tally.hidden", "en", students=3)]
    assert not [h for h in hidden.get("html") if "tg-tally" in h.value] and not tables(hidden)
    at = AppTest.from_function(projector, args=(code, True), default_timeout=60)
    at.query_params["lang"] = "en"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    changed = t("tally.summary", "en", students=3, nothing=1, changed="1 好, 3 界")
    assert any(m.value == changed for m in at.markdown)
    body = html_with(at, "tg-tally")
    assert re.findall(r'<span class="n">(\d+)</span>', body) == ["0", "2", "0", "1"]
    assert body.count('class="col changed"') == 2
    table = tables(at)[0].value
    assert table[t("tally.col.predicted", "en")].tolist() == [0, 2, 0, 1]


def test_the_concept_check_is_on_the_predict_page_too_about_the_models_own_text():
    at = open_page("predict", "en")  # the textbook: its text 你好世界
    at.session_state[K_CHECK] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert t("check.intro", "en", text="你好世界") in [c.value for c in at.caption]
    labels = [at.button_group(key=f"check_pre_{c}").label for c in CONCEPTS]
    assert labels[0] == "1. " + t("ex.masked_cells.prompt", "en", i=1, token="好")
    assert labels[1] == "2. " + t("ex.masked_cells.prompt", "en", i=3, token="界")


def test_a_students_marks_reach_the_class_and_its_tally_matches_the_strip(store):
    code, _ = store.create_class("lesson=1&pages=attention")
    at = open_page("attention", "en", model="context", **{"class": code})
    at.multiselect(key=K_MARKS).set_value(["2", "5"]).run()
    at.toggle(key="attn_mask").set_value(False).run()
    changed = changed_on_strip(at)
    (row,) = store.answers(code)
    assert row.question_id.startswith("predict:mask:0:") and row.answer == "2,5"
    records = {s.question_id: s.question for s in store.summary(code)}
    (tally,) = tallies(store.answers(code), records)
    assert tally.students == 1 and tally.predicted == tuple(int(k in (2, 5)) for k in range(15))
    assert {k for k, c in enumerate(tally.changed) if c} == changed  # what changed, as the student's page showed


def test_the_projector_page_shows_the_classs_prediction_per_position(store):
    code, _ = store.create_class("lesson=1&pages=attention")
    q = prediction_question(list("你好世界"), [False, True, False, True], "mask", 0, last_layer=True)
    for n, picked in enumerate(["1,3", "1"]):
        store.record_answer(
            NewAnswer(code, prediction_id(q), "q", question_record(q), f"{n:016x}", picked, picked, False)
        )
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update({"lang": "en", "class": code})
    at.run()
    at.switch_page("pages/projector.py")
    at.query_params.update({"lang": "en", "class": code})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert t("tally.header", "en") in [h.value for h in at.subheader]
    summary = t("tally.summary", "en", students=2, nothing=0, changed="1 好, 3 界")
    assert any(m.value == summary for m in at.markdown)  # no question is open: the tally is shown
    body = html_with(at, "tg-tally")
    assert re.findall(r'<span class="n">(\d+)</span>', body) == ["0", "2", "0", "1"]


def test_the_projector_shows_no_students_own_messages(store):
    """A browser that answered as a student may open the projector's page first: the room's screen
    does not show that student's messages (e.g. "welcome back"); a student's own page does."""

    def session(url_path: str) -> None:
        from tinygpt.ui.classwork.student import student_session
        from tinygpt.ui.frame.class_store import say

        say("a message for this student", "info")
        student_session(url_path)

    shown = []
    for page in ("attention", "projector"):
        at = AppTest.from_function(session, args=(page,), default_timeout=60)
        at.query_params["lang"] = "en"
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        shown.append([m.value for m in at.info])
    assert "a message for this student" in shown[0] and "a message for this student" not in shown[1]


def test_the_projector_counts_the_students_who_marked_before_the_flip_and_then_shows_the_tally(store):
    code, _ = store.create_class("lesson=1&pages=attention")

    def projector(code: str) -> None:
        from tinygpt.ui.projector.prediction_tally import draw_prediction_tally

        draw_prediction_tally(code)

    def shown() -> list[str]:
        at = AppTest.from_function(projector, args=(code,), default_timeout=60)
        at.query_params["lang"] = "en"
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return [m.value for m in at.markdown] + [i.value for i in at.info]

    assert shown() == [t("tally.none_yet", "en")]
    students = []
    for marks in (["2", "5"], ["3"], [NONE]):  # three students mark; no switch has flipped yet
        at = open_page("attention", "en", model="context", **{"class": code})
        at.multiselect(key=K_MARKS).set_value(marks).run()
        students.append(at)
    assert shown() == [t("tally.marked", "en", n=3)]  # counts only, as the marks come in
    assert store.answers(code) == [] and store.summary(code) == []  # marks are not answers
    for at in students:  # the switch flips: each prediction is scored and recorded
        at.toggle(key="attn_mask").set_value(False).run()
    said = shown()
    assert t("tally.marked", "en", n=3) not in said and t("tally.none_yet", "en") not in said
    assert any(m.startswith("3 students predicted; 1 expected no change.") for m in said)
    students[0].toggle(key="attn_mask").set_value(True).run()  # back at its own: one marks the next flip
    students[0].multiselect(key=K_MARKS).set_value(["4"]).run()
    assert t("tally.marked", "en", n=1) in shown()  # the next flip's marks, with the last tally
