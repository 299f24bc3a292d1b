"""The strict reader of numbers from outside (tinygpt.numbers) and the named characters of messages."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinygpt.config import ConfigError
from tinygpt.formatting import char_name, shown_text
from tinygpt.numbers import MAX_INT_CHARS, read_choice, read_float, read_int, read_int_list


@pytest.mark.parametrize("raw, value", [("0", 0), ("7", 7), (" 3 ", 3), ("+2", 2), ("-0", 0), ("0005", 5)])
def test_read_int_reads_ascii_digits(raw, value):
    assert read_int(raw, "layer", 0, 10) == value


@pytest.mark.parametrize("raw", ["²", "①", "３", "1.0", "1e3", "", " ", "1_0", "0x1", "٣", "11", "-1", "1" * 4400])
def test_read_int_refuses_everything_else_naming_the_value(raw):
    with pytest.raises(ConfigError) as info:
        read_int(raw, "layer", 0, 10)
    err = info.value
    assert err.field == "layer" and err.key == "int_range" and err.params == {"lo": 0, "hi": 10}
    assert len(str(err.value)) <= 31  # shortened: a 4,400-digit value is not repeated back


@pytest.mark.parametrize("raw, value", [("0.5", 0.5), ("1e-3", 1e-3), (".5", 0.5), ("-2", -2.0), ("1000", 1000.0)])
def test_read_float_reads_ascii_decimals(raw, value):
    assert read_float(raw, "tau", -5, 1000) == value


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf", "1e400", "１.５", "1_0.0", "0x1p3", "½", "1001", "", "e3"])
def test_read_float_refuses_non_finite_odd_and_out_of_range(raw):
    with pytest.raises(ConfigError) as info:
        read_float(raw, "tau", -5, 1000)
    assert info.value.key == "float_range" and info.value.params == {"lo": "-5", "hi": "1000"}


def test_read_choice_and_int_list():
    assert read_choice(" Head ", "uniform", {"none": "none", "head": "head"}) == "head"
    with pytest.raises(ConfigError) as info:
        read_choice("heads", "uniform", {"none": "none", "head": "head"})
    assert info.value.params == {"options": "none, head"}
    assert read_int_list("2,0,2", "off", 0, 3, 4) == [0, 2]
    assert read_int_list("none", "off", 0, 3, 4) == [] and read_int_list("", "off", 0, 3, 4) == []
    for bad in ("0,４", "0,,1", "4", "0,1,2,3,0", "²"):
        with pytest.raises(ConfigError):
            read_int_list(bad, "off", 0, 3, 4)


@given(st.text(max_size=60))
def test_read_int_only_ever_returns_a_number_in_range_or_refuses(raw):
    try:
        value = read_int(raw, "n", -5, 5)
    except ConfigError as exc:
        assert exc.field == "n"
    else:
        assert -5 <= value <= 5 and raw.strip().lstrip("+-").isascii()


@given(st.text(max_size=60))
def test_read_float_only_ever_returns_a_finite_number_in_range_or_refuses(raw):
    try:
        value = read_float(raw, "x", 0.0, 10.0)
    except ConfigError:
        pass
    else:
        assert 0.0 <= value <= 10.0


def test_named_characters():
    assert char_name("你") == "你" and char_name("²") == "²"
    assert char_name(" ") == "␣ (U+0020)"
    assert char_name("\u200c") == "U+200C" and char_name("\u202e") == "U+202E" and char_name("\t") == "U+0009"
    assert char_name("\u0301") == "◌\u0301 (U+0301)"
    shown = shown_text("你\u200c好\u202e世界")
    assert shown == "你⟨U+200C⟩好⟨U+202E⟩世界" and "\u202e" not in shown
    assert shown_text("x" * 40, limit=30) == "x" * 30 + "…"
    assert MAX_INT_CHARS < 4300
