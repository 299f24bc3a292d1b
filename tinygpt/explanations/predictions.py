"""Predict the intervention: marks a student puts on the strip before a switch flips, scored after it.

Predicting an outcome before seeing it is what makes a demonstration teach (Crouch et al. 2004;
Miller et al. 2013). Before a switch flips, the student marks the positions whose prediction
they expect to change (or that none will); after the flip each position is scored
(:func:`score_marks`): a **hit** (marked and changed), a **miss** (changed, not marked), a **false
alarm** (marked, not changed) or **quiet** (neither).

In a class the marks are an answer like any other (:func:`prediction_question`, id
``predict:<switch>:<layer>:<digest>``), and :func:`tallies` counts, per position, how many
students expected a change against whether it changed, from the answers alone.

Shapes: T sequence length.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tinygpt.attention import Switches
from tinygpt.explanations.answers import Answer, question_id
from tinygpt.explanations.exercises import NONE, Choice, Question, QuestionKind, _position_choices

PREFIX = "predict"
#: The switches of the Attention page a prediction can be about, in the order they are named.
SWITCHES: tuple[str, ...] = ("mask", "uniform", "tau", "heads_off", "scale", "edit")
#: The name of a change of more than one switch at once.
SEVERAL = "several"


class Outcome(enum.StrEnum):
    """What one position's mark turned out to be."""

    HIT = "hit"
    MISS = "miss"
    FALSE_ALARM = "false_alarm"
    QUIET = "quiet"


@dataclass(frozen=True)
class MarkScore:
    """The marks of one prediction against what changed: ``outcomes[k]`` for position k."""

    outcomes: tuple[Outcome, ...]

    def positions(self, outcome: Outcome) -> tuple[int, ...]:
        """The positions with ``outcome``, in order."""
        return tuple(k for k, o in enumerate(self.outcomes) if o is outcome)

    @property
    def hits(self) -> tuple[int, ...]:
        return self.positions(Outcome.HIT)

    @property
    def misses(self) -> tuple[int, ...]:
        return self.positions(Outcome.MISS)

    @property
    def false_alarms(self) -> tuple[int, ...]:
        return self.positions(Outcome.FALSE_ALARM)

    @property
    def perfect(self) -> bool:
        """No miss and no false alarm."""
        return not self.misses and not self.false_alarms


def score_marks(marked: Iterable[int], changed: Sequence[bool]) -> MarkScore:
    """Score the positions ``marked`` (expected to change) against ``changed`` (T,), one per position.

    An empty ``marked`` is the prediction "nothing changes". Raises ValueError for a mark
    outside 0..T-1.
    """
    T = len(changed)
    marks = set(marked)
    if outside := sorted(k for k in marks if not 0 <= k < T):
        raise ValueError(f"marks {outside} are outside the text; positions are 0..{T - 1}")
    outcomes = []
    for k in range(T):
        if bool(changed[k]):
            outcomes.append(Outcome.HIT if k in marks else Outcome.MISS)
        else:
            outcomes.append(Outcome.FALSE_ALARM if k in marks else Outcome.QUIET)
    return MarkScore(tuple(outcomes))


def flipped(own: Switches, now: Switches) -> str | None:
    """Which switch ``now`` differs from the model's own attention ``own`` in (one of
    :data:`SWITCHES`), :data:`SEVERAL` for more than one, None for none."""
    differ = [
        name
        for name, same in (
            ("mask", now.causal_mask == own.causal_mask),
            ("uniform", now.uniform_heads == own.uniform_heads),
            ("tau", now.temperature == own.temperature),
            ("heads_off", now.heads_off == own.heads_off),
            ("scale", now.divisor == own.divisor),
            ("edit", now.edits == own.edits),
        )
        if not same
    ]
    return None if not differ else differ[0] if len(differ) == 1 else SEVERAL


def prediction_question(
    tokens: Sequence[str], changed: Sequence[bool], switch: str, layer: int, last_layer: bool
) -> Question:
    """The marks as a question: "which positions change when ``switch`` flips in ``layer``?",
    answered by the positions in ``changed`` (T,) (or "none"), several picks.

    ``tokens``: the text's characters (the choices are labelled "k c", as the strip's columns);
    ``last_layer``: ``layer`` is the model's last (the mask switched off there cannot change
    the last position, which sees every key already). Raises ValueError for an unknown switch.
    """
    if switch not in SWITCHES and switch != SEVERAL:
        raise ValueError(f"switch={switch!r}; expected one of {SWITCHES + (SEVERAL,)}")
    T = len(changed)
    moved = [k for k in range(T) if bool(changed[k])]
    return Question(
        QuestionKind.PREDICT_FLIP,
        f"ex.predict_flip.{switch}",
        (("switch", switch), ("layer", layer), ("layer_no", layer + 1), ("last_layer", bool(last_layer))),
        _position_choices(tokens, range(T)) + (Choice(NONE, key="attn.marks.none"),),
        frozenset(map(str, moved)) or frozenset({NONE}),
        "ex.predict_flip.reason" if moved else "ex.predict_flip.reason_none",
        (("positions", ", ".join(str(k) for k in moved)), ("n", len(moved)), ("T", T)),
        multiple=True,
    )


def prediction_id(question: Question) -> str:
    """The answer's question id: ``predict:<switch>:<layer>:<digest>`` (the digest tells texts
    and models apart)."""
    fields = dict(question.prompt_fields)
    return f"{PREFIX}:{fields['switch']}:{fields['layer']}:{question_id(question)[:8]}"


def mark_ids(marked: Iterable[int]) -> list[str]:
    """The choice ids of ``marked`` positions (["none"] for no mark), as the answer records them."""
    ids = [str(k) for k in sorted(set(marked))]
    return ids or [NONE]


@dataclass(frozen=True)
class PredictionTally:
    """A class's predictions of one flip, per position.

    Attributes:
        question_id: the prediction's question id.
        switch, layer: the switch that flipped (:data:`SWITCHES` or :data:`SEVERAL`) and the layer (from 0).
        labels: the positions as the strip names them ("0 我").
        predicted: per position, how many students marked it.
        changed: per position, whether its prediction changed.
        students: how many students predicted; ``nothing``: how many of them expected no change.
    """

    question_id: str
    switch: str
    layer: int
    labels: tuple[str, ...]
    predicted: tuple[int, ...]
    changed: tuple[bool, ...]
    students: int
    nothing: int


def tally(question_id: str, record: Mapping, answers: Iterable[Answer]) -> PredictionTally:
    """Count the answers to the prediction ``question_id`` (its ``record`` as the store keeps it)."""
    fields = {str(n): v for n, v in record.get("prompt_fields", [])}
    positions = [(int(c[0]), c[1]) for c in record.get("choices", []) if str(c[0]).isdigit()]
    index = {str(k): n for n, (k, _) in enumerate(positions)}
    right = {str(a) for a in record.get("answers", [])}
    predicted = [0] * len(positions)
    students: set[str] = set()
    nothing = 0
    for a in answers:
        if a.question_id != question_id or a.student in students:
            continue
        students.add(a.student)
        picked = [i for i in a.answer.split(",") if i]
        nothing += picked == [NONE]
        for i in picked:
            if i in index:
                predicted[index[i]] += 1
    return PredictionTally(
        question_id,
        str(fields.get("switch", "")),
        int(fields.get("layer", 0)),
        tuple(label for _, label in positions),
        tuple(predicted),
        tuple(str(k) in right for k, _ in positions),
        len(students),
        nothing,
    )


def tallies(answers: Iterable[Answer], records: Mapping[str, Mapping]) -> list[PredictionTally]:
    """The tally of every prediction the answers hold, in the order first answered (the latest last).

    Args:
        answers: a class's answers (:meth:`tinygpt.classroom.store.Store.answers`).
        records: question id -> the question as recorded (``QuestionSummary.question``); a
            prediction without a record is left out.
    """
    answers = list(answers)
    ids = [a.question_id for a in sorted(answers, key=lambda a: a.at) if a.question_id.startswith(PREFIX + ":")]
    return [tally(q, records[q], answers) for q in dict.fromkeys(ids) if q in records]
