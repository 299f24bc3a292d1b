"""The three τ sliders: each says its range and why in its help, and the values links carried keep loading.

Attention's τ (the attention softmax's temperature) runs 0.0001 to 1000 on uneven steps so its ends
show softmax's limits (argmax, uniform); Predict's τ is another quantity, the sampling temperature
of the next character, from 0 (greedy) to 5; Theory's worked example of three scores needs 0.05 to 5.
"""

from __future__ import annotations

import pytest
from helpers import open_page

from tinygpt.generate import DecodeConfig
from tinygpt.ui.views.predict_table import P_TAU


def _numbers(*values: float) -> list[str]:
    return [f"{v:g}" for v in values]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_tau_slider_says_its_own_range_in_its_help(lang):
    attention = open_page("attention", lang).select_slider(key="attn_temperature")
    lo, hi = attention.options[0], attention.options[-1]
    assert (lo, hi) == ("0.0001", "1000")  # the options as the slider labels them
    assert all(n in attention.help for n in (lo, hi)) and "argmax" in attention.help
    predict = open_page("predict", lang, decode="temperature").slider(key=P_TAU)
    assert (predict.min, predict.max) == (0.0, 5.0)
    assert all(n in predict.help for n in _numbers(predict.min, predict.max, predict.step))
    theory = open_page("theory", lang, section="attention").slider(key="theory_tau")
    assert (theory.min, theory.max) == (0.05, 5.0)
    assert all(n in theory.help for n in [*_numbers(theory.min, theory.max), lo, hi])  # and Attention's, beside


def test_tau_zero_on_predict_is_greedy_decoding():
    assert DecodeConfig(temperature=0.0).greedy and not DecodeConfig(temperature=0.05).greedy


@pytest.mark.parametrize(
    "page, params, key, value",
    [
        ("attention", {"tau": "0.0001"}, "attn_temperature", 1e-4),
        ("attention", {"tau": "1000"}, "attn_temperature", 1000.0),
        ("attention", {"tau": "0.5"}, "attn_temperature", 0.5),
        ("predict", {"tau": "0", "decode": "temperature"}, "predict_temperature", 0.0),
        ("predict", {"tau": "2.35", "decode": "temperature"}, "predict_temperature", 2.35),
        ("theory", {"tau": "0.05", "section": "attention"}, "theory_tau", 0.05),
        ("theory", {"tau": "4.95", "section": "attention"}, "theory_tau", 4.95),
    ],
)
def test_a_tau_a_link_carried_still_loads(page, params, key, value):
    at = open_page(page, "en", **params)
    assert at.session_state[key] == pytest.approx(value) and not at.warning
