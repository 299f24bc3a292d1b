"""Browser tests of the Attention page's layout: a phone (390 × 844) and a desktop (1400 × 1000)."""

from urllib.parse import parse_qs, urlparse

import pytest
from conftest import assert_no_exception, wait_for_app

from tinygpt.i18n import t

pytestmark = pytest.mark.browser

CHART_RIGHTS_JS = """() => Array.from(document.querySelectorAll("[data-testid='stVegaLiteChart']"))
    .map(c => c.getBoundingClientRect().right)"""
TABLE_SCROLL_JS = """() => { const t = document.querySelector(".tg-table");
    return [t.querySelector('table').getBoundingClientRect().width, t.getBoundingClientRect().width]; }"""


def open_page(browser, app_server, width: int, height: int, query: str):
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = context.new_page()
    page.goto(f"{app_server}/attention?{query}")
    wait_for_app(page, 240_000)  # a fresh server trains the default model first
    page.locator("[data-testid='stVegaLiteChart'] :is(svg, canvas)").first.wait_for(timeout=60_000)
    wait_for_app(page)
    return context, page


def open_part(page, lang: str, part: str) -> None:
    """Click ``part`` in the Attention page's part chooser and wait for the page."""
    page.locator(".st-key-attn_part button", has_text=t(f"attn.part.{part}", lang)).click()
    page.wait_for_function(f"() => new URL(location.href).searchParams.get('part') === '{part}'", timeout=60_000)
    wait_for_app(page)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_on_a_phone_the_switches_sit_in_the_page_and_the_alpha_grids_fit_the_screen(browser, app_server, lang):
    context, page = open_page(browser, app_server, 390, 844, f"lang={lang}&step=softmax")
    try:
        main = page.get_by_test_id("stMain")
        switches = main.get_by_test_id("stExpander").filter(has_text=t("attn.switches", lang))
        mask = switches.get_by_text(t("attn.mask", lang), exact=True)
        mask.scroll_into_view_if_needed()
        box = mask.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        mask.click()  # no sidebar to open first
        page.wait_for_function("() => new URL(location.href).searchParams.get('mask') === '0'", timeout=60_000)
        wait_for_app(page)
        assert parse_qs(urlparse(page.url).query)["mask"] == ["0"]
        for part, header, charts in (
            ("prediction", t("attn.heads_header", lang, layer=0), 9),  # effects + 8 heads
            ("model", t("attn.layers_header", lang, head=0), 7),
        ):  # heads matter + 6 layers
            open_part(page, lang, part)
            grid = main.get_by_test_id("stExpander").filter(has_text=header)  # drawn only while open
            grid.locator("summary").click()
            wait_for_app(page)
            page.wait_for_function(f"() => ({CHART_RIGHTS_JS})().length >= {charts}", timeout=60_000)
            rights = page.evaluate(CHART_RIGHTS_JS)
            assert max(rights) <= 390, rights  # every panel of the grid is on the screen
        assert_no_exception(page)
    finally:
        context.close()


def test_on_a_desktop_the_whole_alpha_table_of_ten_positions_is_visible(browser, app_server):
    context, page = open_page(browser, app_server, 1400, 1000, "lang=en&step=softmax&text=你好世界你好世界你好")
    try:
        page.locator(".tg-table").first.scroll_into_view_if_needed(timeout=60_000)
        table_width, box_width = page.evaluate(TABLE_SCROLL_JS)
        assert table_width <= box_width, (table_width, box_width)  # no sideways scrolling: 10 of 10 columns
        assert_no_exception(page)
    finally:
        context.close()


def test_the_longest_text_draws_a_bounded_number_of_elements(browser, app_server):
    from tinygpt.config import GPTConfig

    T = GPTConfig().max_len  # the default model's longest context: the page crops to it
    text = ("你好世界" * T)[:T]
    context, page = open_page(browser, app_server, 1400, 1000, f"lang=en&step=softmax&text={text}")
    try:
        page.locator("[data-testid='stVegaLiteChart'] canvas").first.wait_for(timeout=60_000)  # the T × T heatmap
        page.wait_for_timeout(500)
        wait_for_app(page)
        elements = page.evaluate("() => document.querySelectorAll('*').length")
        assert elements < 20_000, elements  # one SVG element per cell would be 16,384 per T × T chart
        assert_no_exception(page)
    finally:
        context.close()
