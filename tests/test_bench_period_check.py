"""bench.period_check without a server: the picks it hands in are right or wrong as intended, it reads the
check's text back from the page's intro, and its comparison of the report with the answers cast finds a
difference (the benchmark itself, ``python -m bench.period``, is not run in CI)."""

import random

import pytest

from bench.classroom import english
from bench.period_check import Ledger, check_lines, pick, questions_of, shown_text, unescape
from tinygpt.classroom.store import Answer
from tinygpt.explanations.concept_check import CONCEPTS, check_id

TEXT = "我爱你，你爱我。他爱她，她爱他"  # the context example's own text, as the lesson's Predict page shows it


@pytest.fixture(scope="module")
def questions():
    return questions_of(TEXT)


@pytest.mark.parametrize("concept", CONCEPTS)
def test_picks_are_right_or_wrong_as_asked(questions, concept):
    q = questions[concept]
    for seed in range(20):
        rng = random.Random(seed)
        for right in (True, False):
            ids = pick(q, rng, right)
            assert ids and set(ids) <= {c.id for c in q.choices}
            assert q.is_right(ids if q.multiple else ids[0]) is right, (concept, ids)
            assert q.multiple or len(ids) == 1


def test_shown_text_reads_the_intro_back():
    escaped = "a\\*b\\_c 你好"  # md_escape's form of "a*b_c 你好"
    texts = ["something else", english("check.intro", text=escaped)]
    assert shown_text(texts) == "a*b_c 你好"
    assert shown_text(["something else"]) is None
    assert unescape("1\\. x \\\\ y") == "1. x \\ y"


class FakeStore:
    def __init__(self, answers):
        self._answers = answers

    def answers(self, code):
        return list(self._answers)

    def summary(self, code):
        return []


def _answers(questions, rights: dict[tuple[str, str], list[bool]]) -> list[Answer]:
    out, at = [], 0.0
    for (phase, concept), marks in rights.items():
        qid = check_id(phase, concept, questions[concept])
        for n, right in enumerate(marks):
            at += 1.0
            out.append(Answer("ABCDEF", qid, "", f"student{n}", None, "x", "x", right, at))
    return out


def test_the_report_is_compared_with_the_answers_cast(questions):
    rights = {(p, c): [True, False, n % 2 == 0] for p in ("pre", "post") for n, c in enumerate(CONCEPTS)}
    ledger = Ledger()
    for (phase, concept), marks in rights.items():
        for n, right in enumerate(marks):
            ledger.add(phase, concept, f"student{n}", right)
    store = FakeStore(_answers(questions, rights))
    lines, cast, recorded, mismatched, errors = check_lines(store, "ABCDEF", ledger)
    assert (cast, recorded, mismatched, errors) == (30, 30, 0, [])
    assert "check answers recorded: 30 of 30" in lines
    assert "pre/post pairs: 3 of 3" in lines
    assert lines[-1] == "report equals the answers cast: 5 of 5 concepts"

    ledger.add("post", "tau", "student3", True)  # one answer cast (by a late joiner) that the store lost
    lines, cast, recorded, mismatched, errors = check_lines(store, "ABCDEF", ledger)
    assert (cast, recorded, mismatched) == (31, 30, 1)
    assert lines[-1] == "report equals the answers cast: 4 of 5 concepts"
    said = "{'paired': 3, 'pre_right': 2, 'post_right': 2, 'pre_only': 0, 'post_only': 0}"
    cast = "{'paired': 3, 'pre_right': 2, 'post_right': 2, 'pre_only': 0, 'post_only': 1}"
    assert errors == [f"check tau: the report says {said}, the answers cast {cast}"]


def test_the_bench_counts_a_page_that_tells_a_vote_verdict_before_the_reveal():
    from bench.period import Expect, Period, Student, leaked
    from bench.st_client import Run

    period = Period(None, "ABCDEF", "k", "link")
    me = Student(0, random.Random(0), checked={"pre"})
    period.expect = Expect(vote_key="period_vote_q_1")
    blind = english("ex.score", right=3, asked=5) + " " + english("mine.hidden_note", n=1)
    assert not leaked(Run(texts=[blind]), me, period)  # the check's five answers only
    assert leaked(Run(texts=[english("ex.score", right=3, asked=6)]), me, period)  # the vote counted
    assert leaked(Run(texts=[english("ex.right", reason="because")]), me, period)  # the verdict itself
    period.expect, period.revealed = Expect(vote_key="period_vote_q_2", revealed=True), 1
    assert not leaked(Run(texts=[english("ex.score", right=4, asked=6), english("ex.right", reason="")]), me, period)
