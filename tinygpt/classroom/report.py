"""What the class learned: the concept check before and after, per concept, as a report.

For each concept of :mod:`tinygpt.explanations.concept_check`: the share of students right before (``pre``)
and after (``post``), the normalised gain g = (post − pre) / (1 − pre) (Hake 1998: the share of
what could be gained that was gained; undefined when everyone was right before), and the
misconceptions (:mod:`tinygpt.explanations.misconceptions`) still revealed after, with how many revealed them
before. Each student's first answer per concept and phase counts; shares are over the students
who answered that phase.

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
from tinygpt.classroom.tally import count_votes
from tinygpt.explanations.concept_check import CONCEPTS, parse_check_id
from tinygpt.explanations.misconceptions import Misconception, misconceptions


@dataclass(frozen=True)
class Stayed:
    """A misconception revealed after the lessons: by ``after`` students, and by ``before`` students before."""

    misconception: Misconception
    before: int
    after: int


@dataclass(frozen=True)
class ConceptResult:
    """One concept of the report.

    Attributes:
        concept: its id (:data:`tinygpt.explanations.concept_check.CONCEPTS`).
        pre_answered, pre_right: students who answered before, and rightly.
        post_answered, post_right: the same after.
        stayed: the misconceptions revealed after, most students first.
    """

    concept: str
    pre_answered: int
    pre_right: int
    post_answered: int
    post_right: int
    stayed: tuple[Stayed, ...] = ()

    @property
    def pre(self) -> float | None:
        """The share right before (0..1), None when nobody answered."""
        return self.pre_right / self.pre_answered if self.pre_answered else None

    @property
    def post(self) -> float | None:
        """The share right after (0..1), None when nobody answered."""
        return self.post_right / self.post_answered if self.post_answered else None

    @property
    def gain(self) -> float | None:
        """g = (post − pre) / (1 − pre); None without both shares or when pre = 1."""
        if self.pre is None or self.post is None or self.pre >= 1.0:
            return None
        return (self.post - self.pre) / (1.0 - self.pre)


def report(answers: Iterable[Answer], records: Mapping[str, Mapping]) -> list[ConceptResult]:
    """The report of a class, one :class:`ConceptResult` per concept in the check's order.

    Args:
        answers: the class's answers (:meth:`tinygpt.classroom.store.Store.answers`); answers to other
            questions are ignored.
        records: question id -> the question as recorded (``QuestionSummary.question``), to name
            the misconceptions; a check answer without a record still counts right or wrong.
    """
    first: dict[tuple[str, str, str], Answer] = {}  # (concept, phase, student) -> the first answer
    for a in sorted(answers, key=lambda a: a.at):
        if (parsed := parse_check_id(a.question_id)) is not None:
            phase, concept = parsed
            first.setdefault((concept, phase, a.student), a)
    results = []
    for concept in CONCEPTS:
        counts = {}
        held: dict[str, dict[Misconception, int]] = {"pre": {}, "post": {}}
        for phase in ("pre", "post"):
            given = [a for (c, p, _), a in first.items() if c == concept and p == phase]
            tally = count_votes((a.student, 1, a.answer, a.right) for a in given).of(1)
            counts[phase] = (tally.answered, tally.right)
            for a in given:
                record = records.get(a.question_id)
                if a.right or record is None:
                    continue
                for m in misconceptions(record, a.answer):
                    held[phase][m] = held[phase].get(m, 0) + 1
        order = list(Misconception)
        stayed = sorted(
            (Stayed(m, held["pre"].get(m, 0), n) for m, n in held["post"].items()),
            key=lambda s: (-s.after, order.index(s.misconception)),
        )
        results.append(ConceptResult(concept, *counts["pre"], *counts["post"], tuple(stayed)))
    return results


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
    """One row of text per concept: concept, answered before, right before, answered after, right
    after, g, the misconceptions that stayed (``before_after`` formats each: name, before, after)."""
    return [
        [
            concept_names.get(r.concept, r.concept),
            str(r.pre_answered),
            percent(r.pre),
            str(r.post_answered),
            percent(r.post),
            gain_text(r.gain),
            _stayed_text(r, mis_names, before_after),
        ]
        for r in results
    ]


def report_csv(
    results: Sequence[ConceptResult],
    headers: Sequence[str],
    concept_names: Mapping[str, str],
    mis_names: Mapping[Misconception, str],
    before_after: str = "{name} ({before} → {after})",
) -> str:
    """The report as CSV text under ``headers`` (seven columns, see :func:`report_rows`); shares and
    g as numbers (0.4, 0.5; empty when undefined) so a spreadsheet can compute with them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    for r, row in zip(results, report_rows(results, concept_names, mis_names, before_after)):
        numbers = ["" if v is None else f"{v:.4f}" for v in (r.pre, r.post, r.gain)]
        writer.writerow([row[0], row[1], numbers[0], row[3], numbers[1], numbers[2], row[6]])
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
