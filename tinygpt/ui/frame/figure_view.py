"""PNG and SVG downloads of a chart, for slides: two small buttons beside the chart.

The conversion (``tinygpt.explanations.figures``, too slow to run on every rerun) runs only when a button is clicked:
``st.download_button`` calls its ``data`` callable then, in a thread of its own. Conversions are
cached by the figure's JSON, so the same chart downloaded again (or by another session) is free.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from tinygpt.explanations import charts, figures
from tinygpt.ui.frame.language import tr

#: PNG pixels per chart pixel: sharp on a projector and in a slide scaled up.
PNG_SCALE = 2


# ---- a chart's text alternative (the ``description`` argument of every tinygpt.explanations.charts builder)
# and its data as a table one click away, in the session's language


def heatmap_text(
    title: str, rows: int, cols: int, row_title: str, col_title: str, value: str, masked: bool = False
) -> str:
    """A heatmap's text alternative: its title, rows and columns, what the colour shows (and that
    grey cells are masked)."""
    text = tr("chart.heatmap", title=title, rows=rows, cols=cols, row_title=row_title, col_title=col_title, value=value)
    return text + tr("chart.masked") if masked else text


def bars_text(title: str, n: int, x_title: str, y_title: str, marks: tuple[tuple[str, str], ...] = ()) -> str:
    """A bar chart's text alternative: its title, one bar per x, the height y, and what each
    (mark, what) of ``marks`` marks."""
    text = tr("chart.bars", title=title, n=n, x=x_title, y=y_title)
    return text + "".join(tr("chart.bars_mark", mark=mark, what=what) for mark, what in marks)


def lines_text(title: str, x_title: str, y_title: str) -> str:
    """The loss chart's text alternative: its title, y against x, one line per training run."""
    return tr("chart.lines", title=title, x=x_title, y=y_title)


def vectors_text(title: str, names: list[str], x_title: str, y_title: str) -> str:
    """The text alternative of a picture of 2-D vectors: its title, the arrows' names, the axes."""
    return tr("chart.vectors", title=title, names=", ".join(names), x=x_title, y=y_title)


def chart_data(key: str) -> DeltaGenerator | None:
    """A closed expander under a chart, "The chart's data (table)", keyed ``key``: its container
    while it is open (draw the table in it), None while closed (nothing is drawn or sent)."""
    box = st.expander(tr("chart.table"), key=key, on_change="rerun", icon=":material/table:")
    return box if box.open else None


#: Room beside a heatmap's cells for its row axis (labels and title), in pixels.
AXIS_ROOM_PX = 90


def fitted_chart(spec: dict, where: DeltaGenerator | None = None) -> None:
    """Draw a chart sized to its container (``autosize: fit-x``, ``tinygpt.explanations.charts.heatmap``)
    no wider than its own ``width`` (the plot's, in pixels) plus :data:`AXIS_ROOM_PX`: on a desktop
    the cells keep their size, on a phone the whole chart, axes and legend included, shrinks to the
    screen's width instead of running past its edge. ``where``: the container to draw in (the page
    when None)."""
    width = spec.get("width")
    box = (where or st).container(width=int(width) + AXIS_ROOM_PX if isinstance(width, int | float) else "stretch")
    box.vega_lite_chart(spec, width="stretch")


@st.cache_data(max_entries=512, show_spinner=False, hash_funcs={"torch.Tensor": lambda t: (t.shape, t.tolist())})
def figure_spec(builder: str, *args: object, **kwargs: object) -> dict:
    """The Vega-Lite spec of the chart ``tinygpt.explanations.charts.<builder>(*args, **kwargs)``, cached by the
    arguments. Building and validating an Altair chart costs tens of milliseconds, most of a
    Theory or Predict script run; a first visit draws the examples' default values, the same for
    every session. Draw it with ``st.vega_lite_chart(spec)``."""
    return getattr(charts, builder)(*args, **kwargs).to_dict()


@st.cache_data(show_spinner=False, max_entries=64)
def _svg(spec_json: str) -> str:
    return figures.svg_from_json(spec_json)


@st.cache_data(show_spinner=False, max_entries=64)
def _png(spec_json: str, scale: float) -> bytes:
    return figures.png_from_json(spec_json, scale)


def figure_downloads(
    spec: dict | alt.TopLevelMixin,
    key: str,
    title: str = "",
    *,
    file_stem: str | None = None,
    data: pd.DataFrame | None = None,
) -> None:
    """Two download buttons, PNG and SVG, of the chart the page draws from ``spec`` (and ``data``).

    ``key`` is the page-prefixed widget key (buttons ``{key}_png`` and ``{key}_svg``) and, unless
    ``file_stem`` is given, the file name; ``title`` (in the page's language) titles a chart that
    has none (a slide figure names what it shows). Call it in the script run: the labels are read from the
    session's language there.
    """
    stem = file_stem or key
    row = st.container(horizontal=True, gap="small")
    row.download_button(
        tr("figure.png"),
        lambda: _png(figures.spec_json(spec, title, data), PNG_SCALE),
        file_name=f"{stem}.png",
        mime="image/png",
        help=tr("figure.png_help", scale=PNG_SCALE),
        icon=":material/image:",
        on_click="ignore",
        type="tertiary",
        key=f"{key}_png",
    )
    row.download_button(
        tr("figure.svg"),
        lambda: _svg(figures.spec_json(spec, title, data)),
        file_name=f"{stem}.svg",
        mime="image/svg+xml",
        help=tr("figure.svg_help"),
        icon=":material/image:",
        on_click="ignore",
        type="tertiary",
        key=f"{key}_svg",
    )
