"""A fresh server whose very first request is a deep link: the app's own navigation, language and view.

With a ``pages/`` folder beside the entry script, Streamlit starts in its legacy multipage mode and
runs a deep-linked page file alone; ``tinygpt.ui.navigation.ensure_entry_script`` must route that
first run through the entry script, so the first page shows the app's titles in the link's
language, the language switch, and the view the query parameters name.
"""

from __future__ import annotations

import pytest
from conftest import ARTIFACTS, SCREENSHOTS, assert_no_exception, wait_for_app

from bench.cold_start import start_server, stop_server, wait_healthy
from tinygpt.i18n import LANGUAGES, t
from tinygpt.ui.frame.page_list import PAGES

pytestmark = pytest.mark.browser

#: Each page's title (its first heading), by its navigation key.
TITLES = {
    "nav.train": "train.title",
    "nav.predict": "predict.title",
    "nav.attention": "attn.title",
    "nav.theory": "theory.title",
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_first_request_of_a_fresh_server_is_a_deep_link_with_query_parameters(browser, lang):
    proc, base_url = start_server(log_path=ARTIFACTS / f"streamlit-deep-link-{lang}.log")
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    try:
        wait_healthy(proc, base_url)
        page.goto(f"{base_url}/attention?text=%E4%BD%A0%E5%A5%BD&layer=1&head=2&lang={lang}")
        wait_for_app(page, timeout_ms=90_000)
        page.get_by_role("heading", name=t("attn.title", lang)).wait_for(timeout=90_000)
        wait_for_app(page, timeout_ms=90_000)
        assert_no_exception(page)
        nav = page.locator("[data-testid='stSidebarNav']")
        for key in ("nav.train", "nav.predict", "nav.attention", "nav.theory"):
            assert nav.get_by_text(t(key, lang), exact=True).count() == 1, key
        assert nav.get_by_text("attention", exact=True).count() == 0  # not the file names of the legacy mode
        switch = page.get_by_role("radiogroup", name=t("app.language", lang))
        for name in LANGUAGES.values():
            assert switch.get_by_text(name, exact=True).count() == 1
        assert page.get_by_test_id("stTextInputField").first.input_value() == "你好"  # the textbook's text
        page.get_by_test_id("stMain").get_by_text(t("attn.more", lang)).click()  # layer and head: one click away
        wait_for_app(page, timeout_ms=90_000)
        chosen = [page.locator(f".st-key-{key} button[aria-checked='true']") for key in ("attn_layer", "attn_head")]
        assert [c.inner_text() for c in chosen] == ["2", "3"]  # layer=1, head=2 in the link: counted from 1
        assert "layer=1" in page.url and "head=2" in page.url and f"lang={lang}" in page.url
    finally:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"deep_link_first_request_{lang}.png"), full_page=True)
        context.close()
        stop_server(proc)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_path_a_student_can_type_opens_its_page_without_a_page_not_found_box(app_server, page, lang):
    for _, key, _, url_path in PAGES:
        page.goto(f"{app_server}/{url_path}?lang={lang}")
        wait_for_app(page, timeout_ms=90_000)
        page.get_by_role("heading", level=1).first.wait_for(timeout=90_000)
        wait_for_app(page, timeout_ms=90_000)
        assert_no_exception(page)
        title = page.get_by_role("heading", level=1).first.inner_text()
        assert title == t(TITLES[key], lang), (url_path, title)
        assert page.get_by_role("dialog").count() == 0, (url_path, page.get_by_role("dialog").all_inner_texts())
        selected = page.locator("[data-testid='stSidebarNav'] a[aria-current='page']").all_inner_texts()
        assert len(selected) == 1 and selected[0].strip().endswith(t(key, lang)), (url_path, selected)  # its icon, name
        assert f"lang={lang}" in page.url
    assert page.url.startswith(f"{app_server}/theory")
    page.goto(f"{app_server}/train?lang={lang}&form=v1;epochs=7;text=abc")  # the first page's own path, a form link
    wait_for_app(page, timeout_ms=90_000)
    page.get_by_role("heading", name=t("train.title", lang)).wait_for(timeout=90_000)
    wait_for_app(page, timeout_ms=90_000)
    assert page.get_by_role("dialog").count() == 0
    assert page.url.startswith(f"{app_server}/?") and "form=" in page.url  # the root, with the link's query
    assert page.locator(".st-key-train_epochs input").input_value() == "7"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_page_a_lesson_leaves_out_says_so_in_the_lesson_language(app_server, page, lang):
    page.goto(f"{app_server}/train?lang={lang}&lesson=1&pages=attention,predict")
    wait_for_app(page, timeout_ms=90_000)
    said = t("lesson.not_in_lesson", lang, page=t("nav.train", lang), first=t("nav.predict", lang))
    page.get_by_text(said).wait_for(timeout=90_000)
    wait_for_app(page, timeout_ms=90_000)
    assert_no_exception(page)
    assert page.get_by_role("dialog").count() == 0  # not Streamlit's English "Page not found"
    page.get_by_test_id("stMain").get_by_role("link", name=t("nav.predict", lang)).click()  # on to the lesson
    page.get_by_role("heading", name=t("predict.title", lang)).wait_for(timeout=90_000)
    assert "/predict?" in page.url and "lesson=1" in page.url
