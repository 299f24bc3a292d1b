"""Guess, then reveal: questions whose answers are computed from the model's own numbers.

A student learns more by predicting an outcome before seeing it. Each question here is built from
a trace (:class:`tinygpt.attention.AttentionTrace`), an ablation (:func:`tinygpt.explanations.explain.position_effects`)
or a next-character distribution, so its correct answer holds for any model and any text: nothing
is written in advance. A question carries only i18n keys and fields; the pages translate them.

Questions of the Attention page, for one layer, head and query position i:

- ``argmax_key`` (steps 3–6): which key will query i attend to most? The argmax of α[i, :],
  among the keys the mask allows.
- ``masked_cells`` (step 5): which cells of row i are −∞ after the mask? The keys j > i with the
  mask on, none with it off (read from the trace's masked scores).
- ``row_sum`` (step 6): what does row i of α sum to? 1.
- ``head_off`` (steps 7–9): which position's prediction changes when this head is off?
  ``Switches(heads_off=(head,))`` in that layer, compared with the model's own; possibly none.

Question of the Predict page: ``next_char``, which character comes next after this prefix? The
model's argmax.

Built in their own modules from this one's parts: the concept check's ``softmax_share`` and
``tau_argmax`` (:mod:`tinygpt.explanations.concept_check`) and the strip's
``predict_flip`` (:mod:`tinygpt.explanations.predictions`).

This module reads ``tinygpt.attention`` and ``tinygpt.explanations.explain``; neither imports it.
Shapes: T sequence length, V vocab_size.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import torch

from tinygpt.attention import STEP_IDS, AttentionTrace, Switches
from tinygpt.explanations.explain import PositionEffects, position_effects
from tinygpt.formatting import char_name, number
from tinygpt.model import GPT

#: The id of the choice "none of them" (no cell is masked, no prediction changes).
NONE = "none"


class QuestionKind(enum.StrEnum):
    """What a question asks; its prompt is the i18n key ``ex.<kind>.prompt``."""

    ARGMAX_KEY = "argmax_key"
    MASKED_CELLS = "masked_cells"
    ROW_SUM = "row_sum"
    HEAD_OFF = "head_off"
    NEXT_CHAR = "next_char"
    THEORY_QUIZ = "theory_quiz"
    SOFTMAX_SHARE = "softmax_share"  # the concept check (tinygpt.explanations.concept_check)
    TAU_ARGMAX = "tau_argmax"  # the concept check (tinygpt.explanations.concept_check)
    PREDICT_FLIP = "predict_flip"  # marks on the strip before a switch flips (tinygpt.explanations.predictions)


#: The questions each step of attention asks, the first being the step's main one. Every step is
#: listed: an empty tuple says the step has no question (its tensors are reshapes or projections a
#: student cannot guess by reasoning).
STEP_QUESTIONS: dict[str, tuple[QuestionKind, ...]] = {
    "projection": (),
    "split_heads": (),
    "scores": (QuestionKind.ARGMAX_KEY,),
    "scale": (QuestionKind.ARGMAX_KEY,),
    "mask": (QuestionKind.MASKED_CELLS, QuestionKind.ARGMAX_KEY),
    "softmax": (QuestionKind.ARGMAX_KEY, QuestionKind.ROW_SUM),
    "weighted_sum": (QuestionKind.HEAD_OFF,),
    "merge_heads": (QuestionKind.HEAD_OFF,),
    "output_projection": (QuestionKind.HEAD_OFF,),
}
if set(STEP_QUESTIONS) != set(STEP_IDS):
    raise KeyError(
        f"STEP_QUESTIONS must list every step exactly: missing {sorted(set(STEP_IDS) - set(STEP_QUESTIONS))}, "
        f"unknown {sorted(set(STEP_QUESTIONS) - set(STEP_IDS))}"
    )

Fields = tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class Choice:
    """One option: ``id`` is what a student's pick is compared by; it is shown as ``text`` (a
    position label "2 世", a character, a number: the same in every language) or, for words, as
    the i18n text of ``key``."""

    id: str
    text: str = ""
    key: str = ""


@dataclass(frozen=True)
class Question:
    """A question with its answer and the one-line reason, computed from the model's numbers.

    Attributes:
        kind: what is asked.
        prompt_key, prompt_fields: the question's i18n key and its fields.
        choices: the options, in the order shown.
        answers: ids of the right choices. A single-pick question is answered right by any of
            them (ties); a ``multiple`` one only by exactly this set ({NONE} when none applies).
        reason_key, reason_fields: the i18n key and fields of why, e.g. "α[2, 0] = 0.91 is the
            largest in row 2".
        multiple: the student picks a set of choices, not one.
    """

    kind: QuestionKind
    prompt_key: str
    prompt_fields: Fields
    choices: tuple[Choice, ...]
    answers: frozenset[str]
    reason_key: str
    reason_fields: Fields
    multiple: bool = False

    def is_right(self, picked: str | Iterable[str] | None) -> bool:
        """True when ``picked`` (a choice id, or a set of ids for a ``multiple`` question) is right."""
        if picked is None:
            return False
        if self.multiple:
            return frozenset([picked] if isinstance(picked, str) else picked) == self.answers
        return picked in self.answers

    @property
    def every_choice_right(self) -> bool:
        """True when a one-pick question has several choices and every one is right (all tie,
        e.g. under uniform attention): answering it shows nothing of what a student thinks."""
        return not self.multiple and len(self.choices) > 1 and {c.id for c in self.choices} <= self.answers

    @property
    def answer_choices(self) -> tuple[Choice, ...]:
        """The right choices, in the order shown."""
        return tuple(c for c in self.choices if c.id in self.answers)


def _position_choices(tokens: Sequence[str], positions: Iterable[int]) -> tuple[Choice, ...]:
    """Choices naming positions as the axes do ("0 你"), so repeated characters stay apart; a space
    or an invisible character is named ("3 ␣ (U+0020)", never a bare "3")."""
    return tuple(Choice(str(j), f"{j} {char_name(tokens[j])}") for j in positions)


def _tokens(trace: AttentionTrace) -> list[str]:
    T = trace.state["alpha"].shape[-1]
    return trace.tokens if len(trace.tokens) == T else [str(j) for j in range(T)]


def _check_query(trace: AttentionTrace, head: int, query: int) -> tuple[int, int]:
    """(T, h) of the trace; IndexError naming the valid range for a head or query outside it."""
    _, h, T, _ = trace.state["alpha"].shape  # (B, h, T, T)
    if not 0 <= head < h:
        raise IndexError(f"head={head} does not exist; this layer has heads 0..{h - 1}")
    if not 0 <= query < T:
        raise IndexError(f"query={query} is outside the text; positions are 0..{T - 1}")
    return T, h


def argmax_key_question(trace: AttentionTrace, head: int, query: int) -> Question:
    """Which key will query ``query`` attend to most? The argmax of α[query, :] of ``head``.

    The options are the keys the mask allows (j ≤ i with the causal mask, every j without it);
    every key sharing the largest weight is right (a uniform head ties them all).
    Raises IndexError for a head or query outside the trace.
    """
    T, _ = _check_query(trace, head, query)
    tokens = _tokens(trace)
    row = trace.state["alpha"][0, head, query]  # (T,)
    allowed = range(query + 1) if trace.switches.causal_mask else range(T)
    best = float(row.max())
    winners = [j for j in allowed if float(row[j]) == best]
    fields: Fields = (
        ("i", query),
        ("value", best),
        ("keys", ", ".join(f"{j} {char_name(tokens[j])}" for j in winners)),
    )
    if len(winners) == 1:
        reason_key, fields = "ex.argmax_key.reason", (("i", query), ("j", winners[0]), ("value", best))
    else:
        reason_key = "ex.argmax_key.reason_tie"
    return Question(
        QuestionKind.ARGMAX_KEY,
        "ex.argmax_key.prompt",
        (("i", query), ("token", char_name(tokens[query]))),
        _position_choices(tokens, allowed),
        frozenset(map(str, winners)),
        reason_key,
        fields,
    )


def masked_cells_question(trace: AttentionTrace, head: int, query: int) -> Question:
    """Which cells of row ``query`` are −∞ after the mask (step 5)? Read from the trace's masked scores.

    With the mask on these are the keys j > i (none for the last position); with it off, none.
    Raises IndexError for a head or query outside the trace.
    """
    T, _ = _check_query(trace, head, query)
    tokens = _tokens(trace)
    masked = [j for j in range(T) if bool(torch.isneginf(trace.state["S_masked"][0, head, query, j]))]
    if masked:
        reason_key, fields = "ex.masked_cells.reason", (("i", query), ("cells", ", ".join(map(str, masked))))
    elif trace.switches.causal_mask:
        reason_key, fields = "ex.masked_cells.reason_last", (("i", query),)
    else:
        reason_key, fields = "ex.masked_cells.reason_off", (("i", query),)
    choices = _position_choices(tokens, range(T)) + (Choice(NONE, key="ex.none"),)
    return Question(
        QuestionKind.MASKED_CELLS,
        "ex.masked_cells.prompt",
        (("i", query), ("token", char_name(tokens[query]))),
        choices,
        frozenset(map(str, masked)) or frozenset({NONE}),
        reason_key,
        fields,
        multiple=True,
    )


def row_sum_question(trace: AttentionTrace, head: int, query: int) -> Question:
    """What does row ``query`` of α sum to (step 6)? 1, whatever the scores; the reason shows the
    sum the trace holds. Raises IndexError for a head or query outside the trace."""
    T, _ = _check_query(trace, head, query)
    tokens = _tokens(trace)
    total = float(trace.state["alpha"][0, head, query].double().sum())
    numbers = dict.fromkeys(["0", "1", str(query + 1), str(T)])  # ordered, without repeats
    choices = tuple(Choice(n, n) for n in numbers) + (Choice("depends", key="ex.row_sum.depends"),)
    return Question(
        QuestionKind.ROW_SUM,
        "ex.row_sum.prompt",
        (("i", query), ("token", char_name(tokens[query]))),
        choices,
        frozenset({"1"}),
        "ex.row_sum.reason",
        (("i", query), ("total", total)),
    )


def head_off_question(
    model: GPT,
    idx: torch.Tensor,
    layer: int,
    head: int,
    tokens: Sequence[str] = (),
    effects: PositionEffects | None = None,
) -> Question:
    """Which positions' predictions change when ``head`` of ``layer`` is switched off?

    ``Switches(heads_off=(head,))`` in that layer against the model's own prediction of ``idx``
    (1, T), by :func:`tinygpt.explanations.explain.position_effects` (``effects`` when already computed).
    The answer is the set of positions whose argmax changes, or {NONE}. Position k is the
    prediction made after ``tokens[: k + 1]`` and is labelled like the axes ("k token").
    Raises what ``position_effects`` raises (IndexError for a layer or head the model lacks).
    """
    fx = effects if effects is not None else position_effects(model, idx, {layer: Switches(heads_off=(head,))})
    T = idx.shape[-1]
    tokens = list(tokens) if len(tokens) == T else [str(k) for k in range(T)]
    changed = [k for k in range(T) if bool(fx.changed[k])]
    common: Fields = (("layer", number(layer)), ("head", number(head)))  # as people count them, from 1
    if changed:
        reason_key = "ex.head_off.reason"
        fields = common + (("positions", ", ".join(f"{k} {char_name(tokens[k])}" for k in changed)),)
    else:
        worst = int(fx.delta_own.argmax())
        reason_key = "ex.head_off.reason_none"
        fields = common + (("delta", float(fx.delta_own[worst])), ("position", worst))
    choices = _position_choices(tokens, range(T)) + (Choice(NONE, key="ex.none"),)
    return Question(
        QuestionKind.HEAD_OFF,
        "ex.head_off.prompt",
        common,
        choices,
        frozenset(map(str, changed)) or frozenset({NONE}),
        reason_key,
        fields,
        multiple=True,
    )


def next_char_question(probs: torch.Tensor, chars: Sequence[str], context: str) -> Question:
    """Which character comes next after ``context``? The model's argmax of ``probs`` (V,).

    Every character sharing the largest probability is right. Raises ValueError when ``probs``
    and ``chars`` differ in length.
    """
    if probs.shape != (len(chars),):
        raise ValueError(f"probs has shape {tuple(probs.shape)}; expected ({len(chars)},), one per character")
    probs = probs.detach()
    best = float(probs.max())
    winners = [c for c, p in zip(chars, probs.tolist()) if p == best]
    return Question(
        QuestionKind.NEXT_CHAR,
        "ex.next_char.prompt",
        (("context", context),),
        tuple(Choice(c, char_name(c)) for c in chars),
        frozenset(winners),
        "ex.next_char.reason",
        (("context", context), ("char", char_name(winners[0])), ("p", best), ("V", len(chars))),
    )


def question_for(
    step_id: str,
    trace: AttentionTrace,
    head: int,
    query: int,
    kind: QuestionKind | None = None,
    model: GPT | None = None,
    idx: torch.Tensor | None = None,
) -> Question | None:
    """The question ``STEP_QUESTIONS`` gives step ``step_id`` (its first, or ``kind``), or None
    for a step listed without questions.

    ``model`` and ``idx`` (1, T) of the traced text are needed by ``head_off`` (the question
    switches the head off in the whole model); the layer is the trace's.
    Raises:
        KeyError for an unknown step id; ValueError for a ``kind`` the step does not ask or a
        ``head_off`` question without ``model`` and ``idx``; IndexError for a head or query outside the trace.
    """
    kinds = STEP_QUESTIONS[step_id]
    if not kinds:
        return None
    kind = kinds[0] if kind is None else QuestionKind(kind)
    if kind not in kinds:
        raise ValueError(f"step {step_id!r} asks {[str(k) for k in kinds]}, not {str(kind)!r}")
    if kind is QuestionKind.ARGMAX_KEY:
        return argmax_key_question(trace, head, query)
    if kind is QuestionKind.MASKED_CELLS:
        return masked_cells_question(trace, head, query)
    if kind is QuestionKind.ROW_SUM:
        return row_sum_question(trace, head, query)
    if kind is QuestionKind.HEAD_OFF:
        if model is None or idx is None:
            raise ValueError("the head_off question needs the model and idx of the traced text")
        _check_query(trace, head, 0)
        return head_off_question(model, idx, trace.layer, head, _tokens(trace))
    raise ValueError(f"{str(kind)!r} is not a question of the attention steps")


def theory_question(qid: str, right: str, options: str = "abcd") -> Question:
    """A self-test question of the Theory page as "my answers" and the class store keep it: its
    text is the i18n ``theory.quiz.<qid>.q``, its options ``theory.quiz.<qid>.<o>`` for each
    letter of ``options``, ``right`` the letter of the right one, the reason ``theory.quiz.<qid>.why``."""
    choices = tuple(Choice(o, key=f"theory.quiz.{qid}.{o}") for o in options)
    return Question(
        QuestionKind.THEORY_QUIZ, f"theory.quiz.{qid}.q", (), choices, frozenset({right}), f"theory.quiz.{qid}.why", ()
    )
