"""The concept check: five questions, one per concept, taken at the start and at the end of a class.

Each question is computed from the model's numbers as the exercises are (:mod:`tinygpt.explanations.exercises`):
from the trace of layer 0 with the causal mask on, for one head. Its right answer follows from the
concept, so it holds for any model and text; the reason gives the numbers that show it.

The concepts, each with the misconception its wrong answers name (:mod:`tinygpt.explanations.misconceptions`):

- ``mask``: which cells of a middle row are −∞ after the mask (the keys after the query);
- ``last``: which cells of the last row are −∞ (none: the last position sees every key);
- ``row_sum``: what a row of α sums to (1);
- ``softmax``: what weight the key with the second-largest score gets (between 0 and the largest);
- ``tau``: which key is largest when τ = 0.5 (the same as at τ = 1: τ keeps the scores' order).

A check's answers are ordinary answers whose question id says the phase and the concept:
``check:<phase>:<concept>:<digest>`` (:func:`check_id`), phase ``pre`` or ``post``; the digest
tells apart checks computed from different texts, so each answer is counted against its own question.

Shapes: T sequence length, h n_heads.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from tinygpt.attention import AttentionTrace, Switches
from tinygpt.explanations.answers import question_id
from tinygpt.explanations.exercises import (
    Choice,
    Question,
    QuestionKind,
    _check_query,
    _position_choices,
    _tokens,
    masked_cells_question,
    row_sum_question,
)
from tinygpt.formatting import char_name

#: The concepts of the check, in the order asked.
CONCEPTS: tuple[str, ...] = ("mask", "last", "row_sum", "softmax", "tau")
#: The two times the check is taken: at the start and at the end.
PHASES: tuple[str, ...] = ("pre", "post")
#: The temperature the ``tau`` question asks about.
CHECK_TAU = 0.5
#: The shortest text the check can ask about (a middle row and a last row with two keys).
MIN_T = 2
PREFIX = "check"

#: The options of the ``softmax`` question: the second key's weight is …
SHARE_CHOICES: tuple[str, ...] = ("zero", "between", "equal", "negative")


def softmax_share_question(trace: AttentionTrace, head: int, query: int) -> Question:
    """After softmax, what weight does the key with the second-largest score of row ``query`` get?

    From the scores softmax reads (step 5's output, ``S_masked``) and α of ``head``: the right
    option is what α holds — between 0 and the largest weight for any finite scores (exactly 0
    only when exp underflows, the same as the largest for tied scores). Raises IndexError for a
    head or query outside the trace, ValueError for a row with fewer than two keys.
    """
    _check_query(trace, head, query)
    tokens = _tokens(trace)
    scores = trace.state["S_masked"][0, head, query]  # (T,)
    alpha = trace.state["alpha"][0, head, query]  # (T,)
    keys = [j for j in range(scores.shape[0]) if float(scores[j]) != float("-inf")]
    if len(keys) < 2:
        raise ValueError(f"row {query} has {len(keys)} key(s); the question needs two")
    ranked = sorted(keys, key=lambda j: (-float(scores[j]), j))
    j, k = ranked[0], ranked[1]
    aj, ak = float(alpha[j]), float(alpha[k])
    right = "zero" if ak == 0.0 else "equal" if ak == aj else "negative" if ak < 0 else "between"
    return Question(
        QuestionKind.SOFTMAX_SHARE,
        "ex.softmax_share.prompt",
        (
            ("i", query),
            ("token", char_name(tokens[query])),
            ("j", j),
            ("sj", float(scores[j])),
            ("k", k),
            ("sk", float(scores[k])),
        ),
        tuple(Choice(c, key=f"ex.softmax_share.{c}") for c in SHARE_CHOICES),
        frozenset({right}),
        "ex.softmax_share.reason",
        (("i", query), ("j", j), ("k", k), ("aj", aj), ("ak", ak)),
    )


def tau_argmax_question(trace: AttentionTrace, head: int, query: int, tau: float = CHECK_TAU) -> Question:
    """At the trace's τ query ``query`` weighs key j most; with τ = ``tau``, which key is largest?

    The answer is read from the trace recomputed at ``tau`` (every key sharing the largest weight
    is right): dividing the scores by τ > 0 keeps their order. Raises IndexError for a head or
    query outside the trace.
    """
    T, _ = _check_query(trace, head, query)
    tokens = _tokens(trace)
    own = trace.state["alpha"][0, head, query]  # (T,)
    sharp = trace.with_switches(replace(trace.switches, temperature=tau)).state["alpha"][0, head, query]  # (T,)
    allowed = range(query + 1) if trace.switches.causal_mask else range(T)
    j = max(allowed, key=lambda x: (float(own[x]), -x))
    best = float(sharp.max())
    winners = [x for x in allowed if float(sharp[x]) == best]
    return Question(
        QuestionKind.TAU_ARGMAX,
        "ex.tau_argmax.prompt",
        (("i", query), ("token", char_name(tokens[query])), ("j", j), ("a", float(own[j])), ("tau", tau)),
        _position_choices(tokens, allowed),
        frozenset(map(str, winners)),
        "ex.tau_argmax.reason",
        (("i", query), ("j", winners[0]), ("a", best), ("a0", float(own[j])), ("tau", tau)),
    )


def check_questions(trace: AttentionTrace, head: int = 0) -> dict[str, Question]:
    """The five questions of the check (concept -> question) for ``head`` of ``trace``'s layer,
    computed with the causal mask on and τ = 1 whatever the trace's switches.

    Raises ValueError for a text shorter than :data:`MIN_T`, IndexError for a head outside the trace.
    """
    T = trace.state["alpha"].shape[-1]
    if T < MIN_T:
        raise ValueError(f"the text has {T} character(s); the concept check needs at least {MIN_T}")
    own = trace.with_switches(Switches(causal_mask=True))
    middle, last = (T - 1) // 2, T - 1
    return {
        "mask": masked_cells_question(own, head, middle),
        "last": masked_cells_question(own, head, last),
        "row_sum": row_sum_question(own, head, T // 2),
        "softmax": softmax_share_question(own, head, last),
        "tau": tau_argmax_question(own, head, last),
    }


def check_id(phase: str, concept: str, question: Question) -> str:
    """The question id of ``question`` asked as ``concept`` in ``phase``: ``check:pre:mask:1a2b3c4d``.
    Raises ValueError for an unknown phase or concept."""
    if phase not in PHASES or concept not in CONCEPTS:
        raise ValueError(f"phase {phase!r} / concept {concept!r}: phases {PHASES}, concepts {CONCEPTS}")
    return f"{PREFIX}:{phase}:{concept}:{question_id(question)[:8]}"


def parse_check_id(qid: str) -> tuple[str, str] | None:
    """(phase, concept) of a check's question id, None for any other id."""
    parts = qid.split(":")
    if len(parts) >= 3 and parts[0] == PREFIX and parts[1] in PHASES and parts[2] in CONCEPTS:
        return parts[1], parts[2]
    return None


def own_results(answers: Iterable[tuple[str, bool, float]]) -> dict[str, dict[str, bool]]:
    """One student's check: concept -> {phase: right}, from (question id, right, time) of their
    answers; the first answer of each concept and phase counts. Concepts never answered are absent."""
    result: dict[str, dict[str, bool]] = {}
    for qid, right, _ in sorted(answers, key=lambda a: a[2]):
        if (parsed := parse_check_id(qid)) is not None:
            phase, concept = parsed
            result.setdefault(concept, {}).setdefault(phase, bool(right))
    return result


def phase_done(answers: Iterable[tuple[str, bool, float]], phase: str) -> bool:
    """True when every concept has an answer in ``phase``."""
    results = own_results(answers)
    return all(phase in results.get(c, {}) for c in CONCEPTS)
