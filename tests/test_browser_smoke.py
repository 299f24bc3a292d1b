"""Every page in both languages in a real browser: it opens, speaks the language, shows its charts.

The ``page`` fixture saves a full-page screenshot of each (artifacts/screenshots/<test name>.png),
so a run leaves a picture of every page in Chinese and English for a reviewer.
"""

import re

import pytest
from conftest import assert_no_exception, wait_for_app

from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 90_000
# Streamlit scrolls its main area inside the window, so a "full page" screenshot is one window
# high; the test grows the window to the content's height first (capped) so the picture is whole.
WHOLE_PAGE_JS = """() => Math.max(document.body.scrollHeight,
    ...[...document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"]')]
        .map(el => el.scrollHeight))"""
MAX_SCREENSHOT_HEIGHT = 8000
PAGES = {
    "": ("train.title", "nav.train"),
    "predict": ("predict.title", "nav.predict"),
    "attention": ("attn.title", "nav.attention"),
    "theory": ("theory.title", "nav.theory"),
}
#: Extra query parameters: the Theory page opens with its first section, text and a formula, so the
#: test opens the section with the most formulas, tables and charts (softmax and the matrix form).
EXTRA_QUERY = {"theory": "&concept=softmax"}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("path", list(PAGES), ids=lambda p: p or "train")
def test_every_page_renders_in_both_languages(app_server, page, path, lang):
    other = "en" if lang == "zh" else "zh"
    title, _ = PAGES[path]
    page.goto(f"{app_server}/{path}?lang={lang}{EXTRA_QUERY.get(path, '')}")
    page.get_by_role("heading", name=t(title, lang)).first.wait_for(timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)
    assert_no_exception(page)
    nav = page.locator("[data-testid='stSidebarNav'] a")
    for _, nav_key in PAGES.values():  # the link text also holds the icon's ligature name
        assert nav.filter(has_text=re.compile(rf"{re.escape(t(nav_key, lang))}$")).count() == 1
        assert nav.filter(has_text=re.compile(rf"{re.escape(t(nav_key, other))}$")).count() == 0
    assert page.get_by_role("heading", name=t(title, other)).count() == 0
    if path:  # the Train page draws its loss chart once a model trains; the others always have charts
        page.locator("[data-testid='stVegaLiteChart']").first.wait_for(timeout=TIMEOUT)
    height = min(int(page.evaluate(WHOLE_PAGE_JS)) + 40, MAX_SCREENSHOT_HEIGHT)
    page.set_viewport_size({"width": 1280, "height": max(900, height)})
    wait_for_app(page, TIMEOUT)  # the fixture's screenshot at teardown now shows the whole page
