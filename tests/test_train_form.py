"""The Train form's check (tinygpt.ui.train.train_form): every refused value is named once, with what is
accepted, whatever else is refused with it; accepted settings give the configs."""

from __future__ import annotations

import pytest

from tinygpt.config import MAX_EPOCHS, MAX_MAX_LEN, ConfigError
from tinygpt.ui.train.train_form import FORM_FIELDS, check_form

FORM = {
    "d_model": 64,
    "n_heads": 4,
    "n_layers": 2,
    "d_ff": 256,
    "max_len": 128,
    "norm": "pre",
    "positions": "learned",
    "window": 0,
    "lr": 1e-3,
    "epochs": 500,
    "seed": 0,
    "early_stop_loss": 1e-4,
    "causal_mask": True,
}


def refused(text: str = "你好世界", **changed: object) -> list[tuple[str, object, str]]:
    configs, errors = check_form(text, {**FORM, **changed})
    assert (configs is None) == bool(errors)
    return [(e.field, e.value, e.key) if isinstance(e, ConfigError) else ("text", "", "empty") for e in errors]


def test_the_form_holds_every_setting_of_both_configs():
    assert sorted(FORM_FIELDS.values()) == sorted(FORM)


def test_accepted_settings_give_the_configs_with_0_as_the_whole_text():
    configs, errors = check_form("你好世界", FORM)
    assert not errors and configs[0].d_model == 64 and configs[0].vocab_size == 4 and configs[1].window is None
    configs, _ = check_form("你好世界", {**FORM, "window": 3})
    assert configs[1].window == 3


def test_each_refused_value_is_named_once_in_the_forms_order():
    assert refused("", d_model=64, n_heads=3, max_len="", window="abc", lr="abc", epochs="0.5", seed=-1) == [
        ("n_heads", 3, "divisor"),
        ("max_len", "", "int_range"),
        ("text", "", "empty"),
        ("window", "abc", "window_or_whole"),
        ("lr", "abc", "lr"),
        ("epochs", "0.5", "int_range"),
        ("seed", -1, "int_range"),
    ]


@pytest.mark.parametrize("window", ["abc", "0.5", "", -1, MAX_MAX_LEN + 1])
def test_a_refused_max_len_leaves_the_window_judged_by_the_largest_max_len(window):
    configs, errors = check_form("你好世界", {**FORM, "max_len": 0, "window": window})
    assert configs is None and [e.field for e in errors] == ["max_len", "window"]
    assert errors[1].params == {"hi": MAX_MAX_LEN}  # not "from 1 to 1" of the refused max_len 0


def test_an_accepted_max_len_bounds_the_window():
    (error,) = check_form("你好世界", {**FORM, "max_len": 16, "window": 17})[1]
    assert (error.field, error.params) == ("window", {"hi": 16})


def test_epochs_beyond_the_host_and_a_refused_d_model_are_named_with_their_own_limits():
    assert refused(epochs=MAX_EPOCHS + 1, seed="x") == [
        ("epochs", MAX_EPOCHS + 1, "max_epochs"),
        ("seed", "x", "int_range"),
    ]
    # with d_model refused, n_heads is not judged against it
    assert refused(d_model=2000, n_heads=3) == [("d_model", 2000, "int_range")]
    assert refused(d_model=63, positions="sinusoidal", n_heads=3) == [("d_model", 63, "even")]


def test_a_limit_of_the_settings_together_is_said_once_after_the_single_values():
    # the parameters of a wide deep model: one message, beside the refused seed
    assert refused(d_model=1024, n_heads=8, n_layers=12, d_ff=4096, seed="?") == [
        ("seed", "?", "int_range"),
        ("n_parameters", pytest.approx(151_000_000, rel=0.1), "max_params"),
    ]
