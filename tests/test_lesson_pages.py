"""A lesson's view of every page (tinygpt.ui.views.lesson): whichever page the lesson opens on, each of its
pages starts on what the lesson's link sets for it, after a page switch (which clears the address)
and after a reload."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.class_links import LessonPlan, lesson_params
from tinygpt.i18n import t
from tinygpt.ui.teacher.lesson_builder import page_controls
from tinygpt.ui.views.attention_table import K_GUESS
from tinygpt.ui.views.predict_table import P_GUESS


def lesson_query(pages: tuple[str, ...], lang: str, **view: str) -> dict[str, str]:
    """The query the lesson builder makes for ``pages`` with every control hidden and guess first."""
    every = tuple(k for p in pages for k in page_controls(p, pages))
    plan = LessonPlan(pages=pages, controls=(), page_controls=every, model="textbook", view=view, guess=True, lang=lang)
    return dict(lesson_params(plan))


def open_link(query: dict[str, str]) -> AppTest:
    """A new session that opens the lesson's link at the root (the lesson's first page)."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def go_to(at: AppTest, page: str) -> AppTest:
    """A link of the navigation: the browser opens ``page`` with an empty query (st.navigation clears it)."""
    at.query_params.clear()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def on_the_lessons_step(at: AppTest, lang: str) -> None:
    """The Attention page shows step 6 (softmax) and asks its question before the numbers."""
    assert at.session_state["attn_step"] == "softmax" and at.session_state[K_GUESS] is True
    assert any(t("step.softmax.name", lang) in h.value for h in at.subheader)
    assert "attn_ex_argmax_key_pick" in {w.key for w in at.button_group}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_lesson_opening_on_predict_keeps_its_attention_view_for_the_next_page_and_a_reload(lang):
    query = lesson_query(("predict", "attention"), lang, step="softmax")
    at = open_link(query)
    assert at.session_state[P_GUESS] is True  # the lesson opened on Predict, guessing
    on_the_lessons_step(go_to(at, "attention"), lang)
    # back on Predict, a reload: a new session with the address as it stands
    reloaded = open_link(dict(go_to(at, "predict").query_params))
    on_the_lessons_step(go_to(reloaded, "attention"), lang)


def test_the_attention_view_of_a_lesson_opening_on_train_reaches_attention():
    at = open_link(lesson_query(("train", "attention"), "en", step="scores", tau="0.5"))
    at = go_to(at, "attention")
    assert at.session_state["attn_step"] == "scores" and at.session_state[K_GUESS] is True
    assert at.session_state["attn_temperature"] == 0.5


def test_a_student_s_own_step_is_kept_when_coming_back_to_attention_in_a_lesson():
    at = go_to(open_link(lesson_query(("predict", "attention"), "en", step="softmax")), "attention")
    at.session_state["attn_step"] = "weighted_sum"  # as the step control would (a lesson showing it)
    at.run()
    at = go_to(go_to(at, "predict"), "attention")
    assert at.session_state["attn_step"] == "weighted_sum"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_predict_with_the_prefix_locked_says_what_the_prefix_is_not_to_type_one(lang):
    at = open_link(lesson_query(("predict", "attention"), lang, prefix="你好"))
    said = [m.value for m in at.markdown]
    assert t("predict.intro_set", lang) in said and t("predict.intro", lang) not in said
    assert t("predict.prefix_set_lesson", lang, prefix="你好") in said
    assert "predict_prefix" not in {w.key for w in at.text_input}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_train_with_every_setting_hidden_names_only_the_lessons_pages_and_what_the_student_can_do(lang):
    at = open_link(lesson_query(("train", "attention"), lang, step="scores"))
    assert at.title[0].value == t("train.title_lesson", lang)
    assert at.button(key="train_start").label == t("train.start_lesson_button", lang)
    said = " ".join(m.value for m in at.markdown)
    assert t("train.start_lesson", lang, n=1) in said and "d_model 512" in said  # the lesson's settings, in words
    for key in ("train.start_here_locked", "train.start_here", "train.intro"):
        assert t(key, lang, d_model=32, n_layers=2, n_heads=2)[:12] not in said
    links = [link.value for link in at.main.get("page_link")]
    assert f"② {t('train.path_attention_locked', lang)}" in links
    assert not any(t(k, lang) in x for x in links for k in ("train.path_predict", "train.path_theory"))


def test_the_full_apps_train_page_keeps_its_own_title_start_box_and_button():
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update({"lang": "en"})
    at.run()
    assert at.title[0].value == t("train.title", "en") and at.button(key="train_start").label == t("train.start", "en")
    assert t("train.start_here", "en") in [m.value for m in at.markdown]
