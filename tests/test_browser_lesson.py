"""Browser test of a teacher's locked link on Predict: only its pages and controls, the guess, the note."""

import re

import pytest
from playwright.sync_api import expect

from conftest import assert_no_exception, wait_for_app
from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 90_000
LINK = "predict?lang=en&lesson=1&pages=predict,theory&show=predict_prefix,predict_guess"


def test_a_locked_predict_link_shows_only_its_pages_and_controls_and_the_guess_reveals(app_server, page):
    page.goto(f"{app_server}/{LINK}")
    page.get_by_role("heading", name=t("predict.title", "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)
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
    expect(page.locator("[data-testid='stDataFrame']")).to_have_count(0)  # nothing revealed before the guess
    page.locator("[data-testid='stMain'] button", has_text=re.compile("^你$")).click()
    wait_for_app(page, TIMEOUT)
    expect(page.locator("[data-testid='stAlert']", has_text="Right!")).to_be_visible(timeout=TIMEOUT)
    expect(page.get_by_text(t("ex.score", "en", right=1, asked=1))).to_be_visible()
    expect(page.locator("[data-testid='stDataFrame']").first).to_be_visible(timeout=TIMEOUT)
    assert "lesson=1" in page.url and "pages=predict%2Ctheory" in page.url.replace(",", "%2C")
    assert_no_exception(page)

    nav.filter(has_text=re.compile(rf"{re.escape(t('nav.theory', 'en'))}$")).click()
    page.get_by_role("heading", name=t("theory.title", "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)
    expect(page.locator("[data-testid='stAlert']", has_text="Lesson view")).to_be_visible()
    expect(page.locator("[data-testid='stMain'] [data-testid='stSlider']")).to_have_count(0)
    assert "lesson=1" in page.url
    assert_no_exception(page)
