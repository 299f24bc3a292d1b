"""The concept check run from the teacher's page (AppTest): the teacher starts and ends the check
before and the one after and sees counts (no names); a student's box opens by itself; a student who
joins after the check before is over is not asked for it, and takes the check *after* at the end;
the report pairs only the students who took both."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest
from helpers import open_link
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.period import read_state
from tinygpt.classroom.report import report, student_changes
from tinygpt.explanations.exercises import NONE
from tinygpt.i18n import t
from tinygpt.ui.frame.student_state import class_session

PICKS = {"mask": ["0"], "last": [NONE], "row_sum": "1", "softmax": "between", "tau": "3"}


def hand_in(at: AppTest, phase: str) -> None:
    for concept, value in PICKS.items():
        at.button_group(key=f"check_{phase}_{concept}").set_value(value)
    at.button(key=f"FormSubmitter:check_form_{phase}-{t('check.submit', 'en')}").click().run()
    assert not at.exception, [e.value for e in at.exception]


def forms(at: AppTest) -> set[str]:
    return {p for p in ("pre", "post") if any((g.key or "") == f"check_{p}_mask" for g in at.button_group)}


def texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]


def test_the_teacher_runs_both_checks_and_a_late_joiner_takes_only_the_one_after(store):
    code, key = store.create_class("lesson=1&pages=attention&model=context&lang=en")
    teacher = open_link("teacher", **{"class": code, "key": key})
    assert t("checkrun.phase_none", "en") in texts(teacher)
    teacher.button(key="checkrun_next").click().run()
    assert read_state(store, code).check == "pre"
    assert t("checkrun.phase_pre", "en") in texts(teacher)

    early = open_link("attention", **{"class": code})
    assert t("check.open_pre", "en") in texts(early)
    assert forms(early) == {"pre"}  # the box opened by itself with the check before
    hand_in(early, "pre")
    assert t("check.open_pre", "en") not in texts(early)
    teacher.run()
    assert t("checkrun.counts", "en", pre=1, post=0, students=1) in texts(teacher)
    assert class_session(early.session_state).me not in " ".join(texts(teacher))  # counts, no token

    teacher.button(key="checkrun_next").click().run()  # the check before is over
    assert read_state(store, code).check == "lesson"
    late = open_link("attention", **{"class": code})
    late.session_state["attn_check"] = True
    late.run()
    assert forms(late) == set() and t("check.closed_class", "en") in texts(late)  # not asked for "before"
    early.run()
    assert forms(early) == set()  # waits for the end: no "take the check again" of its own
    assert not [b for b in early.button if b.key == "check_start_post"]

    teacher.button(key="checkrun_next").click().run()  # the check at the end
    assert read_state(store, code).check == "post"
    late.run()
    early.run()
    assert forms(late) == {"post"} and forms(early) == {"post"}  # "after" for both, the late one too
    hand_in(late, "post")
    hand_in(early, "post")
    teacher.run()
    assert t("checkrun.counts", "en", pre=1, post=2, students=2) in texts(teacher)
    teacher.button(key="checkrun_next").click().run()
    assert read_state(store, code).check == "done"

    answers = store.answers(class_code=code)
    changes = student_changes(answers)
    assert (changes.paired, changes.post_only, changes.pre_only) == (1, 1, 0)
    results = report(answers, {})
    assert all((r.paired, r.post_only) == (1, 1) for r in results)
    said = " ".join(texts(teacher))
    assert t("report.paired", "en", n=1, up=0, same=1, down=0) in said  # the same picks before and after
    assert t("report.unpaired", "en", pre=0, post=1) in said


@pytest.mark.parametrize("parts_on", [True, False])
def test_a_lesson_for_a_class_shows_the_check_and_predict_first_unless_turned_off(store, parts_on):
    at = open_link("teacher", **{"from": "attention", "step": "softmax"})
    if not parts_on:
        at.toggle(key="builder_check").set_value(False).run()
        at.toggle(key="builder_marks").set_value(False).run()
    at.button(key="builder_make").click().run()
    assert not at.exception, [e.value for e in at.exception]
    code = at.query_params["class"]
    show = dict(parse_qsl(store.get_class(code).lesson)).get("show", "").split(",")
    assert ("attn_check" in show, "attn_marks" in show) == (parts_on, parts_on)
    if parts_on:
        note = t("teacher.another_note", "en", code=code)  # what becomes of the open class with a new lesson
        assert note in [c.value for c in at.caption]
