"""A refused value of a link is named as the user typed it, with its cause: a setting the link
never wrote is not blamed, a repeated setting is refused, a projector's bad class code is not
called a teacher's link, and an Attention ``text=`` the model cannot read is refused like any
other value while the page draws on its own text."""

from __future__ import annotations

import pytest
from helpers import open_page

from tinygpt.config import ConfigError, ConfigErrors
from tinygpt.i18n import t
from tinygpt.training.links import decode_train, read_train


def _refused(spec: str, param: str = "train") -> ConfigError:
    with pytest.raises(ConfigError) as info:
        decode_train(spec, param)
    return info.value


def test_a_d_model_that_the_default_n_heads_does_not_divide_names_d_model_and_the_default():
    exc = _refused("v1;d_model=999;text=你好", "form")
    assert (exc.field, exc.value, exc.key) == ("d_model", 999, "indivisible_default")
    assert exc.params["n_heads"] == 8 and exc.params["examples"] == "1, 3, 9, 27, 37"
    for lang in ("en", "zh"):
        words = t("accepted.indivisible_default", lang, **exc.params)
        assert "999" in words and "8" in words and "27" in words


def test_an_n_heads_that_does_not_divide_the_default_d_model_names_the_default():
    exc = _refused("v1;n_heads=7;text=ab")
    assert (exc.field, exc.value, exc.key) == ("n_heads", 7, "divisor_default")
    assert exc.params["d_model"] == 512
    both = _refused("v1;d_model=30;n_heads=7;text=ab")  # both given: the configs' own check
    assert (both.field, both.key) == ("n_heads", "divisor")


def test_a_refused_version_is_named_by_the_parameter_that_carried_it():
    for param in ("trained", "form", "train"):
        exc = _refused("garbage", param)
        assert exc.field == param and exc.params["param"] == param
        assert f"{param}=v1" in t("accepted.link_version", "zh", **exc.params)


def test_a_setting_given_twice_is_refused_naming_it_and_both_values():
    exc = _refused("v1;d_model=16;d_model=32;n_heads=2;text=ab")
    assert (exc.field, exc.value, exc.key) == ("d_model", "16, 32", "link_repeated")
    assert exc.params == {"name": "d_model", "n": 2}
    with pytest.raises(ConfigErrors) as several:  # beside another refused setting: both named
        read_train("v1;seed=1;seed=1;colour=red;text=ab")
    assert {e.key for e in several.value.errors} == {"link_repeated", "link_field"}


def test_the_train_page_names_form_and_trained_as_typed():
    at = open_page("train", trained="garbage")
    shown = " ".join(w.value for w in at.warning)
    assert "trained = garbage" in shown and "train = garbage" not in shown
    at = open_page("train", lang="zh", form="v1;d_model=999;text=你好")
    shown = " ".join(w.value for w in at.warning)
    assert "d_model = 999" in shown and "n_heads = 8" not in shown.split("不可用")[0]


def test_an_attention_text_the_model_cannot_read_is_refused_and_the_page_draws_its_own_text():
    at = open_page("attention", model="bogus", text="xyz")
    assert not at.error  # no red box: the page is drawn
    shown = " ".join(w.value for w in at.warning)
    assert "text=xyz" in shown and "model=bogus" in shown
    assert at.session_state["attn_text"] != "xyz" and at.session_state["attn_text"]
    assert at.get("vega_lite_chart") or at.get("html")  # the page under the switches is there


def test_the_projector_names_a_bad_class_code_as_the_projectors_not_a_teachers_link(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.delenv("TINYGPT_DATABASE_URL", raising=False)
    monkeypatch.setenv("TINYGPT_DATA_DIR", str(tmp_path / "store"))
    for lang in ("en", "zh"):
        at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
        at.query_params.update({"lang": lang, "class": "abc"})
        at.run()
        at.switch_page("pages/projector.py")
        at.query_params.update({"lang": lang, "class": "abc"})
        at.run()
        assert not at.exception
        shown = [e.value for e in at.error]
        assert shown == [t("projector.bad_code", lang, value="abc", n=6)]
        assert t("teacher.bad_link", lang, error="").rstrip(" .。") not in shown[0]
