"""Browser test of a lesson whose first page is not Attention: its Attention view (the step it opens
on, guess first) reaches the Attention page through the page's "Next" link, a reload and the sidebar."""

import re

import pytest
from conftest import assert_no_exception, wait_for_app
from playwright.sync_api import expect

from tinygpt.classroom.class_links import LessonPlan, ascii_query, lesson_params
from tinygpt.i18n import t
from tinygpt.ui.teacher.lesson_builder import page_controls

pytestmark = pytest.mark.browser

TIMEOUT = 90_000
PAGES = ("predict", "attention")
PLAN = LessonPlan(
    pages=PAGES,
    controls=(),  # every control hidden
    page_controls=tuple(k for p in PAGES for k in page_controls(p, PAGES)),
    model="textbook",
    view={"step": "softmax"},
    guess=True,
    lang="en",
)


def on_the_lessons_step(page) -> None:
    """The Attention page at step 6 (softmax), asking its question before the numbers."""
    page.get_by_role("heading", name=t("attn.title", "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)
    expect(page.locator(".st-key-attn_ex_argmax_key_pick")).to_be_visible(timeout=TIMEOUT)
    assert "step=softmax" in page.url and "guess=1" in page.url
    assert_no_exception(page)


def test_a_lesson_opening_on_predict_opens_attention_on_its_step_by_every_way(app_server, page):
    page.goto(f"{app_server}/?{ascii_query(lesson_params(PLAN))}")
    page.get_by_role("heading", name=t("predict.title", "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)
    page.locator(".st-key-predict_next_step a").click()  # "Next: ②"
    on_the_lessons_step(page)
    page.reload()
    on_the_lessons_step(page)
    nav = page.locator("[data-testid='stSidebar'] [data-testid='stPageLink'] a")
    nav.filter(has_text=re.compile(rf"{re.escape(t('nav.predict', 'en'))}$")).click()
    page.get_by_role("heading", name=t("predict.title", "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)
    page.reload()  # a new session on Predict: the lesson's Attention view is still in the address
    page.get_by_role("heading", name=t("predict.title", "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)
    nav.filter(has_text=re.compile(rf"{re.escape(t('nav.attention', 'en'))}$")).click()
    on_the_lessons_step(page)
