"""What the class learned: the concept check before and after, per concept, as a paired report.

For each concept of :mod:`tinygpt.explanations.concept_check`, over the students who answered it both
before (``pre``) and after (``post``) — the pairs, ``n`` of them — the share right before and after,
the normalised gain g = (post − pre) / (1 − pre) (Hake 1998, on matched students: the share of
what could be gained that was gained; undefined when every pair was right before), how many went
from wrong to right (``gained``) and from right to wrong (``lost``), and the misconceptions
(:mod:`tinygpt.explanations.misconceptions`) still revealed after, with how many of the same students
revealed them before. Students who answered only one of the two (a late joiner who missed the check
before, a student who left early) are counted apart (``pre_only``, ``post_only``) and are in no
share: comparing different groups would show a change where nobody changed. Each student's first
answer per concept and phase counts. :func:`student_changes` gives the same per student over the
whole check: how many scored higher after, the same, or lower.

The report is anonymous: it is computed from a class's answers but names no student, token or
nickname, and it holds only counts. It is computed from the store's answers whenever asked, so
it is kept no longer than they are (``TINYGPT_ANSWER_DAYS``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tinygpt.classroom.store import Answer
from tinygpt.explanations.concept_check import CONCEPTS, parse_check_id
from tinygpt.explanations.misconceptions import Misconception, misconceptions

PHASES = ("pre", "post")


@dataclass(frozen=True)
class Stayed:
    """A misconception revealed after the lessons by ``after`` paired students, and by ``before`` of them before."""

    misconception: Misconception
    before: int
    after: int


@dataclass(frozen=True)
class ConceptResult:
    """One concept of the report (counts of students).

    Attributes:
        concept: its id (:data:`tinygpt.explanations.concept_check.CONCEPTS`).
        paired: students who answered it before and after (n).
        pre_right, post_right: of those, how many were right before, and after.
        gained, lost: of those, how many went from wrong to right, and from right to wrong.
        pre_only, post_only: students who answered it only before, only after (in no share).
        stayed: the misconceptions paired students revealed after, most students first.
    """

    concept: str
    paired: int
    pre_right: int
    post_right: int
    gained: int = 0
    lost: int = 0
    pre_only: int = 0
    post_only: int = 0
    stayed: tuple[Stayed, ...] = ()

    @property
    def pre(self) -> float | None:
        """The share of the pairs right before (0..1), None without pairs."""
        return self.pre_right / self.paired if self.paired else None

    @property
    def post(self) -> float | None:
        """The share of the pairs right after (0..1), None without pairs."""
        return self.post_right / self.paired if self.paired else None

    @property
    def gain(self) -> float | None:
        """g = (post − pre) / (1 − pre) over the pairs; None without pairs or when pre = 1."""
        if self.pre is None or self.post is None or self.pre >= 1.0:
            return None
        return (self.post - self.pre) / (1.0 - self.pre)

    @property
    def answered(self) -> int:
        """Every student who answered it, before or after or both."""
        return self.paired + self.pre_only + self.post_only


@dataclass(frozen=True)
class StudentChanges:
    """The whole check per student (counts of students): ``paired`` answered some concept before and
    after; of them ``up`` were right on more of those concepts after, ``same`` on as many, ``down`` on
    fewer; ``pre_only``/``post_only`` answered the check only before, only after."""

    paired: int = 0
    up: int = 0
    same: int = 0
    down: int = 0
    pre_only: int = 0
    post_only: int = 0


def _first_answers(answers: Iterable[Answer]) -> dict[tuple[str, str, str], Answer]:
    """(concept, phase, student) -> that student's first answer to the concept in the phase."""
    first: dict[tuple[str, str, str], Answer] = {}
    for a in sorted(answers, key=lambda a: a.at):
        if (parsed := parse_check_id(a.question_id)) is not None:
            phase, concept = parsed
            first.setdefault((concept, phase, a.student), a)
    return first


def report(answers: Iterable[Answer], records: Mapping[str, Mapping]) -> list[ConceptResult]:
    """The report of a class, one :class:`ConceptResult` per concept in the check's order.

    Args:
        answers: the class's answers (:meth:`tinygpt.classroom.store.Store.answers`); answers to other
            questions are ignored.
        records: question id -> the question as recorded (``QuestionSummary.question``), to name
            the misconceptions; a check answer without a record still counts right or wrong.
    """
    first = _first_answers(answers)
    order = list(Misconception)
    results = []
    for concept in CONCEPTS:
        by_phase = {p: {s: a for (c, ph, s), a in first.items() if c == concept and ph == p} for p in PHASES}
        pairs = sorted(set(by_phase["pre"]) & set(by_phase["post"]))
        held: dict[str, dict[Misconception, int]] = {"pre": {}, "post": {}}
        for phase in PHASES:
            for student in pairs:
                a = by_phase[phase][student]
                record = records.get(a.question_id)
                if a.right or record is None:
                    continue
                for m in misconceptions(record, a.answer):
                    held[phase][m] = held[phase].get(m, 0) + 1
        stayed = sorted(
            (Stayed(m, held["pre"].get(m, 0), n) for m, n in held["post"].items()),
            key=lambda s: (-s.after, order.index(s.misconception)),
        )
        before = [by_phase["pre"][s].right for s in pairs]
        after = [by_phase["post"][s].right for s in pairs]
        results.append(
            ConceptResult(
                concept,
                paired=len(pairs),
                pre_right=sum(before),
                post_right=sum(after),
                gained=sum(not b and a for b, a in zip(before, after)),
                lost=sum(b and not a for b, a in zip(before, after)),
                pre_only=len(set(by_phase["pre"]) - set(pairs)),
                post_only=len(set(by_phase["post"]) - set(pairs)),
                stayed=tuple(stayed),
            )
        )
    return results


def student_changes(answers: Iterable[Answer]) -> StudentChanges:
    """Per student over the whole check (see :class:`StudentChanges`): each student's right answers
    before and after on the concepts she answered both times."""
    first = _first_answers(answers)
    scores: dict[str, dict[str, dict[str, bool]]] = {}  # student -> phase -> concept -> right
    for (concept, phase, student), a in first.items():
        scores.setdefault(student, {p: {} for p in PHASES})[phase][concept] = a.right
    up = same = down = pre_only = post_only = 0
    for phases in scores.values():
        both = set(phases["pre"]) & set(phases["post"])
        if not both:
            pre_only += bool(phases["pre"])
            post_only += bool(phases["post"])
            continue
        change = sum(phases["post"][c] for c in both) - sum(phases["pre"][c] for c in both)
        up, same, down = up + (change > 0), same + (change == 0), down + (change < 0)
    return StudentChanges(up + same + down, up, same, down, pre_only, post_only)


def percent(share: float | None) -> str:
    """A share as a whole percentage ("40 %"), "—" for None."""
    return "—" if share is None else f"{100 * share:.0f} %"


def gain_text(gain: float | None) -> str:
    """The gain with two decimals ("0.50"), "—" for None."""
    return "—" if gain is None else f"{gain:.2f}"


def _stayed_text(result: ConceptResult, names: Mapping[Misconception, str], before_after: str) -> str:
    """The stayed misconceptions as "name (before → after)", "; "-separated, "—" for none."""
    parts = [before_after.format(name=names[s.misconception], before=s.before, after=s.after) for s in result.stayed]
    return "; ".join(parts) or "—"


def report_rows(
    results: Sequence[ConceptResult],
    concept_names: Mapping[str, str],
    mis_names: Mapping[Misconception, str],
    before_after: str = "{name} ({before} → {after})",
) -> list[list[str]]:
    """One row of text per concept (:data:`COLUMNS`): concept, n (students with both), right before,
    right after, g, wrong → right, right → wrong, only before, only after, the misconceptions that
    stayed (``before_after`` formats each: name, before, after)."""
    return [
        [
            concept_names.get(r.concept, r.concept),
            str(r.paired),
            percent(r.pre),
            percent(r.post),
            gain_text(r.gain),
            str(r.gained),
            str(r.lost),
            str(r.pre_only),
            str(r.post_only),
            _stayed_text(r, mis_names, before_after),
        ]
        for r in results
    ]


#: The report's columns, in :func:`report_rows`' order (``report.col.<name>`` names them on screen).
COLUMNS = ("concept", "pairs", "pre", "post", "gain", "gained", "lost", "pre_only", "post_only", "stayed")


def report_csv(
    results: Sequence[ConceptResult],
    headers: Sequence[str],
    concept_names: Mapping[str, str],
    mis_names: Mapping[Misconception, str],
    before_after: str = "{name} ({before} → {after})",
) -> str:
    """The report as CSV text under ``headers`` (the ten :data:`COLUMNS`); shares and g as numbers
    (0.4, 0.5; empty when undefined) so a spreadsheet can compute with them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    for r, row in zip(results, report_rows(results, concept_names, mis_names, before_after)):
        numbers = ["" if v is None else f"{v:.4f}" for v in (r.pre, r.post, r.gain)]
        writer.writerow([row[0], row[1], *numbers, *row[5:]])
    return out.getvalue()


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def report_markdown(
    results: Sequence[ConceptResult],
    title: str,
    notes: Sequence[str],
    headers: Sequence[str],
    concept_names: Mapping[str, str],
    mis_names: Mapping[Misconception, str],
    before_after: str = "{name} ({before} → {after})",
) -> str:
    """The report as a Markdown document: ``title``, the ``notes`` (one paragraph each), the table."""
    lines = [f"# {title}", ""]
    for note in notes:
        lines += [note, ""]
    lines += ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in report_rows(results, concept_names, mis_names, before_after):
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"
