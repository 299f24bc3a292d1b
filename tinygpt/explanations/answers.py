"""A question as the class store keeps it, and an answer as the store gives it back: plain values
and functions below the classroom, so the explanations that grade answers need no database.

- :func:`question_id`, :func:`question_record`, :func:`answer_ids`, :func:`picked_of`: a guess
  question (:class:`tinygpt.explanations.exercises.Question`): an id shared by every student shown
  the same question, what it takes to draw it again in another language, and a picked answer as
  stored and back.
- :class:`Answer`: a recorded answer (``tinygpt.classroom.store.Store.answers``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a type only: this module is read before torch is imported
    from tinygpt.explanations.exercises import Question


@dataclass(frozen=True)
class Answer:
    """A recorded answer (``at``: Unix seconds; ``round``: the vote's round, see :class:`NewAnswer`)."""

    class_code: str
    question_id: str
    question_text: str
    student: str
    nickname: str | None
    answer: str
    answer_text: str
    right: bool
    at: float
    round: int = 1


def question_id(question: Question) -> str:
    """An id of ``question``: equal for every student shown the same question (the same model,
    text, layer, head, step and row give the same prompt, choices and answers)."""
    return hashlib.sha1(repr(question).encode()).hexdigest()[:16]


def question_record(question: Question) -> dict:
    """What the store keeps of ``question`` to draw it again in any language (JSON-ready)."""
    return {
        "kind": str(question.kind),
        "prompt_key": question.prompt_key,
        "prompt_fields": [[name, value] for name, value in question.prompt_fields],
        "choices": [[c.id, c.text, c.key] for c in question.choices],
        "answers": sorted(question.answers),
        "multiple": question.multiple,
    }


def answer_ids(question: Question, picked: str | Sequence[str] | None) -> str:
    """The picked choice ids as stored: comma-separated in the order the choices are shown."""
    chosen = {picked} if isinstance(picked, str) else set(picked or ())
    return ",".join(c.id for c in question.choices if c.id in chosen)


def picked_of(question: Question, stored: str) -> str | list[str] | None:
    """The widget value of a stored answer: a choice id, or a list of them for a several-answer question."""
    ids = [i for i in stored.split(",") if i]
    if question.multiple:
        return ids
    return ids[0] if ids else None
