"""The training loss against the step."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from tinygpt.explanations.charts.axes import described, y_title_axis


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
        description: what the chart shows, in a sentence (its text alternative).
    """
    df = history[np.isfinite(history["loss"]) & (history["loss"] > 0)]
    # Run labels start with the setting changed last (tinygpt.ui.training_jobs.run_labels), so the legend's
    # ellipsis keeps the part that tells the runs apart; the full label is in the runs table.
    color = (
        alt.Color("run:N", title=series_title, legend=alt.Legend(labelLimit=240))
        if "run" in df.columns
        else alt.value("#1f77b4")
    )
    chart = (
        alt.Chart(df)
        .mark_line(point=len(df) < 60)
        .encode(
            x=alt.X("step:Q", title=x_title, axis=alt.Axis(format="d", tickMinStep=1)),  # steps are whole numbers
            y=alt.Y("loss:Q", scale=alt.Scale(type="log"), title=y_title, axis=alt.Axis(**y_title_axis(y_title))),
            color=color,
            tooltip=[alt.Tooltip("step:Q"), alt.Tooltip("loss:Q", format=".3e")],
        )
        .properties(title=title, height=280)
    )
    return described(chart, description)
