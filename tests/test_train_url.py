"""The Train page in its URL (tinygpt.ui.train.train_url): a reload brings back the form and the trained model."""

from __future__ import annotations

import dataclasses
import time

import pytest
from helpers import SMALL
from streamlit.testing.v1 import AppTest

from tinygpt.config import MAX_EPOCHS, TrainConfig
from tinygpt.i18n import t
from tinygpt.training.checkpoint import to_bytes
from tinygpt.training.jobs import model_key
from tinygpt.training.links import decode_train, encode_train
from tinygpt.training.train import train
from tinygpt.ui.shared.models import K_JOB, K_OWN, shelf
from tinygpt.ui.train.train_runs import K_RUNS
from tinygpt.ui.views.train_table import T_D_MODEL, T_EPOCHS, T_SEED, T_TEXT

POEM = "床前明月光"


def open_train(lang: str = "en", **params: str) -> AppTest:
    """A session opening the Train page at ``/?lang=…&params`` (a reload of that address)."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update({"lang": lang, **params})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def small_form(at: AppTest, text: str = POEM, seed: str = "3", epochs: str = "40") -> AppTest:
    at.button(key="train_preset_small").click().run()
    at.text_input(key=T_TEXT).input(text)
    at.text_input(key=T_SEED).input(seed)
    at.text_input(key=T_EPOCHS).input(epochs).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def wait_for_model(at: AppTest, text: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        at.run()
        own = at.session_state[K_OWN] if "own_model" in at.session_state else None
        if own is not None and own.text == text:
            # the live part took the model during this run, after the page wrote its URL; the browser
            # then reruns the page (st.rerun), which writes ``trained=``: so does this test
            at.run()
            return
        time.sleep(0.3)
    raise AssertionError(f"no own model of {text!r} after {timeout_s} s")


def test_the_form_is_in_the_url_and_a_reload_brings_it_back():
    at = open_train()
    assert "form" not in at.query_params  # the page's own defaults: nothing to keep
    small_form(at)
    form = at.query_params["form"]
    text, gpt_cfg, train_cfg = decode_train(form)
    assert (text, gpt_cfg.d_model, gpt_cfg.n_layers, train_cfg.seed, train_cfg.epochs) == (POEM, 64, 2, 3, 40)
    again = open_train(form=form)  # a reload: a new session on the same address
    ss = again.session_state
    assert (ss["train_text"], ss["train_d_model"], ss["train_seed"], ss["train_epochs"], ss["train_lr"]) == (
        POEM,
        64,
        "3",
        "40",
        1e-3,
    )
    assert again.text_input(key=T_TEXT).value == POEM


def test_a_reload_brings_back_the_trained_model_from_the_shelf_or_trains_it_again():
    at = small_form(open_train(), seed="7", epochs="30")
    at.button(key="train_start").click().run()
    wait_for_model(at, POEM)
    trained = at.session_state[K_OWN]
    assert at.query_params["trained"] == encode_train(POEM, trained.gpt_cfg, trained.train_cfg)
    params = {k: v for k, v in at.query_params.items() if k != "lang"}
    again = open_train(**params)  # the same server: the model is on the shelf
    wait_for_model(again, POEM)
    back = again.session_state[K_OWN]
    assert back.losses == trained.losses and back.gpt_cfg == trained.gpt_cfg
    runs = again.session_state[K_RUNS]
    assert [r.losses for r in runs] == [tuple(trained.losses)]  # the run is in the table again


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_refused_settings_in_the_url_are_named_and_the_form_keeps_its_defaults(lang):
    at = open_train(lang, form="v1;d_model=7;n_heads=2;text=你好", trained="v2;text=x")
    warnings = [line.removeprefix("- ") for w in at.warning for line in w.value.split("\n")]  # one box, a list
    assert any(w.startswith(t("train.url_form_bad", lang, error="")[:6]) and "d_model" in w for w in warnings)
    assert any(w.startswith(t("train.url_trained_bad", lang, error="")[:6]) for w in warnings)
    assert at.session_state[T_D_MODEL] == 512 and at.session_state[T_TEXT] == "你好世界"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_form_link_with_several_bad_values_names_each_in_one_message(lang):
    at = open_train(lang, form="v1;d_model=abc;epochs=0;colour=red;text=你好")
    refused = [w.value for w in at.warning if w.value.startswith(t("train.url_form_bad", lang, error="")[:6])]
    assert len(refused) == 1  # one message, naming every bad value and what it accepts
    for value, accepted in (
        ("abc", t("accepted.int_range", lang, lo=1, hi=1024)),  # the link's range of d_model
        ("0", t("accepted.int_range", lang, lo=1, hi=MAX_EPOCHS)),
        ("red", "d_model"),
    ):
        assert value in refused[0] and accepted in refused[0], (value, accepted, refused[0])
    assert t("err.config_several", lang, n=3, errors="") in refused[0]
    assert at.session_state[T_D_MODEL] == 512  # the form keeps its defaults


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_model_taken_from_the_store_after_a_restart_keeps_its_link_and_its_training_time(lang):
    seed = {"zh": "11", "en": "12"}[lang]
    at = small_form(open_train(lang), seed=seed, epochs="20")
    at.button(key="train_start").click().run()
    wait_for_model(at, POEM)
    trained, link = at.session_state[K_OWN], at.query_params["trained"]
    assert trained.seconds > 0
    models = shelf()
    with models.lock:  # a restart: the server's shelf is empty, the class store keeps the published model
        assert models.models.pop(model_key(trained.text, trained.gpt_cfg, trained.train_cfg)) is trained
    again = small_form(open_train(lang), seed=seed, epochs="20")  # a new browser, the same settings
    again.button(key="train_start").click().run()
    assert again.session_state[K_JOB].from_cache
    own = again.session_state[K_OWN]
    assert own is not trained and own.losses == trained.losses and own.init_seed == trained.train_cfg.seed
    assert again.query_params["trained"] == link  # a reload brings it back
    figures = {"steps": len(trained.losses), "loss": trained.losses[-1], "seconds": trained.seconds}
    reason = t(f"train.reason.{trained.stop_reason}", lang)
    assert t("train.done_cached", lang, reason=reason, **figures) in [s.value for s in again.success]
    assert not again.exception
    key = model_key(trained.text, trained.gpt_cfg, trained.train_cfg)
    with models.lock:  # a model whose file keeps no training time (published by an older server)
        models.models[key] = dataclasses.replace(own, seconds=0.0)
    third = small_form(open_train(lang), seed=seed, epochs="20")
    third.button(key="train_start").click().run()
    untimed = t("train.done_cached_untimed", lang, reason=reason, **figures)
    assert untimed in [s.value for s in third.success]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_loaded_file_says_it_lasts_for_the_session_and_the_model_trained_before_stays_in_the_link(lang):
    data = to_bytes(train("白日依山尽", SMALL, TrainConfig(lr=3e-3, epochs=3, early_stop_loss=0.0)))

    def upload(at: AppTest, key: str) -> AppTest:
        at.file_uploader(key=key).set_value(("model.safetensors", data, "application/octet-stream"))
        at.run()
        assert at.session_state[K_OWN].text == "白日依山尽" and not at.exception
        return at

    first = upload(open_train(lang), "train_upload")  # nothing trained before: the file alone
    assert "trained" not in first.query_params
    assert [i.value for i in first.info if i.value == t("train.session_note_file", lang)]
    assert t("train.session_note", lang) not in [c.value for c in first.caption]  # no promise of a reload
    at = small_form(open_train(lang), seed="13", epochs="20")
    at.button(key="train_start").click().run()
    wait_for_model(at, POEM)
    link = at.query_params["trained"]
    assert t("train.session_note", lang) in [c.value for c in at.caption]
    upload(at, "train_upload")
    assert at.query_params["trained"] == link  # the model trained before stays reachable
    assert [i.value for i in at.info if i.value == t("train.session_note_file_kept", lang)]
    again = open_train(lang, **{k: v for k, v in at.query_params.items() if k != "lang"})  # a reload
    wait_for_model(again, POEM)
    assert encode_train(*decode_train(link)) == again.query_params["trained"]
