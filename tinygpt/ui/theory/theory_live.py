"""Theory's softmax and matrix examples drawn live: the softmax example's bars follow τ and the √d
toggle, the matrix example's α heatmap τ and the mask, while they move, computed in the browser
from the examples' raw scores (as the Attention page's step 6: ``tinygpt.ui.attention.live_bridge``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from tinygpt.explanations.charts.live import live_alpha_spec, live_bars_spec, live_columns
from tinygpt.explanations.theory import EXAMPLE_KEYS
from tinygpt.ui.attention.live_bridge import live_bridge
from tinygpt.ui.frame.figure_view import heatmap_text
from tinygpt.ui.frame.language import tr
from tinygpt.ui.views.theory_table import TH_MASK, TH_SCALED, TH_TAU

#: The widgets each example's chart follows: the softmax example's τ and √d toggle, the matrix
#: example's τ and mask (its scores are always divided by √d): one set of hidden inputs each.
THEORY_KEYS = {"theory-sm": {"tau": TH_TAU, "scaled": TH_SCALED}, "theory-mx": {"tau": TH_TAU, "mask": TH_MASK}}


def theory_bridge() -> None:
    """The page scripts that keep the live charts' inputs in step with τ, √d and the mask."""
    for page, keys in THEORY_KEYS.items():
        live_bridge(page, keys)


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
        page="theory-mx",
        cell=60,
        title=title,
        row_title=rows,
        col_title=cols,
        value_title=value,
        masked_label=tr("theory.mx.masked"),
    )


def live_bars(
    query: Sequence[float], tau: float, scaled: bool, keys: Sequence[str], description: str, **texts: str
) -> dict:
    """The Vega-Lite dict of the softmax example's α over the example's keys as bars, recomputed in
    the browser from the raw scores q · k_i (``texts``: ``title``, ``x_title``, ``y_title``)."""
    K = torch.tensor(EXAMPLE_KEYS, dtype=torch.float64)  # (m, d)
    raw = K @ torch.tensor(list(query), dtype=torch.float64)  # (m,)
    d = K.shape[1]
    return live_bars_spec(
        raw,
        keys,
        temperature=tau,
        divisor=math.sqrt(d) if scaled else 1.0,
        d=d,
        page="theory-sm",
        description=description,
        **texts,
    )


#: The bars' texts in the order the softmax example names them (title, x axis, y axis).
LIVE_BARS = ("title", "x_title", "y_title")
