"""Altair chart builders: pure functions of data, no Streamlit.

Conventions (DESIGN.md): heatmap axes are indexed by position ("0 你") so repeated characters
never merge and the order is the sequence order; probabilities use a fixed [0, 1] viridis scale;
signed values use a blue-orange diverging scale centred on 0; masked cells are drawn grey with
"−∞ / masked" in the tooltip, distinct from a dark 0; every mark has a tooltip with its value.
Every number in a chart's data is finite: a masked cell carries ``masked = True`` and value 0
(Vega-Lite and Arrow have no −∞, and NaN would be drawn as a missing value, not as "masked").

Each chart is written once, as a layout of its table (:mod:`tinygpt.explanations.charts.fast`); ``X`` is its
Altair chart and ``X_spec`` the same picture's Vega-Lite dict built fast, for charts redrawn on
every slider move. The modules, by what they draw: :mod:`~tinygpt.explanations.charts.heatmaps` (a matrix, small
multiples of α), :mod:`~tinygpt.explanations.charts.bars` (next-character probabilities),
:mod:`~tinygpt.explanations.charts.experiments` (the switches' effects, labelled heatmaps),
:mod:`~tinygpt.explanations.charts.vectors`,
:mod:`~tinygpt.explanations.charts.loss`, :mod:`~tinygpt.explanations.charts.answers` (a
class's answers); :mod:`~tinygpt.explanations.charts.axes` holds what they share.
"""

from tinygpt.explanations.charts.answers import RIGHT_COLOR, WRONG_COLOR, answer_spread, answer_spread_spec
from tinygpt.explanations.charts.axes import (
    LABEL_PX,
    MASK_COLOR,
    PHONE_PLOT_PX,
    describe,
    described,
    label_angle,
    matrix_frame,
    position_labels,
    y_title_axis,
)
from tinygpt.explanations.charts.bars import (
    next_char_panels,
    paired_probability_bars,
    panel_columns,
    panel_width,
    probability_bars,
    probability_bars_spec,
)
from tinygpt.explanations.charts.experiments import (
    CHANGED_COLOR,
    SAME_COLOR,
    effects_chart,
    effects_spec,
    labelled_heatmap,
    labelled_heatmap_spec,
)
from tinygpt.explanations.charts.fast import CANVAS_CELLS, use_canvas, vega_spec
from tinygpt.explanations.charts.heatmaps import alpha_grid, alpha_grid_spec, heatmap, heatmap_spec
from tinygpt.explanations.charts.loss import loss_chart, loss_chart_spec
from tinygpt.explanations.charts.vectors import vector_picture, vector_picture_spec

__all__ = [
    "CANVAS_CELLS",
    "CHANGED_COLOR",
    "LABEL_PX",
    "MASK_COLOR",
    "PHONE_PLOT_PX",
    "RIGHT_COLOR",
    "SAME_COLOR",
    "WRONG_COLOR",
    "alpha_grid",
    "alpha_grid_spec",
    "answer_spread",
    "answer_spread_spec",
    "describe",
    "described",
    "effects_chart",
    "effects_spec",
    "heatmap",
    "heatmap_spec",
    "label_angle",
    "labelled_heatmap",
    "labelled_heatmap_spec",
    "loss_chart",
    "loss_chart_spec",
    "matrix_frame",
    "next_char_panels",
    "paired_probability_bars",
    "panel_columns",
    "panel_width",
    "position_labels",
    "probability_bars",
    "probability_bars_spec",
    "use_canvas",
    "vector_picture",
    "vector_picture_spec",
    "vega_spec",
    "y_title_axis",
]
