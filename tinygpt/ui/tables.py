"""Tables of the pages: small ones as static HTML (``st.table``), large ones as a scrolling grid.

A static table is part of the page's HTML: its new numbers are on screen in the same frame as
the charts beside it, and a screen reader or a test reads them there. ``st.dataframe`` draws on a
canvas and fills its accessible copy a moment after the canvas; it draws only the part in view,
which a table of thousands of cells needs (a long text's T × d_model input, its T × T scores).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd
import pyarrow as pa
import streamlit as st
from pandas.io.formats.style import Styler

#: Up to this many cells (index and header included) a table is drawn static.
STATIC_MAX_CELLS = 400

#: Background of a highlighted row of a static table (Streamlit's Markdown colour directive).
HIGHLIGHT = "orange-background"

#: Pixels of one row of either kind of table, for a height in rows.
ROW_PX = 35


def table_size(data: pd.DataFrame | Styler | pa.Table) -> tuple[int, int]:
    """(rows, columns) of ``data``'s values (a Styler's frame; an Arrow table's columns)."""
    if isinstance(data, Styler):
        data = data.data
    if isinstance(data, pa.Table):
        return data.num_rows, data.num_columns
    return data.shape


def show_table(data: pd.DataFrame | Styler | pa.Table, *, hide_index: bool | None = None,
               max_height: int | None = None, column_config: dict | None = None, key: str | None = None,
               on_demand: tuple[str, str] | None = None) -> bool:
    """Draw ``data``: static (``st.table``) when it has at most :data:`STATIC_MAX_CELLS` cells,
    else a scrolling ``st.dataframe`` (with ``column_config`` and ``key``).

    ``max_height`` (pixels): a taller table scrolls (a static table keeps its header in view).
    A Styler's formats and colours are drawn by both; ``column_config`` only by the grid, so give
    a static table its number formats through a Styler (and a column's help in a caption).
    ``on_demand`` = (label, widget key): a grid goes in a closed expander with that label and is
    drawn only while it is open (a long text's tables are thousands of cells that the page's
    heatmap and chart already show; the grid's code is then not even loaded).
    Returns True when the table was drawn static.
    """
    rows, cols = table_size(data)
    if hide_index is None and isinstance(data, pa.Table):
        hide_index = False  # an Arrow table's index is its labels (else it has none): Streamlit need not convert it to ask
    if is_static(rows, cols):
        tall = max_height is not None and ROW_PX * (rows + 1) > max_height
        st.table(data, hide_index=hide_index, height=max_height if tall else "content")
        return True
    box = st.container()
    if on_demand is not None:
        label, box_key = on_demand
        box = st.expander(label, key=box_key, on_change="rerun", icon=":material/table:")
        if not box.open:
            return False
    box.dataframe(data, hide_index=hide_index, width="stretch", column_config=column_config, key=key,
                  height=min(max_height, ROW_PX * (rows + 1) + 3) if max_height else "auto")
    return False


def is_static(rows: int, cols: int) -> bool:
    """Whether :func:`show_table` draws a table of ``rows`` × ``cols`` values static."""
    return (rows + 1) * (cols + 1) <= STATIC_MAX_CELLS


def text_table(columns: Mapping[str, Sequence], formats: Mapping[str, Callable[[float], str]] | None = None,
               highlight: Sequence[bool] | None = None) -> pa.Table:
    """The columns as an Arrow table with no index, each value of a column in ``formats`` written
    by its function (a probability with :func:`tinygpt.formatting.format_probability`, …).

    A table drawn static shows its text cells as Markdown: ``highlight`` (one flag per row) colours
    the flagged rows' cells, and the other text is escaped so any character shows as itself. A
    grid shows the text as it is. This is what a pandas Styler would draw, without the Styler's
    cell-by-cell marshalling on every script run.
    Raises ValueError when the columns' lengths differ.
    """
    from tinygpt.ui.i18n import md_escape

    formats = formats or {}
    lengths = {len(values) for values in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns of unequal lengths {sorted(lengths)}")
    n = lengths.pop() if lengths else 0
    static = is_static(n, len(columns))
    arrays = {}
    for name, values in columns.items():
        if name in formats:
            cells = [formats[name](v) for v in values]
        elif static and (highlight is not None or any(isinstance(v, str) for v in values)):
            cells = [md_escape(str(v)) for v in values]
        else:
            arrays[name] = pa.array(list(values))
            continue
        if static and highlight is not None:
            cells = [f":{HIGHLIGHT}[{c}]" if on and c else c for c, on in zip(cells, highlight)]
        arrays[name] = pa.array(cells, pa.string())
    return pa.table(arrays)
