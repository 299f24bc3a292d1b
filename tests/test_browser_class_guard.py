"""A class nothing can stop, in a browser: the teacher's key leaves the address bar at once and a
reload keeps the class (the key in a cookie); a short link typed in lower case opens the lesson; answers
given while the store cannot be written are sent by themselves once it can, with no click.

Screenshots: artifacts/screenshots/class_guard_teacher.png (the projected page, no key in its
address), class_guard_waiting.png (answers waiting), class_guard_sent.png (sent by themselves)."""

from __future__ import annotations

import re

import pytest
from conftest import SCREENSHOTS, assert_no_exception, wait_for_app
from playwright.sync_api import expect
from test_browser_a11y import blocking_findings, summary

from bench.cold_start import ARTIFACTS, start_server, stop_server, wait_healthy
from tinygpt.classroom.class_links import query_with_class
from tinygpt.classroom.store import Store, database_url
from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 120_000


@pytest.fixture
def server(tmp_path):
    """An app server whose class store is a SQLite file in a folder of the test: (base URL, folder)."""
    folder = tmp_path / "blocked" / "data"
    proc, url = start_server(log_path=ARTIFACTS / "class-guard-server.log", env={"TINYGPT_DATA_DIR": str(folder)})
    try:
        wait_healthy(proc, url)
        yield url, folder
    finally:
        stop_server(proc)


def test_the_teachers_key_leaves_the_address_and_a_lower_case_short_link_opens(browser, server):
    url, folder = server
    store = Store(database_url({"TINYGPT_DATA_DIR": str(folder)}))
    code, key = store.create_class("lesson=1&pages=attention&step=softmax&guess=1")
    short = store.shorten(query_with_class("lesson=1&pages=attention&step=softmax&guess=1", code))
    store.dispose()
    ctx = browser.new_context(viewport={"width": 1280, "height": 1400}, locale="en-US")
    try:
        teacher = ctx.new_page()
        teacher.goto(f"{url}/teacher?class={code}&key={key}&lang=en")
        heading = teacher.get_by_role("heading", name=f"Class {code}")
        heading.wait_for(timeout=TIMEOUT)
        wait_for_app(teacher)
        expect(teacher).to_have_url(re.compile(rf"/teacher\?class={code}&lang=en$|/teacher\?lang=en&class={code}$"))
        assert key not in teacher.url
        teacher.screenshot(path=str(SCREENSHOTS / "class_guard_teacher.png"), full_page=True)
        findings = blocking_findings(teacher)  # the class's page, its warning under the QR code too
        assert findings == [], summary(findings)
        teacher.reload()  # the address as projected: the key comes from this browser's cookie
        heading.wait_for(timeout=TIMEOUT)
        wait_for_app(teacher)
        assert_no_exception(teacher)

        student = browser.new_context(locale="en-US").new_page()
        student.goto(f"{url}/?s={short.lower()}")  # typed from the projector on a phone
        student.locator(".st-key-attn_ex_argmax_key_pick").wait_for(timeout=TIMEOUT)
        wait_for_app(student, TIMEOUT)
        assert "step=softmax" in student.url and f"class={code}" in student.url
        expect(student.get_by_text("does not exist")).to_have_count(0)
        student.context.close()
    finally:
        ctx.close()


def test_answers_given_while_the_store_cannot_be_written_are_sent_by_themselves(browser, server):
    url, folder = server
    blocker = folder.parent
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("a file where the store's folder should be: nothing can be written")
    page = browser.new_context(viewport={"width": 1280, "height": 1000}, locale="en-US").new_page()
    try:
        page.goto(f"{url}/attention?lang=en&step=softmax&guess=1")
        question = page.locator(".st-key-attn_ex_argmax_key_pick")
        question.wait_for(timeout=TIMEOUT)
        wait_for_app(page, TIMEOUT)
        question.locator("button").nth(2).click()
        expect(page.get_by_test_id("stMain")).to_contain_text("1 answer not sent yet", timeout=30_000)
        page.screenshot(path=str(SCREENSHOTS / "class_guard_waiting.png"), full_page=True)
        blocker.unlink()  # the store can be written again; the student does not click anything
        expect(page.get_by_test_id("stMain")).to_contain_text(t("class.sent_now", "en"), timeout=30_000)
        page.screenshot(path=str(SCREENSHOTS / "class_guard_sent.png"), full_page=True)
        store = Store(database_url({"TINYGPT_DATA_DIR": str(folder)}))
        assert len(store.answers(class_code="")) == 1
        store.dispose()
        assert_no_exception(page)
    finally:
        page.context.close()
