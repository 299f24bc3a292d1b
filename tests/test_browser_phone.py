"""Browser tests on a phone's screen (390 × 844): nothing lies beyond the right edge, and help is only help."""

from pathlib import Path

import pytest
from conftest import SCREENSHOTS, assert_no_exception, wait_for_app

from tinygpt.i18n import t
from tinygpt.ui.frame.help import HELP_KEY_PREFIX

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
#: [count, samples] of the elements a reader sees whose right edge lies beyond the viewport's, except
#: inside a box that scrolls sideways and says so above it (``data-tg-scrolls`` with its ::before line).
BEYOND_EDGE_JS = (Path(__file__).parent / "tools" / "beyond_edge.js").read_text(encoding="utf-8")
#: Every page a student or teacher opens, by its path, in the view a plain link opens.
PAGES = ("", "predict", "attention", "theory", "teacher", "projector")


def open_phone(browser, app_server, path: str, lang: str):
    context = browser.new_context(viewport=PHONE, locale="zh-CN" if lang == "zh" else "en-US", has_touch=True)
    page = context.new_page()
    page.goto(f"{app_server}/{path}")
    wait_for_app(page, 240_000)  # a fresh server trains the default model first
    return context, page


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_on_a_phone_nothing_lies_beyond_the_right_edge_of_any_page(browser, app_server, lang):
    context, page = open_phone(browser, app_server, f"?lang={lang}", lang)
    counts = {}
    try:
        for name in PAGES:
            page.goto(f"{app_server}/{name}?lang={lang}")
            wait_for_app(page, 240_000)
            charts = page.locator("[data-testid='stVegaLiteChart'] :is(svg, canvas)")
            if charts.count():
                charts.first.wait_for(timeout=60_000)
            page.wait_for_timeout(500)  # the access script marks the boxes that scroll on the next frame
            wait_for_app(page)
            count, samples = page.evaluate(BEYOND_EDGE_JS)
            counts[name or "train"] = (count, samples)
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"phone_{lang}_{name or 'train'}.png"), full_page=True)
            assert_no_exception(page)
        print({name: count for name, (count, _) in counts.items()})
        assert all(count == 0 for count, _ in counts.values()), counts
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_on_a_phone_a_tap_on_the_help_beside_causal_mask_shows_its_text_and_leaves_the_switch(
    browser, app_server, lang
):
    context, page = open_phone(browser, app_server, f"attention?lang={lang}", lang)
    try:
        switch = page.locator(".st-key-attn_mask input")
        before = switch.is_checked()
        button = page.locator(f".st-key-{HELP_KEY_PREFIX}attn_mask button")
        box = button.bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44, box  # a tap target
        button.tap()
        help_text = t("attn.mask_help", lang)[:20]
        page.get_by_test_id("stPopoverBody").get_by_text(help_text, exact=False).wait_for(timeout=10_000)
        wait_for_app(page)
        assert switch.is_checked() == before  # looking changed nothing
        page.screenshot(path=str(SCREENSHOTS / f"phone_{lang}_mask_help.png"))
        assert_no_exception(page)
    finally:
        context.close()


def test_the_language_a_student_picked_is_kept_for_the_plain_address_unless_the_link_says_otherwise(
    browser, app_server
):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")  # a Chinese browser
    page = context.new_page()
    try:
        page.goto(f"{app_server}/")
        wait_for_app(page, 240_000)
        assert page.evaluate("() => document.documentElement.lang") == "zh-CN"
        page.get_by_test_id("stSidebar").get_by_text("English", exact=True).click()
        page.wait_for_function("() => new URL(location.href).searchParams.get('lang') === 'en'", timeout=60_000)
        wait_for_app(page)
        page.goto(f"{app_server}/")  # the plain address again: English, as picked
        wait_for_app(page)
        page.wait_for_function("() => document.documentElement.lang === 'en'", timeout=30_000)
        assert new_url_lang(page) == "en"
        page.goto(f"{app_server}/?lang=zh")  # a link's language wins
        wait_for_app(page)
        page.wait_for_function("() => document.documentElement.lang === 'zh-CN'", timeout=30_000)
        assert_no_exception(page)
    finally:
        context.close()


def new_url_lang(page) -> str | None:
    return page.evaluate("() => new URL(location.href).searchParams.get('lang')")
