"""What the class store gives back and takes: its two errors, a class, a new answer, a recorded
answer (:class:`tinygpt.explanations.answers.Answer`) and the summary of one question's answers."""

from __future__ import annotations

from dataclasses import dataclass, field


class StoreError(Exception):
    """The store cannot be used: ``key`` is the i18n key of the message, ``params`` its fields.

    Keys: ``store.unreachable`` (the database cannot be reached or written; ``reason`` says why),
    ``store.schema_newer`` (the database was written by a newer version: ``found``, ``supported``),
    ``store.bad_url`` (``TINYGPT_DATABASE_URL`` is not a database URL: ``url`` without password).
    """

    def __init__(self, key: str, message: str, **params: object) -> None:
        self.key = key
        self.params = params
        super().__init__(message)


class ClassError(Exception):
    """A class that cannot be used as asked: ``key`` is ``class.unknown``, ``class.closed`` or
    ``class.bad_key`` (the teacher's key does not match); ``code`` is the class code."""

    def __init__(self, key: str, code: str) -> None:
        self.key = key
        self.code = code
        super().__init__(f"{key}: {code}")


@dataclass(frozen=True)
class ClassInfo:
    """One class: its code, the lesson's query string, when it was created and closed (Unix seconds)."""

    code: str
    lesson: str
    created: float
    closed: float | None

    @property
    def is_open(self) -> bool:
        """True until the teacher closes the class."""
        return self.closed is None


#: The question ids of marks made before a switch flips (``marked:<digest>``): kept to count who marked,
#: never read as answers (:meth:`tinygpt.classroom.store.Store.marked` reads them).
MARKS_PREFIX = "marked:"


@dataclass(frozen=True)
class NewAnswer:
    """An answer to record.

    Attributes:
        class_code: the class ("" for a student in no class).
        question_id: the question's id, the same for every student shown the same question.
        question_text: the question as the student read it (in the student's language).
        question: what it takes to draw the question again (its i18n key, fields, choices, right
            answers), JSON-serialisable; kept once per class and question.
        student: the student's anonymous token.
        answer: the choice ids picked, comma-separated in the order shown.
        answer_text: the same as the student saw it (choice labels).
        right: whether the answer is right.
        nickname: what the student typed as a nickname, or None.
        round: the vote's round (1, or 2 after "discuss, then answer again"); one answer per round.
    """

    class_code: str
    question_id: str
    question_text: str
    question: dict
    student: str
    answer: str
    answer_text: str
    right: bool
    nickname: str | None = None
    round: int = 1


@dataclass(frozen=True)
class QuestionSummary:
    """What a class answered to one question.

    Attributes:
        question_id, text, question: the question (``question`` as recorded, see :class:`NewAnswer`).
        answered: how many students answered it; ``right``: how many of them rightly.
        spread: answer (choice ids) -> how many students gave it, most frequent first.
        labels: answer -> its text as a student saw it.
        right_answers: the answers that were right.
    """

    question_id: str
    text: str
    question: dict
    answered: int
    right: int
    spread: dict[str, int] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    right_answers: frozenset[str] = frozenset()

    @property
    def share_right(self) -> float:
        """right / answered (0 when nobody answered)."""
        return self.right / self.answered if self.answered else 0.0
