"""The teacher's summary tells an exercise, a concept check and each vote on the same question
apart, and shows each round of a vote."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.store import NewAnswer, new_student
from tinygpt.classroom.store_records import QuestionSummary
from tinygpt.classroom.summary_labels import CHECK, EXERCISE, VOTE_KIND, block_labels
from tinygpt.explanations.answers import Answer
from tinygpt.i18n import t

RECORD = {"prompt_key": "ex.row_sum.prompt", "prompt_fields": [["i", 1], ["token", "好"]], "choices": []}


def _summary(qid: str) -> QuestionSummary:
    return QuestionSummary(qid, "Which key?", RECORD, answered=1, right=1)


def _answer(qid: str, student: str, rnd: int, right: bool) -> Answer:
    return Answer("K7M2QP", qid, "Which key?", student, None, "1", "1", right, 0.0, rnd)


def test_votes_on_one_question_are_numbered_by_the_order_opened_and_carry_their_rounds():
    ids = ["q1", "vote:12:q1", "vote:5:q1", "check:pre:mask:0", "vote:7:q2"]
    answers = [
        _answer("vote:5:q1", "a", 1, False),
        _answer("vote:5:q1", "b", 1, True),
        _answer("vote:5:q1", "a", 2, True),
        _answer("vote:12:q1", "a", 1, True),
        _answer("q1", "c", 1, True),  # the exercise's answer: not a vote's round
    ]
    labels = block_labels([_summary(q) for q in ids], answers)
    assert [(x.kind, x.asked) for x in labels] == [
        (EXERCISE, 1),
        (VOTE_KIND, 2),  # opened at version 12: after the one of version 5
        (VOTE_KIND, 1),
        (CHECK, 1),
        (VOTE_KIND, 1),  # another question's vote counts on its own
    ]
    first = labels[2].rounds
    assert sorted(first) == [1, 2] and (first[1].answered, first[1].right) == (2, 1)
    assert (first[2].answered, first[2].right) == (1, 1)
    assert sorted(labels[1].rounds) == [1] and labels[0].rounds == {}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_teacher_reads_which_block_is_the_exercise_and_which_vote_and_round(store, lang):
    code, key = store.create_class("lesson=1")
    students = [new_student() for _ in range(3)]
    for qid, rounds in (("q1", (1,)), ("vote:3:q1", (1, 2)), ("vote:9:q1", (1,))):
        for rnd in rounds:
            for n, student in enumerate(students):
                new = NewAnswer(code, qid, "Which key?", RECORD, student, "1", "1", n < rnd + 1, round=rnd)
                store.record_answer(new)
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update({"lang": lang, "class": code, "key": key})
    at.run()
    at.switch_page("pages/teacher.py")
    at.query_params.update({"lang": lang, "class": code, "key": key})
    at.run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    kinds = [
        t("teacher.kind_exercise", lang),
        t("teacher.kind_vote", lang, asked=1),
        t("teacher.kind_vote", lang, asked=2),
    ]
    assert [c for c in captions if c in kinds] == kinds
    shown = [m.value for m in at.markdown]
    rounds = [
        t("teacher.counts_round", lang, round=1, answered=3, right=2, share="67 %"),
        t("teacher.counts_round", lang, round=2, answered=3, right=3, share="100 %"),
        t("teacher.counts_round", lang, round=1, answered=3, right=2, share="67 %"),
    ]
    assert [m for m in shown if m in rounds] == rounds
