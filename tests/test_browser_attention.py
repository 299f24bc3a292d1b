"""Browser test of the Attention page: the mask switch and the temperature slider redraw α."""

from urllib.parse import parse_qs, urlparse

import pytest
from conftest import assert_no_exception, wait_for_app
from conftest import open_step_table as open_table
from playwright.sync_api import expect

from tinygpt.attention import STEPS
from tinygpt.i18n import t

pytestmark = pytest.mark.browser

# The first table on the page is the step's table, static HTML at this size (tinygpt.ui.frame.tables):
# its row labels are <th>, its numbers <td>; the first Vega-Lite chart is the step's heatmap (SVG).
TABLE_CELLS_JS = """() => Array.from(document.querySelector(".tg-table")?.querySelectorAll('tbody th, tbody td') || [])
    .map(cell => cell.innerText)"""
HEATMAP_JS = """() => (document.querySelector("[data-testid='stVegaLiteChart'] svg") || {outerHTML: ""}).outerHTML"""
CHANGED_JS = """([cellsJs, heatJs, before]) => {
    const cells = eval(cellsJs)(), heat = eval(heatJs)();
    return cells.length === before.cells.length && JSON.stringify(cells) !== JSON.stringify(before.cells)
        && heat !== before.heat;
}"""


def alpha_rows(cells: list[str]) -> list[list[float]]:
    """The α table's cells ("0 你", a00, a01, …) as rows of numbers."""
    rows, row = [], []
    for text in cells:
        if " " in text:  # a position label starts a row
            row = []
            rows.append(row)
        else:
            row.append(float(text))
    return rows


def snapshot(page) -> dict:
    return {"cells": page.evaluate(TABLE_CELLS_JS), "heat": page.evaluate(HEATMAP_JS)}


def wait_for_redraw(page, before: dict) -> dict:
    """Wait until both the α table and the heatmap differ from ``before``; return the new state."""
    page.wait_for_function(CHANGED_JS, arg=[TABLE_CELLS_JS, HEATMAP_JS, before], timeout=60_000, polling=200)
    wait_for_app(page)
    return snapshot(page)


def open_step_table(page, name: str) -> None:
    """Open the step's table (one click away under its heatmap) and wait for its cells."""
    open_table(page, name)
    page.locator(".tg-table").first.scroll_into_view_if_needed(timeout=60_000)
    page.wait_for_function(f"() => ({TABLE_CELLS_JS})().length >= 20", timeout=60_000)


def test_mask_switch_and_temperature_slider_redraw_the_heatmap(app_server, page):
    page.goto(f"{app_server}/attention?lang=en&model=textbook&step=softmax&head=0")
    wait_for_app(page, 240_000)  # a fresh server trains the default model first
    page.get_by_role("heading", name=t("attn.step_header", "en", number=6, n=len(STEPS), name="Softmax")).wait_for(
        timeout=60_000
    )
    page.locator("[data-testid='stVegaLiteChart'] svg").first.wait_for(timeout=60_000)
    open_step_table(page, f"{t('attn.tensor.alpha', 'en')} · {t('attn.panel_head', 'en', h=1)}")  # head=0: head 1
    start = snapshot(page)
    alpha = alpha_rows(start["cells"])
    assert len(alpha) == 4 and alpha[0] == [1.0, 0.0, 0.0, 0.0]

    switches = page.locator(".st-key-attn_whatif")  # in the main area, above the steps
    switches.get_by_text(t("attn.mask", "en"), exact=True).click()
    masked_off = wait_for_redraw(page, start)
    alpha = alpha_rows(masked_off["cells"])
    assert alpha[0][1] > 0 and all(v > 0 for row in alpha for v in row)
    assert parse_qs(urlparse(page.url).query)["mask"] == ["0"]
    page.get_by_text(t("attn.curious", "en")).click()  # the checks say so too
    page.get_by_text(t("attn.check_no_mask", "en")).wait_for(timeout=30_000)

    slider = switches.get_by_role("slider").first
    assert slider.get_attribute("aria-valuetext") == "1"
    slider.focus()
    slider.press("ArrowLeft")  # one step down the slider: τ 1 → 0.7 (each key press reruns the page)
    page.wait_for_function("() => new URL(location.href).searchParams.get('tau') === '0.7'", timeout=60_000)
    colder = wait_for_redraw(page, masked_off)
    assert switches.get_by_role("slider").first.get_attribute("aria-valuetext") == "0.7"
    cold, warm = alpha_rows(colder["cells"]), alpha_rows(masked_off["cells"])
    assert all(max(c) > max(w) for c, w in zip(cold, warm))  # a smaller τ sharpens every row
    assert_no_exception(page)


def test_more_controls_and_a_page_switch_keep_what_the_student_chose(app_server, page):
    page.goto(f"{app_server}/attention?lang=en&model=textbook")
    wait_for_app(page, 240_000)
    page.get_by_role("heading", name=t("attn.title", "en")).wait_for(timeout=240_000)
    main = page.get_by_test_id("stMain")

    def click(key: str, label: str) -> None:
        page.locator(f".st-key-{key} button", has_text=label).first.click()
        wait_for_app(page)

    def chosen(key: str) -> str:
        return page.locator(f".st-key-{key} button[aria-checked='true']").inner_text()

    main.get_by_text(t("attn.more", "en")).click()  # layer and head are one click away
    wait_for_app(page)
    click("attn_layer", "2")  # the second layer: layer=1 in the link
    click("attn_output", "V")  # step 1 shows V, with every column
    main.get_by_text(t("attn.all_columns", "en", D=512), exact=True).click()
    wait_for_app(page)
    open_table(page, "V")
    main.get_by_text(t("attn.more", "en")).click()  # closed: its controls keep their values
    expect(page.locator(".st-key-attn_layer")).to_have_count(0, timeout=60_000)  # the rerun of the click
    wait_for_app(page)
    assert chosen("attn_output") == "V" and page.locator(".st-key-attn_all_columns input").is_checked()
    page.locator("[data-testid='stSidebarNav'] a[href$='/predict']").click()
    page.get_by_role("heading", name=t("predict.title", "en")).wait_for(timeout=60_000)
    wait_for_app(page)
    page.locator("[data-testid='stSidebarNav'] a[href$='/attention']").click()
    page.get_by_role("heading", name=t("attn.title", "en")).wait_for(timeout=60_000)
    wait_for_app(page)
    page.wait_for_function("() => new URL(location.href).searchParams.get('layer') === '1'", timeout=60_000)
    assert chosen("attn_output") == "V" and page.locator(".st-key-attn_all_columns input").is_checked()
    page.go_back()  # Back leaves the page: the switches replaced the address, they did not add to the history
    page.get_by_role("heading", name=t("predict.title", "en")).wait_for(timeout=60_000)
    assert_no_exception(page)
