"""The one count of a question's answers: per round, how many answered, how many rightly, the
spread of the answers, and between the rounds who changed. The teacher's summary
(:meth:`tinygpt.classroom.store.Store.summary`), a class vote (:func:`tinygpt.classroom.period.tally`),
the summary's vote blocks and the concept-check report (:mod:`tinygpt.classroom.report`) all count
with :func:`count_votes`; the projector and the teacher's page draw its :class:`RoundTally`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RoundTally:
    """One round of a question: how many answered, how many rightly, answer (choice ids) -> count."""

    answered: int = 0
    right: int = 0
    spread: dict[str, int] = field(default_factory=dict)

    @property
    def share_right(self) -> float:
        """right / answered (0 when nobody answered)."""
        return self.right / self.answered if self.answered else 0.0


@dataclass(frozen=True)
class Tally:
    """A question's votes: per round, and between the rounds the students who answered both:
    ``to_right`` went from a wrong answer to a right one, ``to_wrong`` from right to wrong,
    ``both`` answered both rounds."""

    rounds: dict[int, RoundTally]
    to_right: int = 0
    to_wrong: int = 0
    both: int = 0

    def of(self, rnd: int) -> RoundTally:
        """The tally of round ``rnd`` (empty when nobody answered it)."""
        return self.rounds.get(rnd, RoundTally())


def count_votes(rows: Iterable[tuple[str, int, str, bool]]) -> Tally:
    """The tally of ``rows`` (student, round, answer, right): one row per student and round."""
    rounds: dict[int, dict] = {}
    by_student: dict[str, dict[int, bool]] = {}
    for student, rnd, answer, right in rows:
        r = rounds.setdefault(int(rnd), {"answered": 0, "right": 0, "spread": {}})
        r["answered"] += 1
        r["right"] += bool(right)
        r["spread"][answer] = r["spread"].get(answer, 0) + 1
        by_student.setdefault(student, {})[int(rnd)] = bool(right)
    both = [v for v in by_student.values() if 1 in v and 2 in v]
    return Tally(
        rounds={
            n: RoundTally(r["answered"], r["right"], dict(sorted(r["spread"].items(), key=lambda kv: (-kv[1], kv[0]))))
            for n, r in sorted(rounds.items())
        },
        to_right=sum(not v[1] and v[2] for v in both),
        to_wrong=sum(v[1] and not v[2] for v in both),
        both=len(both),
    )
