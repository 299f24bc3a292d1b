"""A class question's votes as the teacher's and the projector's pages draw them: the spread of
one round as a bar chart with its table, and how the second round compares with the first.

Only aggregates (``tinygpt.classroom.tally.Tally``) reach these functions: never a token or a nickname.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from tinygpt.classroom.tally import RoundTally, Tally
from tinygpt.explanations.charts import answer_spread_spec
from tinygpt.explanations.exercises import Question
from tinygpt.i18n import CATALOGUE
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.frame.tables import show_table, text_table

SPACE_MARK = "␣"
#: Height of a round's spread chart on the projector (two side by side): with the question and the reveal
#: above them, a 1400 × 900 screen shows both rounds without scrolling.
PROJECTOR_CHART_PX = 250


def question_prompt(data: Mapping) -> str:
    """The question of ``data`` (``tinygpt.classroom.period.question_data``) in the session's language, as Markdown."""
    fields = {n: md_escape(v) if isinstance(v, str) else v for n, v in data.get("prompt_fields", [])}
    return tr(data["prompt_key"], **fields)


def question_reason(data: Mapping) -> str:
    """Why the right answer is right: the model's own numbers, in the session's language."""
    fields = {n: md_escape(v) if isinstance(v, str) else v for n, v in data.get("reason_fields", [])}
    return tr(data["reason_key"], **fields)


def choice_labels(data: Mapping) -> dict[str, str]:
    """{choice id: label} of the question, a blank character shown as ␣."""
    return {
        i: tr(key) if key in CATALOGUE else (text if text.strip() else text.replace(" ", SPACE_MARK) or SPACE_MARK)
        for i, text, key in data.get("choices", [])
    }


def right_labels(data: Mapping) -> str:
    """The right answer(s), as the choices are labelled."""
    labels = choice_labels(data)
    return ", ".join(labels[i] for i in labels if i in set(data.get("answers", [])))


def spread_rows(
    data: Mapping,
    tally: RoundTally,
    right_answers: frozenset[str] = frozenset(),
    texts: Mapping[str, str] | None = None,
) -> tuple[list[str], list[int], list[bool]]:
    """(answer labels, how many gave each, which are right): every choice of a one-answer question
    (0 for those nobody picked), the answers given to a several-answer one or to a question recorded
    without its choices. ``right_answers``: answers the store recorded as right; ``texts``: an
    answer's text as a student saw it, for an answer the choices do not name."""
    labels = choice_labels(data)
    right = set(data.get("answers", []))
    if data.get("multiple") or not labels:
        answers = list(tally.spread)
        fallback = texts or {}
        shown = [", ".join(labels.get(i, i) for i in a.split(",") if i) or fallback.get(a, a) or "—" for a in answers]
        is_right = [a in right_answers or set(a.split(",")) == right for a in answers]
        return shown, [tally.spread[a] for a in answers], is_right
    right |= right_answers
    ids = list(labels)
    return [labels[i] for i in ids], [tally.spread.get(i, 0) for i in ids], [i in right for i in ids]


def draw_spread_block(
    rows: tuple[list[str], list[int], list[bool]],
    title: str,
    description: str,
    table_key: str,
    width: str = "stretch",
    table: bool = True,
) -> None:
    """The spread of the answers ``rows`` (:func:`spread_rows`): a bar chart (``description``
    says its counts in words) and beside it its table; ``table=False`` (the projector, two rounds
    side by side): the counts as one line under the chart."""
    labels, counts, right = rows
    spec = answer_spread_spec(
        labels,
        counts,
        right,
        title=title,
        x_title=tr("teacher.axis_students"),
        y_title=tr("teacher.axis_answer"),
        right_label=tr("teacher.right"),
        wrong_label=tr("teacher.wrong"),
    )
    spec["description"] = description
    if not table:
        st.vega_lite_chart(spec, width="stretch", height=PROJECTOR_CHART_PX)
        st.caption(" · ".join(f"{label}: {n}{' ✓' if ok else ''}" for label, n, ok in zip(labels, counts, right)))
        return
    chart, box = st.columns([3, 2])
    chart.vega_lite_chart(spec, width=width)
    with box:
        show_table(
            text_table(
                {
                    tr("teacher.axis_answer"): labels,
                    tr("teacher.axis_students"): counts,
                    tr("teacher.right"): ["✓" if ok else "" for ok in right],
                }
            ),
            key=table_key,
        )


def draw_spread(data: Mapping, tally: RoundTally, rnd: int, key: str, table: bool = True) -> None:
    """A vote's round ``rnd``: its spread as a chart and a table (:func:`draw_spread_block`;
    ``table=False``: the counts as one line under the chart)."""
    draw_spread_block(
        spread_rows(data, tally),
        tr("period.spread_title", round=rnd),
        tr("period.spread_alt", round=rnd, answered=tally.answered, right=tally.right),
        f"{key}_table_{rnd}",
        table=table,
    )


def compare_line(tally: Tally) -> str:
    """Round 2 against round 1: the share right in each with how many answered it ("—" for a round
    nobody answered), how many changed to and away from the right answer."""
    first, second = tally.of(1), tally.of(2)
    return tr(
        "period.compare",
        first=share_text(first),
        n1=first.answered,
        second=share_text(second),
        n2=second.answered,
        to_right=tally.to_right,
        to_wrong=tally.to_wrong,
    )


def share_text(rnd: RoundTally) -> str:
    """The share of a round's answers that are right, as "33 %"; "—" when nobody answered (no share)."""
    return f"{100 * rnd.share_right:.0f} %" if rnd.answered else "—"


def warn_all_right(question: Question, uniform: bool) -> None:
    """Before the teacher asks ``question``: a warning when every choice is right (the keys tie;
    ``uniform``: uniform attention is on, the usual cause), as the class's answers would say nothing."""
    if question.every_choice_right:
        st.warning(tr("period.all_right_uniform" if uniform else "period.all_right", n=len(question.choices)))
