"""Browser tests of the language: the default follows the browser, the switch changes navigation and
chart titles, and the choice survives clicking through the sidebar navigation (and stays in the URL)."""

import re

import pytest
from conftest import assert_no_exception, wait_for_app

from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 60_000


def nav_link(page, key: str, lang: str):
    """The sidebar navigation link of a page (its text also holds the icon's ligature name)."""
    return page.locator("[data-testid='stSidebarNav'] a").filter(has_text=re.compile(rf"{re.escape(t(key, lang))}$"))


def chart_title(page, key: str, lang: str):
    """An SVG text of a Vega-Lite chart equal to the string ``key`` in ``lang``."""
    return page.locator("[data-testid='stVegaLiteChart'] svg text").filter(
        has_text=re.compile(rf"^{re.escape(t(key, lang))}$")
    )


def test_switching_language_changes_navigation_and_chart_titles_and_survives_navigation(app_server, page):
    page.goto(f"{app_server}/theory")  # no ?lang=: the page fixture's browser speaks en-US
    wait_for_app(page)
    page.get_by_role("heading", name=t("theory.title", "en")).wait_for(timeout=TIMEOUT)
    section_button(page, "vectors", "en").click()
    chart_title(page, "theory.ops.chart_title", "en").first.wait_for(timeout=TIMEOUT)
    assert nav_link(page, "nav.theory", "en").count() == 1 and nav_link(page, "nav.predict", "en").count() == 1
    page.wait_for_url(re.compile(r"/theory\?lang=en(&section=\w+)?$"), timeout=TIMEOUT)

    page.locator("[data-testid='stSidebar']").get_by_text("中文", exact=True).click()
    nav_link(page, "nav.theory", "zh").wait_for(timeout=TIMEOUT)
    chart_title(page, "theory.ops.chart_title", "zh").first.wait_for(timeout=TIMEOUT)
    page.get_by_role("heading", name=t("theory.title", "zh")).wait_for(timeout=TIMEOUT)
    page.wait_for_url(re.compile(r"/theory\?lang=zh(&section=\w+)?$"), timeout=TIMEOUT)
    assert chart_title(page, "theory.ops.chart_title", "en").count() == 0
    assert nav_link(page, "nav.predict", "en").count() == 0

    nav_link(page, "nav.predict", "zh").click()  # the sidebar navigation drops the query string …
    page.get_by_role("heading", name=t("predict.title", "zh")).wait_for(timeout=TIMEOUT)
    page.wait_for_url(re.compile(r"/predict\?(.*&)?lang=zh(&|$)"), timeout=TIMEOUT)  # … and the app writes it back
    wait_for_app(page)
    assert_no_exception(page)

    nav_link(page, "nav.theory", "zh").click()
    chart_title(page, "theory.ops.chart_title", "zh").first.wait_for(timeout=TIMEOUT)  # the section left open
    section_button(page, "attention", "zh").click()  # the section chooser speaks Chinese too
    chart_title(page, "theory.sm.chart_title", "zh").first.wait_for(timeout=TIMEOUT)
    page.wait_for_url(re.compile(r"/theory\?lang=zh(&section=\w+)?$"), timeout=TIMEOUT)
    page.reload()  # a new session starts from ?lang= in the URL
    wait_for_app(page)
    page.get_by_role("heading", name=t("theory.title", "zh")).wait_for(timeout=TIMEOUT)
    assert_no_exception(page)


def section_button(page, section: str, lang: str):
    """The Theory page's button that opens ``section``."""
    return page.locator(".st-key-theory_section button", has_text=t(f"theory.section.{section}", lang))


def test_a_chinese_browser_opens_in_chinese_with_links_to_the_attention_steps(app_server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    try:
        page = context.new_page()
        page.goto(f"{app_server}/theory")
        wait_for_app(page)
        page.get_by_role("heading", name=t("theory.title", "zh")).wait_for(timeout=TIMEOUT)
        page.wait_for_url(re.compile(r"/theory\?lang=zh(&section=\w+)?$"), timeout=TIMEOUT)
        section_button(page, "attention", "zh").click()  # step 3's section
        link = page.get_by_role(
            "link", name=re.compile(re.escape(t("theory.link", "zh", number=3, name=t("step.scores.name", "zh"))))
        )
        assert re.search(r"(^|/)attention\?step=scores&part=steps$", link.first.get_attribute("href") or ""), (
            link.first.get_attribute("href")
        )
        assert_no_exception(page)
    finally:
        context.close()


def checked_radio_labels(page) -> list[str]:
    """The label of the checked option of every radio group on the page, in order ("" when none)."""
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid="stRadio"]')].map(g => {
        const c = g.querySelector('input[type=radio]:checked');
        return c ? c.closest('label').innerText.trim() : ""; })""")


def pick_then_switch_language(page, name: str, option_key: str, lang: str, other: str) -> None:
    """Open page ``name`` (nav.<name>) in ``lang``, pick a radio option, switch to ``other``: still picked."""
    nav_link(page, f"nav.{name}", lang).click()
    page.get_by_role("heading", name=t(f"{name}.title", lang)).wait_for(timeout=TIMEOUT)
    wait_for_app(page)
    page.get_by_text(t(option_key, lang), exact=True).click()
    wait_for_app(page)
    page.locator("[data-testid='stSidebar']").get_by_text("English" if other == "en" else "中文", exact=True).click()
    page.get_by_role("heading", name=t(f"{name}.title", other)).wait_for(timeout=TIMEOUT)
    wait_for_app(page)
    assert t(option_key, other) in checked_radio_labels(page)


def test_a_language_switch_keeps_every_radio_choice(app_server, page):
    from tinygpt.attention import STEPS, step_by_id

    page.goto(f"{app_server}/attention?lang=en&step=softmax")
    wait_for_app(page)
    softmax, weighted_sum = step_by_id("softmax"), step_by_id("weighted_sum")
    step = page.locator(".st-key-attn_step input[type=range]")  # the step slider shows its step's name
    assert step.get_attribute("aria-valuetext") == f"{softmax.number} · {t('step.softmax.name', 'en')}"
    page.locator("[data-testid='stSidebar']").get_by_text("中文", exact=True).click()
    page.get_by_role("heading", name=t("attn.title", "zh")).wait_for(timeout=TIMEOUT)
    wait_for_app(page)
    assert step.get_attribute("aria-valuetext") == f"{softmax.number} · {t('step.softmax.name', 'zh')}"
    page.get_by_role("button", name=t("attn.next", "zh")).click()  # from the kept step, not from step 1
    page.get_by_text(
        t("attn.step_header", "zh", number=weighted_sum.number, n=len(STEPS), name=t("step.weighted_sum.name", "zh"))
    ).wait_for(timeout=TIMEOUT)

    pick_then_switch_language(page, "predict", "predict.strategy.temperature", "zh", "en")
    pick_then_switch_language(page, "train", "train.norm.post", "en", "zh")
    assert_no_exception(page)


def test_a_language_switch_after_a_new_question_does_not_answer_it(app_server, page):
    """The pick of the last question must not come back, after a language switch, as the answer to
    the question that replaced it (a changed text asks another one)."""
    page.goto(f"{app_server}/attention?lang=zh&model=textbook&step=scores&guess=1")
    wait_for_app(page)
    question = page.locator(".st-key-attn_ex_argmax_key_pick")
    question.locator("button", has_text=re.compile("^2 世$")).click()
    verdicts = page.locator("[data-testid='stAlert']").filter(
        has_text=re.compile(
            "|".join(
                re.escape(t(k, lang, reason="", answer="")[:4])
                for k in ("ex.right", "ex.wrong")
                for lang in ("zh", "en")
            )
        )
    )
    verdicts.first.wait_for(timeout=TIMEOUT)
    wait_for_app(page)
    text = page.locator(".st-key-attn_text input")
    text.fill("你好世界你好")
    text.press("Enter")
    page.wait_for_function("() => new URL(location.href).searchParams.get('text') === '你好世界你好'", timeout=TIMEOUT)
    wait_for_app(page)
    assert verdicts.count() == 0  # the new question is open
    page.locator("[data-testid='stSidebar']").get_by_text("English", exact=True).click()
    page.get_by_role("heading", name=t("attn.title", "en")).wait_for(timeout=TIMEOUT)
    wait_for_app(page)
    page.wait_for_timeout(1000)
    wait_for_app(page)
    assert verdicts.count() == 0  # still open: nothing was answered for the student
    assert page.get_by_text(t("ex.score", "en", right=1, asked=1)).count() == 1
    assert_no_exception(page)
