"""Theory's matrix example drawn live: its α heatmap follows the τ slider and the mask toggle while
they move, computed in the browser from the example's raw scores Q Kᵀ (as the Attention page's
step 6: ``tinygpt.ui.attention.live_bridge``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from tinygpt.explanations.charts.live import live_alpha_spec, live_columns
from tinygpt.explanations.theory import EXAMPLE_KEYS
from tinygpt.ui.attention.live_bridge import live_bridge
from tinygpt.ui.frame.figure_view import heatmap_text
from tinygpt.ui.frame.language import tr
from tinygpt.ui.views.theory_table import TH_MASK, TH_TAU

#: The Theory widgets the page script reads: its τ slider and its mask toggle.
THEORY_KEYS = {"tau": TH_TAU, "mask": TH_MASK}


def theory_bridge() -> None:
    """The page script that keeps the live chart's inputs in step with τ and the mask."""
    live_bridge("theory", THEORY_KEYS)


def live_matrix(tau: float, masked: bool, tokens: Sequence[str]) -> dict:
    """The Vega-Lite dict of the matrix example's α (softmax(Q Kᵀ / √d / τ), Q = K = the example's
    keys, the causal mask when ``masked``) recomputed in the browser from the raw scores Q Kᵀ."""
    K = torch.tensor(EXAMPLE_KEYS, dtype=torch.float64)  # (n, d)
    d = K.shape[1]
    columns = live_columns(
        K @ K.T,
        tokens,
        temperature=tau,
        divisor=math.sqrt(d),
        causal_mask=masked,
        uniform=False,
        d_head=d,
        layer=0,
        head=0,
    )
    title, rows, cols, value = (
        tr("theory.mx.chart_title"),
        tr("theory.mx.axis_query"),
        tr("theory.mx.axis_key"),
        tr("theory.mx.value"),
    )
    description = heatmap_text(title, len(tokens), len(tokens), rows, cols, value, True)
    return live_alpha_spec(
        columns,
        tokens,
        description,
        page="theory",
        cell=60,
        title=title,
        row_title=rows,
        col_title=cols,
        value_title=value,
        masked_label=tr("theory.mx.masked"),
    )
