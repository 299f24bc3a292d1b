"""Tables of the pages: small ones as plain HTML tables, large ones as a scrolling grid.

A small table is a ``<table>`` in the page (``st.html``): its numbers are on screen in the same
frame as the charts beside it, a screen reader and a test read them there, and a rounded number
shows every digit in its tooltip. ``st.table`` would draw the same table but renders every cell
through Streamlit's Markdown component, which made a 4 × 64 step table most of a step's drawing
time. ``st.dataframe`` draws on a canvas and fills its accessible copy a moment after the canvas;
it draws only the part in view, which a table of thousands of cells needs (a long text's
T × d_model input, its T × T scores).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

#: Up to this many cells (index and header included) a table is drawn static (HTML).
STATIC_MAX_CELLS = 400

#: Pixels of one row of either kind of table, for a height in rows.
ROW_PX = 35

#: The class of a static table's box; the app's style sheet (``navigation.NARROW_SCREEN_CSS``)
#: draws it, tests and benchmarks find tables by it.
TABLE_CLASS = "tg-table"


@dataclass(frozen=True)
class TextTable:
    """A table as the student reads it: the text of every cell, column by column, and for a
    column of rounded numbers the numbers themselves (a static table's tooltips; a test's check).

    ``text[name]`` and ``values[name]`` hold one entry per row; ``index`` labels the rows (None: no
    row labels); ``highlight`` flags rows drawn highlighted (a static table only).
    """

    text: dict[str, list[str]]
    values: dict[str, list[float]]
    index: list[str] | None = None
    highlight: list[bool] | None = None

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns)."""
        first = next(iter(self.text.values()), [])
        return len(first), len(self.text)

    def to_arrow(self) -> pa.Table:
        """The text as an Arrow table (what a grid draws); the row labels as its pandas index."""
        frame = pd.DataFrame(self.text, index=self.index)
        return pa.Table.from_pandas(frame, preserve_index=self.index is not None)


def text_table(
    columns: Mapping[str, Sequence],
    formats: Mapping[str, Callable[[float], str]] | None = None,
    highlight: Sequence[bool] | None = None,
) -> TextTable:
    """The columns as a :class:`TextTable` with no row labels, each value of a column in
    ``formats`` written by its function (a probability with
    :func:`tinygpt.formatting.format_probability`, …) and kept as a number; other values as ``str``
    writes them. ``highlight``: one flag per row.
    Raises ValueError when the columns' lengths differ.
    """
    formats = formats or {}
    lengths = {len(values) for values in columns.values()} | ({len(highlight)} if highlight is not None else set())
    if len(lengths) > 1:
        raise ValueError(f"columns of unequal lengths {sorted(lengths)}")
    text = {
        name: [formats[name](v) for v in values] if name in formats else [str(v) for v in values]
        for name, values in columns.items()
    }
    values = {name: [float(v) for v in columns[name]] for name in formats if name in columns}
    return TextTable(text, values, None, list(highlight) if highlight is not None else None)


def matrix_text(values: np.ndarray, row_labels: Sequence[str], col_labels: Sequence[str], decimals: int) -> TextTable:
    """A (R, C) matrix as a :class:`TextTable`: ``decimals`` decimals, −∞ for a masked score, the
    row labels as its index and every value kept.
    Raises ValueError if the labels do not match the matrix's shape."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.shape != (len(row_labels), len(col_labels)):
        raise ValueError(f"a {arr.shape} matrix with {len(row_labels)} row and {len(col_labels)} column labels")
    text = np.char.mod(f"%.{decimals}f", arr)
    text[np.isneginf(arr)] = "−∞"
    return TextTable(
        {str(c): t for c, t in zip(col_labels, text.T.tolist())},
        {str(c): v for c, v in zip(col_labels, arr.T.tolist())},
        [str(r) for r in row_labels],
    )


def frame_text(frame: pd.DataFrame, hide_index: bool | None = None) -> TextTable:
    """A DataFrame as a :class:`TextTable`: each value as ``str`` writes it (round a number first
    to show fewer digits); the row labels unless ``hide_index`` (None: hidden for a plain 0..n-1)."""
    if hide_index is None:
        hide_index = isinstance(frame.index, pd.RangeIndex)
    text = {str(name): [str(v) for v in column.tolist()] for name, column in frame.items()}
    return TextTable(text, {}, None if hide_index else [str(i) for i in frame.index])


def _number_text(value: float) -> str:
    """A number's full value for a tooltip: 8 significant digits, as the CSV writes it."""
    return "−∞" if value == -math.inf else f"{value:.8g}"


def table_html(table: TextTable, max_height: int | None = None) -> str:
    """The HTML of a static table: a box of class :data:`TABLE_CLASS` (taller than ``max_height``
    pixels: it scrolls, its header stays in view) holding a ``<table>``. A column of numbers is
    right-aligned (class ``n``) and each of its cells has its full value as a tooltip (``title``);
    a highlighted row has class ``hl``. Every text is HTML-escaped."""
    esc = html.escape
    names = list(table.text)
    rows, _ = table.shape
    corner = "<th></th>" if table.index is not None else ""
    head = corner + "".join(
        f'<th class="n">{esc(n)}</th>' if n in table.values else f"<th>{esc(n)}</th>" for n in names
    )
    columns = [
        [f'<td class="n" title="{esc(_number_text(v))}">{esc(t)}</td>' for t, v in zip(table.text[n], table.values[n])]
        if n in table.values
        else [f"<td>{esc(t)}</td>" for t in table.text[n]]
        for n in names
    ]
    body = []
    for r in range(rows):
        label = f"<th>{esc(table.index[r])}</th>" if table.index is not None else ""
        css = ' class="hl"' if table.highlight is not None and table.highlight[r] else ""
        body.append(f"<tr{css}>{label}{''.join(column[r] for column in columns)}</tr>")
    style = f' style="max-height:{int(max_height)}px"' if max_height is not None else ""
    return (
        f'<div class="{TABLE_CLASS}"{style}><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def is_static(rows: int, cols: int) -> bool:
    """Whether :func:`show_table` draws a table of ``rows`` × ``cols`` values static."""
    return (rows + 1) * (cols + 1) <= STATIC_MAX_CELLS


def show_table(
    data: TextTable | pd.DataFrame | pa.Table,
    *,
    hide_index: bool | None = None,
    max_height: int | None = None,
    column_config: dict | None = None,
    key: str | None = None,
    on_demand: tuple[str, str] | None = None,
) -> bool:
    """Draw ``data``: static (an HTML table) when it has at most :data:`STATIC_MAX_CELLS` cells,
    else a scrolling ``st.dataframe`` (with ``column_config`` and ``key``).

    ``hide_index``: leave out a DataFrame's row labels (None: hidden for a plain 0..n-1); a
    :class:`TextTable` shows its own. ``max_height`` (pixels): a taller table scrolls.
    ``column_config`` is the grid's only: give a static table its number formats through
    :func:`text_table` (and a column's help in a caption).
    ``on_demand`` = (label, widget key): a grid goes in a closed expander with that label and is
    drawn only while it is open (a long text's tables are thousands of cells that the page's
    heatmap and chart already show; the grid's code is then not even loaded).
    Returns True when the table was drawn static.
    """
    rows, cols = data.shape if not isinstance(data, pa.Table) else (data.num_rows, data.num_columns)
    if is_static(rows, cols):
        if isinstance(data, pa.Table):
            data = data.to_pandas()
        table = data if isinstance(data, TextTable) else frame_text(data, hide_index)
        st.html(table_html(table, max_height))
        return True
    if isinstance(data, TextTable):  # its numbers right-aligned, as in a static table
        column_config = {name: st.column_config.TextColumn(alignment="right") for name in data.values} | (
            column_config or {}
        )
        data = data.to_arrow()
    if hide_index is None and isinstance(data, pa.Table):
        hide_index = (
            False  # an Arrow table's index is its labels (else it has none): Streamlit need not convert it to ask
        )
    box = st.container()
    if on_demand is not None:
        label, box_key = on_demand
        box = st.expander(label, key=box_key, on_change="rerun", icon=":material/table:")
        if not box.open:
            return False
    box.dataframe(
        data,
        hide_index=hide_index,
        width="stretch",
        column_config=column_config,
        key=key,
        height=min(max_height, ROW_PX * (rows + 1) + 3) if max_height else "auto",
    )
    return False
