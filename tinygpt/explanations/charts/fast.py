"""One way to build a chart's Vega-Lite dict fast, for charts redrawn on every slider move.

A page that redraws on every slider move pays for Altair's JSON-schema validation, most of the
time a heatmap takes to build (more with 512 sorted labels). Every chart is written once, as a
*layout*: a function ``layout(data, **options)`` that returns the Altair chart of the table
``data`` (a DataFrame, or the named dataset ``"cells"``). :func:`altair_chart` gives it the rows
as a DataFrame (the Altair chart a figure or a test takes); :func:`fast_spec` builds its Vega-Lite
dict once per layout options, without validation, keeps it, and on each call only puts in the new
rows as the named dataset, an Arrow table built from the arrays (Streamlit sends it as Arrow; a
DataFrame would be built and then converted on every call). Draw the result with
``st.vega_lite_chart(spec)``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping

import altair as alt
import pandas as pd
import pyarrow as pa

from tinygpt.explanations.charts.axes import describe, described

DATA_NAME = "cells"
#: A heatmap with more cells than this is drawn on a canvas instead of as SVG: one SVG element per
#: cell makes a 128 × 128 heatmap 16,384 elements, slow to lay out and to redraw. (Streamlit picks
#: a canvas by itself past 2,000 rows, but only for views without transforms, and the heatmaps
#: filter the masked cells out.) Smaller heatmaps stay SVG, whose marks screen readers can read.
CANVAS_CELLS = 1024

#: A layout: the Altair chart of a table (``data``) drawn with keyword options (labels, titles, sizes).
Layout = Callable[..., alt.TopLevelMixin]


def use_canvas(spec: dict, cells: int) -> dict:
    """``spec`` drawn on a canvas (Vega-Embed's renderer, ``usermeta.embedOptions``) when it
    draws more than :data:`CANVAS_CELLS` cells; returns ``spec``."""
    if cells > CANVAS_CELLS:
        spec["usermeta"] = {"embedOptions": {"renderer": "canvas"}}
    return spec


def vega_spec(chart: alt.TopLevelMixin, name: str = DATA_NAME) -> dict:
    """Vega-Lite dict of ``chart`` without JSON-schema validation; its DataFrame becomes
    ``spec["datasets"][name]`` (referenced by ``{"name": name}``) instead of inline JSON rows.

    Only the top-level data is moved (what ``alt.layer``/``facet`` of one table produce).
    """
    top = chart.copy(deep=False)
    data = top.data
    if isinstance(data, pd.DataFrame):
        top.data = alt.NamedData(name=name)
    spec = top.to_dict(validate=False)
    if isinstance(data, pd.DataFrame):
        spec["datasets"] = {name: data}
    return spec


def _hashable(value: object) -> object:
    """``value`` as a cache key: a sequence (labels as a list or an array, a domain) becomes a tuple."""
    return value if value is None or isinstance(value, (str, int, float, tuple)) else tuple(value)


@functools.lru_cache(maxsize=640)
def _template(layout: Layout, options: tuple[tuple[str, object], ...]) -> str:
    """The Vega-Lite dict (JSON) of ``layout`` drawing the dataset ``"cells"`` with ``options``."""
    return json.dumps(layout(alt.NamedData(name=DATA_NAME), **dict(options)).to_dict(validate=False))


#: Options that are only shown text (a layout passes them through unchanged): the template is built
#: with a placeholder and the text is put in after, so charts that differ only in these (the nine
#: steps' heatmaps, titled by step) share one Altair build.
TEXT_OPTIONS = ("title", "value_title")


def _placeholder(name: str) -> str:
    return f"\ue000{name}\ue000"  # private-use characters: never in a title


def fast_spec(layout: Layout, columns: Mapping[str, object], description: str = "", /, **options: object) -> dict:
    """The Vega-Lite dict of ``layout(rows, **options)``: the same picture as
    :func:`altair_chart` of the same arguments, built with Altair once per ``options`` (labels,
    sizes: the layout, never the data; :data:`TEXT_OPTIONS` put in afterwards) and filled with
    ``columns`` as the dataset ``"cells"``, so a chart whose numbers change keeps its spec and the
    browser only swaps the data."""
    texts = {k: v for k, v in options.items() if k in TEXT_OPTIONS and isinstance(v, str) and v}
    shaped = {**options, **{k: _placeholder(k) for k in texts}}
    key = tuple(sorted((name, _hashable(value)) for name, value in shaped.items()))
    text = _template(layout, key)
    for name, value in texts.items():
        text = text.replace(json.dumps(_placeholder(name))[1:-1], json.dumps(value)[1:-1])
    spec = json.loads(text)
    spec.setdefault("datasets", {})[DATA_NAME] = pa.table(columns)
    return describe(spec, description)


def altair_chart(
    layout: Layout, columns: Mapping[str, object], description: str = "", /, **options: object
) -> alt.TopLevelMixin:
    """The Altair chart of ``layout`` drawing ``columns`` (as a DataFrame) with ``options``,
    described by ``description`` (its text alternative)."""
    return described(layout(pd.DataFrame(dict(columns)), **options), description)
