"""Browser test of the Theory page's sections: each opens with its own content, the page never
goes blank, and the browser logs no rendering error while a student moves between sections."""

import pytest
from conftest import assert_no_exception, wait_for_app

from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 60_000
#: Section id -> a heading that only that section draws (i18n key).
HEADINGS = {
    "definition": "theory.definition.title",
    "vectors": "theory.operations.title",
    "weighted_sum": "theory.weighted_sum.title",
    "attention": "theory.matrix.title",
    "practice": "theory.quiz.title",
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_moving_between_sections_draws_each_and_never_blanks_the_page(app_server, browser, lang):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and "delta path" in m.text and errors.append(m.text))
        page.goto(f"{app_server}/theory?lang={lang}")
        wait_for_app(page)
        for section in ("vectors", "weighted_sum", "attention", "practice", "definition", "attention", "practice"):
            page.locator(".st-key-theory_section button", has_text=t(f"theory.section.{section}", lang)).click()
            page.get_by_role("heading", name=t(HEADINGS[section], lang)).wait_for(timeout=TIMEOUT)
            wait_for_app(page)
            others = [k for s, k in HEADINGS.items() if s != section]
            assert all(page.get_by_role("heading", name=t(k, lang)).count() == 0 for k in others), section
        page.get_by_role("heading", name=t("theory.title", lang)).wait_for(timeout=TIMEOUT)  # the app is still there
        assert errors == []
        assert_no_exception(page)
    finally:
        context.close()


def test_a_value_changed_in_a_section_is_kept_after_another_section_and_another_page(app_server, page):
    """The toggle and the slider rerun only their example (a fragment); the values must still come
    back after the section is closed and after a page switch."""
    page.goto(f"{app_server}/theory?lang=en")
    wait_for_app(page)
    page.locator(".st-key-theory_section button", has_text=t("theory.section.attention", "en")).click()
    scaled = page.locator(".st-key-theory_scaled input").first
    scaled.wait_for(state="attached", timeout=TIMEOUT)
    assert not scaled.is_checked()
    page.locator(".st-key-theory_scaled label").first.click()
    wait_for_app(page)
    page.wait_for_timeout(500)
    assert scaled.is_checked()
    for section in ("practice", "attention"):
        page.locator(".st-key-theory_section button", has_text=t(f"theory.section.{section}", "en")).click()
        page.get_by_role("heading", name=t(HEADINGS[section], "en")).wait_for(timeout=TIMEOUT)
        wait_for_app(page)
    assert page.locator(".st-key-theory_scaled input").first.is_checked()
    page.locator("[data-testid='stSidebarNav'] a[href$='/predict']").first.click()
    page.get_by_role("heading", name=t("predict.title", "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page)
    page.locator("[data-testid='stSidebarNav'] a[href$='/theory']").first.click()
    page.get_by_role("heading", name=t(HEADINGS["attention"], "en")).wait_for(timeout=TIMEOUT)  # the same section
    wait_for_app(page)
    assert page.locator(".st-key-theory_scaled input").first.is_checked()
    assert_no_exception(page)


def test_a_vector_picture_is_square_on_the_page(app_server, page):
    """Both axes share one domain, so the plot area must be square for a right angle to look like
    one; the page's own sizing must not squeeze it (the downloads are drawn square as well)."""
    page.goto(f"{app_server}/theory?lang=en&concept=operations")
    wait_for_app(page, 240_000)
    picture = page.locator("[data-testid='stVegaLiteChart'] svg").first
    picture.wait_for(timeout=60_000)
    # layer 0 is the dashed horizontal zero line (the plot's width), layer 1 the vertical one (its height)
    width, height = page.evaluate(
        """(svg) => [svg.querySelector('.layer_0_marks').getBoundingClientRect().width,
                                                svg.querySelector('.layer_1_marks').getBoundingClientRect().height]""",
        picture.element_handle(),
    )
    assert width == pytest.approx(240, abs=2) and height == pytest.approx(240, abs=2)
    assert_no_exception(page)


def test_a_reload_keeps_the_open_section_and_a_switch_moved_in_its_example(app_server, page):
    """The switch reruns only its example (a fragment), which writes the address too: a reload of
    that address opens the same section with the switch as the student left it."""
    page.goto(f"{app_server}/theory?lang=en")
    wait_for_app(page)
    page.locator(".st-key-theory_section button", has_text=t("theory.section.attention", "en")).click()
    page.get_by_role("heading", name=t(HEADINGS["attention"], "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page)
    page.locator(".st-key-theory_scaled label").first.click()
    page.wait_for_function("() => location.search.includes('scaled=1')", timeout=TIMEOUT)
    assert "section=attention" in page.url
    page.reload()
    wait_for_app(page)
    page.get_by_role("heading", name=t(HEADINGS["attention"], "en")).wait_for(timeout=TIMEOUT)
    scaled = page.locator(".st-key-theory_scaled input").first
    scaled.wait_for(state="attached", timeout=TIMEOUT)
    assert scaled.is_checked()
    assert page.get_by_role("heading", name=t(HEADINGS["definition"], "en")).count() == 0
    assert_no_exception(page)


def test_a_refused_value_in_the_address_is_named_on_the_page(app_server, page):
    page.goto(f"{app_server}/theory?lang=zh&section=attention&tau=99")
    wait_for_app(page)
    said = t("link.bad_param", "zh", name="tau", value="99", accepted="")
    page.get_by_text(said[: said.index("99") + 2]).wait_for(timeout=TIMEOUT)
    page.get_by_role("heading", name=t(HEADINGS["attention"], "zh")).wait_for(timeout=TIMEOUT)  # the section opens
    assert_no_exception(page)
