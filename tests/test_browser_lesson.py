"""Browser tests of a teacher's locked links: on Predict only its pages and controls, the guess, the
note; on Attention only the named switches, and a guess at step 6 reveals the step's table."""

import re

import pytest
from conftest import assert_no_exception, wait_for_app
from playwright.sync_api import expect

from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 90_000
LINK = "predict?lang=en&model=textbook&lesson=1&pages=predict,theory&show=predict_prefix,predict_guess"
ATTENTION_LINK = (
    "attention?lang=en&model=textbook&lesson=1&pages=attention&show=attn_mask,attn_temperature,attn_guess&step=softmax"
)


def open_link(page, app_server: str, link: str, title_key: str) -> None:
    """Open ``link`` and wait until the page titled ``title_key`` has finished running."""
    page.goto(f"{app_server}/{link}")
    page.get_by_role("heading", name=t(title_key, "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)


def test_a_locked_predict_link_shows_only_its_pages_and_controls_and_the_guess_reveals(app_server, page):
    open_link(page, app_server, LINK, "predict.title")
    nav = page.locator("[data-testid='stSidebar'] [data-testid='stPageLink'] a")
    expect(nav).to_have_count(2)
    for key in ("nav.predict", "nav.theory"):
        expect(nav.filter(has_text=re.compile(rf"{re.escape(t(key, 'en'))}$"))).to_have_count(1)
    note = page.locator("[data-testid='stAlert']", has_text="Lesson view")
    expect(note).to_be_visible()
    expect(note.get_by_role("link", name="open the full app")).to_have_attribute("href", "?lang=en")
    expect(page.get_by_role("textbox", name=t("predict.prefix", "en"))).to_be_visible()
    expect(page.locator("[data-testid='stMain'] [data-testid='stSlider']")).to_have_count(0)  # N, τ, step: hidden
    expect(page.get_by_role("radiogroup")).to_have_count(1)  # only the sidebar's language switch

    page.get_by_text(t("predict.guess", "en")).click()
    wait_for_app(page, TIMEOUT)
    expect(page.locator(".tg-table, [data-testid='stDataFrame']")).to_have_count(0)  # nothing revealed before the guess
    page.locator("[data-testid='stMain'] button", has_text=re.compile("^你$")).click()
    wait_for_app(page, TIMEOUT)
    expect(page.locator("[data-testid='stAlert']", has_text="Right!")).to_be_visible(timeout=TIMEOUT)
    expect(page.get_by_text(t("ex.score", "en", right=1, asked=1))).to_be_visible()
    expect(page.locator(".tg-table, [data-testid='stDataFrame']").first).to_be_visible(timeout=TIMEOUT)
    assert "lesson=1" in page.url and "pages=predict%2Ctheory" in page.url.replace(",", "%2C")
    assert_no_exception(page)

    nav.filter(has_text=re.compile(rf"{re.escape(t('nav.theory', 'en'))}$")).click()
    page.get_by_role("heading", name=t("theory.title", "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)
    expect(page.locator("[data-testid='stAlert']", has_text="Lesson view")).to_be_visible()
    expect(page.locator("[data-testid='stMain'] [data-testid='stSlider']")).to_have_count(0)
    assert "lesson=1" in page.url
    assert_no_exception(page)


def test_a_locked_attention_link_shows_only_its_switches_and_a_guess_reveals_the_table(app_server, page):
    open_link(page, app_server, ATTENTION_LINK, "attn.title")
    main = page.locator("[data-testid='stMain']")
    expect(page.locator("[data-testid='stAlert']", has_text="Lesson view")).to_be_visible()
    expect(main.get_by_text(t("attn.mask", "en"), exact=True)).to_be_visible()
    expect(main.locator("[data-testid='stSlider']")).to_have_count(1)  # τ
    expect(main.get_by_role("radiogroup")).to_have_count(0)  # step, scaling, uniform: hidden
    expect(main.get_by_role("textbox")).to_have_count(0)  # the text
    expect(main.locator("[data-testid='stPageLink']")).to_have_count(0)  # no Theory page in the lesson
    table_label = page.locator(".st-key-attn_table_open")  # the step's table, one click away
    expect(table_label).to_be_visible()  # step 6 from the link

    main.get_by_text(t("attn.guess", "en")).click()
    wait_for_app(page, TIMEOUT)
    expect(main.get_by_text(t("attn.guess_hidden", "en"))).to_be_visible(timeout=TIMEOUT)
    expect(table_label).to_have_count(0)  # nothing of the step's numbers before the guess
    main.locator("button", has_text=re.compile("^0 你$")).click()  # which key query 3 attends to most
    wait_for_app(page, TIMEOUT)
    main.locator("button", has_text=re.compile("^1$")).click()  # what its row sums to
    wait_for_app(page, TIMEOUT)
    expect(table_label).to_be_visible(timeout=TIMEOUT)
    expect(
        main.get_by_text(t("ex.score", "en", right=1, asked=2)).or_(
            main.get_by_text(t("ex.score", "en", right=2, asked=2))
        )
    ).to_be_visible()
    assert "lesson=1" in page.url and "step=softmax" in page.url
    assert_no_exception(page)


def test_a_reload_right_after_an_answer_brings_it_back_outside_a_class(app_server, page):
    """The answer is given in the step's fragment (no full run after it): the browser's cookie must
    hold the student's token already, so the reload finds the answer in the store."""
    page.goto(f"{app_server}/attention?lang=en&model=textbook&step=softmax&guess=1")
    wait_for_app(page, TIMEOUT)
    page.locator(".st-key-attn_ex_argmax_key_pick button", has_text=re.compile("^2 世$")).click()
    verdict = page.locator("[data-testid='stAlert']").filter(has_text=re.compile("Right!|Not quite"))
    expect(verdict).to_have_count(1, timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)
    page.reload()
    wait_for_app(page, TIMEOUT)
    expect(verdict).to_have_count(1, timeout=TIMEOUT)  # revealed again, not asked again
    expect(page.get_by_text(t("ex.score", "en", right=1, asked=1))).to_have_count(1)
    assert_no_exception(page)


def test_on_a_phone_a_lessons_page_link_closes_the_sidebar(app_server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{app_server}/predict?lesson=1&pages=predict,attention&lang=en")
        wait_for_app(page, TIMEOUT)
        page.locator("[data-testid=stExpandSidebarButton]").click()
        links = page.locator("[data-testid=stSidebar] [data-testid=stPageLink] a")
        expect(links.nth(1)).to_be_in_viewport()
        links.nth(1).click()  # Attention
        page.get_by_role("heading", name=t("attn.title", "en")).wait_for(timeout=TIMEOUT)
        wait_for_app(page, TIMEOUT)
        expect(page.locator("[data-testid=stExpandSidebarButton]")).to_be_visible()  # closed again
        expect(links.nth(1)).not_to_be_in_viewport()
    finally:
        context.close()
