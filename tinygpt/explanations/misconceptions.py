"""Misconceptions, named: which wrong idea a wrong answer reveals, and how many in a class hold each.

Every wrong option of every question kind of :mod:`tinygpt.explanations.exercises` (and of the concept check
and the strip's predictions) names the misconception it reveals, read from the question as the
class store keeps it (:func:`tinygpt.classroom.class_links.question_record`: its kind, fields, choices and right
answers) and the answer given (choice ids, comma-separated). Nothing is stored beyond what the
store already keeps, so the answers of any class can be counted again.

A misconception's sentence is the i18n key ``mis.<id>``; :data:`REFUTED_BY` gives the Attention
page's view (its URL parameters) whose experiment shows it wrong.

Registry, by question kind (i the query, T the positions):

- ``masked_cells``: a cell j < i → the mask hides the characters before; j = i → a position cannot
  see itself; some j > i left out → the mask hides only the next character; "none" while the mask
  is on → the mask hides nothing; a cell j > i while the mask is off → the future stays hidden
  anyway; any cell of the last row → the last position cannot see every key.
- ``row_sum``: 0 → a weight can be negative; i + 1 or T → every key gets the weight 1; "it
  depends" → the row's total depends on the scores.
- ``softmax_share``: 0 → softmax keeps only the largest score; a weight equal to the largest →
  softmax shares equally; negative → a weight can be negative.
- ``tau_argmax``: another key → τ changes which key is largest.
- ``argmax_key``: the query itself → a position looks most at itself; the key just before → a
  position always looks at the character before; another key → attention follows meaning, not the score.
- ``head_off`` and ``predict_flip``: "none" while something changed → a switch cannot change a
  prediction; positions while nothing changed → every switch changes something; every position
  → a switch changes every prediction; for the mask switched off in the last layer, the last
  position → the last position cannot see every key.
- ``next_char``: the context's last character → the model repeats the character it read; another
  → the model writes what makes sense, not what its training made most likely.
- ``theory_quiz`` (the Theory page's self-test): each wrong letter of each question, in :data:`THEORY_QUIZ`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tinygpt.explanations.answers import Answer

NONE = "none"  # tinygpt.explanations.exercises.NONE (read without importing torch)


class Misconception(enum.StrEnum):
    """A wrong idea about attention a wrong answer reveals; its sentence is ``mis.<value>``."""

    MASK_HIDES_PAST = "mask_hides_past"
    MASK_HIDES_SELF = "mask_hides_self"
    MASK_ONLY_NEXT = "mask_only_next"
    MASK_HIDES_NOTHING = "mask_hides_nothing"
    MASK_ALWAYS = "mask_always"
    LAST_SEES_LESS = "last_sees_less"
    WEIGHT_NEGATIVE = "weight_negative"
    WEIGHT_EACH_ONE = "weight_each_one"
    SUM_DEPENDS = "sum_depends"
    SOFTMAX_ONE_HOT = "softmax_one_hot"
    SOFTMAX_EQUAL = "softmax_equal"
    TAU_REORDERS = "tau_reorders"
    TAU_FLATTENS = "tau_flattens"
    MASKED_STILL_WEIGHED = "masked_still_weighed"
    SHIFT_MATTERS = "shift_matters"
    ATTEND_SELF = "attend_self"
    ATTEND_PREVIOUS = "attend_previous"
    ATTEND_MEANING = "attend_meaning"
    SWITCH_CHANGES_NOTHING = "switch_changes_nothing"
    SWITCH_ALWAYS_CHANGES = "switch_always_changes"
    SWITCH_CHANGES_ALL = "switch_changes_all"
    NEXT_REPEATS = "next_repeats"
    NEXT_BY_MEANING = "next_by_meaning"


M = Misconception
#: The Attention page's view (URL parameters; the model is the context example unless named)
#: whose experiment refutes each misconception: the step whose numbers show it, or the switch to flip.
REFUTED_BY: dict[Misconception, dict[str, str]] = {
    M.MASK_HIDES_PAST: {"step": "mask"},
    M.MASK_HIDES_SELF: {"step": "mask"},
    M.MASK_ONLY_NEXT: {"step": "mask"},
    M.MASK_HIDES_NOTHING: {"mask": "0"},
    M.MASK_ALWAYS: {"mask": "0", "step": "mask"},
    M.LAST_SEES_LESS: {"mask": "0", "layer": "1"},
    M.WEIGHT_NEGATIVE: {"step": "softmax"},
    M.WEIGHT_EACH_ONE: {"step": "softmax"},
    M.SUM_DEPENDS: {"step": "softmax", "tau": "2"},
    M.SOFTMAX_ONE_HOT: {"step": "softmax"},
    M.SOFTMAX_EQUAL: {"step": "softmax"},
    M.TAU_REORDERS: {"step": "softmax", "tau": "0.5"},
    M.TAU_FLATTENS: {"step": "softmax", "tau": "0.1"},
    M.MASKED_STILL_WEIGHED: {"step": "softmax"},
    M.SHIFT_MATTERS: {"step": "softmax"},
    M.ATTEND_SELF: {"step": "scores"},
    M.ATTEND_PREVIOUS: {"step": "scores"},
    M.ATTEND_MEANING: {"step": "scores"},
    M.SWITCH_CHANGES_NOTHING: {"mask": "0"},
    M.SWITCH_ALWAYS_CHANGES: {"model": "textbook", "mask": "0"},
    M.SWITCH_CHANGES_ALL: {"mask": "0", "layer": "1"},
    M.NEXT_REPEATS: {},
    M.NEXT_BY_MEANING: {"uniform": "layer"},
}
if set(REFUTED_BY) != set(Misconception):
    raise KeyError(f"REFUTED_BY misses {sorted(set(Misconception) - set(REFUTED_BY))}")


def refuting_params(m: Misconception) -> dict[str, str]:
    """The Attention page's URL parameters of the experiment refuting ``m`` (``model=`` first)."""
    params = dict(REFUTED_BY[m])
    return {"model": params.pop("model", "context"), **params}


def _fields(record: Mapping) -> dict[str, object]:
    return {str(name): value for name, value in record.get("prompt_fields", [])}


def _positions(record: Mapping) -> list[int]:
    """The position ids among the record's choices (as integers, in order)."""
    return [int(c[0]) for c in record.get("choices", []) if str(c[0]).isdigit()]


def _ints(ids: Iterable[str]) -> set[int]:
    return {int(i) for i in ids if i.isdigit()}


def _masked_cells(record: Mapping, picked: set[str], right: set[str]) -> list[Misconception]:
    """The ideas a wrong pick of hidden cells shows, the most direct first: a cell picked that the
    mask never hides (the past, the token itself) before a hidden cell left out."""
    i = int(_fields(record).get("i", -1))
    T = len(_positions(record))
    cells = _ints(picked)
    if right == {NONE} and i == T - 1 and cells:  # the last row: nothing is ever hidden from it
        return [M.LAST_SEES_LESS]
    found: list[Misconception] = []
    if any(j < i for j in cells):
        found.append(M.MASK_HIDES_PAST)
    if i in cells:
        found.append(M.MASK_HIDES_SELF)
    if right == {NONE}:
        if any(j > i for j in cells):  # the mask is off here
            found.append(M.MASK_ALWAYS)
    elif NONE in picked:
        found.append(M.MASK_HIDES_NOTHING)
    elif _ints(right) - cells:
        found.append(M.MASK_ONLY_NEXT)
    return found


def _row_sum(record: Mapping, picked: set[str]) -> list[Misconception]:
    (pick,) = picked
    if pick == "0":
        return [M.WEIGHT_NEGATIVE]
    if pick == "depends":
        return [M.SUM_DEPENDS]
    return [M.WEIGHT_EACH_ONE]  # i + 1 or T: the number of keys


def _argmax_key(record: Mapping, picked: set[str]) -> list[Misconception]:
    (pick,) = picked
    i = int(_fields(record).get("i", -1))
    j = int(pick) if pick.isdigit() else -2
    return [M.ATTEND_SELF if j == i else M.ATTEND_PREVIOUS if j == i - 1 else M.ATTEND_MEANING]


def _changes(record: Mapping, picked: set[str], right: set[str]) -> list[Misconception]:
    fields = _fields(record)
    if NONE in picked:
        return [M.SWITCH_CHANGES_NOTHING]
    positions = _positions(record)
    found = []
    if right == {NONE}:
        found.append(M.SWITCH_ALWAYS_CHANGES)
    elif len(positions) > 1 and _ints(picked) == set(positions):
        found.append(M.SWITCH_CHANGES_ALL)
    last = positions[-1] if positions else -1
    if fields.get("switch") == "mask" and fields.get("last_layer") and str(last) in picked - right:
        found.append(M.LAST_SEES_LESS)
    return found


def _next_char(record: Mapping, picked: set[str]) -> list[Misconception]:
    (pick,) = picked
    context = str(_fields(record).get("context", ""))
    return [M.NEXT_REPEATS if context and pick == context[-1] else M.NEXT_BY_MEANING]


_SINGLE = {
    "softmax_share": {"zero": M.SOFTMAX_ONE_HOT, "equal": M.SOFTMAX_EQUAL, "negative": M.WEIGHT_NEGATIVE},
}
#: The Theory page's self-test (``tinygpt.explanations.exercises.theory_question``):
#: question id -> wrong option -> idea.
THEORY_QUIZ: dict[str, dict[str, Misconception]] = {
    "mask_positions": {"a": M.MASK_HIDES_PAST, "c": M.MASK_HIDES_PAST, "d": M.MASK_HIDES_NOTHING},
    "mask_weight": {"a": M.MASKED_STILL_WEIGHED, "b": M.WEIGHT_NEGATIVE, "d": M.MASKED_STILL_WEIGHED},
    "shift": {"a": M.SUM_DEPENDS, "b": M.SHIFT_MATTERS, "c": M.SUM_DEPENDS},
    "temperature": {"a": M.TAU_FLATTENS, "c": M.SUM_DEPENDS, "d": M.WEIGHT_NEGATIVE},
}


def misconceptions(record: Mapping, answer: str) -> tuple[Misconception, ...]:
    """The misconception the answer ``answer`` (choice ids, comma-separated) to the question
    ``record`` (:func:`tinygpt.classroom.class_links.question_record`) reveals, as a tuple of at most
    one: one wrong answer is one mistake, so it counts once and never as two ideas that contradict
    each other (the first in the checks' order, the one the answer shows most directly). Empty for
    a right answer, an empty one, or a wrong one no registered idea explains (e.g. a near miss of a
    prediction).

    Never raises for a record of an unknown kind or a malformed answer: it names nothing.
    """
    picked = {i for i in str(answer).split(",") if i}
    right = {str(a) for a in record.get("answers", [])}
    kind = record.get("kind")
    if not picked:
        return ()
    multiple = bool(record.get("multiple"))
    if (picked == right) if multiple else (picked & right):
        return ()
    if not multiple and len(picked) != 1:
        return ()
    if kind == "masked_cells":
        found = _masked_cells(record, picked, right)
    elif kind == "row_sum":
        found = _row_sum(record, picked)
    elif kind == "argmax_key":
        found = _argmax_key(record, picked)
    elif kind == "tau_argmax":
        found = [M.TAU_REORDERS]
    elif kind in ("head_off", "predict_flip"):
        found = _changes(record, picked, right)
    elif kind == "next_char":
        found = _next_char(record, picked)
    elif kind in _SINGLE:
        found = [m for p in picked if (m := _SINGLE[kind].get(p)) is not None]
    elif kind == "theory_quiz":
        qid = str(record.get("prompt_key", "")).removeprefix("theory.quiz.").removesuffix(".q")
        found = [m for p in picked if (m := THEORY_QUIZ.get(qid, {}).get(p)) is not None]
    else:
        found = []
    return tuple(found[:1])


@dataclass(frozen=True)
class MisconceptionCount:
    """How many in a class revealed one misconception.

    Attributes:
        misconception: which.
        students: distinct students who revealed it at least once.
        answers: the answers that revealed it.
    """

    misconception: Misconception
    students: int
    answers: int


def count(answers: Iterable[Answer], records: Mapping[str, Mapping]) -> list[MisconceptionCount]:
    """The misconceptions a class's answers reveal, most students first (then by the registry's
    order); only those revealed at least once.

    Args:
        answers: the class's answers (:meth:`tinygpt.classroom.store.Store.answers`).
        records: question id -> the question as recorded (``QuestionSummary.question``); an
            answer to a question without a record names nothing.
    """
    students: dict[Misconception, set[str]] = {}
    n_answers: dict[Misconception, int] = {}
    for a in answers:
        record = records.get(a.question_id)
        if a.right or record is None:
            continue
        for m in misconceptions(record, a.answer):
            students.setdefault(m, set()).add(a.student)
            n_answers[m] = n_answers.get(m, 0) + 1
    order = list(Misconception)
    result = [MisconceptionCount(m, len(students[m]), n_answers[m]) for m in students]
    return sorted(result, key=lambda c: (-c.students, order.index(c.misconception)))
