"""A link's refused values in one box in the URL's order; the lesson builder's defaults warn of
nothing; the lead view's empty text says what it means."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from helpers import open_link, open_page

from tinygpt.config import ConfigError
from tinygpt.i18n import t
from tinygpt.ui.frame import url


def _refuse(raw: str, notes: list[str]) -> dict:
    raise ConfigError("x", raw, "nothing")


def test_load_gives_the_messages_in_the_urls_order_not_the_tables(monkeypatch):
    query = {"tau": "bad", "layer": "bad", "mask": "bad"}  # the order the person wrote them
    monkeypatch.setattr(url, "st", SimpleNamespace(query_params=query, session_state={}))
    monkeypatch.setattr(url, "_written", lambda: {})
    monkeypatch.setattr(url, "refused", lambda param, raw, exc, first=False: param.name)
    params = [url.Param(name, _refuse, lambda ss: None) for name in ("mask", "layer", "tau")]  # the page's order
    assert url.load("attention", params) == ["tau", "layer", "mask"]


def test_several_refused_values_of_an_attention_link_are_one_box_in_the_urls_order():
    at = open_page("attention", tau="abc", mask="2", layer="9", uniform="x", off="q")
    assert not at.exception
    (box,) = [w.value for w in at.warning if "tau=abc" in w.value]
    names = ["tau=abc", "mask=2", "layer=9", "uniform=x", "off=q"]
    assert box.count("\n- ") == 4 and [box.index(n) for n in names] == sorted(box.index(n) for n in names)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_builder_opened_from_a_step_that_asks_nothing_warns_of_nothing(store, lang):
    at = open_link("teacher", lang, **{"from": "attention", "step": "projection"})
    assert at.toggle(key="builder_guess").value
    assert at.multiselect(key="builder_controls_attention").value == ["attn_step"]  # students may reach a question
    assert not at.warning, [w.value for w in at.warning]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lead_views_empty_text_says_it_is_the_models_own(store, lang):
    code, key = store.create_class(f"lesson=1&pages=attention&lang={lang}")
    at = open_link("teacher", lang, **{"class": code, "key": key})
    assert at.text_input(key="lead_text").placeholder == t("period.text_placeholder", lang)
