"""Heatmaps of a matrix (scores, weights, vectors) and small multiples of attention weights."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np

from tinygpt.arrays import ArrayLike, to_numpy
from tinygpt.explanations.charts.axes import finite_values, grid_axes, label_angle, masked_layer, y_title_axis
from tinygpt.explanations.charts.fast import altair_chart, fast_spec, use_canvas


def cells_columns(
    arr: np.ndarray, row_labels: Sequence[str], col_labels: Sequence[str], masked: ArrayLike | None = None
) -> dict[str, np.ndarray]:
    """Long table of a (R, C) matrix for a heatmap: columns row, col, value, masked.

    ``value`` is always finite: masked cells (−∞ or True in ``masked``) hold 0, and so do NaN or +∞
    cells (the charts draw only unmasked values). Raises ValueError if the labels do not match.
    """
    R, C = arr.shape
    if len(row_labels) != R or len(col_labels) != C:
        raise ValueError(f"labels {len(row_labels)}×{len(col_labels)} do not match matrix {R}×{C}")
    mask = np.isneginf(arr)
    if masked is not None:
        mask = mask | to_numpy(masked).astype(bool)
    return {
        "row": np.repeat(np.asarray(row_labels, dtype=object), C),
        "col": np.tile(np.asarray(col_labels, dtype=object), R),
        "value": finite_values(arr, mask).reshape(-1),
        "masked": mask.reshape(-1),
    }


def _signed_bound(arr: np.ndarray) -> float:
    """max |v| over the finite values of ``arr`` (1 when there are none or all are 0)."""
    finite = arr[np.isfinite(arr)]
    return (float(np.abs(finite).max()) if finite.size else 1.0) or 1.0


def _heatmap_layout(
    data: object,
    *,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    kind: str = "signed",
    bound: float = 1.0,
    any_masked: bool = True,
    title: str = "",
    row_title: str = "",
    col_title: str = "",
    value_title: str = "value",
    masked_label: str = "masked (−∞)",
    cell: int = 0,
) -> alt.LayerChart:
    """The heatmap's chart (see :func:`heatmap`); ``bound`` is the signed scale's [-bound, bound];
    without ``any_masked`` there is no grey layer and no filter the browser evaluates per cell."""
    R, C = len(row_labels), len(col_labels)
    if kind == "prob":
        scale = alt.Scale(scheme="viridis", domain=[0, 1])
    else:  # clamp: values beyond a shared domain (heatmap_spec's bound) take the end colours
        scale = alt.Scale(scheme="blueorange", domain=[-bound, bound], domainMid=0, clamp=True)
    size = cell or max(8, min(48, 360 // max(R, 1)))
    cell_w = max(1, min(size, 640 // C))  # wide matrices (T × d_model) get thin columns
    x, y, where = grid_axes(row_labels, col_labels, cell_w, row_title, col_title)
    base = alt.Chart(data).encode(x=x, y=y)
    cells = (base.transform_filter("!datum.masked") if any_masked else base).mark_rect()
    layers = [
        cells.encode(
            color=alt.Color("value:Q", scale=scale, title=value_title, legend=alt.Legend(orient="bottom")),
            tooltip=[*where, alt.Tooltip("value:Q", format=".4f", title=value_title)],
        )
    ]
    if any_masked:
        hidden = (
            base.transform_filter("datum.masked")
            .mark_rect(stroke="white", aria=False)  # may be empty: no mark container without a name
            .encode(tooltip=[*where, alt.Tooltip("masked:N", title=masked_label)])
        )
        layers.append(masked_layer(hidden, masked_label, orient="top"))  # the value's legend is below
    return (
        alt.layer(*layers)
        .resolve_scale(color="independent")  # the value's scale and the masked cells' legend entry
        .properties(
            title=title,
            width=cell_w * C,
            height=size * R,
            # the container's width, axes and legend included (drawn with width="stretch" in a box at
            # most width + the axis's room wide: ``tinygpt.ui.frame.figure_view.fitted_chart``)
            autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
        )
    )


def heatmap(
    values: ArrayLike,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    masked: ArrayLike | None = None,
    description: str = "",
    **layout: object,
) -> alt.LayerChart:
    """Heatmap of a (R, C) matrix.

    Args:
        values: (R, C) numbers; −∞ entries are drawn as masked.
        row_labels, col_labels: R and C unique labels, kept in the given order.
        masked: optional (R, C) booleans; True cells are drawn grey whatever their value.
        description: what the chart shows, in a sentence (its text alternative).
        layout: ``kind`` — "prob": fixed [0, 1] viridis scale (α, probabilities); "signed"
            (default): diverging blue-orange centred on 0 with a symmetric domain; ``title``,
            ``row_title``, ``col_title``, ``value_title``, ``masked_label`` ("masked (−∞)");
            ``cell``: cell size in pixels (0 = choose from the matrix size).
    Returns:
        An Altair layer chart (cells + masked overlay) with tooltips.
    Raises:
        ValueError if the labels do not match the matrix shape.
    """
    arr = to_numpy(values, floats=True)
    cells = cells_columns(arr, row_labels, col_labels, masked)
    options = {"row_labels": row_labels, "col_labels": col_labels, "bound": _signed_bound(arr), **layout}
    return altair_chart(_heatmap_layout, cells, description, **options)


def _set_signed_domain(node: object, bound: float) -> None:
    """Replace the domain of every diverging scale (one with ``domainMid``) by [-bound, bound]."""
    if isinstance(node, dict):
        if "domainMid" in node and "domain" in node:
            node["domain"] = [-bound, bound]
        for child in node.values():
            _set_signed_domain(child, bound)
    elif isinstance(node, list):
        for child in node:
            _set_signed_domain(child, bound)


def heatmap_spec(
    values: ArrayLike,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    masked: ArrayLike | None = None,
    bound: float | None = None,
    description: str = "",
    **layout: object,
) -> dict:
    """The Vega-Lite dict of :func:`heatmap` (same arguments, same picture), built fast.

    The layout (labels, titles, sizes, kind) is built once (:func:`tinygpt.explanations.charts.fast.fast_spec`);
    each call adds the cells and, for ``kind="signed"``, the symmetric domain [-max|v|, max|v|] of
    the finite values, or [-bound, bound] when ``bound`` is given (several heatmaps on one colour
    scale; values beyond it take the end colours). Without masked cells the grey layer is left out.
    Raises ValueError if the labels do not match.
    """
    arr = to_numpy(values, floats=True)
    cells = cells_columns(arr, row_labels, col_labels, masked)
    any_masked = bool(cells["masked"].any())
    spec = fast_spec(
        _heatmap_layout,
        cells,
        description,
        row_labels=row_labels,
        col_labels=col_labels,
        any_masked=any_masked,
        **layout,
    )
    if layout.get("kind", "signed") != "prob":
        _set_signed_domain(spec, (_signed_bound(arr) if bound is None else bound) or 1.0)
    return use_canvas(spec, arr.size)


def grid_columns(
    arr: np.ndarray,
    panel_labels: Sequence[str],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    masked: ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """Long table of (P, R, C) matrices: columns panel, row, col, value (finite; 0 if masked), masked."""
    P, R, C = arr.shape
    if len(panel_labels) != P or len(row_labels) != R or len(col_labels) != C:
        raise ValueError(f"labels {len(panel_labels)}×{len(row_labels)}×{len(col_labels)} do not match {P}×{R}×{C}")
    mask = np.isneginf(arr)  # (P, R, C)
    if masked is not None:
        mask = mask | to_numpy(masked).astype(bool)[None]
    return {
        "panel": np.repeat(np.asarray(panel_labels, dtype=object), R * C),
        "row": np.tile(np.repeat(np.asarray(row_labels, dtype=object), C), P),
        "col": np.tile(np.asarray(col_labels, dtype=object), P * R),
        "value": finite_values(arr, mask).reshape(-1),
        "masked": mask.reshape(-1),
    }


def _grid_layout(
    data: object,
    *,
    panel_labels: Sequence[str],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    columns: int = 4,
    panel_size: int = 150,
    row_title: str = "",
    col_title: str = "",
    value_title: str = "α",
    masked_label: str = "masked (−∞)",
    panel_title: str = "",
    legend: bool = True,
) -> alt.FacetChart:
    """The small multiples' chart (see :func:`alpha_grid`)."""
    show_labels = len(row_labels) <= 16
    x = alt.X(
        "col:N",
        sort=list(col_labels),
        title=col_title,
        axis=alt.Axis(
            labels=show_labels,
            ticks=show_labels,
            labelAngle=label_angle(col_labels, panel_size / len(col_labels)),
            labelOverlap=True,
        ),
    )
    y = alt.Y(
        "row:N",
        sort=list(row_labels),
        title=row_title,
        axis=alt.Axis(labels=show_labels, ticks=show_labels, **y_title_axis(row_title)),
    )
    where = [
        alt.Tooltip("panel:N", title=panel_title or " "),
        alt.Tooltip("row:N", title=row_title or "row"),
        alt.Tooltip("col:N", title=col_title or "col"),
    ]
    cells = (
        alt.Chart()
        .transform_filter("!datum.masked")
        .mark_rect()
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "value:Q",
                scale=alt.Scale(scheme="viridis", domain=[0, 1]),
                title=value_title,
                legend=alt.Undefined if legend else None,
            ),
            tooltip=where + [alt.Tooltip("value:Q", format=".4f", title=value_title)],
        )
    )
    hidden = masked_layer(
        alt.Chart()
        .transform_filter("datum.masked")
        .mark_rect(aria=False)  # may be empty: no mark container without a name
        .encode(x=x, y=y, tooltip=where + [alt.Tooltip("masked:N", title=masked_label)]),
        masked_label,
        legend,
    )
    return (
        alt.layer(cells, hidden, data=data)
        .resolve_scale(color="independent")
        .properties(width=panel_size, height=panel_size)
        .facet(facet=alt.Facet("panel:N", sort=list(panel_labels), title=None), columns=columns)
    )


def alpha_grid(
    alphas: ArrayLike,
    panel_labels: Sequence[str],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    masked: ArrayLike | None = None,
    description: str = "",
    **layout: object,
) -> alt.FacetChart:
    """Small multiples of attention weights: one α heatmap per panel (head or layer).

    Args:
        alphas: (P, R, C) weights in [0, 1] (rows sum to 1), one matrix per panel.
        panel_labels: P unique panel titles, kept in order (e.g. "head 0", "layer 3").
        row_labels, col_labels: R and C unique position labels ("0 你").
        masked: optional (R, C) booleans shared by every panel; True cells are grey (masked),
            not a dark 0.
        description: what the chart shows, in a sentence (its text alternative).
        layout: ``columns`` (4) panels a row; ``panel_size`` (150): width and height of each
            panel's cell area in pixels (axis labels are left out when a panel has more than 16
            rows); ``row_title``, ``col_title``, ``value_title`` ("α"), ``masked_label``,
            ``panel_title``; ``legend=False`` leaves the colour legend out (panels drawn as
            separate charts show it once).
    Returns:
        A faceted Altair chart on the fixed [0, 1] viridis scale with tooltips.
    Raises:
        ValueError if the labels do not match the shape.
    """
    cells = grid_columns(to_numpy(alphas, floats=True), panel_labels, row_labels, col_labels, masked)
    labels = {"panel_labels": panel_labels, "row_labels": row_labels, "col_labels": col_labels}
    return altair_chart(_grid_layout, cells, description, **labels, **layout)


def alpha_grid_spec(
    alphas: ArrayLike,
    panel_labels: Sequence[str],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    masked: ArrayLike | None = None,
    description: str = "",
    **layout: object,
) -> dict:
    """The Vega-Lite dict of :func:`alpha_grid` (same arguments, same picture), built fast: the
    layout is built once per shape and labels; each call adds the weights as the dataset ``"cells"``."""
    arr = to_numpy(alphas, floats=True)
    cells = grid_columns(arr, panel_labels, row_labels, col_labels, masked)
    labels = {"panel_labels": panel_labels, "row_labels": row_labels, "col_labels": col_labels}
    return use_canvas(fast_spec(_grid_layout, cells, description, **labels, **layout), arr.size)
