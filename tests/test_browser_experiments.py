"""Browser test of the Attention page's experiments on the context example: uniform attention in
layer 0 marks, right under the switch, the positions whose prediction changes.

The student opens the Attention page on the textbook example, picks the context example in the
model choice and switches attention to uniform in the switch panel.
"""

import pytest
from conftest import assert_no_exception, wait_for_app

from tinygpt.examples import EXAMPLES
from tinygpt.i18n import t

pytestmark = pytest.mark.browser

CONTEXT = EXAMPLES["context"]
#: Positions whose prediction uniform attention in layer 0 changes (python -m bench.experiments).
UNIFORM_LAYER0_CHANGES = [3, 5, 6, 7, 10, 12, 13, 14]

# The strip's columns (tinygpt.ui.attention.effect.strip_html): [changed?, index, character].
COLUMNS_JS = """() => Array.from(document.querySelectorAll('.tg-strip .col[role=listitem]'))
    .map(c => [c.classList.contains('changed'), c.querySelector('.i').innerText, c.querySelector('.c').innerText])"""


def test_uniform_attention_in_layer_0_marks_the_changed_positions(app_server, page):
    page.goto(f"{app_server}/attention?lang=en&model=textbook")
    wait_for_app(page, 240_000)
    page.get_by_role("heading", name=t("attn.title", "en")).wait_for(timeout=240_000)
    page.get_by_test_id("stMain").get_by_text(t("model.choice.context", "en"), exact=True).first.click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('model') === 'context'", timeout=60_000)
    wait_for_app(page, 240_000)
    page.wait_for_function(f"() => ({COLUMNS_JS})().length === 15", timeout=60_000)
    columns = page.evaluate(COLUMNS_JS)
    assert [c for _, _, c in columns] == list(CONTEXT.display) and not any(changed for changed, _, _ in columns)

    page.locator(".st-key-attn_whatif").get_by_text(t("attn.uniform", "en"), exact=True).click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('uniform') === 'layer'", timeout=60_000)
    wait_for_app(page)
    page.wait_for_function(f"() => ({COLUMNS_JS})().some(c => c[0])", timeout=60_000, polling=200)
    columns = page.evaluate(COLUMNS_JS)
    assert [int(i) for changed, i, _ in columns if changed] == UNIFORM_LAYER0_CHANGES
    count = page.locator(".st-key-effect_count p").first.inner_text()
    assert count == t("attn.effect.count", "en", n=8, T=15, layer=1, L=2).replace("**", "")
    assert_no_exception(page)
