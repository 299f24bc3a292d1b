"""The training loss against the step: :func:`loss_chart` (Altair) and :func:`loss_chart_spec`
(the same picture's Vega-Lite dict built fast, for the Train page's live chart redrawn on every
poll), both drawn by one layout (:mod:`tinygpt.explanations.charts.fast`)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from tinygpt.explanations.charts.axes import y_title_axis
from tinygpt.explanations.charts.fast import altair_chart, fast_spec

#: Curves with fewer points than this show each point as a dot (a short run's steps can be counted).
POINTS_BELOW = 60


def _loss_layout(
    data: object,
    *,
    runs: bool,
    points: bool,
    title: str = "",
    x_title: str = "step",
    y_title: str = "loss",
    series_title: str = "run",
) -> alt.Chart:
    """The chart of a table (step, loss[, run]): ``runs`` draws one coloured line per run with a
    legend, ``points`` a dot per step."""
    # Run labels start with the setting changed last (tinygpt.ui.train.training_jobs.run_labels), so the legend's
    # ellipsis keeps the part that tells the runs apart; the full label is in the runs table.
    color = alt.Color("run:N", title=series_title, legend=alt.Legend(labelLimit=240)) if runs else alt.value("#1f77b4")
    return (
        alt.Chart(data)
        .mark_line(point=points)
        .encode(
            x=alt.X("step:Q", title=x_title, axis=alt.Axis(format="d", tickMinStep=1)),  # steps are whole numbers
            y=alt.Y("loss:Q", scale=alt.Scale(type="log"), title=y_title, axis=alt.Axis(**y_title_axis(y_title))),
            color=color,
            tooltip=[alt.Tooltip("step:Q"), alt.Tooltip("loss:Q", format=".3e")],
        )
        .properties(title=title, height=280)
    )


def loss_columns(history: pd.DataFrame) -> dict[str, np.ndarray]:
    """The chart's columns of ``history`` (step, loss and, when it has one, run), without the
    non-finite and non-positive losses (a log axis cannot draw them, and NaN is never plotted)."""
    keep = np.isfinite(history["loss"].to_numpy(dtype=float)) & (history["loss"].to_numpy(dtype=float) > 0)
    names = ("step", "loss", "run") if "run" in history.columns else ("step", "loss")
    return {name: history[name].to_numpy()[keep] for name in names}


def _options(columns: dict[str, np.ndarray], labels: dict[str, str]) -> dict[str, object]:
    """The layout's options for ``columns``: a legend when they hold runs, dots on a short curve
    (none without a curve: an empty layer of dots has no text alternative), the labels."""
    return {"runs": "run" in columns, "points": 0 < len(columns["step"]) < POINTS_BELOW, **labels}


def loss_chart(
    history: pd.DataFrame,
    *,
    title: str = "",
    x_title: str = "step",
    y_title: str = "loss",
    series_title: str = "run",
    description: str = "",
) -> alt.Chart:
    """Loss against step on a log y axis.

    Args:
        history: columns ``step`` (int), ``loss`` (float > 0) and optionally ``run`` (label of the
            training run, one line each). Non-finite or non-positive losses are dropped.
        title, x_title, y_title, series_title: the chart's title, its axes' and its legend's.
        description: what the chart shows, in a sentence (its text alternative).
    """
    columns = loss_columns(history)
    labels = {"title": title, "x_title": x_title, "y_title": y_title, "series_title": series_title}
    return altair_chart(_loss_layout, columns, description, **_options(columns, labels))


def loss_chart_spec(
    history: pd.DataFrame,
    *,
    title: str = "",
    x_title: str = "step",
    y_title: str = "loss",
    series_title: str = "run",
    description: str = "",
) -> dict:
    """The Vega-Lite dict of :func:`loss_chart` (same arguments, same picture), built fast: the
    layout once per labels (:func:`tinygpt.explanations.charts.fast.fast_spec`), each call only its rows (the
    dataset ``"cells"``). Draw it with ``st.vega_lite_chart(spec)``."""
    columns = loss_columns(history)
    labels = {"title": title, "x_title": x_title, "y_title": y_title, "series_title": series_title}
    return fast_spec(_loss_layout, columns, description, **_options(columns, labels))
