"""AppTest tests of every page in both languages, and training from the Train page."""

import time
from pathlib import Path

import pytest
from helpers import TEXT_NUMBER_KEYS, tables
from streamlit.testing.v1 import AppTest

from tinygpt.i18n import CATALOGUE, t
from tinygpt.ui.shared.models import K_JOB, K_OWN
from tinygpt.ui.views.attention_table import K_TABLE
from tinygpt.ui.views.predict_table import P_N_NEW, P_PREFIX
from tinygpt.ui.views.train_table import T_D_FF, T_D_MODEL, T_EPOCHS, T_LR, T_N_HEADS, T_N_LAYERS, T_TEXT

ROOT = Path(__file__).resolve().parents[1]

PAGES = {"train": "pages/train.py", "predict": "pages/predict.py", "attention": "pages/attention.py"}
TITLES = {"train": "train.title", "predict": "predict.title", "attention": "attn.title"}


def open_page(page: str, lang: str = "en") -> AppTest:
    """Run the app with ?lang= and switch to ``page``; AppTest fails on any uncaught exception."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=180)
    at.query_params["lang"] = lang
    at.run()
    if page in ("predict", "attention"):  # these open on the context example; the tests read the textbook's
        at.query_params["model"] = "textbook"
    at.session_state[K_TABLE] = True  # the step's table, one click away on the page
    if PAGES[page] != "pages/train.py":
        at.switch_page(PAGES[page])
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def set_state(at: AppTest, **values) -> AppTest:
    """Set keyed widgets through session state (widgets whose format_func needs the session).

    The Train page's whole-number boxes are text boxes: their values are set as typed text.
    """
    for key, value in values.items():
        at.session_state[key] = str(value) if key in TEXT_NUMBER_KEYS else value
    return at.run()


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_renders_in_both_languages(page, lang):
    at = open_page(page, lang)
    assert at.title[0].value == t(TITLES[page], lang)
    assert not at.error


def test_predict_page_continues_the_seed_text():
    at = open_page("predict")
    at.session_state["predict_positions"] = True  # every position's distribution: drawn once opened
    at.run()
    frame = tables(at)[0].value
    assert list(frame[t("predict.col_top", "en")]) == list("好世界你")
    at.text_input(key=P_PREFIX).set_value("你").run()
    at.slider(key=P_N_NEW).set_value(3).run()
    assert any("你 **好世界**" in m.value for m in at.markdown)


def test_predict_page_names_unknown_characters_in_both_languages():
    for lang in ("zh", "en"):
        at = open_page("predict", lang)
        at.text_input(key=P_PREFIX).set_value("你们").run()
        assert not at.exception
        assert "们" in at.error[0].value and "你 好 世 界" in at.error[0].value


def test_attention_page_mask_switch_turns_upper_triangle_positive():
    at = open_page("attention")
    set_state(at, attn_step="softmax")
    alpha = tables(at)[0].value.to_numpy()
    assert alpha.shape == (4, 4) and alpha[0, 1] == 0 and abs(alpha.sum(1) - 1).max() < 1e-3
    at.toggle(key="attn_mask").set_value(False).run()
    alpha = tables(at)[0].value.to_numpy()
    assert alpha[0, 1] > 0 and alpha[0, 3] > 0


@pytest.mark.parametrize(
    "step",
    [
        "projection",
        "split_heads",
        "scores",
        "scale",
        "mask",
        "softmax",
        "weighted_sum",
        "merge_heads",
        "output_projection",
    ],
)
def test_attention_page_shows_each_step(step):
    at = open_page("attention")
    set_state(at, attn_step=step)
    assert not at.exception
    frame = tables(at)[0].value
    # the d_model-wide steps show d_head columns until the student asks for all of them
    expected_cols = {
        "projection": 64,
        "merge_heads": 64,
        "output_projection": 64,
        "split_heads": 64,
        "weighted_sum": 64,
    }
    assert frame.shape == (4, expected_cols.get(step, 4))
    assert len(at.get("vega_lite_chart")) >= 1


def test_train_page_trains_a_small_model_and_the_other_pages_use_it():
    at = open_page("train")
    at.select_slider(key=T_D_MODEL).set_value(32).run()
    at.select_slider(key=T_N_HEADS).set_value(4).run()
    at.slider(key=T_N_LAYERS).set_value(2).run()
    at.select_slider(key=T_D_FF).set_value(64).run()
    at.select_slider(key=T_LR).set_value(3e-3).run()
    at.text_input(key=T_EPOCHS).set_value("300").run()
    at.button(key="train_start").click().run()
    job = at.session_state[K_JOB]
    deadline = time.time() + 120
    while job.active and time.time() < deadline:
        time.sleep(0.2)
    at.run()
    assert job.status == "done", job.error
    assert not at.exception
    assert job.result.losses[-1] < 1e-3
    assert at.session_state[K_OWN] is job.result
    assert any(CATALOGUE["train.done"]["en"].split("{")[0] in s.value for s in at.success)
    at.session_state["predict_positions"] = True  # every position's distribution: drawn once opened
    at.switch_page("pages/predict.py").run()
    assert list(tables(at)[0].value[t("predict.col_top", "en")]) == list("好世界你")


def test_train_page_rejects_text_with_nothing_in_it():
    at = open_page("train", "zh")
    at.text_input(key=T_TEXT).set_value("").run()
    assert at.error and at.error[0].value == t("err.empty_text", "zh")
    assert at.button(key="train_start").disabled


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_train_page_warns_about_a_large_learning_rate_only_when_it_is_large(lang):
    at = open_page("train", lang)
    warning = t("train.lr_large", lang, lr=0.03)
    assert warning not in [c.value for c in at.caption]  # the seed's 1e-4
    set_state(at, train_lr=0.03)
    assert warning in [c.value for c in at.caption]
    set_state(at, train_lr=0.01)
    assert not any(c.value.startswith("⚠️") for c in at.caption)


def test_train_page_lists_the_training_pairs_of_the_text():
    at = open_page("train")
    table = tables(at)[0].value  # no run yet: the only table on the page
    assert table.values.tolist() == [["你好世界", "好世界你"]]  # the seed's single pair
    set_state(at, train_text="白日依山尽", train_window=3)
    table = tables(at)[0].value  # no run yet: the only table on the page
    assert table.values.tolist() == [
        ["白日依", "日依山"],
        ["日依山", "依山尽"],
        ["依山尽", "山尽白"],
        ["山尽白", "尽白日"],
        ["尽白日", "白日依"],
    ]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    "key, value, field",
    [
        ("train_epochs", 0, "epochs"),
        ("train_epochs", -5, "epochs"),
        ("train_window", 9999, "window"),
        ("train_seed", -1, "seed"),
    ],
)
def test_train_page_refuses_an_out_of_range_number_in_the_students_language(lang, key, value, field):
    at = set_state(open_page("train", lang), **{key: value})
    assert at.text_input(key=key).value == str(value)  # kept as typed, not silently replaced
    errors = [e.value for e in at.error]
    label = t(f"field.{field}", lang)  # the form's own words for the setting
    assert len(errors) == 1 and f"{label} = {value}" in errors[0]
    assert errors[0].startswith(t("err.config", lang, field=label, value=value, accepted=""))
    assert at.button(key="train_start").disabled


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("window", [-3, 129])
def test_a_window_out_of_range_is_told_that_0_means_the_whole_text(lang, window):
    at = set_state(open_page("train", lang), train_window=window)  # max_len 128
    accepted = t("accepted.window_or_whole", lang, hi=128)
    assert [e.value for e in at.error] == [
        t("err.config", lang, field=t("field.window", lang), value=window, accepted=accepted)
    ]
    assert "0" in accepted and at.button(key="train_start").disabled


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    "key, typed, field",
    [
        ("train_epochs", "1e30", "epochs"),
        ("train_epochs", "9" * 25, "epochs"),
        ("train_seed", "9" * 20, "seed"),
        ("train_max_len", "12.5", "max_len"),
        ("train_window", "2e3", "window"),
        ("train_seed", "abc", "seed"),
    ],
)
def test_a_typed_number_is_used_as_typed_or_named_in_a_message_and_train_is_disabled(lang, key, typed, field):
    at = open_page("train", lang)
    at.text_input(key=key).set_value(typed).run()
    assert at.text_input(key=key).value == typed  # the box shows what is checked
    errors = [e.value for e in at.error]
    assert (
        len(errors) == 1
        and f"{t('field.' + field, lang) if 'field.' + field in CATALOGUE else field} = {typed} " in errors[0]
    )  # names the value as typed
    assert at.button(key="train_start").disabled
    at.text_input(key=key).set_value(" 3 ").run()  # a whole number in range is the one used
    assert not at.error and not at.button(key="train_start").disabled


def test_train_page_number_boxes_read_whole_numbers_exactly():
    from tinygpt.numbers import parse_int

    assert parse_int(" 300 ") == 300 and parse_int("-5") == -5 and parse_int("9" * 20) == int("9" * 20)
    assert parse_int("1e30") == "1e30" and parse_int("3.0") == "3.0" and parse_int("") == "" and parse_int("٣") == "٣"
    # Digits int() would read but tinygpt.numbers refuses: full-width, superscript (int() raises), too long.
    assert parse_int("１０") == "１０" and parse_int("²") == "²" and parse_int("9" * 21) == "9" * 21
    assert parse_int("9" * 5000) == "9" * 30 + "…"  # beyond Python's int-from-text cap: refused as text, shortened
    assert parse_int("1\u200c0") == "1⟨U+200C⟩0"  # an invisible character is named


# ---------------------------------------------------------------- the server start


def test_streamlit_run_serves_the_app_whose_lifespan_preloads_the_modules():
    import subprocess
    import sys

    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "streamlit_app.py")
    assert found.is_asgi_app and found.import_string == "streamlit_app:app"
    # Imported as the server imports it: the App is made and no page is drawn (no script run).
    code = (
        "import streamlit as st, streamlit_app; from tinygpt.ui.frame import server; "
        "assert isinstance(streamlit_app.app, st.App) and streamlit_app.app.script_path.name == 'streamlit_app.py'; "
        "assert streamlit_app.app._user_lifespan is server.lifespan; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_the_preload_imports_torch_first_and_every_module_of_the_app_but_the_cli():
    from tinygpt.ui.frame import server

    done = server.preload()
    assert done[: len(server.LIBRARIES)] == list(server.LIBRARIES) and done[0] == "torch"
    modules = server.app_modules()
    assert done[len(server.LIBRARIES) :] == modules  # none failed
    assert {"tinygpt.model", "tinygpt.ui.navigation", "tinygpt.ui.attention.effect", "tinygpt.strings.zh.train"} <= set(
        modules
    )
    assert not any(name.endswith("__main__") for name in modules)
