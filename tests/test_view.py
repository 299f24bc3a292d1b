"""A view is a page's URL text: the page tables' rows write it and read it back, a class and a lesson
store it whole (layer and head included) with the model's identity, and an old stored view still opens."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

import pytest
from helpers import served_example, small_model
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.period import ClassState, starting_state, state_from_json
from tinygpt.ui.attention import page_views
from tinygpt.ui.attention import state as attn
from tinygpt.ui.choice.led_model import model_identity
from tinygpt.ui.frame.controls import read_view, switched, view_text, view_values
from tinygpt.ui.teacher.lesson_builder import complete_view
from tinygpt.ui.views.attention_table import ATTENTION
from tinygpt.ui.views.predict_table import P_PREFIX, P_TAU, P_TOP_K
from tinygpt.ui.views.theory_table import TH_MASK, TH_TAU

#: A value away from the default for each Attention row (session key -> value).
ATTENTION_CHANGES = {
    attn.K_TEXT: "你好世",
    attn.K_STEP: "scores",
    attn.K_MASK: False,
    attn.K_UNIFORM: True,
    attn.K_UNIFORM_SCOPE: "head",
    attn.K_TAU: 0.5,
    attn.K_HEADS_OFF: [1, 3],
    attn.K_LAYER: 1,
    attn.K_HEAD: 2,
    attn.K_SCALING: "custom",
    attn.K_DIVISOR: 2.5,
    attn.K_GUESS: True,
    attn.K_EDITING: True,
    attn.K_EDITS: {(1, 2, 2, 0): 3.0},
}


@pytest.fixture(scope="module")
def record():
    return small_model()


@pytest.mark.parametrize("changed", [False, True], ids=["defaults", "changed"])
def test_every_attention_row_reads_back_what_it_wrote(record, changed):
    rows = page_views.rows("attention", record)
    values = {**page_views.defaults("attention", record), **(ATTENTION_CHANGES if changed else {})}
    text = view_text(rows, values)
    back, messages = read_view(rows, text)
    assert messages == []
    expected = {k: v for k, v in values.items() if k in back}
    assert back == expected
    written = {name for name, _ in parse_qsl(text)}
    assert {"text", "step", "mask", "tau", "layer", "head", "scale"} <= written  # a complete view names its place
    if changed:  # every row in the table with a URL row wrote its changed value
        assert {"uniform", "off", "guess", "edits"} <= written
        assert back[attn.K_HEAD] == 2 and back[attn.K_HEADS_OFF] == [1, 3] and back[attn.K_DIVISOR] == 2.5


def test_predict_and_theory_rows_read_back_what_they_wrote(record):
    for page, changes in (
        ("predict", {P_PREFIX: "你好", P_TAU: 0.5, P_TOP_K: 2}),
        ("theory", {TH_TAU: 2.0, TH_MASK: False}),
    ):
        rows = page_views.rows(page, record)
        values = {**page_views.defaults(page, record), **changes}
        back, messages = read_view(rows, view_text(rows, values))
        assert messages == []
        assert {k: back[k] for k in changes} == changes


def test_a_refused_value_is_left_out_and_named(record):
    back, messages = read_view(page_views.rows("attention", record), "tau=hot&layer=9&mask=0")
    assert back == {attn.K_MASK: False} and len(messages) == 2


def test_the_switches_away_from_the_models_own_come_from_the_table(record):
    own = page_views.values("attention", record, "")
    assert switched(ATTENTION, own, record) == []
    keys = [row.key for row in switched(ATTENTION, {**own, attn.K_TAU: 0.5, attn.K_UNIFORM: True}, record)]
    assert keys == [attn.K_UNIFORM, attn.K_TAU]  # in the table's order
    assert switched(ATTENTION, {**own, attn.K_EDITING: True}, record) == []  # editing with no edit changes nothing
    # "own attention" returns every switch (and the edits it holds) to the table's default
    assert set(attn.RESET) == {k for k, r in ATTENTION.items() if r.switch is not None and k != attn.K_MASK} | {
        attn.K_EDITS
    }


def test_a_complete_view_holds_the_layer_head_and_text_the_model_opens_on(record):
    view = dict(parse_qsl(page_views.complete("attention", record, "step=mask&tau=0.5")))
    assert view["step"] == "mask" and view["tau"] == "0.5"
    assert (view["layer"], view["head"]) == ("0", str(attn.opening_head(record)))
    assert view["text"] == attn.own_text(record)


def test_the_builder_stores_the_complete_view_and_the_models_identity(record):
    view = complete_view({"step": "mask", "concept": "softmax"}, ("attention", "theory"), record)
    assert view["mid"] == model_identity(record) != ""
    assert view["concept"] == "softmax" and view["step"] == "mask"  # another page's view stays
    assert (view["layer"], view["head"]) == ("0", str(attn.opening_head(record)))
    assert complete_view({"step": "mask"}, ("predict",), record) == {"step": "mask"}  # no Attention page


def test_a_class_state_written_with_per_switch_fields_opens_as_a_view(record):
    old = json.dumps({"page": "attention", "step": "mask", "mask": False, "tau": 0.5, "uniform": True, "text": "你好"})
    state = state_from_json(old)
    values = page_views.values("attention", record, state.view("attention"))
    assert (values[attn.K_STEP], values[attn.K_MASK], values[attn.K_TAU], values[attn.K_UNIFORM]) == (
        "mask",
        False,
        0.5,
        True,
    )
    assert values[attn.K_TEXT] == "你好" and page_views.named("predict", record, state.view("predict")) == {
        P_PREFIX: "你好"
    }
    assert values[attn.K_HEAD] == attn.opening_head(record)  # no head stored: the page's own


def test_a_class_keeps_the_lessons_complete_view_and_model_identity(record):
    start = starting_state("lesson=1&pages=attention&model=context&step=mask&layer=1&head=3&mid=0123abcd")
    assert start.model_id == "0123abcd"
    values = page_views.values("attention", record, start.view("attention"))
    assert (values[attn.K_LAYER], values[attn.K_HEAD], values[attn.K_STEP]) == (1, 3, "mask")
    assert ClassState().view("predict") == ""


def test_view_values_leave_out_what_needs_a_model(record):
    assert attn.K_MASK not in view_values(ATTENTION)  # the mask's default is the model's own
    assert view_values(ATTENTION, record)[attn.K_MASK] is record.train_cfg.causal_mask


def lesson_app(**params: str) -> AppTest:
    at = AppTest.from_file("../streamlit_app.py", default_timeout=300)
    at.query_params.update({"lang": "en", "lesson": "1", "pages": "attention", "model": "textbook", **params})
    at.run()
    at.switch_page("pages/attention.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_stored_lesson_without_layer_or_head_opens_on_the_pages_own_head():
    at = lesson_app(step="mask")
    assert at.session_state[attn.K_STEP] == "mask"
    assert (at.session_state[attn.K_LAYER], at.session_state[attn.K_HEAD]) == (
        0,
        attn.opening_head(served_example("textbook")),
    )


def test_a_lesson_with_its_layer_and_head_opens_on_that_head():
    record = served_example("textbook")
    other = next(h for h in range(record.gpt_cfg.n_heads) if h != attn.opening_head(record))
    at = lesson_app(step="mask", layer="0", head=str(other))
    assert (at.session_state[attn.K_LAYER], at.session_state[attn.K_HEAD]) == (0, other)


def test_a_new_switch_is_read_written_named_and_lockable_from_its_row_alone(record):
    from functools import partial

    from tinygpt.params import read_flag, write_flag
    from tinygpt.ui.frame import url
    from tinygpt.ui.frame.controls import Switch, control, lockable, url_rows

    key = "attn_dummy"
    row = control(
        key,
        False,
        "attn.mask",
        lambda cfg: url.field("dummy", key, partial(read_flag, name="dummy"), write_flag),
        Switch(lambda on, values: f"dummy: {on}"),
    )
    table = {**ATTENTION, key: row}
    own = {**page_views.defaults("attention", record), **view_values(table, record)}
    rows = url_rows(table, record.gpt_cfg)
    text = view_text(rows, {**own, key: True})
    assert ("dummy", "1") in parse_qsl(text) and read_view(rows, text)[0][key] is True
    assert switched(table, own, record) == [] and switched(table, {**own, key: True}, record) == [row]
    assert row.switch.said(True, own) == "dummy: True" and key in lockable(table)


def test_a_led_switch_row_is_in_the_lead_form_the_stored_view_and_a_followers_session(store, monkeypatch):
    from functools import partial

    from helpers import open_link

    from tinygpt.classroom.period import read_state
    from tinygpt.i18n import t
    from tinygpt.params import read_flag, write_flag
    from tinygpt.ui.frame import url
    from tinygpt.ui.frame.controls import Switch, control, lockable
    from tinygpt.ui.teacher.lead_view import L_OPEN, lead_key
    from tinygpt.ui.views import lesson

    key = "attn_dummy"
    row = control(
        key,
        False,
        "attn.guess",
        lambda cfg: url.field("dummy", key, partial(read_flag, name="dummy"), write_flag),
        Switch(lambda on, values: f"dummy: {on}", led=True),
    )
    monkeypatch.setitem(ATTENTION, key, row)  # the row added to the table, as a new switch's edit does
    monkeypatch.setitem(lesson.LESSON_CONTROLS, key, lockable({key: row})[key])  # (read from the tables at import)
    code, teacher_key = store.create_class("lesson=1&pages=predict,attention,theory&model=textbook&lang=en")
    teacher = open_link("teacher", **{"class": code, "key": teacher_key})
    toggles = {w.key: w.label for w in teacher.toggle}
    assert lead_key(key) == "lead_dummy" and toggles["lead_dummy"] == t("attn.guess", "en")
    sliders = {w.key for w in teacher.select_slider}
    assert {"lead_mask", "lead_uniform"} <= set(toggles) and "lead_temperature" in sliders  # the table's own switches
    from tinygpt.ui.views.attention_table import TEMPERATURES

    shown = list(teacher.select_slider(key="lead_temperature").options)
    assert shown == [f"{tau:g}" for tau in TEMPERATURES] and "1" in shown  # τ written as students' pages write it
    assert t("attn.guess", "en") in teacher.multiselect(key=L_OPEN).options  # a control students may be left
    teacher.button(key="lead_follow").click().run()
    teacher.toggle(key="lead_dummy").set_value(True).run()
    assert not teacher.exception, [e.value for e in teacher.exception]
    state = read_state(store, code)
    assert ("dummy", "1") in parse_qsl(state.view("attention")) and state.follow
    student = open_link("attention", **{"class": code})
    assert student.session_state[key] is True  # locked at the teacher's value: the teacher has not opened it
