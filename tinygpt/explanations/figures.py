"""Charts as image files for slides: the SVG and PNG of the chart a page draws, rendered on the
server by vl-convert (Vega-Lite compiled and drawn in Rust, no browser). No Streamlit here;
``tinygpt.ui.frame.figure_view`` caches the conversions and offers them as downloads.

A spec is what the page passes to ``st.altair_chart`` or ``st.vega_lite_chart``: an Altair chart,
or a Vega-Lite dict whose named datasets (``spec["datasets"]``) may be DataFrames or Arrow tables; ``data`` is the
DataFrame given to ``st.vega_lite_chart(data, spec)`` beside a spec without data of its own.

Text in the figure is drawn with the fonts of this machine: vl-convert reads the system font
directories, and a glyph missing from the chart's font (sans-serif) is taken from any font that
has it. Without a CJK font installed, a PNG shows boxes for Chinese characters; the SVG keeps its
text as text (``<text>`` elements), drawn by the viewer's own fonts.
"""

from __future__ import annotations

import json
import os
from typing import Any

import altair as alt
import pandas as pd
import pyarrow as pa
import vl_convert as vlc

#: Width in pixels of a figure whose chart has none of its own (the page stretches it to its width).
FIGURE_WIDTH = 640
#: Extra font directories (separated by os.pathsep) for the figures, e.g. one holding a CJK font on
#: a host whose system has none.
FONT_DIRS_VARIABLE = "TINYGPT_FONT_DIRS"
#: A figure's data is inline: vl-convert fetches nothing from another host.
NO_URLS: list[str] = []
_COMPOSED = ("facet", "repeat", "concat", "hconcat", "vconcat")  # sized by their sub-views

for _directory in filter(None, os.environ.get(FONT_DIRS_VARIABLE, "").split(os.pathsep)):
    vlc.register_font_directory(_directory)


class FigureError(ValueError):
    """A spec that cannot be made into a figure; the message says why."""


def _rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A DataFrame as Vega-Lite inline rows (NaN becomes null, as the page's Arrow data does)."""
    return json.loads(frame.to_json(orient="records", force_ascii=False))


def _inline_chart(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """A copy of ``chart`` whose DataFrames (its own and its sub-charts') are inline rows.

    Altair would otherwise pass them through its active data transformer, a process-wide setting
    that Streamlit switches while it draws a chart in another session's thread.
    """
    chart = chart.copy(deep=False)
    if isinstance(getattr(chart, "data", alt.Undefined), pd.DataFrame):
        chart.data = {"values": _rows(chart.data)}
    for name in ("layer", "concat", "hconcat", "vconcat"):
        children = getattr(chart, name, alt.Undefined)
        if isinstance(children, list):
            setattr(chart, name, [_inline_chart(c) if isinstance(c, alt.TopLevelMixin) else c for c in children])
    inner = getattr(chart, "spec", alt.Undefined)
    if isinstance(inner, alt.TopLevelMixin):
        chart.spec = _inline_chart(inner)
    return chart


def _has_title(title: object) -> bool:
    if isinstance(title, dict):
        return _has_title(title.get("text"))
    return bool(title)


def figure_spec(spec: dict | alt.TopLevelMixin, title: str, data: pd.DataFrame | None = None) -> dict:
    """The self-contained Vega-Lite dict of a figure.

    Datasets become inline rows, ``title`` is set when the chart has none, and a single view with
    no width of its own (or ``"container"``) gets :data:`FIGURE_WIDTH`. A chart the page sizes to
    its container (``autosize`` ``fit-x``) keeps its own width as its plot's, axes and legend
    added around it, as a desktop draws it. ``spec`` is not changed.
    Raises FigureError for anything that is neither an Altair chart nor a Vega-Lite dict.
    """
    if isinstance(spec, alt.TopLevelMixin):
        out = _inline_chart(spec).to_dict(validate=False)  # the page drew this chart: it is valid
    elif isinstance(spec, dict):
        out = dict(spec)
    else:
        raise FigureError(f"a figure needs an Altair chart or a Vega-Lite dict, not {type(spec).__name__}")
    datasets = out.get("datasets")
    if datasets is not None:
        if not isinstance(datasets, dict):
            raise FigureError(f"spec['datasets'] must map names to rows, not {type(datasets).__name__}")
        out["datasets"] = {
            name: _rows(rows.to_pandas() if isinstance(rows, pa.Table) else rows)
            if isinstance(rows, (pd.DataFrame, pa.Table))
            else rows
            for name, rows in datasets.items()
        }
    if data is not None:
        if not isinstance(data, pd.DataFrame):
            raise FigureError(f"data must be a DataFrame, not {type(data).__name__}")
        out["data"] = {"values": _rows(data)}
    if title and not _has_title(out.get("title")):
        out["title"] = title
    if not any(key in out for key in _COMPOSED) and out.get("width", "container") == "container":
        out["width"] = FIGURE_WIDTH
    autosize = out.get("autosize")
    if isinstance(autosize, dict) and autosize.get("type") == "fit-x" and isinstance(out.get("width"), int | float):
        out["autosize"] = {"type": "pad", "contains": "content"}
    return out


def spec_json(spec: dict | alt.TopLevelMixin, title: str, data: pd.DataFrame | None = None) -> str:
    """:func:`figure_spec` as JSON text, the same text for the same figure (a cache key)."""
    figure = figure_spec(spec, title, data)
    try:
        return json.dumps(figure, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:  # an object JSON cannot hold, or NaN outside a dataset
        raise FigureError(f"the chart's spec is not JSON: {exc}") from exc


def svg_from_json(text: str) -> str:
    """The SVG of a figure given as :func:`spec_json` text. Raises FigureError if Vega-Lite refuses it."""
    try:
        return vlc.vegalite_to_svg(text, allowed_base_urls=NO_URLS)
    except ValueError as exc:
        raise FigureError(f"vl-convert could not draw the figure: {exc}") from exc


def png_from_json(text: str, scale: float = 2) -> bytes:
    """The PNG of a figure given as :func:`spec_json` text, ``scale`` pixels per SVG pixel.

    Raises FigureError if Vega-Lite refuses the spec or the scale is not positive.
    """
    if not scale > 0:
        raise FigureError(f"scale must be positive, not {scale!r}")
    try:
        return vlc.vegalite_to_png(text, scale=scale, allowed_base_urls=NO_URLS)
    except ValueError as exc:
        raise FigureError(f"vl-convert could not draw the figure: {exc}") from exc


def to_svg(spec: dict | alt.TopLevelMixin, title: str, data: pd.DataFrame | None = None) -> str:
    """The chart ``spec`` as SVG text, titled ``title`` if it has no title (see :func:`figure_spec`)."""
    return svg_from_json(spec_json(spec, title, data))


def to_png(spec: dict | alt.TopLevelMixin, title: str, scale: float = 2, data: pd.DataFrame | None = None) -> bytes:
    """The chart ``spec`` as PNG bytes at ``scale`` × its size, titled ``title`` if it has no title."""
    return png_from_json(spec_json(spec, title, data), scale)
