"""Browser test of predicting first: a student marks positions on the Attention page, flips the mask,
and sees each mark scored against the positions the page's own strip shows changed (desktop, phone)."""

import pytest
from conftest import SCREENSHOTS, assert_no_exception, wait_for_app
from test_browser_a11y import blocking_findings, summary

from tinygpt.classroom.store import NewAnswer, Store, database_url
from tinygpt.explanations.answers import question_record
from tinygpt.explanations.exercises import NONE
from tinygpt.explanations.predictions import prediction_id, prediction_question
from tinygpt.i18n import t

pytestmark = pytest.mark.browser

#: The positions the effect's strip marks changed, and the marks' columns (position, outcome classes).
STRIP_JS = """() => ({
  changed: Array.from(document.querySelectorAll('.tg-strip:not(.tg-marks) .col.changed .i')).map(e => +e.textContent),
  marks: Array.from(document.querySelectorAll('.tg-marks .col:not(.legend)'))
    .map(c => [+c.querySelector('.i').textContent, c.className, c.getAttribute('aria-label')]),
})"""


@pytest.mark.parametrize("size", [(1400, 1000), (390, 844)], ids=["desktop", "phone"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_marks_on_the_strip_are_scored_after_the_flip(browser, app_server, lang, size):
    width, height = size
    locale = "zh-CN" if lang == "zh" else "en-US"
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    try:
        page.goto(f"{app_server}/attention?lang={lang}")
        wait_for_app(page, 240_000)  # a fresh server trains the context example first
        page.locator(".tg-strip").first.wait_for(timeout=60_000)
        box = page.locator(".st-key-attn_marks")
        picked = ["1 爱", "4 你", "12 她"]
        for label in picked:
            box.locator("input").click()
            box.locator("input").fill(label)  # the list is filtered as a student types
            page.get_by_role("option", name=label, exact=True).click()
            wait_for_app(page)
        page.keyboard.press("Escape")
        page.locator(".st-key-attn_whatif").get_by_text(t("attn.mask", lang), exact=True).click()
        page.wait_for_function("() => new URL(location.href).searchParams.get('mask') === '0'", timeout=60_000)
        page.locator(".tg-marks").wait_for(timeout=60_000)
        wait_for_app(page)
        found = page.evaluate(STRIP_JS)
        changed, marked = set(found["changed"]), {int(p.split()[0]) for p in picked}
        assert changed, "the mask off changes some prediction of the context example"
        assert [i for i, _, _ in found["marks"]] == list(range(15))
        for i, classes, label in found["marks"]:  # scored against the page's own strip, said in words too
            outcome = (
                ("hit" if i in marked else "miss") if i in changed else ("false_alarm" if i in marked else "quiet")
            )
            assert outcome in classes.split() and ("flipped" in classes.split()) == (i in changed), (i, classes)
            assert label.endswith(t(f"attn.marks.outcome.{outcome}", lang)), label
        hits, misses, alarms = len(marked & changed), len(changed - marked), len(marked - changed)
        score = t("attn.marks.score", lang, hits=hits, misses=misses, false_alarms=alarms, T=15)
        score_text = score.replace("**", "")
        assert score_text in page.locator(".st-key-attn_marks_score").inner_text()
        page.locator(".st-key-attn_marks_score").scroll_into_view_if_needed()
        assert_no_exception(page)
        if width > 600:
            findings = blocking_findings(page)
            assert findings == [], summary(findings)
    finally:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = f"learning_marks_scored_{lang}_{'phone' if width < 600 else 'desktop'}.png"
        page.screenshot(path=str(SCREENSHOTS / name), full_page=False)
        context.close()


ROW_SUM = {
    "kind": "row_sum",
    "prompt_key": "ex.row_sum.prompt",
    "prompt_fields": [["i", 2], ["token", "世"]],
    "choices": [["0", "0", ""], ["1", "1", ""], ["3", "3", ""], ["4", "4", ""], ["depends", "", "ex.row_sum.depends"]],
    "answers": ["1"],
    "multiple": False,
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_teacher_sees_the_wrong_ideas_and_what_the_class_learned(app_server, page, lang):
    store = Store(database_url())  # the server's store (TINYGPT_DATA_DIR of the tests)
    try:
        code, key = store.create_class("lesson=1&pages=attention")
        q = prediction_question(list("你好世界"), [False, True, False, True], "mask", 0, last_layer=True)
        rows = [
            ("check:pre:row_sum:aaaa1111", ROW_SUM, "0", False),
            ("check:pre:row_sum:aaaa1111", ROW_SUM, "depends", False),
            ("check:pre:row_sum:aaaa1111", ROW_SUM, "1", True),
            ("check:post:row_sum:aaaa1111", ROW_SUM, "1", True),
            ("check:post:row_sum:aaaa1111", ROW_SUM, "1", True),
            ("check:post:row_sum:aaaa1111", ROW_SUM, "0", False),
            (prediction_id(q), question_record(q), NONE, False),
        ]
        for n, (qid, record, picked, right) in enumerate(rows):
            student = f"{n % 3:016x}"
            store.record_answer(NewAnswer(code, qid, "q", record, student, picked, picked, right, nickname="Ann"))
    finally:
        store.dispose()
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"{app_server}/teacher?class={code}&key={key}&lang={lang}")
    wait_for_app(page, 240_000)
    header = page.get_by_text(t("report.header", lang), exact=True)
    header.wait_for(timeout=60_000)
    main = page.get_by_test_id("stMain")
    idea = t("mis.weight_negative", lang)
    assert main.get_by_text(idea[:12]).count() >= 1
    link = main.locator("a", has_text=t("teacher.mis.try", lang)).first
    assert "/attention?model=context" in link.get_attribute("href")
    page.locator(".st-key-teacher_mis_weight_negative").scroll_into_view_if_needed()
    report = main.locator(".tg-table").last.inner_text()
    assert "33 %" in report and "67 %" in report and "0.50" in report  # 1 of 3 before, 2 of 3 after
    assert "Ann" not in main.inner_text()
    assert_no_exception(page)
    findings = blocking_findings(page)
    assert findings == [], summary(findings)
    header.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / f"learning_teacher_{lang}.png"))


def test_the_concept_check_is_a_form_on_the_attention_page(app_server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{app_server}/attention?lang=en")
        wait_for_app(page, 240_000)
        page.locator(".st-key-attn_check summary").click()
        form = page.get_by_test_id("stForm")
        form.wait_for(timeout=60_000)
        wait_for_app(page)
        assert form.get_by_text("1. Which cells of row 7").count() == 1
        form.get_by_role("button", name=t("check.submit", "en")).click()
        missing = page.get_by_text(t("check.missing", "en", n=5))
        missing.wait_for(timeout=30_000)  # the form's rerun may start after the page looked idle
        assert missing.count() == 1
        assert_no_exception(page)
        findings = blocking_findings(page)
        assert findings == [], summary(findings)
        form.scroll_into_view_if_needed()
    finally:
        page.screenshot(path=str(SCREENSHOTS / "learning_concept_check_phone.png"))
        context.close()
