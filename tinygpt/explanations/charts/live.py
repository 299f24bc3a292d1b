"""A heatmap of α that the browser recomputes from the raw scores while a control moves.

The server sends one head's raw scores S (T × T rows) and the switches it used (τ, the divisor,
the mask, uniform attention) as *data columns*; the spec itself never holds a switch's value, so
it stays the same text from one value to the next and the browser only swaps the data. Five
Vega-Lite parameters are bound to hidden inputs of the page (:func:`input_ids`, written by
``tinygpt.ui.attention.live_bridge``'s script while the student drags or toggles); an empty input means
"the server's value". The transforms compute, per query row i:

    s_ij  = the live score edit if it names (i, j), else S_ij
    h_ij  = mask and j > i                        (a hidden future key)
    m_i   = max over the keys not hidden of s_ij / divisor
    e_ij  = 0 if h_ij; 1 for uniform attention; else exp((s_ij / divisor − m_i) / τ)
    α_ij  = e_ij / Σ_k e_ik

the formulas of ``tinygpt.attention``'s steps 3–6 (:func:`evaluate` is the same arithmetic in
Python, for the tests). Shapes: T sequence length.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import altair as alt
import numpy as np

from tinygpt.arrays import ArrayLike, to_numpy
from tinygpt.explanations.charts.axes import grid_axes, masked_layer, y_title_axis
from tinygpt.explanations.charts.fast import fast_spec, use_canvas

#: The parameters, each bound to one hidden input of the page (:func:`input_ids`).
LIVE_PARAMS = ("live_tau", "live_div", "live_mask", "live_uniform", "live_edit")


def input_ids(page: str) -> dict[str, str]:
    """{parameter: id of its hidden input} on ``page`` ("attn", "theory"): one set of inputs per
    page, so a page's script never writes into another page's chart."""
    return {name: f"tg-live-{page}-{name.removeprefix('live_')}" for name in LIVE_PARAMS}


#: The transforms' expressions, in order (Vega expressions over one row of the data).
TAU = "live_tau !== '' ? toNumber(live_tau) : datum.tau0"
DIV = "live_div === '' ? datum.div0 : live_div === 'sqrt' ? sqrt(datum.d_head) : toNumber(live_div)"
MASK = "live_mask === '' ? datum.mask0 : live_mask === '1'"
UNIFORM = "live_uniform === '' ? datum.uniform0 : live_uniform === '1'"
# live_edit: "layer,head,i,j,value"; it replaces S[i, j] of the head drawn only
EDIT = (
    "live_edit !== '' && toNumber(split(live_edit, ',')[0]) === datum.layer"
    " && toNumber(split(live_edit, ',')[1]) === datum.head"
    " && toNumber(split(live_edit, ',')[2]) === datum.i && toNumber(split(live_edit, ',')[3]) === datum.j"
    " ? toNumber(split(live_edit, ',')[4]) : datum.s"
)


def live_columns(
    scores: ArrayLike,
    row_labels: Sequence[str],
    *,
    temperature: float,
    divisor: float,
    causal_mask: bool,
    uniform: bool,
    d_head: int,
    layer: int,
    head: int,
) -> dict[str, np.ndarray]:
    """The chart's rows: one per (i, j) of the (T, T) raw scores ``scores`` (edits applied), with
    the switches the server used repeated on every row. Raises ValueError for a non-square matrix,
    labels that do not match it, a non-finite score, or τ / divisor not > 0."""
    s = to_numpy(scores, floats=True).astype(np.float64)
    T = s.shape[0]
    if s.ndim != 2 or s.shape[1] != T or len(row_labels) != T:
        raise ValueError(f"scores of shape {s.shape} and {len(row_labels)} labels: expected (T, T) and T labels")
    if not np.isfinite(s).all():
        raise ValueError("raw scores must be finite (the mask is applied by the chart)")
    if not (temperature > 0 and divisor > 0):
        raise ValueError(f"temperature={temperature} and divisor={divisor} must be > 0")
    labels = np.asarray(row_labels, dtype=object)
    n = T * T
    return {
        "row": np.repeat(labels, T),
        "col": np.tile(labels, T),
        "i": np.repeat(np.arange(T), T),
        "j": np.tile(np.arange(T), T),
        "s": s.reshape(-1),
        "tau0": np.full(n, float(temperature)),
        "div0": np.full(n, float(divisor)),
        "mask0": np.full(n, bool(causal_mask)),
        "uniform0": np.full(n, bool(uniform)),
        "d_head": np.full(n, int(d_head)),
        "layer": np.full(n, int(layer)),
        "head": np.full(n, int(head)),
    }


def _grid(labels: Sequence[str], cell: int, row_title: str, col_title: str) -> tuple[int, alt.Chart, list[alt.Tooltip]]:
    """A T × T heatmap's cell size in pixels (``cell``, or from T when 0), its chart with the key
    (x) and query (y) axes over ``labels``, and the tooltips naming a cell's row and column."""
    size = cell or max(8, min(48, 360 // max(len(labels), 1)))
    x, y, where = grid_axes(labels, labels, size, row_title, col_title)
    return size, alt.Chart().encode(x=x, y=y), where


def _live_layout(
    data: object,
    *,
    labels: Sequence[str],
    page: str = "attn",
    cell: int = 0,
    title: str = "",
    row_title: str = "",
    col_title: str = "",
    value_title: str = "α",
    masked_label: str = "masked (−∞)",
) -> alt.LayerChart:
    """The live α heatmap of the rows of :func:`live_columns` (see :func:`live_alpha_spec`)."""
    T = len(labels)
    size, base, where = _grid(labels, cell, row_title, col_title)
    cells = (
        base.transform_filter("!datum.masked")
        .mark_rect()
        .encode(
            color=alt.Color(
                "alpha:Q",
                scale=alt.Scale(scheme="viridis", domain=[0, 1]),
                title=value_title,
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=[*where, alt.Tooltip("alpha:Q", format=".4f", title=value_title)],
        )
    )
    hidden = masked_layer(
        base.transform_filter("datum.masked")
        .mark_rect(stroke="white", aria=False)
        .encode(tooltip=[*where, alt.Tooltip("masked:N", title=masked_label)]),
        masked_label,
        orient="top",  # the value's legend is below
        from_data=True,  # no "masked" entry while the mask is off
    )
    return (
        with_alpha(alt.layer(cells, hidden, data=data), page)
        .resolve_scale(color="independent")
        .properties(
            title=title,
            width=size * T,
            height=size * T,
            # as the server's heatmap (``heatmaps._heatmap_layout``): the container's width, drawn by
            # ``tinygpt.ui.frame.figure_view.fitted_chart``
            autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
        )
    )


def with_scaled(chart: alt.LayerChart, page: str) -> alt.LayerChart:
    """``chart`` with the parameters bound to ``page``'s hidden inputs and the transforms that add
    ``s_live`` (S, the live edit applied), ``scaled`` (step 4: S / divisor), ``masked`` (step 5's
    hidden future keys) and ``kept`` (step 5: ``scaled``, null where masked) to every row of
    :func:`live_columns`."""
    params = [alt.param(name=n, value="", bind=alt.BindDirect(element=f"#{id_}")) for n, id_ in input_ids(page).items()]
    return (
        chart.add_params(*params)
        .transform_calculate(tau=TAU, div=DIV, hide=MASK, flat=UNIFORM, s_live=EDIT)
        .transform_calculate(masked="datum.hide && datum.j > datum.i", scaled="datum.s_live / datum.div")
        .transform_calculate(kept="datum.masked ? null : datum.scaled")
    )


def with_alpha(chart: alt.LayerChart, page: str) -> alt.LayerChart:
    """``chart`` with :func:`with_scaled`'s parameters and transforms and the ones that add
    ``alpha`` to every row of :func:`live_columns` (the module's formulas)."""
    return (
        with_scaled(chart, page)
        .transform_joinaggregate(m="max(kept)", groupby=["i"])
        .transform_calculate(
            e="datum.masked ? 0 : datum.flat ? 1 : exp((datum.scaled - datum.m) / datum.tau)",
        )
        .transform_joinaggregate(z="sum(e)", groupby=["i"])
        .transform_calculate(alpha="datum.e / datum.z")
    )


#: Steps 4 and 5 drawn live: the value each cell shows, and the |value| its colour bound is the
#: maximum of (null: left out). Step 4's bound is the one steps 3 and 4 share on the page: the
#: larger |S| and |S / divisor| over the keys the mask leaves (``tinygpt.ui.attention.steps``'s
#: ``shared_score_bound``); step 5's the max |value| of its finite entries, as the server's heatmap.
SCORE_VALUE = {"scale": "datum.scaled", "mask": "datum.kept"}
SCORE_BIG = {
    "scale": "datum.masked ? null : max(abs(datum.s_live), abs(datum.scaled))",
    "mask": "datum.masked ? null : abs(datum.scaled)",
}


def with_scores(chart: alt.LayerChart, page: str, step: str) -> alt.LayerChart:
    """``chart`` with :func:`with_scaled`'s transforms and the ones that add step ``step``'s
    ("scale" or "mask") ``value``, its colour bound ``b`` (a joinaggregate of the max |value|, 1
    when all are 0) and ``shade`` (``value`` clamped to [-b, b], the colour's field)."""
    return (
        with_scaled(chart, page)
        .transform_calculate(value=SCORE_VALUE[step], big=SCORE_BIG[step])
        .transform_joinaggregate(bound="max(big)")
        .transform_calculate(b="datum.bound > 0 ? datum.bound : 1")
        .transform_calculate(shade="datum.value === null ? null : clamp(datum.value, -datum.b, datum.b)")
    )


def _live_scores_layout(
    data: object,
    *,
    labels: Sequence[str],
    step: str,
    page: str = "attn",
    title: str = "",
    row_title: str = "",
    col_title: str = "",
    value_title: str = "value",
    masked_label: str = "masked (−∞)",
) -> alt.LayerChart:
    """The live heatmap of step ``step`` (see :func:`live_scores_spec`)."""
    T = len(labels)
    size, base, where = _grid(labels, 0, row_title, col_title)
    # the server's scale (``heatmaps._heatmap_layout``) with its domain [-b, b] from the data: two
    # transparent cells under cell (0, 0), never masked, hold -b and b on the cells' shared scale
    scale = alt.Scale(scheme="blueorange", domainMid=0, clamp=True)
    legend = alt.Legend(orient="bottom")
    edges = (
        base.transform_filter("datum.i === 0 && datum.j === 0")
        .transform_calculate(lo="-datum.b", hi="datum.b")
        .transform_fold(["lo", "hi"], as_=["edge_name", "edge"])
        .mark_rect(opacity=0, aria=False)
        .encode(color=alt.Color("edge:Q", scale=scale, title=value_title, legend=legend))
    )
    cells = (
        (base.transform_filter("!datum.masked") if step == "mask" else base)
        .mark_rect()
        .encode(
            color=alt.Color("shade:Q", scale=scale, title=value_title, legend=legend),
            tooltip=[*where, alt.Tooltip("value:Q", format=".4f", title=value_title)],
        )
    )
    chart = alt.layer(edges, cells)
    if step == "mask":
        hidden = masked_layer(
            base.transform_filter("datum.masked")
            .mark_rect(stroke="white", aria=False)
            .encode(tooltip=[*where, alt.Tooltip("masked:N", title=masked_label)]),
            masked_label,
            orient="top",
            from_data=True,
        )
        chart = alt.layer(chart, hidden).resolve_scale(color="independent")
    chart.data = data
    return with_scores(chart, page, step).properties(
        title=title,
        width=size * T,
        height=size * T,
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
    )


def live_scores_spec(
    columns: Mapping[str, np.ndarray],
    labels: Sequence[str],
    step: str,
    description: str = "",
    *,
    page: str = "attn",
    **texts: str,
) -> dict:
    """The Vega-Lite dict of step ``step``'s live heatmap ("scale": S / divisor; "mask": the same
    with −∞, drawn masked, above the diagonal while the mask is on) of ``columns``
    (:func:`live_columns`) over the T position ``labels``, recomputed in the browser from
    ``page``'s hidden inputs, its diverging colour scale's bound too; ``texts``: ``title``,
    ``row_title``, ``col_title``, ``value_title``, ``masked_label``. The same labels, step and
    texts give the same spec whatever the switches. Raises ValueError for another step."""
    if step not in SCORE_VALUE:
        raise ValueError(f"step={step!r}: expected one of {sorted(SCORE_VALUE)}")
    spec = fast_spec(_live_scores_layout, columns, description, labels=tuple(labels), step=step, page=page, **texts)
    return use_canvas(spec, len(labels) ** 2)  # as the server's heatmap of as many cells


def evaluate_scores(
    scores: ArrayLike,
    step: str,
    *,
    divisor: float,
    causal_mask: bool,
    edit: tuple[int, int, float] | None = None,
) -> tuple[np.ndarray, float]:
    """(values, bound) of step ``step`` ("scale" or "mask") from (T, T) raw ``scores`` computed
    as :func:`live_scores_spec`'s transforms do (float64): values (T, T), −∞ where step 5 masks;
    bound the colour scale's. ``edit``: (i, j, value) replacing S[i, j]. For tests."""
    s = to_numpy(scores, floats=True).astype(np.float64).copy()
    if edit is not None:
        s[edit[0], edit[1]] = edit[2]
    T = s.shape[0]
    hidden = np.triu(np.ones((T, T), dtype=bool), 1) if causal_mask else np.zeros((T, T), dtype=bool)
    scaled = s / divisor
    big = np.maximum(np.abs(s), np.abs(scaled)) if step == "scale" else np.abs(scaled)
    bound = float(big[~hidden].max()) or 1.0
    return (scaled if step == "scale" else np.where(hidden, -math.inf, scaled)), bound


def _live_bars_layout(
    data: object, *, keys: Sequence[str], page: str, title: str = "", x_title: str = "", y_title: str = "α"
) -> alt.LayerChart:
    """Bars of one query's α over its keys (rows of :func:`live_columns` with one row i = 0)."""
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X("col:N", sort=list(keys), title=x_title, axis=alt.Axis(labelAngle=0)),
            y=alt.Y("alpha:Q", scale=alt.Scale(domain=[0, 1]), title=y_title, axis=alt.Axis(**y_title_axis(y_title))),
            color=alt.value("#4c78a8"),
            tooltip=[alt.Tooltip("col:N", title=x_title), alt.Tooltip("alpha:Q", format=".4f", title=y_title)],
        )
    )
    return with_alpha(alt.layer(bars, data=data), page).properties(title=title, height=220)


def live_bars_spec(
    scores: ArrayLike,
    keys: Sequence[str],
    *,
    temperature: float,
    divisor: float,
    d: int,
    page: str,
    description: str = "",
    **texts: str,
) -> dict:
    """The Vega-Lite dict of one query's α = softmax(s / divisor / τ) over its m ``keys`` as bars,
    from its m raw scores ``scores`` (q · k), recomputed in the browser from ``page``'s hidden
    inputs (τ, and the divisor: "sqrt" for √d, or a number); ``texts``: ``title``, ``x_title``,
    ``y_title``. The spec is the same text whatever τ and the divisor."""
    s = to_numpy(scores, floats=True).astype(np.float64).reshape(1, -1)  # (1, m)
    m = s.shape[1]
    columns = {
        "col": np.asarray(keys, dtype=object),
        "i": np.zeros(m, dtype=np.int64),
        "j": np.arange(m),
        "s": s[0],
        "tau0": np.full(m, float(temperature)),
        "div0": np.full(m, float(divisor)),
        "mask0": np.zeros(m, dtype=bool),
        "uniform0": np.zeros(m, dtype=bool),
        "d_head": np.full(m, int(d)),
        "layer": np.zeros(m, dtype=np.int64),
        "head": np.zeros(m, dtype=np.int64),
    }
    return fast_spec(_live_bars_layout, columns, description, keys=tuple(keys), page=page, **texts)


def live_alpha_spec(
    columns: Mapping[str, np.ndarray],
    labels: Sequence[str],
    description: str = "",
    *,
    page: str = "attn",
    cell: int = 0,
    **texts: str,
) -> dict:
    """The Vega-Lite dict of the live α heatmap of ``columns`` (:func:`live_columns`) over the T
    position ``labels``, bound to the hidden inputs of ``page`` (:func:`input_ids`); ``cell``: a
    cell's size in pixels (0: from T); ``texts``: ``title``, ``row_title``, ``col_title``,
    ``value_title``, ``masked_label``. The same labels and texts give the same spec whatever the
    switches: only the dataset ``"cells"`` differs. SVG (its marks are what a screen reader reads), on a
    canvas beyond :data:`~tinygpt.explanations.charts.fast.CANVAS_CELLS` cells as the server's heatmap."""
    spec = fast_spec(_live_layout, columns, description, labels=tuple(labels), page=page, cell=cell, **texts)
    return use_canvas(spec, len(labels) ** 2)


def evaluate(
    scores: ArrayLike,
    *,
    temperature: float,
    divisor: float,
    causal_mask: bool,
    uniform: bool,
    edit: tuple[int, int, float] | None = None,
) -> np.ndarray:
    """α of (T, T) raw ``scores`` computed as the chart's transforms do (float64), masked entries
    exactly 0: the browser's arithmetic in Python, for tests against ``tinygpt.attention``.
    ``edit``: (i, j, value) replacing S[i, j]."""
    s = to_numpy(scores, floats=True).astype(np.float64).copy()
    if edit is not None:
        s[edit[0], edit[1]] = edit[2]
    T = s.shape[0]
    hidden = np.triu(np.ones((T, T), dtype=bool), 1) if causal_mask else np.zeros((T, T), dtype=bool)
    scaled = s / divisor
    kept = np.where(hidden, -math.inf, scaled)
    m = kept.max(axis=1, keepdims=True)
    e = np.ones_like(kept) if uniform else np.exp((kept - m) / temperature)  # exp(−∞) = 0
    e[hidden] = 0.0
    return e / e.sum(axis=1, keepdims=True)
