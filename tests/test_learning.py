"""The class period's core: predictions scored after a flip and their class tally (tinygpt.explanations.predictions),
misconceptions named per wrong option and counted (tinygpt.explanations.misconceptions), the concept check
(tinygpt.explanations.concept_check) and the report of what the class learned (tinygpt.classroom.report)."""

from __future__ import annotations

import csv
import io

import pytest
from helpers import seed_model

from tinygpt.attention import Switches
from tinygpt.classroom.report import StudentChanges, report, report_csv, report_markdown, report_rows, student_changes
from tinygpt.classroom.store import Answer
from tinygpt.examples import EXAMPLES
from tinygpt.explanations.answers import question_record
from tinygpt.explanations.concept_check import (
    CONCEPTS,
    check_id,
    check_questions,
    own_results,
    parse_check_id,
    phase_done,
)
from tinygpt.explanations.exercises import (
    NONE,
    argmax_key_question,
    masked_cells_question,
    next_char_question,
    row_sum_question,
)
from tinygpt.explanations.explain import trace_of
from tinygpt.explanations.misconceptions import REFUTED_BY, Misconception, count, misconceptions, refuting_params
from tinygpt.explanations.predictions import (
    SEVERAL,
    Outcome,
    flipped,
    mark_ids,
    prediction_id,
    prediction_question,
    score_marks,
    tallies,
)
from tinygpt.generate import next_char_probs
from tinygpt.i18n import CATALOGUE, LANGUAGES

M = Misconception
TEXT = "你好世界"


@pytest.fixture(scope="module")
def trace():
    """The layer-0 trace of 你好世界 by the seed model (its own attention, the mask on)."""
    record = seed_model()
    t = trace_of(record.model, record.vocab.encode(TEXT)[None], 0)
    t.tokens = list(TEXT)
    return t


def answer(qid: str, student: str, picked: str, right: bool, at: float, nickname: str | None = None) -> Answer:
    return Answer("K7M2QP", qid, "q", student, nickname, picked, picked, right, at)


# ---------------------------------------------------------------- predictions on the strip


def test_marks_are_scored_hit_miss_false_alarm_per_position():
    changed = [False, True, False, True, True, False]
    score = score_marks([1, 3, 4], [not c for c in changed])  # the opposite: no hit at all
    assert score.hits == () and not score.perfect
    score = score_marks([3, 1, 5], [False, False, False, True, True, False])
    assert score.outcomes == (
        Outcome.QUIET,
        Outcome.FALSE_ALARM,
        Outcome.QUIET,
        Outcome.HIT,
        Outcome.MISS,
        Outcome.FALSE_ALARM,
    )
    assert (score.hits, score.misses, score.false_alarms) == ((3,), (4,), (1, 5))
    nothing = score_marks([], changed)  # "none will change": every change is a miss
    assert nothing.misses == (1, 3, 4) and nothing.false_alarms == () and nothing.hits == ()
    assert score_marks([1, 3, 4], changed).perfect and score_marks([], [False] * 3).perfect
    with pytest.raises(ValueError, match="0..5"):
        score_marks([6], changed)


def test_the_switch_that_flipped_is_named():
    own = Switches()
    assert flipped(own, Switches()) is None
    assert flipped(own, Switches(causal_mask=False)) == "mask"
    assert flipped(own, Switches(temperature=0.5)) == "tau"
    assert flipped(own, Switches(uniform_heads=(0, 1))) == "uniform"
    assert flipped(own, Switches(heads_off=(1,))) == "heads_off"
    assert flipped(own, Switches(divisor=1.0)) == "scale"
    assert flipped(own, Switches(edits=((0, 1, 0, 3.0),))) == "edit"
    assert flipped(own, Switches(causal_mask=False, temperature=2.0)) == SEVERAL
    assert flipped(Switches(causal_mask=False), Switches(causal_mask=False)) is None  # a model trained without it


def test_a_prediction_is_a_question_answered_by_the_changed_positions():
    q = prediction_question(list(TEXT), [False, True, False, True], "mask", 0, last_layer=True)
    assert q.answers == {"1", "3"} and q.multiple
    assert [c.text for c in q.choices[:4]] == ["0 你", "1 好", "2 世", "3 界"] and q.choices[-1].id == NONE
    assert q.is_right(mark_ids([3, 1])) and not q.is_right(mark_ids([1])) and mark_ids([]) == [NONE]
    qid = prediction_id(q)
    assert qid.startswith("predict:mask:0:") and len(qid.split(":")[3]) == 8
    other = prediction_question(list("你好世世"), [False, True, False, True], "mask", 0, last_layer=True)
    assert prediction_id(other) != qid  # another text, another question
    none = prediction_question(list(TEXT), [False] * 4, "tau", 1, last_layer=False)
    assert none.answers == {NONE} and prediction_id(none).startswith("predict:tau:1:")
    with pytest.raises(ValueError, match="switch"):
        prediction_question(list(TEXT), [False] * 4, "lever", 0, last_layer=True)


def test_the_class_tally_counts_per_position_who_expected_a_change():
    q = prediction_question(list(TEXT), [False, True, False, True], "mask", 0, last_layer=True)
    qid = prediction_id(q)
    answers = [
        answer(qid, "a" * 16, "1,3", True, 1.0),
        answer(qid, "b" * 16, NONE, False, 2.0),
        answer(qid, "c" * 16, "1", False, 3.0),
        answer(qid, "d" * 16, "0,1,2,3", False, 4.0),
        answer("check:pre:mask:12345678", "a" * 16, "2", True, 5.0),  # not a prediction
    ]
    (tally,) = tallies(answers, {qid: question_record(q)})
    assert tally.labels == ("0 你", "1 好", "2 世", "3 界")
    assert tally.predicted == (1, 3, 1, 2)
    assert tally.changed == (False, True, False, True)
    assert (tally.students, tally.nothing, tally.switch, tally.layer) == (4, 1, "mask", 0)
    assert tallies(answers, {}) == []  # a prediction without its record is left out


# ---------------------------------------------------------------- misconceptions


def test_each_wrong_cell_of_the_mask_names_its_misconception(trace):
    q = masked_cells_question(trace, 0, 1)  # row 1 of 4 with the mask on: 2 and 3 are −∞
    record = question_record(q)
    assert q.answers == {"2", "3"}
    assert misconceptions(record, "2,3") == ()
    assert misconceptions(record, "0") == (M.MASK_HIDES_PAST,)  # one answer, one idea: the most direct
    assert misconceptions(record, "1,2,3") == (M.MASK_HIDES_SELF,)
    assert misconceptions(record, "2") == (M.MASK_ONLY_NEXT,)
    assert misconceptions(record, NONE) == (M.MASK_HIDES_NOTHING,)
    last = question_record(masked_cells_question(trace, 0, 3))
    assert misconceptions(last, "0,1") == (M.LAST_SEES_LESS,) and misconceptions(last, NONE) == ()
    off = question_record(masked_cells_question(trace.with_switches(Switches(causal_mask=False)), 0, 1))
    assert misconceptions(off, "2,3") == (M.MASK_ALWAYS,) and misconceptions(off, "0") == (M.MASK_HIDES_PAST,)


def test_each_wrong_row_sum_and_key_names_its_misconception(trace):
    record = question_record(row_sum_question(trace, 0, 2))  # choices 0, 1, 3, 4, "it depends"
    assert [c[0] for c in record["choices"]] == ["0", "1", "3", "4", "depends"]
    assert misconceptions(record, "0") == (M.WEIGHT_NEGATIVE,)
    assert misconceptions(record, "3") == misconceptions(record, "4") == (M.WEIGHT_EACH_ONE,)
    assert misconceptions(record, "depends") == (M.SUM_DEPENDS,)
    assert misconceptions(record, "1") == ()
    q = argmax_key_question(trace, 0, 3)
    record = question_record(q)
    for j in range(4):
        expected = (
            ()
            if str(j) in q.answers
            else ((M.ATTEND_SELF,) if j == 3 else (M.ATTEND_PREVIOUS,) if j == 2 else (M.ATTEND_MEANING,))
        )
        assert misconceptions(record, str(j)) == expected, j


def test_predictions_next_characters_and_the_check_name_theirs(trace):
    q = prediction_question(list(TEXT), [False, True, False, False], "mask", 0, last_layer=True)
    record = question_record(q)
    assert misconceptions(record, NONE) == (M.SWITCH_CHANGES_NOTHING,)
    assert misconceptions(record, "1,3") == (M.LAST_SEES_LESS,)  # the last position, the mask, the last layer
    assert misconceptions(record, "0,1,2,3") == (M.SWITCH_CHANGES_ALL,)  # one answer, one idea
    assert misconceptions(record, "0") == ()  # a near miss names no idea
    nothing = question_record(prediction_question(list(TEXT), [False] * 4, "uniform", 0, last_layer=True))
    assert misconceptions(nothing, "2") == (M.SWITCH_ALWAYS_CHANGES,)
    next_char = {
        "kind": "next_char",
        "prompt_fields": [["context", "你好"]],
        "choices": [[c, c, ""] for c in TEXT],
        "answers": ["世"],
        "multiple": False,
    }
    assert misconceptions(next_char, "好") == (M.NEXT_REPEATS,)
    assert misconceptions(next_char, "界") == (M.NEXT_BY_MEANING,)
    check = check_questions(trace)
    share = question_record(check["softmax"])
    assert misconceptions(share, "zero") == (M.SOFTMAX_ONE_HOT,)
    assert misconceptions(share, "negative") == (M.WEIGHT_NEGATIVE,)
    assert misconceptions(share, "equal") == (M.SOFTMAX_EQUAL,)
    tau = check["tau"]
    wrong = next(c.id for c in tau.choices if c.id not in tau.answers)
    assert misconceptions(question_record(tau), wrong) == (M.TAU_REORDERS,)
    assert misconceptions({"kind": "unknown", "answers": ["1"]}, "2") == ()  # never raises


def test_every_wrong_option_of_every_one_answer_question_and_every_wrong_cell_names_an_idea(trace):
    record = seed_model()
    probs = next_char_probs(record.model, record.vocab, "你好")[-1]  # (V,)
    check = check_questions(trace)
    questions = [argmax_key_question(trace, 0, i) for i in range(4)] + [row_sum_question(trace, 0, i) for i in range(4)]
    questions += [next_char_question(probs, record.vocab.chars, "你好"), check["softmax"], check["tau"]]
    for q in questions:
        recorded = question_record(q)
        for c in q.choices:
            named = misconceptions(recorded, c.id)
            assert bool(named) == (c.id not in q.answers), (q.kind, c.id, named)
    for i in range(4):  # the mask: any one wrong cell, or "none" where cells are masked
        q = masked_cells_question(trace, 0, i)
        for c in q.choices:
            if {c.id} != set(q.answers):
                assert misconceptions(question_record(q), c.id), (i, c.id)


def test_every_wrong_option_of_the_theory_quiz_names_an_idea():
    from tinygpt.explanations.exercises import theory_question
    from tinygpt.explanations.misconceptions import THEORY_QUIZ

    quiz = {
        "mask_positions": "b",
        "mask_weight": "c",
        "shift": "d",
        "temperature": "b",
    }  # tinygpt.ui.frame.controls.QUIZ
    assert set(THEORY_QUIZ) == set(quiz)
    for qid, right in quiz.items():
        record = question_record(theory_question(qid, right))
        for letter in "abcd":
            assert bool(misconceptions(record, letter)) == (letter != right), (qid, letter)
    record = question_record(theory_question("mask_weight", "c"))
    assert misconceptions(record, "b") == (M.WEIGHT_NEGATIVE,)
    assert misconceptions(record, "a") == (M.MASKED_STILL_WEIGHED,)


def test_misconceptions_are_counted_per_student_over_a_class(trace):
    rs = row_sum_question(trace, 0, 2)
    mask = masked_cells_question(trace, 0, 1)
    records = {"rs": question_record(rs), "mask": question_record(mask)}
    answers = [
        answer("rs", "a" * 16, "0", False, 1.0),
        answer("rs", "b" * 16, "0", False, 2.0),
        answer("rs", "c" * 16, "1", True, 3.0),
        answer("mask", "a" * 16, "0", False, 4.0),  # hides the past (and misses the future): one idea
        answer("mask", "b" * 16, "2,3", True, 5.0),
        answer("mask", "c" * 16, "0,1,2,3", False, 6.0),  # hides the past (and itself): one idea
        answer("mask", "d" * 16, "2", False, 6.5),  # only the next
        answer("gone", "c" * 16, "0", False, 7.0),  # no record: nothing named
    ]
    counts = [(c.misconception, c.students, c.answers) for c in count(answers, records)]
    assert counts == [
        (M.MASK_HIDES_PAST, 2, 2),
        (M.WEIGHT_NEGATIVE, 2, 2),
        (M.MASK_ONLY_NEXT, 1, 1),
    ]
    assert sum(c.answers for c in count(answers, records)) == 5  # five wrong answers with a record, five ideas


def test_every_misconception_has_its_sentence_and_an_experiment_the_attention_page_reads():
    from tinygpt.params import read_step
    from tinygpt.ui.attention.state import NAV_IDS, TEMPERATURES

    for m in Misconception:
        for lang in LANGUAGES:
            assert CATALOGUE[f"mis.{m}"][lang].startswith("“"), (m, lang)  # the idea first, quoted
        params = refuting_params(m)
        assert params["model"] in EXAMPLES
        if "step" in params:
            assert read_step(params["step"], NAV_IDS, 1) == params["step"]
        assert float(params.get("tau", 1)) in TEMPERATURES
        assert params.get("mask", "1") in ("0", "1") and params.get("uniform", "layer") in ("layer", "head")
        assert int(params.get("layer", 0)) < EXAMPLES[params["model"]].gpt.n_layers
    assert set(REFUTED_BY) == set(Misconception)


# ---------------------------------------------------------------- the concept check


def test_the_concept_check_asks_five_ideas_whose_answers_follow_from_the_numbers(trace):
    questions = check_questions(trace.with_switches(Switches(temperature=2.0)))  # the page's switches do not matter
    assert list(questions) == list(CONCEPTS)
    assert questions["mask"].answers == {"2", "3"}  # the middle row, 1 of 4: every key after it
    assert questions["last"].answers == {NONE}
    assert questions["row_sum"].answers == {"1"}
    share = dict(questions["softmax"].reason_fields)
    expected = "between" if 0 < share["ak"] < share["aj"] else "equal" if share["ak"] == share["aj"] else "zero"
    assert questions["softmax"].answers == {expected}
    assert share["ak"] > 0 and sum(trace.state["alpha"][0, 0, 3].tolist()) == pytest.approx(1.0, abs=1e-6)
    tau = questions["tau"]
    assert str(dict(tau.prompt_fields)["j"]) in tau.answers  # τ keeps the order: the same key on top
    one = trace_of(seed_model().model, seed_model().vocab.encode("你")[None], 0)
    with pytest.raises(ValueError, match="at least 2"):
        check_questions(one)


def test_check_ids_carry_the_phase_and_the_concept_and_a_students_first_answer_counts(trace):
    q = check_questions(trace)["row_sum"]
    qid = check_id("pre", "row_sum", q)
    assert qid.startswith("check:pre:row_sum:") and parse_check_id(qid) == ("pre", "row_sum")
    assert parse_check_id("predict:mask:0:1234abcd") is None and parse_check_id("check:mid:mask:1") is None
    with pytest.raises(ValueError, match="phase"):
        check_id("during", "mask", q)
    mine = [("check:pre:mask:1", False, 2.0), ("check:pre:mask:2", True, 3.0), ("check:post:mask:1", True, 9.0)]
    assert own_results(mine) == {"mask": {"pre": False, "post": True}}
    assert not phase_done(mine, "pre")
    assert phase_done([(f"check:pre:{c}:1", True, 1.0) for c in CONCEPTS], "pre")


# ---------------------------------------------------------------- the report


def row_sum_record() -> dict:
    return {
        "kind": "row_sum",
        "prompt_fields": [["i", 2], ["token", "世"]],
        "choices": [["0", "0", ""], ["1", "1", ""], ["3", "3", ""], ["4", "4", ""], ["depends", "", "k"]],
        "answers": ["1"],
        "multiple": False,
    }


def class_answers() -> tuple[list[Answer], dict]:
    """Five students: the row sum 2 of 5 right before, 4 of 5 after; the mask 1 of 2, then 2 of 2; τ 2 of 2 before."""
    pre, post = "check:pre:row_sum:aaaa1111", "check:post:row_sum:bbbb2222"
    s = [c * 16 for c in "abcde"]
    answers = [
        answer(pre, s[0], "1", True, 1, "Ann"),
        answer(pre, s[1], "1", True, 2),
        answer(pre, s[2], "0", False, 3),
        answer(pre, s[3], "depends", False, 4),
        answer(pre, s[4], "0", False, 5),
        answer("check:pre:row_sum:cccc3333", s[2], "1", True, 6),  # a second check before: the first counts
        answer(post, s[0], "1", True, 10, "Ann"),
        answer(post, s[1], "1", True, 11),
        answer(post, s[2], "1", True, 12),
        answer(post, s[3], "1", True, 13),
        answer(post, s[4], "0", False, 14),
        answer("check:pre:mask:dddd4444", s[0], "2,3", True, 1),
        answer("check:pre:mask:dddd4444", s[1], "0", False, 2),
        answer("check:post:mask:eeee5555", s[0], "2,3", True, 10),
        answer("check:post:mask:eeee5555", s[1], "2,3", True, 11),
        answer("check:pre:tau:ffff6666", s[0], "3", True, 1),
        answer("check:pre:tau:ffff6666", s[1], "3", True, 1),
        answer("check:post:tau:ffff7777", s[0], "3", True, 10),
        answer("0123456789abcdef", s[0], "3", False, 1),  # an exercise, not the check
    ]
    return answers, {pre: row_sum_record(), post: row_sum_record(), "check:pre:row_sum:cccc3333": row_sum_record()}


def test_the_report_gives_the_shares_before_and_after_the_gain_and_the_ideas_that_stayed():
    answers, records = class_answers()
    results = {r.concept: r for r in report(answers, records)}
    assert list(results) == list(CONCEPTS)
    rs = results["row_sum"]
    assert (rs.paired, rs.pre_right, rs.post_right, rs.gained, rs.lost) == (5, 2, 4, 2, 0)
    assert (rs.pre_only, rs.post_only, rs.answered) == (0, 0, 5)
    assert rs.pre == pytest.approx(0.4) and rs.post == pytest.approx(0.8)
    assert rs.gain == pytest.approx((0.8 - 0.4) / (1 - 0.4))  # 0.667
    assert [(s.misconception, s.before, s.after) for s in rs.stayed] == [(M.WEIGHT_NEGATIVE, 2, 1)]
    mask = results["mask"]
    assert (mask.pre, mask.post, mask.gain) == (0.5, 1.0, 1.0) and mask.stayed == ()  # no record: no idea named
    tau = results["tau"]
    assert (tau.pre, tau.post, tau.gain) == (1.0, 1.0, None)  # everyone right before: nothing to gain
    assert (tau.paired, tau.pre_only, tau.post_only) == (1, 1, 0)  # the second student answered only before
    last = results["last"]
    assert (last.pre, last.post, last.gain) == (None, None, None)


def test_the_report_downloads_are_anonymous_and_hold_the_same_figures():
    answers, records = class_answers()
    results = report(answers, records)
    names = {c: c.upper() for c in CONCEPTS}
    ideas = {m: m.value for m in Misconception}
    headers = ["concept", "n", "pre", "post", "g", "gained", "lost", "pre_only", "post_only", "stayed"]
    rows = report_rows(results, names, ideas)
    assert rows[2] == ["ROW_SUM", "5", "40 %", "80 %", "0.67", "2", "0", "0", "0", "weight_negative (2 → 1)"]
    assert rows[3] == ["SOFTMAX", "0", "—", "—", "—", "0", "0", "0", "0", "—"]
    text = report_csv(results, headers, names, ideas)
    parsed = list(csv.reader(io.StringIO(text)))
    assert parsed[0] == headers and len(parsed) == 1 + len(CONCEPTS)
    assert parsed[3] == ["ROW_SUM", "5", "0.4000", "0.8000", "0.6667", "2", "0", "0", "0", "weight_negative (2 → 1)"]
    assert parsed[1] == ["MASK", "2", "0.5000", "1.0000", "1.0000", "1", "0", "0", "0", "—"]
    assert parsed[1 + CONCEPTS.index("tau")][:2] == ["TAU", "1"] and parsed[1 + CONCEPTS.index("tau")][7:9] == [
        "1",
        "0",
    ]  # one student answered only before
    md = report_markdown(results, "What class K7M2QP learned", ["Anonymous."], headers, names, ideas)
    assert md.startswith("# What class K7M2QP learned\n\nAnonymous.\n")
    assert "| ROW_SUM | 5 | 40 % | 80 % | 0.67 | 2 | 0 | 0 | 0 | weight_negative (2 → 1) |" in md
    for a in answers:  # no token and no nickname in either file
        assert a.student not in md + text and (a.nickname is None or a.nickname not in md + text)


def test_the_report_pairs_students_so_a_late_joiner_and_a_leaver_change_no_share():
    """Three students before, two after (one left), one late joiner after only; nobody changed."""
    a, b, c, late = (x * 16 for x in "abcl")
    soft, rows = "check:{}:softmax:0000aaaa", "check:{}:row_sum:0000bbbb"
    answers = [
        answer(soft.format("pre"), a, "x", True, 1),
        answer(soft.format("pre"), b, "x", False, 1),
        answer(soft.format("pre"), c, "x", True, 1),  # c leaves before the check at the end
        answer(soft.format("post"), a, "x", True, 9),
        answer(soft.format("post"), b, "x", False, 9),
        answer(soft.format("post"), late, "x", False, 9),  # the late joiner took only the check after
        answer(rows.format("pre"), a, "x", False, 1),
        answer(rows.format("pre"), b, "x", False, 1),
        answer(rows.format("pre"), c, "x", False, 1),
        answer(rows.format("post"), a, "x", False, 9),
        answer(rows.format("post"), b, "x", False, 9),
        answer(rows.format("post"), late, "x", True, 9),
    ]
    results = {r.concept: r for r in report(answers, {})}
    softmax, row_sum = results["softmax"], results["row_sum"]
    assert (softmax.paired, softmax.pre, softmax.post, softmax.gain) == (2, 0.5, 0.5, 0.0)  # not −0.50
    assert (softmax.gained, softmax.lost, softmax.pre_only, softmax.post_only) == (0, 0, 1, 1)
    assert (row_sum.paired, row_sum.pre, row_sum.post, row_sum.gain) == (2, 0.0, 0.0, 0.0)  # not 1.00
    assert student_changes(answers) == StudentChanges(paired=2, up=0, same=2, down=0, pre_only=1, post_only=1)


def test_each_student_who_lost_or_gained_is_counted_as_such():
    a, b, c = (x * 16 for x in "abc")
    q = "check:{}:mask:0000cccc"
    answers = [
        answer(q.format("pre"), a, "x", True, 1),
        answer(q.format("pre"), b, "x", False, 1),
        answer(q.format("pre"), c, "x", False, 1),
        answer(q.format("post"), a, "x", False, 9),  # right before, wrong after: a loss
        answer(q.format("post"), b, "x", True, 9),
        answer(q.format("post"), c, "x", False, 9),
    ]
    mask = {r.concept: r for r in report(answers, {})}["mask"]
    assert (mask.paired, mask.gained, mask.lost, mask.gain) == (3, 1, 1, 0.0)
    assert student_changes(answers) == StudentChanges(paired=3, up=1, same=1, down=1)
