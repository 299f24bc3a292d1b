"""2-D vectors drawn as arrows (the Theory page's dot products and sums)."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np
import pandas as pd

from tinygpt.explanations.charts.fast import altair_chart, fast_spec


def _vector_columns(
    vectors: Sequence[tuple[str, Sequence[float]]],
    origins: Sequence[Sequence[float] | None] | None,
) -> tuple[dict[str, list], list[float]]:
    """The rows of :func:`vector_picture` (one per arrow: name, start, tip, components, angle,
    order) and the axes' shared symmetric domain [-e, e], e = ⌈1.15 · largest |coordinate|⌉ ≥ 1.
    Raises ValueError if a vector does not have exactly two components."""
    columns: dict[str, list] = {k: [] for k in ("name", "x0", "y0", "x1", "y1", "x", "y", "angle", "order")}
    for k, (name, v) in enumerate(vectors):
        if len(v) != 2:
            raise ValueError(f"vector {name!r} has {len(v)} components; a 2-D picture needs 2")
        x0, y0 = origins[k] if origins is not None and origins[k] is not None else (0.0, 0.0)
        x, y = float(v[0]), float(v[1])
        # Vega rotates a point mark clockwise from "up"; the arrow points along (x, y).
        angle = float((90.0 - np.degrees(np.arctan2(y, x))) % 360.0)
        row = {"name": name, "x0": float(x0), "y0": float(y0), "x1": float(x0) + x, "y1": float(y0) + y}
        for key, value in (row | {"x": x, "y": y, "angle": angle, "order": k}).items():
            columns[key].append(value)
    extent = max([1.0] + [abs(value) for key in ("x0", "y0", "x1", "y1") for value in columns[key]])
    extent = float(np.ceil(extent * 1.15))
    return columns, [-extent, extent]


def _vector_layout(
    data: object,
    *,
    domain: Sequence[float],
    names: Sequence[str],
    title: str = "",
    x_title: str = "x₁",
    y_title: str = "x₂",
    name_title: str = "vector",
    size: int = 240,
) -> alt.LayerChart:
    """The arrows' chart (see :func:`vector_picture`) on the axes' shared ``domain``."""
    domain = list(domain)
    color = alt.Color("name:N", sort=list(names), scale=alt.Scale(scheme="tableau10"), title=name_title)
    tooltip = [
        alt.Tooltip("name:N", title=name_title),
        alt.Tooltip("x:Q", format=".3f", title=x_title),
        alt.Tooltip("y:Q", format=".3f", title=y_title),
    ]
    x_enc = alt.X("x0:Q", scale=alt.Scale(domain=domain, nice=False), title=x_title)
    y_enc = alt.Y("y0:Q", scale=alt.Scale(domain=domain, nice=False), title=y_title)
    base = alt.Chart(data)
    shafts = base.mark_rule(strokeWidth=2.5).encode(
        x=x_enc, y=y_enc, x2="x1:Q", y2="y1:Q", color=color, tooltip=tooltip
    )
    heads = base.mark_point(shape="triangle-up", filled=True, size=120, opacity=1).encode(
        x=alt.X("x1:Q", scale=alt.Scale(domain=domain, nice=False)),
        y=alt.Y("y1:Q", scale=alt.Scale(domain=domain, nice=False)),
        angle=alt.Angle("angle:Q", scale=None),
        color=color,
        tooltip=tooltip,
    )
    labels = base.mark_text(align="left", dx=8, dy=-8, fontSize=13, fontWeight="bold").encode(
        x="x1:Q",
        y="y1:Q",
        text="name:N",
        color=alt.Color("name:N", sort=list(names), scale=alt.Scale(scheme="tableau10"), legend=None),
    )
    axes = alt.Chart(pd.DataFrame({"zero": [0.0]}))
    h_axis = axes.mark_rule(color="#999", strokeDash=[3, 3]).encode(y="zero:Q")
    v_axis = axes.mark_rule(color="#999", strokeDash=[3, 3]).encode(x="zero:Q")
    return alt.layer(h_axis, v_axis, shafts, heads, labels).properties(
        title=title,
        width=size,
        height=size,
        autosize=alt.AutoSizeParams(type="pad", contains="content"),  # the plot area stays size × size on the page too
    )


def vector_picture(
    vectors: Sequence[tuple[str, Sequence[float]]],
    *,
    origins: Sequence[Sequence[float] | None] | None = None,
    description: str = "",
    **layout: object,
) -> alt.LayerChart:
    """2-D vectors drawn as arrows from the origin (or from ``origins[i]``) on equal, square axes.

    Args:
        vectors: (name, (x, y)) pairs, drawn in the given order; each name gets its own colour
            (Tableau-10, distinguishable for most colour-vision deficiencies) and a label at its tip.
        origins: optional start point of each arrow (None = the origin), e.g. b drawn from a's tip
            to show a + b as "tip to tail".
        description: what the chart shows, in a sentence (its text alternative).
        layout: ``title``, ``x_title`` ("x₁"), ``y_title`` ("x₂"), ``name_title`` ("vector");
            ``size`` (240): width and height of the plotting area in pixels; both axes share one
            symmetric domain so a right angle looks like one.
    Returns:
        Rules (shafts) + rotated triangles (heads) + text labels, with tooltips giving x and y.
    Raises:
        ValueError if a vector does not have exactly two components.
    """
    columns, domain = _vector_columns(vectors, origins)
    names = [name for name, _ in vectors]
    return altair_chart(_vector_layout, columns, description, domain=domain, names=names, **layout)


def vector_picture_spec(
    vectors: Sequence[tuple[str, Sequence[float]]],
    *,
    origins: Sequence[Sequence[float] | None] | None = None,
    description: str = "",
    **layout: object,
) -> dict:
    """The Vega-Lite dict of :func:`vector_picture` (same arguments, same picture), built fast: the
    layout is built once per names, titles and axis extent; the arrows are the dataset ``"cells"``,
    so while the extent stays the browser only swaps the data. Raises ValueError if a vector does
    not have exactly two components."""
    columns, domain = _vector_columns(vectors, origins)
    names = [name for name, _ in vectors]
    return fast_spec(_vector_layout, columns, description, domain=domain, names=names, **layout)
