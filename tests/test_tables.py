"""Static tables (tinygpt.ui.frame.tables): the text a student reads, each number's full value, escaping."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import StaticTable

from tinygpt.formatting import format_probability
from tinygpt.ui.frame.tables import STATIC_MAX_CELLS, is_static, matrix_text, table_html, text_table


def test_any_character_shows_as_itself_and_numbers_keep_their_full_value():
    chars = ["<b>", "&amp;", '"x"', "'", "你"]
    probs = [0.5, 1e-5, 0.123456789, 1.0, 0.0]
    table = text_table(
        {"char": chars, "p": probs}, {"p": format_probability}, highlight=[False, True, False, False, True]
    )
    body = table_html(table)
    assert "<b>" not in body and "&lt;b&gt;" in body and "&amp;amp;" in body  # text, not markup
    back = StaticTable(body)
    assert list(back.text["char"]) == chars
    assert list(back.text["p"]) == ["0.5000", "1.00e-05", "0.1235", "1.0000", "0"]
    assert np.allclose(back.value["p"].to_numpy(dtype=float), probs, rtol=1e-8, atol=0)  # the tooltip's 8 digits
    assert back.highlighted == [1, 4]


def test_a_matrix_table_writes_its_decimals_and_minus_infinity_and_labels_its_rows():
    m = np.array([[0.25, -math.inf], [-1.0, 2.345678]])
    back = StaticTable(table_html(matrix_text(m, ["0 你", "1 好"], ["0 你", "1 好"], 2)))
    assert list(back.text.index) == ["0 你", "1 好"] and list(back.text.columns) == ["0 你", "1 好"]
    assert back.text.to_numpy().tolist() == [["0.25", "−∞"], ["-1.00", "2.35"]]
    assert back.value.iloc[0, 1] == -math.inf and back.value.iloc[1, 1] == pytest.approx(2.345678, rel=1e-8)
    with pytest.raises(ValueError, match="labels"):
        matrix_text(m, ["a"], ["b", "c"], 2)


def test_columns_of_unequal_lengths_are_refused():
    with pytest.raises(ValueError, match="unequal"):
        text_table({"a": [1, 2], "b": [1]})
    with pytest.raises(ValueError, match="unequal"):
        text_table({"a": [1, 2]}, highlight=[True])


def test_a_table_is_static_up_to_its_cell_limit_index_and_header_included():
    assert STATIC_MAX_CELLS == 400
    assert is_static(4, 64) and is_static(19, 19)  # 5 · 65 = 325 and 20 · 20 = 400
    assert not is_static(4, 512) and not is_static(20, 19)  # 5 · 513 and 21 · 20 = 420
