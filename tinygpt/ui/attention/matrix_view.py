"""A step's matrix on the Attention page: its heatmap, and its table (with a CSV of every value and
the figure's downloads) one click away; a wide matrix shows the chosen head's columns unless the
student asks for all of them.

Shapes: R rows, C columns (T sequence length, D d_model).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st
import torch

from tinygpt.arrays import to_numpy
from tinygpt.explanations.charts import heatmap_spec
from tinygpt.i18n import CATALOGUE
from tinygpt.ui.attention import state as s
from tinygpt.ui.frame.figure_view import figure_downloads, fitted_chart, heatmap_text
from tinygpt.ui.frame.help import help_toggle
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.tables import is_static, matrix_text, show_table
from tinygpt.ui.shared import attention_data as data
from tinygpt.ui.views.lesson import control

#: Width in pixels of a number column of a long text's T × T grid (2 decimals).
TABLE_COLUMN_PX = 52


def tensor_title(name: str) -> str:
    """A tensor's name as a chart's title writes it: its symbol ("α" for ``alpha``), with a word
    in the page's language where the code's name is a word ("S̃ (scaled)"), so a title never
    mixes languages ("alpha · 头 0"); a symbol as it is (Q, K, V, S)."""
    key = f"attn.tensor.{name}"
    return tr(key) if key in CATALOGUE else name


def matrix_view(
    m: torch.Tensor,
    labels: Sequence[str],
    cols: Sequence[str],
    *,
    name: str,
    title: str,
    square: bool,
    kind: str,
    masked: torch.Tensor | None,
    bound: float | None,
    columns: tuple[int, int, str, str] | None,
    file_name: str,
    live: dict | None = None,
) -> None:
    """A matrix as a heatmap, with its table (and a CSV of every value) one click away.

    Args:
        m: (R, C) values; −∞ entries are written −∞ in the table and drawn as masked.
        square: a query × key matrix (T, T): its table shows 2 decimals; the CSV and the
            heatmap's tooltip keep every digit.
        masked: (R, C) booleans drawn grey on the heatmap, or None.
        bound: the signed colour scale's [-bound, bound], or None for the matrix's own max |value|.
        columns: (first, n, help, title) for a wide matrix: unless the student asks for all C
            columns, the heatmap and the table show columns first..first+n-1 under ``title``.
        live: a Vega-Lite dict drawn instead of the heatmap (the same picture, recomputed in the
            browser while a switch moves: ``tinygpt.ui.attention.live_bridge``); the downloads stay the heatmap's.
    """
    C = m.shape[1]
    shown, shown_cols, shown_title = m, cols, title
    if columns is not None and C > 16:
        first, n, help_text, part_title = columns
        if not control(
            s.K_ALL_COLUMNS,
            lambda: help_toggle(tr("attn.all_columns", D=C), help_text, key=s.K_ALL_COLUMNS, persist_state="session"),
            None,
        ):
            shown, shown_cols, shown_title = m[:, first : first + n], cols[first : first + n], part_title
    row_title = tr("attn.axis_query") if square else tr("attn.axis_pos")
    col_title = tr("attn.axis_key") if square else tr("attn.axis_dim")
    value_title = "α" if kind == "prob" else tr("attn.value")
    spec = heatmap_spec(
        shown,
        labels,
        shown_cols,
        kind=kind,
        title=shown_title,
        masked=masked,
        bound=bound,
        row_title=row_title,
        col_title=col_title,
        value_title=value_title,
        masked_label=tr("attn.masked"),
        description=heatmap_text(
            shown_title,
            len(labels),
            len(shown_cols),
            row_title,
            col_title,
            value_title,
            masked is not None or bool(torch.isneginf(shown).any()),
        ),
    )
    fitted_chart(spec if live is None else live)
    decimals = 2 if square else 4
    # one label for every step, so the expander stays open from step to step; drawn only while open
    box = st.expander(tr("attn.table_open"), key=s.K_TABLE, on_change="rerun", icon=":material/table:")
    if not box.open:
        return
    with box:
        st.markdown(f"**{tr('attn.table', name=shown_title)}**")
        if is_static(shown.shape[0], len(shown_cols)):  # the text as shown, each value in its tooltip
            show_table(matrix_text(to_numpy(shown, floats=True), labels, shown_cols, decimals), max_height=600)
        elif square:  # a long text's T × T grid: the text, in narrow columns
            table = matrix_text(to_numpy(shown, floats=True), labels, shown_cols, decimals).to_arrow()
            config = {c: st.column_config.TextColumn(width=TABLE_COLUMN_PX, alignment="right") for c in shown_cols}
            show_table(table, column_config=config, max_height=600)
        else:  # a wide grid (every column of d_model): the numbers, every digit
            show_table(matrix_table(shown, labels, shown_cols), max_height=600)
        if square:
            st.caption(tr("attn.table_rounded"))
        left, right = st.columns(2)
        left.download_button(
            tr("attn.download"),
            lambda: data.matrix_csv(m, list(labels), list(cols)),
            icon=":material/download:",
            file_name=file_name,
            mime="text/csv",
            on_click="ignore",
            key="attn_download",
        )
        with right:
            figure_downloads(spec, "attn_figure", shown_title, file_stem=file_name.removesuffix(".csv"))


def matrix_table(values: torch.Tensor, row_labels: Sequence[str], col_labels: Sequence[str]) -> pd.DataFrame:
    """A (R, C) matrix as a DataFrame of float32 with the row labels as its index (a grid's data)."""
    arr = to_numpy(values, floats=True).astype(np.float32, copy=False)
    return pd.DataFrame(arr, index=list(row_labels), columns=list(col_labels))
