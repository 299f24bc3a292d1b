"""What every chart shares: axis labels and titles, the masked cells' grey, the text alternative,
and the finite values a chart's data holds."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence

import altair as alt
import numpy as np
import pandas as pd

from tinygpt.arrays import ArrayLike, to_numpy
from tinygpt.formatting import char_mark

MASK_COLOR = "#d9d9d9"
#: Axis labels are drawn 10 px high (Vega's default); a wide (CJK) character is about 1 em wide,
#: any other about 0.6 em.
LABEL_PX = 10
#: The plot width assumed for a chart sized to its container (``fit-x``): a phone's.
PHONE_PLOT_PX = 300


def _text_px(text: str, font_px: float = LABEL_PX) -> float:
    """About how many pixels ``text`` takes drawn at ``font_px``."""
    return sum(font_px if unicodedata.east_asian_width(c) in "WF" else 0.6 * font_px for c in text)


def label_angle(labels: Sequence[str], step_px: float) -> int:
    """The angle of x-axis labels ``step_px`` pixels apart: 0 when the widest fits its step, else
    −45 when the slanted labels' boxes (about 0.71 · (width + height) wide) fit, else −90.
    Position labels reach three characters ("10 爱") from position 10 on and would overlap flat in
    a 24-pixel cell; Vega's ``labelOverlap`` still thins what overlaps at −90."""
    widest = max((_text_px(label) for label in labels), default=0.0)
    if widest + 4 <= step_px:
        return 0
    return -45 if 0.71 * (widest + LABEL_PX) + 2 <= step_px else -90


def y_title_axis(title: str, below: float | None = None) -> dict[str, object]:
    """Axis settings that write a y-axis title with Chinese (or other wide) characters level,
    above the axis (or under a plot ``below`` pixels high, whose x axis is on top), instead of
    turned on its side (a vertical Latin title is read by tilting the head; a turned Chinese one
    is not); {} for other titles."""
    if not any(unicodedata.east_asian_width(c) in "WF" for c in title):
        return {}
    if below is not None:
        return {"titleAngle": 0, "titleAlign": "right", "titleBaseline": "top", "titleX": 0, "titleY": below + 6}
    return {"titleAngle": 0, "titleAlign": "right", "titleBaseline": "bottom", "titleX": 0, "titleY": -6}


def grid_axes(
    row_labels: Sequence[str], col_labels: Sequence[str], cell_w: float, row_title: str, col_title: str
) -> tuple[alt.X, alt.Y, list[alt.Tooltip]]:
    """A heatmap's key (x, columns ``cell_w`` px wide) and query (y) axes over its labels, in their
    order, and the tooltips naming a cell's row and column (fields ``row`` and ``col``)."""
    x = alt.X(
        "col:N",
        sort=list(col_labels),
        title=col_title,
        axis=alt.Axis(labelAngle=label_angle(col_labels, cell_w), labelOverlap=True),
    )
    y = alt.Y("row:N", sort=list(row_labels), title=row_title, axis=alt.Axis(**y_title_axis(row_title)))
    where = [alt.Tooltip("row:N", title=row_title or "row"), alt.Tooltip("col:N", title=col_title or "col")]
    return x, y, where


def described(chart: alt.TopLevelMixin, description: str) -> alt.TopLevelMixin:
    """``chart`` with Vega-Lite's top-level ``description`` (vega-embed puts it on the drawn chart
    as its ``aria-label``, what a screen reader says of it); unchanged for an empty one."""
    return chart.properties(description=description) if description else chart


def describe(spec: dict, description: str) -> dict:
    """:func:`described` for a Vega-Lite dict (a fast spec's layout is cached without it, so a
    description in another language does not build another layout); returns ``spec``."""
    if description:
        spec["description"] = description
    return spec


def masked_layer(
    chart: alt.Chart, masked_label: str, legend: bool = True, orient: str = "right", from_data: bool = False
) -> alt.Chart:
    """``chart`` (the masked cells' layer) coloured grey through a field holding ``masked_label``,
    so the grey has its own legend entry ("masked (−∞)", on the chart's ``orient`` side): a masked
    cell is told apart from a small value by the legend, not by its grey alone. Layer it with
    ``resolve_scale(color="independent")``. ``from_data``: the legend's entry comes from the cells
    the layer draws, so a chart whose mask is switched off in the browser shows none."""
    scale = alt.Scale(range=[MASK_COLOR]) if from_data else alt.Scale(domain=[masked_label], range=[MASK_COLOR])
    return chart.transform_calculate(masked_name=json.dumps(masked_label, ensure_ascii=False)).encode(
        color=alt.Color(
            "masked_name:N",
            scale=scale,
            legend=alt.Legend(title=None, symbolType="square", orient=orient) if legend else None,
        )
    )


def position_labels(chars: Sequence[str]) -> list[str]:
    """Axis labels "0 你", "1 好", … — unique even when characters repeat; a space is "3 ␣" and any
    other invisible character named (:func:`tinygpt.formatting.char_mark`), never a bare "3"."""
    return [f"{i} {char_mark(c)}" for i, c in enumerate(chars)]


def matrix_frame(values: ArrayLike, row_labels: Sequence[str], col_labels: Sequence[str]) -> pd.DataFrame:
    """A (R, C) matrix as a table indexed by the labels (what the page shows beside a heatmap)."""
    arr = to_numpy(values)
    return pd.DataFrame(arr, index=list(row_labels), columns=list(col_labels))


def finite_values(arr: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``arr`` with masked and non-finite entries replaced by 0 (same shape)."""
    return np.where(mask | ~np.isfinite(arr), 0.0, arr)


#: Chart titles are drawn 13 px high, bold (Vega's default): a wide character takes about 14 px.
TITLE_PX = 14
#: A title line's width on a phone: the plot's, less the room of a y axis beside it.
TITLE_LINE_PX = 250


def title_lines(title: str, width_px: float = TITLE_LINE_PX) -> str | list[str]:
    """``title`` broken into lines of at most about ``width_px`` pixels (Vega draws a list of
    strings as lines; it never wraps a title itself, so a long one runs past a phone's edge):
    at spaces, or between any two characters of a long run holding wide (CJK) ones; a Latin word
    longer than a line stays whole.
    The title itself when it fits one line."""
    if _text_px(title, TITLE_PX) <= width_px:
        return title
    lines, line = [], ""
    for piece in re.findall(r"\S+\s*|\s+", title):
        wide = any(unicodedata.east_asian_width(c) in "WF" for c in piece)
        parts = list(piece) if wide and _text_px(piece, TITLE_PX) > width_px / 2 else [piece]
        for part in parts:
            if line and _text_px(line + part.rstrip(), TITLE_PX) > width_px:
                lines.append(line.rstrip())
                line = ""
            line += part
    if line.strip():
        lines.append(line.rstrip())
    return lines
