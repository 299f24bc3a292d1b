"""The concept check of a simulated period (``bench.period``): every student takes it at the start
and at the end through the page's own widgets, and the teacher's report must equal the answers cast.

A student opens the page's "check" expander (``attn_check``), picks one option per question in the
form's pills and hands the form in, as a browser sends it; for the check at the end it first presses
"take the check again" (``check_start_post``). Which option is right is computed here as the page
computes it (:func:`tinygpt.explanations.concept_check.check_questions` on the context example's shipped model
and the text the check names), and the prompts the page shows must equal the ones computed. Each
student answers each concept right with probability :data:`PHASE_RIGHT` of the phase (a seeded
``random.Random`` per student), a wrong option otherwise, so the mix is known.

At the end :func:`check_lines` reads the class's answers back from the store, computes the report
(:func:`tinygpt.classroom.report.report`, as the teacher's view does) and compares each concept's
paired counts (students with both answers, right before and after among them, those with only one)
with the answers cast, and the report's students with both checks with the students who took both.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from functools import cache

from bench.classroom import english
from bench.st_client import Session, click, pills_state, toggle_state

#: The chance that a student answers a concept right: before the lessons, after them.
PHASE_RIGHT = {"pre": 0.4, "post": 0.8}
BOX = "attn_check"  # tinygpt.ui.views.attention_table.K_CHECK
ATTEMPTS = 8  # runs a student tries to open the check's form (a second apart: the teacher's phase reaches her page)


@cache
def _model():
    """The context example's model as the app loads it (shipped weights; no store)."""
    from tinygpt.training.jobs import ModelShelf, example_training
    from tinygpt.training.model_library import ModelLibrary

    return example_training("context", ModelShelf(library=ModelLibrary(None))).result()


@cache
def questions_of(text: str) -> dict:
    """concept -> the check's question about ``text`` (layer 1, head 1), as the page computes it."""
    from tinygpt.explanations.concept_check import check_questions
    from tinygpt.explanations.explain import trace_of

    record = _model()
    trace = trace_of(record.model, record.vocab.encode(text)[None], 0)
    trace.tokens = list(text)
    return check_questions(trace, head=0)


def unescape(text: str) -> str:
    """``text`` without the backslashes ``tinygpt.ui.frame.language.md_escape`` put before Markdown's characters."""
    return re.sub(r"\\(.)", r"\1", text)


def shown_text(texts: list[str]) -> str | None:
    """The text the check asks about, read from its intro line (None when the page does not show it)."""
    head, tail = english("check.intro", text="\0").split("\0")
    for t in texts:
        if t.startswith(head) and t.endswith(tail):
            return unescape(t[len(head) : len(t) - len(tail)])
    return None


def pick(question, rng: random.Random, right: bool) -> list[str]:
    """Choice ids to hand in: the right ones, or a wrong answer (a wrong choice; for a question of
    several right cells, the right set with one cell less or one more)."""
    ids = [c.id for c in question.choices]
    answers = sorted(question.answers, key=ids.index)
    if right:
        return answers if question.multiple else answers[:1]
    wrong = [i for i in ids if i not in question.answers]
    if not question.multiple or "none" in question.answers:
        return [rng.choice(wrong)]
    if len(answers) > 1 and rng.random() < 0.5:
        return sorted(set(answers) - {rng.choice(answers)}, key=ids.index)
    return sorted({*answers, rng.choice([i for i in wrong if i != "none"])}, key=ids.index)


class Ledger:
    """What the students handed in: answers cast per (phase, concept, right) and per student, forms
    confirmed per phase."""

    def __init__(self) -> None:
        self.cast: Counter = Counter()  # (phase, concept, right) -> answers cast
        self.marks: dict[tuple[str, str, str], bool] = {}  # (phase, concept, student) -> right
        self.handed: Counter = Counter()  # phase -> forms handed in and confirmed

    def add(self, phase: str, concept: str, who: str, right: bool) -> None:
        """One answer cast (a student's first per phase and concept is the one the report counts)."""
        self.cast[(phase, concept, right)] += 1
        self.marks.setdefault((phase, concept, who), right)

    def expected(self, concept: str) -> dict[str, int]:
        """The paired counts the report must give for ``concept`` (see :class:`ConceptResult`)."""
        pre = {w: r for (p, c, w), r in self.marks.items() if p == "pre" and c == concept}
        post = {w: r for (p, c, w), r in self.marks.items() if p == "post" and c == concept}
        both = set(pre) & set(post)
        return {
            "paired": len(both),
            "pre_right": sum(pre[w] for w in both),
            "post_right": sum(post[w] for w in both),
            "pre_only": len(set(pre) - both),
            "post_only": len(set(post) - both),
        }

    def both_checks(self) -> int:
        """Students who answered some concept both before and after."""
        pre = {w for (p, _, w) in self.marks if p == "pre"}
        return len(pre & {w for (p, _, w) in self.marks if p == "post"})


async def take(s: Session, run, phase: str, rng: random.Random, ledger: Ledger, who: str, errors: list[str]):
    """Take the check of ``phase`` on the page ``run`` shows; returns the page's latest run.

    Opens the expander when closed, presses "take the check again" for ``post``, hands in the form
    and checks the page confirms the score the picks earn. Problems go to ``errors``."""
    from tinygpt.explanations.concept_check import CONCEPTS

    text = submit = None
    clicked = False
    for _ in range(ATTEMPTS):  # a page the teacher's lead switches meanwhile draws the check anew, closed
        text = shown_text(run.texts)
        submit = next((k for k in run.widgets if k.startswith(f"FormSubmitter:check_form_{phase}-")), None)
        if BOX not in run.widgets or (text is not None and submit is not None and run.widgets[BOX].expanded):
            break
        if phase == "post" and "check_start_post" in run.widgets and run.widgets[BOX].expanded and not clicked:
            run, clicked = await s.run(widgets=[click(run.widgets["check_start_post"])]), True
        else:
            run, clicked = await s.run(widgets=[toggle_state(run.widgets[BOX], True)]), False
        errors.extend(f"{who}: {e}" for e in run.errors)
        await asyncio.sleep(1.0)  # the page follows the class every second (tinygpt.ui.follow)
    if text is None or submit is None:
        errors.append(f"{who}: the {phase} check's form is not shown")
        return run
    questions = questions_of(text)
    states, score = [], 0
    for n, concept in enumerate(CONCEPTS, 1):
        q, widget = questions[concept], run.widgets.get(f"check_{phase}_{concept}")
        prompt = f"{n}. " + english(q.prompt_key, **dict(q.prompt_fields))
        if widget is None or unescape(widget.label) != prompt or len(widget.options) != len(q.choices):
            errors.append(f"{who}: the {phase} check's question {concept} is not the one computed ({prompt!r})")
            return run
        right = rng.random() < PHASE_RIGHT[phase]
        ids = pick(q, rng, right)
        if q.is_right(ids if q.multiple else ids[0]) != right:
            errors.append(f"{who}: the bench's pick {ids} for {concept} is not {'right' if right else 'wrong'}")
        score += right
        labels = [o.content for o, c in zip(widget.options, q.choices) if c.id in ids]
        states.append(pills_state(widget, labels))
        ledger.add(phase, concept, who, right)
    run = await s.run(widgets=[*states, click(run.widgets[submit])])
    errors.extend(f"{who}: {e}" for e in run.errors)
    done = (
        [english(k, right=score, total=len(CONCEPTS)) for k in ("check.pre_done", "check.pre_done_class")]
        if phase == "pre"
        else [
            english("check.post_done", pre="\0", post=score, total=len(CONCEPTS)).split("\0")[1],
            english("check.post_only_done", post=score, total=len(CONCEPTS)),
        ]
    )
    if any(d in t for d in done for t in run.texts):
        ledger.handed[phase] += 1
    else:
        errors.append(f"{who}: the page does not confirm the {phase} check ({score} right of {len(CONCEPTS)})")
    return run


def check_lines(store, code: str, ledger: Ledger) -> tuple[list[str], int, int, int, list[str]]:
    """Lines on the check, (answers cast, recorded, concepts whose report differs from the answers
    cast, errors): the report is computed from the store as the teacher's view computes it."""
    from tinygpt.classroom.report import gain_text, percent, report, student_changes
    from tinygpt.explanations.concept_check import CONCEPTS, parse_check_id

    answers = [a for a in store.answers(code) if parse_check_id(a.question_id) is not None]
    records = {s.question_id: s.question for s in store.summary(code)}
    results = report(answers, records)
    cast = sum(ledger.cast.values())
    lines = [
        f"check forms handed in: {ledger.handed['pre']} before, {ledger.handed['post']} after",
        f"check answers recorded: {len(answers)} of {cast}",
    ]
    errors, mismatched = [], 0
    for r in results:
        mine = ledger.expected(r.concept)
        got = {k: getattr(r, k) for k in mine}
        if got != mine:
            mismatched += 1
            errors.append(f"check {r.concept}: the report says {got}, the answers cast {mine}")
        lines.append(
            f"  {r.concept:<8} n {r.paired:2d}: before {r.pre_right:2d} ({percent(r.pre):>5}), "
            f"after {r.post_right:2d} ({percent(r.post):>5}), gain {gain_text(r.gain)}, "
            f"only before {r.pre_only}, only after {r.post_only}"
        )
    paired = student_changes(answers).paired
    lines.append(f"pre/post pairs: {paired} of {ledger.both_checks()}")
    if paired != ledger.both_checks():
        mismatched += 1
        errors.append(f"the report pairs {paired} students, {ledger.both_checks()} took both checks")
    lines.append(f"report equals the answers cast: {len(CONCEPTS) - mismatched} of {len(CONCEPTS)} concepts")
    return lines, cast, len(answers), mismatched, errors
