"""Tables of the pages: small ones as static HTML (``st.table``), large ones as a scrolling grid.

A static table is part of the page's HTML: its new numbers are on screen in the same frame as
the charts beside it, and a screen reader or a test reads them there. ``st.dataframe`` draws on a
canvas and fills its accessible copy a moment after the canvas; it draws only the part in view,
which a table of thousands of cells needs (a long text's T × d_model input, its T × T scores).
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import streamlit as st
from pandas.io.formats.style import Styler

#: Up to this many cells (index and header included) a table is drawn static.
STATIC_MAX_CELLS = 400

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
               max_height: int | None = None, column_config: dict | None = None, key: str | None = None) -> bool:
    """Draw ``data``: static (``st.table``) when it has at most :data:`STATIC_MAX_CELLS` cells,
    else a scrolling ``st.dataframe`` (with ``column_config`` and ``key``).

    ``max_height`` (pixels): a taller table scrolls (a static table keeps its header in view).
    A Styler's formats and colours are drawn by both; ``column_config`` only by the grid, so give
    a static table its number formats through a Styler (and a column's help in a caption).
    Returns True when the table was drawn static.
    """
    rows, cols = table_size(data)
    if (rows + 1) * (cols + 1) <= STATIC_MAX_CELLS:
        tall = max_height is not None and ROW_PX * (rows + 1) > max_height
        st.table(data, hide_index=hide_index, height=max_height if tall else "content")
        return True
    st.dataframe(data, hide_index=hide_index, width="stretch", column_config=column_config, key=key,
                 height=min(max_height, ROW_PX * (rows + 1) + 3) if max_height else "auto")
    return False
