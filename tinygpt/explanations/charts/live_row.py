"""One row's softmax arithmetic as a small text chart recomputed in the browser.

The picked cell's softmax (row i: S̃_ik, e_k = exp((S̃_ik − m) / τ), Σ_k e_k, α_ik = e_k / Σ) is
written by the server as LaTeX when a control is released; this Vega-Lite text chart writes the
same numbers from the same data and parameters as the live α heatmap
(``tinygpt.explanations.charts.live``), so they follow τ, the divisor, a typed score, the mask
and uniform attention while they move. The picked row and key are data columns (``pick_i``,
``pick_j``) and the page's words are the spec's only text: one spec per language and labels.
Numbers are written with d3's ``.4~g`` (4 significant digits, trailing zeros dropped, as the
server's ``{:.4g}``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import altair as alt
import numpy as np

from tinygpt.explanations.charts.fast import fast_spec
from tinygpt.explanations.charts.live import with_alpha

#: The folded fields, one per column of the row's table, in order.
FIELDS = ("t_s", "t_e", "t_a")
#: The label of the summary row below the keys (m, Σ_k e_k).
SUM_ROW = "Σ"
#: A row's height in pixels.
ROW_PX = 20


def _js(text: str) -> str:
    """``text`` as a string literal of a Vega expression."""
    return json.dumps(text, ensure_ascii=False)


def _pick(columns: Mapping[str, np.ndarray], i: int, j: int) -> dict[str, np.ndarray]:
    """``columns`` with the picked query row ``i`` and key ``j`` on every row."""
    n = len(columns["i"])
    return {**columns, "pick_i": np.full(n, int(i)), "pick_j": np.full(n, int(j))}


def _row_layout(
    data: object,
    *,
    labels: Sequence[str],
    page: str,
    headers: tuple[str, str, str] = ("S̃", "e", "α"),
    uniform_header: str = "e = 1",
    row_title: str = "",
) -> alt.LayerChart:
    """The row's table: a text per key and column, and the summary row (m, Σ_k e_k). The e_k
    column's title is ``uniform_header`` while the head's attention is uniform (e_k = 1, no score
    used), ``headers[1]`` otherwise."""
    exp_title = f"(datum.flat ? {_js(uniform_header)} : {_js(headers[1])})"
    what = f"datum.key === 't_s' ? {_js(headers[0])} : datum.key === 't_e' ? {exp_title} : {_js(headers[2])}"
    # titles drawn whole, a line per "\n" in them: three columns' titles fit a phone's width
    axis = alt.Axis(
        orient="top", labelAngle=0, labelLimit=0, domain=False, ticks=False, labelExpr="split(datum.label, '\\n')"
    )
    x = alt.X("what:N", sort=[headers[0], headers[1], uniform_header, headers[2]], title=None, axis=axis)
    y = alt.Y("ylab:N", sort=[*labels, SUM_ROW], title=row_title, axis=alt.Axis(domain=False, ticks=False))
    table = (
        alt.Chart()
        .transform_calculate(
            t_s="datum.masked ? '−∞' : format(datum.scaled, '.4~g')",
            t_e="format(datum.e, '.4~g')",
            t_a="format(datum.alpha, '.4~g')",
            ylab="datum.col",
        )
        .transform_fold(list(FIELDS))
        .transform_calculate(what=what)
        .encode(x=x, y=y, text=alt.Text("value:N"))
    )
    picked = "datum.j === datum.pick_j"  # the picked key's line in bold
    keys = [
        table.transform_filter(f"!({picked})").mark_text(align="right", dx=40),
        table.transform_filter(picked).mark_text(align="right", dx=40, fontWeight="bold"),
    ]
    summary = (
        alt.Chart()
        .transform_filter("datum.j === 0")
        .transform_calculate(
            t_s="'m = ' + format(datum.m, '.4~g')",
            t_e="'Σ = ' + format(datum.z, '.4~g')",
            t_a="''",
            ylab=json.dumps(SUM_ROW),
        )
        .transform_fold(list(FIELDS))
        .transform_calculate(what=what)
        .mark_text(align="right", dx=40, fontStyle="italic")
        .encode(x=x, y=y, text=alt.Text("value:N"))
    )
    T = len(labels)
    chart = alt.layer(*keys, summary, data=data).transform_filter("datum.i === datum.pick_i")
    return with_alpha(chart, page).properties(
        height=ROW_PX * (T + 1), autosize=alt.AutoSizeParams(type="fit-x", contains="padding")
    )


def live_row_spec(
    columns: Mapping[str, np.ndarray],
    labels: Sequence[str],
    i: int,
    j: int,
    description: str = "",
    *,
    page: str = "attn",
    headers: tuple[str, str, str] = ("S̃", "e", "α"),
    uniform_header: str = "e = 1",
    row_title: str = "",
) -> dict:
    """The Vega-Lite dict of query row ``i``'s softmax (one line per key of the T ``labels``: S̃,
    e_k, α; the picked key ``j`` bold; then m and Σ_k e_k) from ``columns``
    (``live.live_columns``), recomputed in the browser from ``page``'s hidden inputs; ``headers``:
    the three columns' titles; ``uniform_header``: the e_k column's while the head's attention is
    uniform. The same labels and texts give the same spec whatever the switches and the picked cell."""
    options = dict(labels=tuple(labels), page=page, headers=headers, uniform_header=uniform_header, row_title=row_title)
    return fast_spec(_row_layout, _pick(columns, i, j), description, **options)
