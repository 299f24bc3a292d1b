"""A new student's path, followed only through the app's own links: from the start box to a seen
flip and its reason, counting clicks and scrolls, on a desktop (1400 × 1000) and a phone (390 × 844).

A step that is not in view before its click costs a scroll (the test then scrolls to it, as a
student would, and goes on), so a failure names where the path stops. Two paths:

- the start box's ② straight to the switches: 2 clicks (the link, the mask), 0 scrolls;
- the start box's ① to Predict, then Predict's next step: 3 clicks, 0 scrolls.

"Seen" is the count of changed predictions, every changed column of the strip and the first line
of the first reason inside the screen after the last click. Each run prints its clicks and
scrolls and saves a screenshot of where the path ends.
"""

from __future__ import annotations

import re

import pytest
from conftest import SCREENSHOTS, assert_no_exception, wait_for_app

from tinygpt.i18n import t

pytestmark = pytest.mark.browser

SIZES = [(1400, 1000), (390, 844)]
#: The box of an element against the screen: [top, bottom, left, right, innerHeight, innerWidth].
BOX_JS = """(el) => { const r = el.getBoundingClientRect();
    return [r.top, r.bottom, r.left, r.right, innerHeight, innerWidth]; }"""

SIDEBAR_RIGHT_JS = "() => document.querySelector('[data-testid=stSidebar]').getBoundingClientRect().right"


class Path:
    """A student on ``page``: clicks and scrolls, counted."""

    def __init__(self, page) -> None:
        self.page, self.clicks, self.scrolls, self.stops = page, 0, 0, []

    def seen(self, locator, what: str, whole: bool = True) -> None:
        """``locator`` is on the screen (its first line at least when not ``whole``); else one scroll."""
        locator.wait_for(timeout=60_000)
        top, bottom, left, right, height, width = locator.evaluate(BOX_JS)
        end = bottom if whole else top + 24
        if not (0 <= top and end <= height and 0 <= left and right <= width + 1):
            self.scrolls += 1
            self.stops.append(f"{what}: {top:.0f}–{bottom:.0f} of {height}")
            locator.scroll_into_view_if_needed()

    def click(self, locator, what: str) -> None:
        self.seen(locator, what)
        locator.click()
        self.clicks += 1


def _open(browser, app_server, size: tuple[int, int], lang: str):
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN")
    page = context.new_page()
    page.goto(f"{app_server}/?lang={lang}")
    wait_for_app(page, 240_000)
    page.locator(".st-key-train_start_here").wait_for(timeout=60_000)
    return context, page


def _flip_seen(path: Path, lang: str) -> None:
    """On the Attention page: one click on the mask, then the count, the marked columns and the
    first reason in view."""
    page = path.page
    wait_for_app(page, 240_000)
    switch = page.locator(".st-key-attn_whatif").get_by_text(t("attn.mask", lang), exact=True)
    path.click(switch, "the mask switch")
    page.wait_for_function("() => new URL(location.href).searchParams.get('mask') === '0'", timeout=60_000)
    wait_for_app(page)
    page.locator(".tg-strip .col.changed").first.wait_for(timeout=60_000)
    path.seen(page.locator(".st-key-effect_count p").first, "the count")
    for k in range(page.locator(".tg-strip .col.changed").count()):
        path.seen(page.locator(".tg-strip .col.changed").nth(k), f"changed column {k}")
    reason = page.get_by_test_id("stMain").locator("li").filter(has_text=re.compile(r"^\d+ \S[:：]")).first
    path.seen(reason, "the first reason", whole=False)
    assert t("why.how.mask_off", lang) in reason.inner_text()  # a plain sentence naming the switch


def _report(path: Path, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    print(f"{name}: {path.clicks} clicks, {path.scrolls} scrolls {path.stops}")


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_from_the_start_box_to_a_flip_and_its_reason_in_two_clicks_and_no_scroll(browser, app_server, size):
    context, page = _open(browser, app_server, size, "zh")
    try:
        path = Path(page)
        path.click(page.locator(".st-key-train_start_here").get_by_text(t("train.start_attention", "zh")), "②")
        _flip_seen(path, "zh")
        _report(path, f"path_start_attention_{size[0]}x{size[1]}")
        assert (path.clicks, path.scrolls) == (2, 0), path.stops
        assert_no_exception(page)
    finally:
        context.close()


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_predict_shows_its_next_step_above_the_fold_and_it_leads_to_the_flip(browser, app_server, size):
    context, page = _open(browser, app_server, size, "zh")
    try:
        path = Path(page)
        path.click(page.locator(".st-key-train_start_here").get_by_text(t("train.start_predict", "zh")), "①")
        page.wait_for_url(re.compile(r"/predict"), timeout=60_000)
        wait_for_app(page, 240_000)
        path.click(page.locator(".st-key-predict_next_step").get_by_role("link"), "Predict's next step")
        page.wait_for_url(re.compile(r"/attention"), timeout=60_000)
        _flip_seen(path, "zh")
        chosen = page.locator(".st-key-model_choice button[aria-checked='true']")  # the model kept, and shown
        assert chosen.all_inner_texts() == [t("model.choice.context", "zh")]
        _report(path, f"path_start_predict_{size[0]}x{size[1]}")
        assert (path.clicks, path.scrolls) == (3, 0), path.stops
        assert_no_exception(page)
    finally:
        context.close()


def test_on_a_phone_the_page_menu_closes_after_a_choice(browser, app_server):
    context, page = _open(browser, app_server, (390, 844), "zh")
    try:
        sidebar = page.get_by_test_id("stSidebar")
        page.locator("[data-testid=stExpandSidebarButton]").first.click()  # "»": the page menu
        page.wait_for_function(f"() => ({SIDEBAR_RIGHT_JS})() > 200")
        sidebar.locator("[data-testid=stSidebarNav] a").filter(has_text=t("nav.predict", "zh")).click()
        page.wait_for_url(re.compile(r"/predict"), timeout=60_000)
        page.wait_for_function(f"() => ({SIDEBAR_RIGHT_JS})() <= 0", timeout=10_000)  # closed: the page in view
        wait_for_app(page, 240_000)
        page.screenshot(path=str(SCREENSHOTS / "path_phone_menu_closed.png"))
        assert_no_exception(page)
    finally:
        context.close()


def test_my_answers_is_on_the_attention_page_once_after_an_answer(browser, app_server):
    context, page = _open(browser, app_server, (1400, 1000), "en")
    try:
        page.goto(f"{app_server}/attention?lang=en&model=context&guess=1&step=softmax")
        wait_for_app(page, 240_000)
        group = page.locator('[data-testid="stButtonGroup"]').filter(has_text="Which key will query")
        group.locator("button").first.click()  # an answer: "My answers" beside the score, and in the sidebar
        page.locator(".st-key-mine_here").wait_for(timeout=60_000)
        wait_for_app(page)
        for path in ("predict", "attention"):  # whole runs: the sidebar is drawn again, with its own copy
            page.locator(f"[data-testid='stSidebarNav'] a[href$='/{path}']").click()
            page.wait_for_url(re.compile(f"/{path}"), timeout=60_000)
            wait_for_app(page, 240_000)
        page.locator(".st-key-mine_sidebar").wait_for(state="attached", timeout=60_000)
        page.locator(".st-key-mine_here").wait_for(timeout=60_000)
        buttons = page.get_by_role("button", name=t("mine.button", "en"))
        assert sum(buttons.nth(k).is_visible() for k in range(buttons.count())) == 1
        page.screenshot(path=str(SCREENSHOTS / "path_my_answers_once.png"))
        assert_no_exception(page)
    finally:
        context.close()
