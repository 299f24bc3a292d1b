"""Browser test of the Predict page: type a prefix and step through generation in headless Chromium."""

from urllib.parse import quote

import pytest
from conftest import SCREENSHOTS, assert_no_exception, wait_for_app
from playwright.sync_api import expect

from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 60_000


def test_types_a_prefix_and_steps_generation_in_a_real_browser(app_server, page):
    page.goto(f"{app_server}/predict?lang=en&model=textbook")
    wait_for_app(page)
    page.get_by_role("heading", name=t("predict.title", "en")).wait_for(timeout=TIMEOUT)

    prefix = page.get_by_role("textbox", name=t("predict.prefix", "en"))
    prefix.fill("你好")
    prefix.press("Enter")
    wait_for_app(page)
    result = page.locator("[data-testid='stMarkdownContainer']", has_text="Result:")
    expect(result).to_have_text("Result: 你好 世界你好", timeout=TIMEOUT)  # N = 4 by default, greedy
    expect(page.get_by_role("heading", name="Step 1 of 4")).to_be_visible(timeout=TIMEOUT)
    fed = page.locator("[data-testid='stMarkdownContainer']", has_text="Context fed to the model")
    expect(fed).to_have_text("Context fed to the model (2 characters, positions 0–1): 你好")

    next_step = page.get_by_role("button", name=t("predict.next", "en"))
    for n, context in ((2, "你好世"), (3, "你好世界"), (4, "你好世界你")):
        next_step.click()
        expect(page.get_by_role("heading", name=f"Step {n} of 4")).to_be_visible(timeout=TIMEOUT)
        expect(fed).to_have_text(
            f"Context fed to the model ({len(context)} characters, positions 0–{len(context) - 1}): {context}",
            timeout=TIMEOUT,
        )
        link = page.locator("[data-testid='stPageLink'] a[href*='text=']")  # the step's, not the next step
        expect(link).to_have_attribute("href", f"attention?text={quote(context)}&layer=0&head=0&step=softmax&lang=en")

    expect(page.locator("[data-testid='stAlert']", has_text="past the training length")).to_be_visible()
    expect(next_step).to_be_disabled()
    wait_for_app(page)
    assert_no_exception(page)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_on_a_phone_the_page_never_scrolls_sideways_and_numbers_stay_on_one_line(browser, app_server, lang):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{app_server}/predict?lang={lang}")
        wait_for_app(page)
        page.locator("[data-testid='stVegaLiteChart'] svg").first.wait_for(timeout=TIMEOUT)
        wait_for_app(page)
        assert page.locator("[data-testid='stVegaLiteChart']").count() == 1  # the step's bars; the panels on request
        page.locator(".st-key-predict_positions summary").click()  # every position's table and panels
        page.locator("[data-testid='stVegaLiteChart'] svg").nth(1).wait_for(timeout=TIMEOUT)
        wait_for_app(page)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"predict_phone_positions_{lang}.png"), full_page=True)
        # the per-position chart (the panels) and table are wider than a phone: they scroll in their own box
        scroll, client = page.evaluate("""() => { const m = document.querySelector("[data-testid='stMain']");
            return [m.scrollWidth, m.clientWidth]; }""")
        assert scroll <= client, (scroll, client)
        cell = page.locator(".tg-table td", has_text="e-").first  # a small p: 4.08e-05
        height = cell.evaluate(
            "td => td.getBoundingClientRect().height - parseFloat(getComputedStyle(td).paddingTop)"
            " - parseFloat(getComputedStyle(td).paddingBottom) - parseFloat(getComputedStyle(td).borderBottomWidth)"
        )
        line = cell.evaluate("td => parseFloat(getComputedStyle(td).lineHeight)")
        assert height <= line * 1.5, (height, line)  # one line, not "4.08e-" over "05"
        assert_no_exception(page)
    finally:
        context.close()
