"""The experiments' charts: how much the switches move each prediction, and labelled heatmaps
(heads × layers, the logit lens)."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np

from tinygpt.arrays import ArrayLike, to_numpy
from tinygpt.explanations.charts.axes import PHONE_PLOT_PX, label_angle, y_title_axis
from tinygpt.explanations.charts.fast import altair_chart, fast_spec

#: Okabe–Ito orange and blue: a pair that colour-blind students tell apart.
CHANGED_COLOR, SAME_COLOR = "#e69f00", "#0072b2"


def _effects_parts(
    labels: Sequence[str],
    own: Sequence[str],
    new: Sequence[str],
    delta: ArrayLike,
    changed: ArrayLike,
    *,
    changed_label: str = "changed",
    same_label: str = "same",
    mark: str = "▲",
    **layout: str,
) -> tuple[dict[str, object], dict[str, object]]:
    """The rows of :func:`effects_chart` (one per position) and its layout's options. Raises
    ValueError if the lengths differ."""
    d = np.nan_to_num(to_numpy(delta, floats=True).reshape(-1), nan=0.0, posinf=1.0, neginf=0.0)
    c = to_numpy(changed).reshape(-1).astype(bool)
    T = len(labels)
    if not (len(own) == len(new) == d.size == c.size == T):
        raise ValueError(f"{T} labels, {len(own)}/{len(new)} predictions, {d.size} deltas, {c.size} marks do not match")
    columns = {
        "pos": list(labels),
        "own": list(own),
        "new": list(new),
        "delta": d,
        "status": np.where(c, changed_label, same_label),
        "mark": np.where(c, mark, ""),
        "top": np.minimum(d + 0.04, 1.0),
    }
    return columns, {"labels": labels, "changed_label": changed_label, "same_label": same_label, **layout}


def _effects_layout(
    data: object,
    *,
    labels: Sequence[str],
    changed_label: str,
    same_label: str,
    x_title: str = "position",
    y_title: str = "|Δp|",
    own_title: str = "own",
    new_title: str = "switched",
) -> alt.LayerChart:
    """The effects' chart (see :func:`effects_chart`)."""
    T = len(labels)
    # drawn as wide as its container: the labels must fit a phone's width
    angle = label_angle(labels, min(36, PHONE_PLOT_PX / max(T, 1)))
    x = alt.X("pos:N", sort=list(labels), title=x_title, axis=alt.Axis(labelAngle=angle, labelOverlap=True))
    tooltip = [
        alt.Tooltip("pos:N", title=x_title),
        alt.Tooltip("own:N", title=own_title),
        alt.Tooltip("new:N", title=new_title),
        alt.Tooltip("delta:Q", format=".4f", title=y_title),
        alt.Tooltip("status:N", title=" "),
    ]
    y_scale = alt.Scale(domain=[0, 1.08], nice=False)
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=x,
            y=alt.Y(
                "delta:Q",
                scale=y_scale,
                title=y_title,
                axis=alt.Axis(values=[0, 0.25, 0.5, 0.75, 1], **y_title_axis(y_title)),
            ),
            color=alt.Color(
                "status:N",
                scale=alt.Scale(domain=[changed_label, same_label], range=[CHANGED_COLOR, SAME_COLOR]),
                legend=alt.Legend(title=None, orient="top"),
            ),
            tooltip=tooltip,
        )
    )
    marks = (
        alt.Chart()
        .transform_filter("datum.mark != ''")
        .mark_text(baseline="bottom", fontSize=14, fontWeight="bold", color="#262730", aria=False)  # may be empty
        .encode(x=x, y=alt.Y("top:Q", scale=y_scale), text="mark:N", tooltip=tooltip)
    )
    # fit-x: drawn with the container's width (st.vega_lite_chart(width="stretch")), axes and legend included
    return alt.layer(bars, marks, data=data).properties(
        width=max(200, min(36 * T, 640)),
        height=160,
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
    )


def effects_chart(
    labels: Sequence[str],
    own: Sequence[str],
    new: Sequence[str],
    delta: ArrayLike,
    changed: ArrayLike,
    description: str = "",
    **options: str,
) -> alt.LayerChart:
    """Bars of how much the switches move the prediction at each position, changes marked.

    Args:
        labels: T unique position labels ("0 你"), kept in order on the x axis.
        own, new: T strings for the tooltips (e.g. "爱 0.998"): the model's own top character and p,
            and the top character and p under the switches.
        delta: (T,) |Δp| in [0, 1] (drawn on a fixed [0, 1] axis; non-finite values become 0).
        changed: (T,) booleans: the predicted character changed. Those bars are orange and carry
            ``mark`` ("▲") above them (colour and a symbol, not colour alone); the others are blue.
        description: what the chart shows, in a sentence (its text alternative).
        options: ``changed_label`` ("changed"), ``same_label`` ("same"), ``mark``, ``x_title``
            ("position"), ``y_title`` ("|Δp|"), ``own_title`` ("own"), ``new_title`` ("switched").
    Raises:
        ValueError if the lengths differ.
    """
    columns, layout = _effects_parts(labels, own, new, delta, changed, **options)
    return altair_chart(_effects_layout, columns, description, **layout)


def effects_spec(
    labels: Sequence[str],
    own: Sequence[str],
    new: Sequence[str],
    delta: ArrayLike,
    changed: ArrayLike,
    description: str = "",
    **options: str,
) -> dict:
    """The Vega-Lite dict of :func:`effects_chart` (same arguments, same picture), built fast."""
    columns, layout = _effects_parts(labels, own, new, delta, changed, **options)
    return fast_spec(_effects_layout, columns, description, **layout)


def _labelled_parts(
    values: ArrayLike,
    texts: Sequence[Sequence[str]],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    domain: tuple[float, float] = (0.0, 1.0),
    extra: ArrayLike | None = None,
    **layout: object,
) -> tuple[dict[str, object], dict[str, object]]:
    """The cells of :func:`labelled_heatmap` (row, col, value, text and extra) and its layout's
    options. Raises ValueError if the labels or texts do not match the matrix shape."""
    arr = to_numpy(values, floats=True)
    R, C = arr.shape
    if len(row_labels) != R or len(col_labels) != C or len(texts) != R or any(len(t) != C for t in texts):
        raise ValueError(f"labels {len(row_labels)}×{len(col_labels)} or texts do not match matrix {R}×{C}")
    lo, hi = float(domain[0]), float(domain[1])
    arr = np.nan_to_num(arr, nan=lo, posinf=hi, neginf=lo)
    columns = {
        "row": np.repeat(np.asarray(row_labels, dtype=object), C),
        "col": np.tile(np.asarray(col_labels, dtype=object), R),
        "value": arr.reshape(-1),
        "text": [str(t) for row in texts for t in row],
    }
    if extra is not None:
        columns["extra"] = np.nan_to_num(to_numpy(extra, floats=True).reshape(-1), nan=0.0, posinf=0.0, neginf=0.0)
    labels = {"row_labels": row_labels, "col_labels": col_labels}
    return columns, {**labels, "domain": (lo, hi), "has_extra": extra is not None, **layout}


def _labelled_layout(
    data: object,
    *,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    domain: tuple[float, float],
    has_extra: bool,
    row_title: str = "",
    col_title: str = "",
    value_title: str = "value",
    text_title: str = "",
    extra_title: str = "",
    cell: int = 0,
    fit_width: bool = False,
    text_marks: bool = True,
) -> alt.LayerChart:
    """The labelled heatmap's chart (see :func:`labelled_heatmap`)."""
    R, C = len(row_labels), len(col_labels)
    lo, hi = domain
    tooltip = [
        alt.Tooltip("row:N", title=row_title or "row"),
        alt.Tooltip("col:N", title=col_title or "col"),
        alt.Tooltip("text:N", title=text_title or " "),
        alt.Tooltip("value:Q", format=".4g", title=value_title),
    ]
    if has_extra:
        tooltip.append(alt.Tooltip("extra:Q", format=".4f", title=extra_title or " "))
    size = cell or max(24, min(56, 420 // max(R, C, 1)))
    step = min(size, PHONE_PLOT_PX / max(C, 1)) if fit_width else size  # fit_width: as wide as a phone
    x = alt.X(
        "col:N",
        sort=list(col_labels),
        title=col_title,
        axis=alt.Axis(labelAngle=label_angle(col_labels, step), labelOverlap=True, orient="top"),
    )
    y = alt.Y(
        "row:N",
        sort=list(row_labels),
        title=row_title,
        axis=alt.Axis(labelLimit=320, **y_title_axis(row_title, below=size * R)),
    )
    rect = (
        alt.Chart()
        .mark_rect(stroke="white")
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "value:Q",
                scale=alt.Scale(scheme="viridis", domain=[lo, hi]),
                title=value_title,
                legend=alt.Legend(orient="bottom") if fit_width else alt.Legend(),
            ),
            tooltip=tooltip,
        )
    )
    middle = (lo + hi) / 2
    words = (
        alt.Chart()
        .mark_text(fontSize=13)
        .encode(
            x=x,
            y=y,
            text="text:N",
            tooltip=tooltip,
            color=alt.condition(f"datum.value < {middle}", alt.value("white"), alt.value("#262730")),
        )
    )
    autosize = (
        alt.AutoSizeParams(type="fit-x", contains="padding")
        if fit_width
        else alt.AutoSizeParams(type="pad", contains="content")
    )
    return alt.layer(*((rect, words) if text_marks else (rect,)), data=data).properties(
        width=size * C, height=size * R, autosize=autosize
    )


def labelled_heatmap(
    values: ArrayLike,
    texts: Sequence[Sequence[str]],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    description: str = "",
    **options: object,
) -> alt.LayerChart:
    """A heatmap whose cells also carry a short text (a count, a character), on a fixed viridis scale.

    Args:
        values: (R, C) finite numbers coloured on ``domain`` (non-finite values become ``domain[0]``).
        texts: R rows of C strings written in the cells (white on the dark end of viridis, dark
            on the light end).
        row_labels, col_labels: unique labels, kept in order ("layer 0", "0 你").
        description: what the chart shows, in a sentence (its text alternative).
        options: ``domain`` ((0, 1)); ``extra``: optional (R, C) numbers shown in the tooltip as
            ``extra_title``; ``row_title``, ``col_title``, ``value_title`` ("value"),
            ``text_title``; ``cell``: cell size in pixels (0 = choose from the matrix size);
            ``fit_width``: size the whole chart, axes and legend included, to the width it is
            drawn in (``st.vega_lite_chart(width="stretch")``), with the legend below, so long
            rows fit a phone (otherwise the cells are ``cell`` pixels wide); ``text_marks=False``
            writes the texts only in the tooltip, for cells too narrow to hold them.
    Raises:
        ValueError if the labels or texts do not match the matrix shape.
    """
    columns, layout = _labelled_parts(values, texts, row_labels, col_labels, **options)
    return altair_chart(_labelled_layout, columns, description, **layout)


def labelled_heatmap_spec(
    values: ArrayLike,
    texts: Sequence[Sequence[str]],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    description: str = "",
    **options: object,
) -> dict:
    """The Vega-Lite dict of :func:`labelled_heatmap` (same arguments, same picture), built fast."""
    columns, layout = _labelled_parts(values, texts, row_labels, col_labels, **options)
    return fast_spec(_labelled_layout, columns, description, **layout)
