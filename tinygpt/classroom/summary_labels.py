"""What kind of block each question of the teacher's summary is, so equal prompts can be told apart.

The same question can reach a class more than once: as an exercise each student answers on their
own (its id is :func:`tinygpt.classroom.class_links.question_id`), and as class votes the teacher
opens (``vote:<version>:<question id>``, :func:`tinygpt.classroom.period.vote_id`), each in up to
two rounds. The summary (:meth:`tinygpt.classroom.store.Store.summary`) has one block per recorded
id with the same prompt; :func:`block_labels` says of each whether it is an exercise, a concept
check or a vote, which vote on that question it is (1st, 2nd, … by the order they were opened),
and, of a vote, the counts of each round (the summary's own counts are round 1's).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tinygpt.classroom.period import VOTE
from tinygpt.classroom.store_records import QuestionSummary
from tinygpt.classroom.tally import RoundTally, count_votes
from tinygpt.explanations.answers import Answer
from tinygpt.explanations.concept_check import parse_check_id

#: The kinds of block: a question each student answered alone, a concept-check question, a class vote.
EXERCISE, CHECK, VOTE_KIND = "exercise", "check", "vote"


@dataclass(frozen=True)
class BlockLabel:
    """What one summary block is.

    Attributes:
        kind: :data:`EXERCISE`, :data:`CHECK` or :data:`VOTE_KIND`.
        asked: of a vote, which vote on the same question it is (1 for the first opened); 1 otherwise.
        rounds: of a vote, round -> its tally (round 1 and, once voted, round 2); empty otherwise.
    """

    kind: str
    asked: int = 1
    rounds: dict[int, RoundTally] = field(default_factory=dict)


def _vote_parts(qid: str) -> tuple[int, str] | None:
    """(version, question id) of a vote's id ``vote:<version>:<question id>``; None for another id."""
    parts = qid.split(":", 2)
    if len(parts) == 3 and parts[0] == VOTE and parts[1].isdigit():
        return int(parts[1]), parts[2]
    return None


def block_labels(summaries: Sequence[QuestionSummary], answers: Iterable[Answer]) -> list[BlockLabel]:
    """One :class:`BlockLabel` per summary block, in the summaries' order.

    ``answers``: the class's answers (:meth:`tinygpt.classroom.store.Store.answers`), for each vote's
    rounds. Votes on the same question are numbered by the state version they were opened at
    (the order the teacher asked them), whatever order their answers first came in.
    """
    votes = {s.question_id: parts for s in summaries if (parts := _vote_parts(s.question_id)) is not None}
    versions: dict[str, list[int]] = {}
    for version, base in votes.values():
        versions.setdefault(base, []).append(version)
    rows: dict[str, list[tuple[str, int, str, bool]]] = {qid: [] for qid in votes}
    for a in answers:
        if a.question_id in rows:
            rows[a.question_id].append((a.student, a.round, a.answer, a.right))
    labels = []
    for s in summaries:
        if s.question_id in votes:
            version, base = votes[s.question_id]
            asked = sorted(versions[base]).index(version) + 1
            labels.append(BlockLabel(VOTE_KIND, asked, count_votes(rows[s.question_id]).rounds))
        else:
            labels.append(BlockLabel(CHECK if parse_check_id(s.question_id) is not None else EXERCISE))
    return labels
