"""Browser tests of the Attention page's layout: a phone (390 × 844) and a desktop (1400 × 1000)."""

import re
from pathlib import Path

import pytest
from conftest import SCREENSHOTS, assert_no_exception, open_step_table, wait_for_app

from tinygpt.examples import EXAMPLES
from tinygpt.i18n import t

pytestmark = pytest.mark.browser

CHART_RIGHTS_JS = """() => Array.from(document.querySelectorAll("[data-testid='stVegaLiteChart']"))
    .map(c => c.getBoundingClientRect().right)"""
TABLE_SCROLL_JS = """() => { const t = document.querySelector(".tg-table");
    return [t.querySelector('table').getBoundingClientRect().width, t.getBoundingClientRect().width]; }"""


def open_page(browser, app_server, width: int, height: int, query: str, locale: str = "en-US"):
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    page.goto(f"{app_server}/attention?{query}")
    wait_for_app(page, 240_000)  # a fresh server trains the default model first
    page.locator("[data-testid='stVegaLiteChart'] :is(svg, canvas)").first.wait_for(timeout=60_000)
    wait_for_app(page)
    return context, page


#: Counts the controls a student sees before scrolling (every button of a button group, every
#: input, switch, slider, radio; not help icons), as the lesson-path target counts them.
CONTROLS_ABOVE_FOLD_JS = (Path(__file__).parent / "tools" / "controls_above_fold.js").read_text(encoding="utf-8")
#: The vertical extent of an element and of the strip's changed columns, against the viewport.
IN_VIEW_JS = """(selector) => { const el = document.querySelector(selector); if (!el) return null;
    const r = el.getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; }"""
CHANGED_COLUMNS_JS = """() => Array.from(document.querySelectorAll('.tg-strip .col.changed'))
    .map(c => { const r = c.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; })"""


def click_mask(page, lang: str) -> None:
    """One click on the causal-mask switch, as a student makes it, and the page's answer."""
    page.locator(".st-key-attn_whatif").get_by_text(t("attn.mask", lang), exact=True).click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('mask') === '0'", timeout=60_000)
    wait_for_app(page)


def in_view(page, selector: str) -> bool:
    top, bottom, height = page.evaluate(IN_VIEW_JS, selector)
    return 0 <= top and bottom <= height


@pytest.mark.parametrize("size", [(1400, 1000), (390, 844)], ids=["desktop", "phone"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_first_view_is_few_controls_and_one_click_on_the_mask_shows_its_effect_in_view(
    browser, app_server, lang, size
):
    width, height = size
    context, page = open_page(browser, app_server, width, height, f"lang={lang}", "zh-CN" if lang == "zh" else "en-US")
    try:
        assert page.evaluate("() => scrollY") == 0
        controls = page.evaluate(CONTROLS_ABOVE_FOLD_JS, height)
        assert controls <= 14, controls
        assert "model=context" in page.url  # the page opens where attention decides
        click_mask(page, lang)
        count = page.locator(".st-key-effect_count").inner_text()
        if lang == "en":  # "The switches act in layer 1 of 2: 6 of 15 predictions changed."
            n, T = (int(x) for x in re.findall(r"(\d+) of (\d+) predictions", count)[0])
        else:  # "开关作用在第 1 层（共 2 层）：15 个预测中的 6 个改变了。"
            T, n = (int(x) for x in re.findall(r"(\d+) 个预测中的 (\d+) 个", count)[0])
        assert T == 15 and n >= 1, count
        columns = page.evaluate(CHANGED_COLUMNS_JS)
        assert len(columns) == n  # every changed position marked
        assert all(
            0 <= top and bottom <= height and 0 <= left and right <= width for top, bottom, left, right in columns
        )
        assert page.evaluate(IN_VIEW_JS, ".st-key-effect_count p")[1] <= height  # the count line, in view
        assert_no_exception(page)
    finally:
        context.close()


@pytest.mark.parametrize("size", [(1400, 1000), (390, 844)], ids=["desktop", "phone"])
def test_on_the_textbook_model_the_reason_and_a_working_context_button_are_in_view_after_the_click(
    browser, app_server, size
):
    width, height = size
    context, page = open_page(browser, app_server, width, height, "lang=en&model=textbook")
    try:
        click_mask(page, "en")
        button = page.locator(".st-key-attn_try_context").get_by_role("button", name=t("model.offer_context", "en"))
        box = button.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= height
        why = page.locator(".st-key-effect_count").get_by_text(t("attn.exp.why_header", "en"))
        box = why.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= height
        button.click()
        page.wait_for_function("() => new URL(location.href).searchParams.get('model') === 'context'", timeout=60_000)
        wait_for_app(page)
        assert page.locator(".st-key-attn_text input").input_value() == EXAMPLES["context"].display
        assert_no_exception(page)
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_on_a_phone_the_alpha_grids_fit_the_screen(browser, app_server, lang):
    context, page = open_page(browser, app_server, 390, 844, f"lang={lang}&model=textbook&step=softmax&head=0")
    try:
        main = page.get_by_test_id("stMain")
        for header, charts in (
            (t("attn.heads_header", lang, layer=1), 8),  # the 8 heads of layer 1 (index 0)
            (t("attn.layers_header", lang, head=1), 6),  # the 6 layers' head 1 (head=0 in the link)
        ):
            grid = main.get_by_test_id("stExpander").filter(has_text=header)  # drawn only while open
            grid.locator("summary").click()
            wait_for_app(page)
            page.wait_for_function(
                f"(n) => document.querySelectorAll('.st-key-{'attn_heads_grid' if charts == 8 else 'attn_layers_grid'}'"
                " + ' [data-testid=stVegaLiteChart]').length >= n",
                arg=charts,
                timeout=60_000,
            )
            rights = page.evaluate(CHART_RIGHTS_JS)
            assert max(rights) <= 390, rights  # every panel of the grid is on the screen
        assert_no_exception(page)
    finally:
        context.close()


def test_on_a_desktop_the_whole_alpha_table_of_ten_positions_is_visible(browser, app_server):
    context, page = open_page(
        browser, app_server, 1400, 1000, "lang=en&model=textbook&step=softmax&text=你好世界你好世界你好"
    )
    try:
        open_step_table(page, "α · head 1")
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
    context, page = open_page(browser, app_server, 1400, 1000, f"lang=en&model=textbook&step=softmax&text={text}")
    try:
        page.locator("[data-testid='stVegaLiteChart'] canvas").first.wait_for(timeout=60_000)  # the T × T heatmap
        page.wait_for_timeout(500)
        wait_for_app(page)
        elements = page.evaluate("() => document.querySelectorAll('*').length")
        assert elements < 20_000, elements  # one SVG element per cell would be 16,384 per T × T chart
        assert_no_exception(page)
    finally:
        context.close()


def test_on_a_desktop_no_control_moves_when_the_explanations_appear(browser, app_server):
    context, page = open_page(browser, app_server, 1400, 1000, "lang=zh")
    try:
        controls = (".st-key-attn_mask", ".st-key-attn_uniform", ".st-key-attn_temperature", ".st-key-attn_more")
        before = [page.locator(c).bounding_box()["y"] for c in controls]
        click_mask(page, "zh")  # the count, the marks and the reasons appear under the controls
        page.locator(".tg-strip .col.changed").first.wait_for(timeout=60_000)
        after = [page.locator(c).bounding_box()["y"] for c in controls]
        assert after == pytest.approx(before, abs=1), (before, after)
        page.locator(".st-key-attn_more summary").click()  # open: the effect sticks to the screen's bottom
        wait_for_app(page)
        strip = page.locator("[data-testid='stLayoutWrapper']:has(> .st-key-effect_count)")
        assert strip.evaluate("e => getComputedStyle(e).bottom") == "0px"
        page.screenshot(path=str(SCREENSHOTS / "attention_more_open_desktop.png"))
        assert_no_exception(page)
    finally:
        context.close()
