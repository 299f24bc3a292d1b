"""Browser test of predicting first: a student marks positions on the Attention page, flips the mask,
and sees each mark scored against the positions the page's own strip shows changed (desktop, phone)."""

import pytest
from conftest import SCREENSHOTS, assert_no_exception, wait_for_app

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
    finally:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = f"period_marks_scored_{lang}_{'phone' if width < 600 else 'desktop'}.png"
        page.screenshot(path=str(SCREENSHOTS / name), full_page=False)
        context.close()
