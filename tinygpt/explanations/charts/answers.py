"""A class's answers to one question, for the teacher's view."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt

from tinygpt.explanations.charts.fast import altair_chart, fast_spec

#: Okabe–Ito bluish green for a right answer, vermillion for a wrong one.
RIGHT_COLOR, WRONG_COLOR = "#009e73", "#d55e00"


def _spread_parts(
    labels: Sequence[str],
    counts: Sequence[int],
    right: Sequence[bool],
    *,
    right_label: str = "right",
    wrong_label: str = "wrong",
    right_mark: str = "✓",
    **layout: str,
) -> tuple[dict[str, list], dict[str, object]]:
    """The rows of :func:`answer_spread` (one per answer) and its layout's options. Raises
    ValueError if the lengths differ."""
    if not len(labels) == len(counts) == len(right):
        raise ValueError(f"{len(labels)} labels, {len(counts)} counts, {len(right)} right flags do not match")
    columns = {
        "answer": [f"{right_mark} {label}" if ok else label for label, ok in zip(labels, right)],
        "count": [int(c) for c in counts],
        "status": [right_label if ok else wrong_label for ok in right],
    }
    return columns, {"shown": columns["answer"], "right_label": right_label, "wrong_label": wrong_label, **layout}


def _spread_layout(
    data: object,
    *,
    shown: Sequence[str],
    right_label: str,
    wrong_label: str,
    title: str = "",
    x_title: str = "students",
    y_title: str = "answer",
) -> alt.LayerChart:
    """The answers' chart (see :func:`answer_spread`); ``shown`` are the answers as labelled."""
    # no axis title: the labels are the answers (a vertical Chinese title would lie on its side)
    y = alt.Y("answer:N", sort=list(shown), title=None, axis=alt.Axis(labelLimit=220))
    # whole students only: integer ticks, the axis from 0 and a little room for the count at the bar's end
    x = alt.X("count:Q", title=x_title, scale=alt.Scale(zero=True, nice=True), axis=alt.Axis(tickMinStep=1, format="d"))
    tooltip = [alt.Tooltip("answer:N", title=y_title), alt.Tooltip("count:Q", title=x_title), "status:N"]
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "status:N",
                scale=alt.Scale(domain=[right_label, wrong_label], range=[RIGHT_COLOR, WRONG_COLOR]),
                legend=alt.Legend(title=None, orient="top"),
            ),
            tooltip=tooltip,
        )
    )
    numbers = alt.Chart().mark_text(align="left", dx=4, color="#262730").encode(x=x, y=y, text="count:Q")
    # a height per bar (alt.Step): with a fixed height Streamlit's theme squeezed the bars into one line
    described = {"description": title} if title else {}  # the title is the text alternative
    return alt.layer(bars, numbers, data=data).properties(title=title, width=360, height=alt.Step(28), **described)


def answer_spread(
    labels: Sequence[str], counts: Sequence[int], right: Sequence[bool], *, description: str = "", **options: str
) -> alt.LayerChart:
    """Horizontal bars of how many students gave each answer to one question, right ones marked.

    Args:
        labels: one label per answer (e.g. "2 世"), kept in the given order top to bottom.
        counts: how many students gave each (drawn with the count at the bar's end).
        right: whether each answer is right: green bars with ``right_mark`` ("✓") before the label
            (colour and a symbol, not colour alone), the others vermillion.
        description: what the chart shows, in a sentence (its text alternative; the title without one).
        options: ``right_mark``, ``right_label`` ("right"), ``wrong_label`` ("wrong"), ``title``,
            ``x_title`` ("students"), ``y_title`` ("answer").
    The x axis starts at 0 and has whole numbers of students. Raises ValueError if the lengths differ.
    """
    columns, layout = _spread_parts(labels, counts, right, **options)
    return altair_chart(_spread_layout, columns, description, **layout)


def answer_spread_spec(
    labels: Sequence[str], counts: Sequence[int], right: Sequence[bool], *, description: str = "", **options: str
) -> dict:
    """The Vega-Lite dict of :func:`answer_spread` (same arguments, same picture), built fast: the
    layout is built once per answers and titles; the counts are the dataset ``"cells"``, so the
    teacher's view, refreshed every few seconds, only swaps the numbers of a chart."""
    columns, layout = _spread_parts(labels, counts, right, **options)
    return fast_spec(_spread_layout, columns, description, **layout)
