"""The Train page: checkpoints, presets, the runs table, refused settings (AppTest, zh and en)."""

from __future__ import annotations

import json
import math

import pytest
from helpers import SMALL, small_model, tables
from streamlit.testing.v1 import AppTest

from tinygpt.config import TrainConfig
from tinygpt.i18n import t
from tinygpt.training.checkpoint import to_bytes
from tinygpt.training.train import train
from tinygpt.ui.shared.models import K_JOB, default_model
from tinygpt.ui.views.train_table import (
    T_CAUSAL_MASK,
    T_D_MODEL,
    T_EPOCHS,
    T_MAX_LEN,
    T_SEED,
    T_TEXT,
    T_UPLOAD,
    T_WINDOW,
)
from tinygpt.vocab import causal_loss_floor


def open_train(lang: str) -> AppTest:
    at = AppTest.from_file("../streamlit_app.py", default_timeout=180)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def upload(at: AppTest, data: bytes) -> AppTest:
    at.file_uploader(key=T_UPLOAD).set_value(("model.safetensors", data, "application/octet-stream"))
    return at.run()


def column_configs(frame) -> dict:
    return json.loads(frame.proto.columns)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_loaded_checkpoint_fills_the_form_and_draws_its_curve(lang):
    record = train(
        "白日依山尽", SMALL, TrainConfig(lr=3e-3, epochs=7, seed=5, early_stop_loss=0.0, causal_mask=False, window=3)
    )
    at = upload(open_train(lang), to_bytes(record))
    assert not at.exception and at.success[0].value.startswith(
        t("train.upload_ok", lang, text="白日依山尽", params=0, steps=0)[:4]
    )
    values = {
        key: at.session_state[key]
        for key in (
            "train_text",
            "train_window",
            "train_d_model",
            "train_n_heads",
            "train_n_layers",
            "train_d_ff",
            "train_max_len",
            "train_lr",
            "train_epochs",
            "train_seed",
            "train_early_stop",
            "train_causal_mask",
            "train_norm",
            "train_positions",
        )
    }
    assert values == {
        "train_text": "白日依山尽",
        "train_window": "3",
        "train_d_model": 32,
        "train_n_heads": 4,
        "train_n_layers": 2,
        "train_d_ff": 64,
        "train_max_len": "16",
        "train_lr": 3e-3,
        "train_epochs": "7",
        "train_seed": "5",
        "train_early_stop": 0.0,
        "train_causal_mask": False,
        "train_norm": "pre",
        "train_positions": "learned",
    }
    assert at.text_input(key=T_TEXT).value == "白日依山尽" and at.toggle(key=T_CAUSAL_MASK).value is False
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    proto = at.get("vega_lite_chart")[0].proto
    chart = convert_arrow_bytes_to_pandas_df(proto.datasets[0].data.data if proto.datasets else proto.data.data)
    assert [round(v, 6) for v in chart["loss"]] == [round(v, 6) for v in record.losses]
    assert t("train.chart_empty", lang) not in [c.value for c in at.caption]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_checkpoint_without_a_curve_says_so(lang):
    record = train("白日依山尽", SMALL, TrainConfig(lr=3e-3, epochs=2, early_stop_loss=0.0))
    record.losses.clear()
    at = upload(open_train(lang), to_bytes(record))
    assert t("train.loaded_no_curve", lang) in [c.value for c in at.caption]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_checkpoint_configuration_is_refused_with_its_reason_in_the_users_language(lang):
    from safetensors.torch import load, save

    record = small_model()
    data = to_bytes(record)
    header = json.loads(data[8 : 8 + int.from_bytes(data[:8], "little")])["__metadata__"]
    config = json.loads(header["train_config"])
    header["train_config"] = json.dumps({**config, "epochs": 0})
    at = upload(open_train(lang), save(load(data), metadata=header))
    accepted = t("accepted.int_range", lang, lo=1, hi=5000)
    reason = t("err.config", lang, field=t("field.epochs", lang), value=0, accepted=accepted)
    error = t("ckpt.err.config", lang, error=reason)
    assert [e.value for e in at.error] == [t("train.upload_refused", lang, name="model.safetensors", error=error)]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_uploader_says_what_to_do_and_the_limit_in_the_users_language(lang):
    at = open_train(lang)
    assert at.get("file_uploader")[0].help == t("train.upload_help", lang, limit="154 MB")
    assert t("train.upload_caption", lang, limit="154 MB") in [c.value for c in at.caption]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_cheating_experiment_steps_and_loss_floor_are_on_the_page(lang):
    at = open_train(lang)
    assert t("train.cheat_steps", lang) not in [i.value for i in at.info]
    at.button(key="train_preset_cheat").click().run()
    floor = causal_loss_floor("你好你世你界", 4)
    assert math.isclose(floor, 3 / 24 * math.log(3)) and f"{floor:.3f}" == "0.137"
    infos = [i.value for i in at.info]
    assert t("train.cheat_steps", lang) in infos and t("train.loss_floor", lang, floor=floor) in infos
    at.toggle(key=T_CAUSAL_MASK).set_value(False).run()  # no floor without the mask
    assert t("train.loss_floor", lang, floor=floor) not in [i.value for i in at.info]
    assert causal_loss_floor("你好世界", 4) == 0.0


def test_runs_table_puts_the_key_columns_first_and_pins_them():
    at = open_train("en")
    for key, value in {
        "train_d_model": 32,
        "train_n_heads": 4,
        "train_n_layers": 2,
        "train_d_ff": 64,
        "train_max_len": "16",
        "train_lr": 3e-3,
        "train_epochs": "20",
        "train_early_stop": 0.0,
    }.items():
        at.session_state[key] = value
    at.run()
    at.button(key="train_start").click().run()
    at.session_state[K_JOB].join(60)
    at.run()
    table = next(d for d in tables(at) if t("train.col.match", "en") in d.value.columns)
    names = [t(f"train.col.{c}", "en") for c in ("number", "match", "generation", "expected")]
    assert list(table.value.columns[:4]) == names
    config = column_configs(table)
    assert config[names[0]]["pinned"] is True and config[names[1]]["pinned"] is True
    assert sum(config[n]["width"] for n in names) <= 340  # fits a phone's 390 px page without sideways scrolling


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_shelf_model_can_be_trained_again_with_the_live_chart(lang):
    default_model()  # the textbook's model on this process's shelf, as a server has it once warmed up
    at = open_train(lang)
    at.button(key="train_start").click().run()  # the textbook settings: the default model, from the shelf
    job = at.session_state[K_JOB]
    assert job.from_cache and job.status == "done"
    this_run = next(c.value for c in at.caption if c.value.startswith(t("train.this_run", lang, settings="")))
    on = t("train.setting.causal_mask", lang, value=t("train.setting.on", lang))
    assert on in this_run.split(" · ") and "causal_mask=" not in this_run and "text=" not in this_run
    at.button(key="train_again").click().run()
    again = at.session_state[K_JOB]
    assert again is not job and not again.from_cache
    again.join(120)
    at.run()
    assert again.status == "done" and again.losses == job.losses  # the same settings train the same curve
    assert not at.button(key="train_start").disabled and not at.exception


def test_english_counts_take_the_singular_for_one():
    assert (
        t("predict.fed", "en", T=1, last=0, context="你")
        == "Context fed to the model (1 character, positions 0–0): **你**"
    )
    assert "(2 characters," in t("predict.fed", "en", T=2, last=1, context="你好")
    assert "· 1 token per step (" in t("train.params", "en", n=1000, d_head=8, tokens=1)  # then what a token is
    assert "{" not in t("predict.fed", "zh", T=1, last=0, context="你")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_too_long_text_is_named_in_words_not_code(lang):
    from tinygpt.config import MAX_TEXT_LEN

    at = open_train(lang)
    at.text_input(key=T_TEXT).set_value("你" * (MAX_TEXT_LEN + 1)).run()
    expected = t(
        "err.config",
        lang,
        field=t("field.len(text)", lang),
        value=MAX_TEXT_LEN + 1,
        accepted=t("accepted.max_text_len", lang, limit=MAX_TEXT_LEN),
    )
    assert [e.value for e in at.error] == [expected] and "len(" not in expected


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_refused_setting_is_said_again_beside_the_disabled_train_button(lang):
    at = open_train(lang)
    assert at.button(key="train_start").disabled is False
    at.text_input(key=T_EPOCHS).set_value("５０").run()  # full-width digits
    (error,) = [e.value for e in at.error]
    assert at.button(key="train_start").disabled is True
    assert t("train.start_off", lang, error=error) in [c.value for c in at.caption]  # next to the button
    at.text_input(key=T_EPOCHS).set_value("50").run()
    assert at.button(key="train_start").disabled is False and not at.error
    assert not any(c.value.startswith(t("train.start_off", lang, error="")) for c in at.caption)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_box_that_holds_no_whole_number_is_named_at_once(lang):
    at = open_train(lang)
    at.text_input(key=T_EPOCHS).set_value("５０").run()
    at.text_input(key=T_SEED).set_value("abc").run()
    at.text_input(key=T_MAX_LEN).set_value("1e3").run()
    errors = [e.value for e in at.error]
    assert len(errors) == 3, errors
    named = {"epochs": t("field.epochs", lang), "seed": t("field.seed", lang), "max_len": "max_len"}  # the term itself
    for field, value in (("epochs", "５０"), ("seed", "abc"), ("max_len", "1e3")):
        assert sum(named[field] in e and value in e for e in errors) == 1, (field, errors)
    assert at.button(key="train_start").disabled is True


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_returning_student_is_not_asked_whether_this_is_the_first_visit(lang):
    from tinygpt.ui.frame.student_state import AnswerEntry, class_session

    at = open_train(lang)
    first = [m.value for m in at.markdown]
    assert t("train.start_here", lang) in first and t("train.start_back", lang) not in first
    entry = AnswerEntry("q1", "question", "a", "A", True, 0.0, "", sent=True)
    class_session(at.session_state).answers = {"q1": entry}  # answers of this student ("welcome back")
    at.run()
    again = [m.value for m in at.markdown]
    assert t("train.start_back", lang) in again and t("train.start_here", lang) not in again


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_refused_value_of_the_form_gets_its_own_message_naming_it_and_what_is_accepted(lang):
    from tinygpt.config import GPTConfig, TrainConfig
    from tinygpt.training.links import encode_train

    at = AppTest.from_file("../streamlit_app.py", default_timeout=180)
    form = encode_train("你好世界", GPTConfig(vocab_size=4, d_model=96, n_heads=3), TrainConfig())
    at.query_params.update({"lang": lang, "lesson": "1", "hide": "train_n_heads", "form": form})
    at.run()  # a lesson keeps n_heads 3 out of sight: a d_model it does not divide can be picked
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.select_slider(key=T_D_MODEL).set_value(64)
    at.text_input(key=T_MAX_LEN).set_value("0")
    at.text_input(key=T_WINDOW).set_value("abc")
    at.text_input(key=T_EPOCHS).set_value("")
    at.text_input(key=T_SEED).set_value("-1").run()
    assert not at.exception, [e.value for e in at.exception]
    int_range = "accepted.int_range"
    expected = [
        t("err.config", lang, field="n_heads", value=3, accepted=t("accepted.divisor", lang, d_model=64, examples="")),
        t("err.config", lang, field="max_len", value=0, accepted=t(int_range, lang, lo=1, hi=512)),
        t(
            "err.config",
            lang,
            field=t("field.window", lang),
            value="abc",
            accepted=t("accepted.window_or_whole", lang, hi=512),  # max_len refused: the window is not judged by it
        ),
        t("err.config_empty", lang, field=t("field.epochs", lang), accepted=t(int_range, lang, lo=1, hi=5000)),
        t("err.config", lang, field=t("field.seed", lang), value=-1, accepted=t(int_range, lang, lo=0, hi=2**31 - 1)),
    ]
    errors = [e.value for e in at.error]
    assert len(errors) == len(expected), errors
    assert errors[0].startswith(expected[0]) and errors[1:] == expected[1:]  # one message each, in the form's order
    assert at.button(key="train_start").disabled is True
    assert t("train.start_off_many", lang, n=5) in [c.value for c in at.caption]
    at.text_input(key=T_MAX_LEN).set_value("16").run()  # accepted now: the window is judged by it
    window = [e.value for e in at.error if t("field.window", lang) in e.value]
    assert window == [
        t(
            "err.config",
            lang,
            field=t("field.window", lang),
            value="abc",
            accepted=t("accepted.window_or_whole", lang, hi=16),
        )
    ]
