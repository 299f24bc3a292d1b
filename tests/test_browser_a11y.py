"""Browser tests of accessibility: axe-core (through axe-playwright-python) finds no serious or
critical issue on any page in either language (the teacher's view of a class and the projector's
page with a revealed vote too, on a desktop and a phone), the page's ``lang`` follows the language chosen,
every chart has a text description, wide formulas can be scrolled with the keyboard, and the
Attention page's steps move with the arrow keys."""

from collections import Counter
from dataclasses import replace

import pytest
from axe_playwright_python.sync_playwright import Axe
from conftest import SCREENSHOTS, assert_no_exception, open_step_table, wait_for_app
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 60_000
#: The impacts this app must not have (axe-core's two highest of minor, moderate, serious, critical).
BLOCKING = ("serious", "critical")
PAGES = ("train", "predict", "attention", "theory")
HTML_LANG = {"zh": "zh-CN", "en": "en"}

#: Every drawn chart's accessible name (vega-embed puts a spec's ``description`` on its container as
#: aria-label; without one it says "Vega visualization").
CHART_LABELS_JS = """() => Array.from(document.querySelectorAll("[data-testid='stVegaLiteChart']"))
    .map(chart => chart.getAttribute('aria-label') || '')"""


def blocking_findings(page) -> list[str]:
    """axe-core's serious and critical findings on the page as drawn now: "rule (impact): element"."""
    results = Axe().run(page).response
    return [
        f"{v['id']} ({v['impact']}): {node['html'][:160]}"
        for v in results["violations"]
        if v["impact"] in BLOCKING
        for node in v["nodes"]
    ]


def summary(findings: list[str]) -> str:
    """The findings counted by rule, then each one."""
    counts = Counter(f.split(":")[0] for f in findings)
    return f"{len(findings)} nodes: {dict(counts)}\n" + "\n".join(findings)


def open_page(page, base: str, name: str, lang: str, query: str = "") -> None:
    path = "" if name == "train" else name  # the first page is the root URL
    page.goto(f"{base}/{path}?lang={lang}{query}")
    wait_for_app(page, 240_000)  # a fresh server trains the default model first
    page.get_by_role("heading", level=1).first.wait_for(timeout=TIMEOUT)
    page.wait_for_timeout(500)  # charts and formulas finish drawing after the script run
    wait_for_app(page)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("name", PAGES)
def test_no_serious_axe_findings_on_a_page_as_it_opens(app_server, page, name, lang):
    open_page(page, app_server, name, lang)
    assert_no_exception(page)
    findings = blocking_findings(page)
    assert findings == [], summary(findings)
    assert page.evaluate("() => document.documentElement.lang") == HTML_LANG[lang]
    labels = page.evaluate(CHART_LABELS_JS)
    assert all(label and label != "Vega visualization" for label in labels), labels


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_serious_axe_findings_on_attention_after_the_mask_and_a_step_table(app_server, page, lang):
    open_page(page, app_server, "attention", lang, "&model=context&step=softmax&head=0")
    switches = page.locator(".st-key-attn_whatif")
    switches.get_by_text(t("attn.mask", lang), exact=True).click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('mask') === '0'", timeout=TIMEOUT)
    wait_for_app(page)
    open_step_table(page, t("attn.tensor.alpha", lang) + " · " + t("attn.panel_head", lang, h=1), lang)  # head=0
    page.locator(".tg-table").first.wait_for(timeout=TIMEOUT)
    wait_for_app(page)
    assert_no_exception(page)
    findings = blocking_findings(page)
    assert findings == [], summary(findings)


def test_every_theory_section_and_a_phone_screen_have_no_serious_axe_findings(app_server, browser):
    """On a phone, wide formulas, tables and charts scroll inside their box: each must be reachable
    by keyboard (axe-core's scrollable-region-focusable), a formula named for screen readers."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN")
    try:
        page = context.new_page()
        open_page(page, app_server, "theory", "zh")
        wide = []  # [tabindex, aria-label] of every formula wider than the phone
        for section in ("definition", "vectors", "weighted_sum", "attention", "practice"):
            page.locator(".st-key-theory_section button", has_text=t(f"theory.section.{section}", "zh")).click()
            wait_for_app(page)
            page.wait_for_timeout(500)  # the formulas are drawn (KaTeX) after the script run
            findings = blocking_findings(page)
            assert findings == [], f"{section}: {summary(findings)}"
            wide += page.evaluate(
                """() => Array.from(document.querySelectorAll('.katex-display'))
                    .filter(box => box.scrollWidth > box.clientWidth + 1)
                    .map(box => [box.tabIndex, box.getAttribute('aria-label')])"""
            )
        assert wide and all(tab == 0 and label == t("app.formula_label", "zh") for tab, label in wide), wide
        for name in ("predict", "attention"):
            open_page(page, app_server, name, "en")
            findings = blocking_findings(page)
            assert findings == [], f"{name}: {summary(findings)}"
        assert_no_exception(page)
    finally:
        context.close()


def test_the_page_language_follows_the_language_switch(app_server, page):
    open_page(page, app_server, "train", "en")
    assert page.evaluate("() => document.documentElement.lang") == "en"
    page.locator("[data-testid='stSidebar']").get_by_text("中文", exact=True).click()
    page.get_by_role("heading", name=t("train.title", "zh")).wait_for(timeout=TIMEOUT)
    page.wait_for_function("() => document.documentElement.lang === 'zh-CN'", timeout=TIMEOUT)
    page.locator("[data-testid='stSidebar']").get_by_text("English", exact=True).click()
    page.get_by_role("heading", name=t("train.title", "en")).wait_for(timeout=TIMEOUT)
    page.wait_for_function("() => document.documentElement.lang === 'en'", timeout=TIMEOUT)


def shown_step(page) -> str:
    """The step the URL names (the page writes it on every move)."""
    return page.evaluate("() => new URL(location.href).searchParams.get('step')")


def wait_for_step(page, step: str) -> None:
    page.wait_for_function(
        "step => new URL(location.href).searchParams.get('step') === step", arg=step, timeout=TIMEOUT
    )
    wait_for_app(page)


def test_the_arrow_keys_move_the_attention_steps_when_no_control_has_the_focus(app_server, page):
    open_page(page, app_server, "attention", "en", "&model=context&step=softmax")
    page.get_by_role("heading", level=1).click()  # the page, not a control, has the focus
    page.keyboard.press("ArrowRight")
    wait_for_step(page, "weighted_sum")
    page.keyboard.press("ArrowLeft")
    wait_for_step(page, "softmax")
    page.keyboard.press("ArrowLeft")
    wait_for_step(page, "mask")

    text = page.locator(".st-key-attn_text input")  # a text box keeps its arrows (they move the cursor)
    text.focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(1000)
    wait_for_app(page)
    assert shown_step(page) == "mask"

    slider = page.locator(".st-key-attn_step input[type='range']")  # the step slider moves one step, not two
    slider.focus()
    page.keyboard.press("ArrowRight")
    wait_for_step(page, "softmax")
    page.wait_for_timeout(1000)
    assert shown_step(page) == "softmax"
    assert_no_exception(page)


#: Each segmented-control button of the Theory page's section chooser: [right edge, the group's
#: right edge, the four border colours].
SEGMENTS_JS = """() => Array.from(document.querySelectorAll('.st-key-theory_section button')).map(b => {
    const s = getComputedStyle(b), group = b.parentElement.getBoundingClientRect();
    return [b.getBoundingClientRect().right, group.right,
            [s.borderTopColor, s.borderRightColor, s.borderBottomColor, s.borderLeftColor]];
})"""


#: True when the Attention details' chart toolbar starts below the last row of the table above it.
TOOLBAR_BELOW_TABLE_JS = """() => {
    const bar = document.querySelector(".st-key-attn_details [data-testid='stElementToolbar']");
    const row = document.querySelector(".st-key-attn_details .tg-table tbody tr:last-child");
    return bar !== null && row !== null && bar.getBoundingClientRect().top >= row.getBoundingClientRect().bottom;
}"""


TOOLBAR_AND_ROW_JS = """() => [
    document.querySelector(".st-key-attn_details [data-testid='stElementToolbar']").getBoundingClientRect().top,
    document.querySelector(".st-key-attn_details .tg-table tbody tr:last-child").getBoundingClientRect().bottom,
]"""


def test_on_a_phone_wrapped_buttons_keep_their_borders_and_a_chart_toolbar_leaves_the_table_above(app_server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        open_page(page, app_server, "theory", "en")
        segments = page.evaluate(SEGMENTS_JS)
        assert len({round(right) for right, _, _ in segments}) < len(segments)  # they wrap onto several rows
        for right, group_right, colours in segments:
            assert right <= group_right + 0.5  # not cut at the group's edge
            assert "rgba(0, 0, 0, 0)" not in colours  # no side left without its border

        open_page(page, app_server, "attention", "en", "&model=context&mask=0")  # the mask off changes predictions
        page.locator(".st-key-attn_details summary").click()  # the table of every position, then the chart
        chart = page.locator(".st-key-attn_details [data-testid='stVegaLiteChart']").first
        chart.wait_for(timeout=TIMEOUT)
        wait_for_app(page)
        for _ in range(3):  # a tap while the chart is still being drawn may place the toolbar early: tap again
            chart.evaluate("chart => chart.scrollIntoView({block: 'center'})")
            box = chart.bounding_box()
            page.touchscreen.tap(box["x"] + 30, box["y"] + 30)  # a tap shows the chart's toolbar
            try:  # measured once the page has settled
                page.wait_for_function(TOOLBAR_BELOW_TABLE_JS, timeout=5_000, polling=100)
                break
            except PlaywrightTimeoutError:
                page.wait_for_timeout(500)
        toolbar_top, row_bottom = page.evaluate(TOOLBAR_AND_ROW_JS)  # in one frame: the page may still scroll
        assert toolbar_top >= row_bottom, (toolbar_top, row_bottom)
        assert_no_exception(page)
    finally:
        context.close()


def revealed_class() -> tuple[str, str]:
    """A class whose question was voted on in two rounds and revealed: (code, teacher's key)."""
    import torch

    from tinygpt.classroom.period import ClassState, question_data, write_state
    from tinygpt.classroom.store import NewAnswer, Store
    from tinygpt.config import GPTConfig
    from tinygpt.explanations.exercises import argmax_key_question
    from tinygpt.explanations.explain import trace_of
    from tinygpt.model import GPT

    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8)).eval()
    question = argmax_key_question(trace_of(model, torch.tensor([[0, 1, 2, 3]])), 0, 3)
    state = ClassState(follow=True).with_question(question)
    identity = state.question_id
    store = Store.from_environment()  # the server's store (tests/conftest.py sets TINYGPT_DATA_DIR)
    try:
        code, key = store.create_class("lesson=1&pages=attention&model=context&lang=en")
        for n, (first, second) in enumerate([("0", "1"), ("1", "1"), ("2", "0")]):
            for rnd, picked in ((1, first), (2, second)):
                store.record_answer(
                    NewAnswer(
                        code,
                        identity,
                        "prompt",
                        question_data(question),
                        f"{n:016x}",
                        picked,
                        picked,
                        question.is_right(picked),
                        None,
                        rnd,
                    )  # fmt: skip
                )
        write_state(store, code, key, replace(state, round=2, revealed=True))
    finally:
        store.dispose()
    return code, key


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_serious_axe_findings_on_the_projector_and_the_teachers_view_of_a_revealed_vote(app_server, browser, lang):
    code, key = revealed_class()
    for size in ({"width": 1400, "height": 1000}, {"width": 390, "height": 844}):
        context = browser.new_context(viewport=size, locale="en-US")
        try:
            page = context.new_page()
            for name, query in (("projector", f"class={code}"), ("teacher", f"class={code}&key={key}")):
                page.goto(f"{app_server}/{name}?{query}&lang={lang}")
                page.get_by_role("heading", level=1).first.wait_for(timeout=TIMEOUT)
                page.locator("[data-testid='stVegaLiteChart']").first.wait_for(timeout=TIMEOUT)
                page.wait_for_timeout(500)
                wait_for_app(page)
                assert_no_exception(page)
                findings = blocking_findings(page)
                assert findings == [], f"{name} at {size['width']} px: {summary(findings)}"
                labels = page.evaluate(CHART_LABELS_JS)
                assert labels and all(label and label != "Vega visualization" for label in labels), labels
            page.screenshot(path=str(SCREENSHOTS / f"a11y_teacher_{lang}_{size['width']}.png"), full_page=True)
        finally:
            context.close()
