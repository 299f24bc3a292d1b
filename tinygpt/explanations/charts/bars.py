"""Bars of next-character probabilities: one distribution, one per position, two side by side."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np
import pandas as pd

from tinygpt.arrays import ArrayLike, to_numpy
from tinygpt.explanations.charts.axes import described, title_lines, y_title_axis
from tinygpt.explanations.charts.fast import altair_chart, fast_spec
from tinygpt.formatting import format_probability


def _bars_columns(probs: ArrayLike, chars: Sequence[str], highlight: str | None) -> dict[str, object]:
    """The rows of :func:`probability_bars`: char, p, chosen. Raises ValueError if the lengths differ."""
    arr = to_numpy(probs, floats=True).reshape(-1)
    if arr.size != len(chars):
        raise ValueError(f"{arr.size} probabilities for {len(chars)} characters")
    return {"char": list(chars), "p": arr, "chosen": [c == highlight for c in chars]}


def _bars_layout(
    data: object,
    *,
    chars: Sequence[str],
    title: str = "",
    x_title: str = "character",
    y_title: str = "probability",
) -> alt.LayerChart:
    """The bars' chart (see :func:`probability_bars`)."""
    x = alt.X("char:N", sort=list(chars), title=x_title, axis=alt.Axis(labelAngle=0))
    y_scale = alt.Scale(domain=[0, 1])
    tooltip = [alt.Tooltip("char:N", title=x_title), alt.Tooltip("p:Q", format=".4f", title=y_title)]
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=x,
            y=alt.Y("p:Q", scale=y_scale, title=y_title, axis=alt.Axis(**y_title_axis(y_title))),
            color=alt.condition("datum.chosen", alt.value("#e45756"), alt.value("#4c78a8")),
            tooltip=tooltip,
        )
    )
    # the highlighted bar is also marked ◆ above it: its colour is not the only sign
    mark = (
        alt.Chart()
        .transform_filter("datum.chosen")
        .transform_calculate(above="min(datum.p + 0.08, 1.08)")
        .mark_point(shape="diamond", filled=True, size=80, color="#262730", aria=False)  # may be empty
        .encode(
            x=x,
            y=alt.Y("above:Q", scale=y_scale, title=y_title, axis=alt.Axis(**y_title_axis(y_title))),
            tooltip=tooltip,
        )
    )
    return alt.layer(bars, mark, data=data).properties(title=title, height=220)


def probability_bars(
    probs: ArrayLike, chars: Sequence[str], *, highlight: str | None = None, description: str = "", **layout: str
) -> alt.LayerChart:
    """Bars of a distribution over characters on a fixed [0, 1] axis; ``highlight`` is coloured
    and marked ◆.

    Args:
        probs: (V,) probabilities, one per character of ``chars``.
        description: what the chart shows, in a sentence (its text alternative).
        layout: ``title``, ``x_title`` ("character"), ``y_title`` ("probability").
    Raises:
        ValueError if the lengths differ.
    """
    return altair_chart(_bars_layout, _bars_columns(probs, chars, highlight), description, chars=chars, **layout)


def probability_bars_spec(
    probs: ArrayLike, chars: Sequence[str], *, highlight: str | None = None, description: str = "", **layout: str
) -> dict:
    """The Vega-Lite dict of :func:`probability_bars` (same arguments, same picture), built fast:
    the layout is built once per characters and titles; the bars are the dataset ``"cells"``, so a
    chart whose probabilities change keeps its spec and the browser only swaps the data. Raises
    ValueError if the lengths differ."""
    return fast_spec(_bars_layout, _bars_columns(probs, chars, highlight), description, chars=chars, **layout)


def panel_width(V: int) -> int:
    """Plot width in pixels of one ``next_char_panels`` panel for V characters (34 px each, at most 900)."""
    return min(34 * V, 900)


def panel_columns(V: int, panels: int, page_width: int = 1000, most: int = 4) -> int:
    """How many ``next_char_panels`` panels fit side by side in ``page_width`` pixels (1 to ``most``)."""
    return max(1, min(most, panels, page_width // (panel_width(V) + 70)))  # + axis and padding


def next_char_panels(
    probs: ArrayLike,
    chars: Sequence[str],
    panel_labels: Sequence[str],
    expected: Sequence[str],
    *,
    top_label: str = "most likely",
    other_label: str = "other",
    expected_label: str = "training target",
    x_title: str = "character",
    y_title: str = "probability",
    columns: int = 4,
    description: str = "",
) -> alt.FacetChart:
    """Small multiples: the next-character distribution at each position, one panel per row.

    Args:
        probs: (T, V) rows of probabilities (each sums to 1).
        chars: the V characters, in vocabulary order.
        panel_labels: T unique panel titles (e.g. "0: 你 → ?"), kept in the given order.
        expected: T strings; the characters in ``expected[i]`` get a ▼ marker above their bar
            in panel i ("" = no target).
        description: what the chart shows, in a sentence (its text alternative).
    Returns:
        A faceted Altair chart; the most likely character of each panel is coloured
        ``top_label``, the others ``other_label``; bars on a fixed [0, 1] axis with tooltips.
    Raises:
        ValueError if the labels do not match the shape of ``probs``.
    """
    arr = to_numpy(probs, floats=True)
    T, V = arr.shape
    if len(panel_labels) != T or len(expected) != T or len(chars) != V:
        raise ValueError(
            f"{len(panel_labels)} panels / {len(expected)} targets / {len(chars)} chars do not match {T}×{V}"
        )
    top = arr.argmax(axis=1)
    df = pd.DataFrame(
        {
            "panel": np.repeat(np.asarray(panel_labels, dtype=object), V),
            "char": np.tile(np.asarray(chars, dtype=object), T),
            "p": arr.reshape(-1),
            "kind": [top_label if top[i] == j else other_label for i in range(T) for j in range(V)],
            "target": [expected_label if chars[j] in expected[i] else "" for i in range(T) for j in range(V)],
        }
    )
    df["p_text"] = [format_probability(v) for v in df["p"]]
    x = alt.X("char:N", sort=list(chars), title=x_title, axis=alt.Axis(labelAngle=0))
    y_axis = alt.Axis(**y_title_axis(y_title))
    tooltip = [
        alt.Tooltip("panel:N", title=" "),
        alt.Tooltip("char:N", title=x_title),
        alt.Tooltip("p_text:N", title=y_title),
    ]
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=x,
            y=alt.Y("p:Q", scale=alt.Scale(domain=[0, 1]), title=y_title, axis=y_axis),
            color=alt.Color(
                "kind:N",
                scale=alt.Scale(domain=[top_label, other_label], range=["#e45756", "#4c78a8"]),
                legend=alt.Legend(title=None, orient="top"),
            ),
            tooltip=tooltip,
        )
    )
    marks = (
        alt.Chart()
        .transform_filter("datum.target != ''")
        .transform_calculate(above="min(datum.p + 0.12, 1.12)")
        .mark_point(filled=True, size=70, color="#262730", aria=False)  # empty in a panel without a target
        .encode(
            x=x,
            y=alt.Y("above:Q", scale=alt.Scale(domain=[0, 1]), title=y_title, axis=y_axis),
            shape=alt.Shape(
                "target:N",
                scale=alt.Scale(domain=[expected_label], range=["triangle-down"]),
                legend=alt.Legend(title=None, orient="top"),
            ),
            tooltip=tooltip,
        )
    )
    chart = (
        alt.layer(bars, marks, data=df)
        .properties(width=panel_width(V), height=140)
        .facet(
            facet=alt.Facet("panel:N", sort=list(panel_labels), title=None, header=alt.Header(labelFontSize=13)),
            columns=columns,
        )
    )
    return described(chart, description)


#: The most characters :func:`paired_probability_bars` draws as upright bars; more get a row each.
UPRIGHT_MOST = 12


def paired_probability_bars(
    first: ArrayLike,
    second: ArrayLike,
    chars: Sequence[str],
    *,
    labels: tuple[str, str] = ("p", "p_τ"),
    chosen: str | None = None,
    target: str = "",
    chosen_label: str = "chosen",
    target_label: str = "training target",
    title: str = "",
    x_title: str = "character",
    y_title: str = "probability",
    description: str = "",
) -> alt.LayerChart:
    """Two distributions over the same characters as side-by-side bars (e.g. p and p_τ).

    Args:
        first, second: (V,) probabilities; ``labels`` names them in the legend and tooltips.
        chosen: the character this step chose, marked with a diamond (◆, ``chosen_label``).
        target: the training target's characters ("" = none), each marked with ▼ (``target_label``),
            the same mark the per-position panels use, so ▼ always means the training target.
        description: what the chart shows, in a sentence (its text alternative).
    Returns:
        Grouped bars (blue = first, orange = second) on a fixed [0, 1] axis, with tooltips; the
        marks have their own legend, above the bars (the colours' is below). A character both chosen and target gets ◆
        with ▼ beside it. Drawn as wide as its container, axes and legend included (``fit-x``:
        ``st.vega_lite_chart(width="stretch")``), so every bar, the chosen one included, is on a
        phone's screen; more than :data:`UPRIGHT_MOST` characters are drawn as horizontal bars,
        a row each, which a narrow screen has room for.
    """
    p, q = to_numpy(first, floats=True), to_numpy(second, floats=True)
    V = len(chars)
    df = pd.DataFrame(
        {"char": list(chars) * 2, "series": [labels[0]] * V + [labels[1]] * V, "p": np.concatenate([p, q])}
    )
    df["p_text"] = [format_probability(v) for v in df["p"]]
    across = V > UPRIGHT_MOST  # horizontal bars: the characters down the side
    char_channel, p_channel = (alt.Y, alt.X) if across else (alt.X, alt.Y)
    offset = alt.YOffset if across else alt.XOffset
    x = char_channel("char:N", sort=list(chars), title=x_title, axis=alt.Axis(labelAngle=0))
    p_axis = alt.Axis() if across else alt.Axis(**y_title_axis(y_title))
    legend = alt.Legend(title=None, orient="bottom", direction="vertical", labelLimit=0)
    bars = (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x,
            offset("series:N", sort=list(labels)),
            p_channel("p:Q", scale=alt.Scale(domain=[0, 1]), title=y_title, axis=p_axis),
            color=alt.Color(
                "series:N",
                sort=list(labels),
                scale=alt.Scale(domain=list(labels), range=["#4c78a8", "#f58518"]),
                legend=legend,
            ),
            tooltip=[
                alt.Tooltip("char:N", title=x_title),
                alt.Tooltip("series:N", title=" "),
                alt.Tooltip("p_text:N", title=y_title),
            ],
        )
    )
    rows = []
    for j, c in enumerate(chars):
        height = float(max(p[j], q[j]))
        if c == chosen:
            rows.append({"char": c, "mark": chosen_label, "y": min(height + 0.1, 1.1)})
        if c in target:
            rows.append({"char": c, "mark": target_label, "y": min(height + (0.22 if c == chosen else 0.1), 1.22)})
    layers = [bars]
    marks_room = 8 if across else 50  # upright, ◆ and ▼ stand up to 0.22 of the 200-px plot above it
    if rows:
        layers.append(
            alt.Chart(pd.DataFrame(rows))
            .mark_point(filled=True, size=90, color="#262730")
            .encode(
                x,
                p_channel("y:Q", scale=alt.Scale(domain=[0, 1])),
                shape=alt.Shape(
                    "mark:N",
                    scale=alt.Scale(domain=[target_label, chosen_label], range=["triangle-down", "diamond"]),
                    legend=alt.Legend(title=None, orient="top", labelLimit=0, offset=marks_room),  # above ◆ and ▼
                ),
                tooltip=[alt.Tooltip("char:N", title=x_title), alt.Tooltip("mark:N", title=" ")],
            )
        )
    size = {"width": 300, "height": alt.Step(22)} if across else {"width": max(240, min(80 * V, 960)), "height": 200}
    chart = alt.layer(*layers).properties(
        title=title_lines(title),
        **size,
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),  # the container's width, all included
    )
    return described(chart, description)
