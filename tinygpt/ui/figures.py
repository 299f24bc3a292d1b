"""PNG and SVG downloads of a chart, for slides: two small buttons beside the chart.

The conversion (``tinygpt.figures``, too slow to run on every rerun) runs only when a button is clicked:
``st.download_button`` calls its ``data`` callable then, in a thread of its own. Conversions are
cached by the figure's JSON, so the same chart downloaded again (or by another session) is free.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from tinygpt import charts, figures
from tinygpt.ui.i18n import tr

#: PNG pixels per chart pixel: sharp on a projector and in a slide scaled up.
PNG_SCALE = 2


@st.cache_data(max_entries=512, show_spinner=False, hash_funcs={"torch.Tensor": lambda t: (t.shape, t.tolist())})
def figure_spec(builder: str, *args: object, **kwargs: object) -> dict:
    """The Vega-Lite spec of the chart ``tinygpt.charts.<builder>(*args, **kwargs)``, cached by the
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
