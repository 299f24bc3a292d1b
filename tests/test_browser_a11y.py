"""Browser tests of accessibility: axe-core (through axe-playwright-python) finds no serious or
critical issue on any page in either language, the page's ``lang`` follows the language chosen,
every chart has a text description, wide formulas can be scrolled with the keyboard, and the
Attention page's steps move with the arrow keys."""

import re
from collections import Counter

import pytest
from axe_playwright_python.sync_playwright import Axe
from conftest import assert_no_exception, wait_for_app

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
    page.goto(f"{base}/{name}?lang={lang}{query}")
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
    open_page(page, app_server, "attention", lang, "&model=context&step=softmax")
    switches = page.locator(".st-key-attn_whatif")
    switches.get_by_text(t("attn.mask", lang), exact=True).click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('mask') === '0'", timeout=TIMEOUT)
    wait_for_app(page)
    table = t("attn.table", lang, name="@").split("@")[1]  # the step's table: "… (table)"
    page.get_by_test_id("stMain").get_by_text(re.compile(re.escape(table) + "$")).first.click()
    page.locator(".tg-table").first.wait_for(timeout=TIMEOUT)
    wait_for_app(page)
    assert_no_exception(page)
    findings = blocking_findings(page)
    assert findings == [], summary(findings)
