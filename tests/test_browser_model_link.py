"""A teacher's class link for a model trained on a line of a poem, opened in a fresh browser.

The link carries the training settings (``train=``) beside the view (layer, head, step): the
student's browser must get that very model, trained on the server if it is not on its shelf,
and the step the teacher chose, with the numbers the model itself computes.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import numpy as np
import pytest
from conftest import SCREENSHOTS, assert_no_exception, open_step_table, wait_for_app
from playwright.sync_api import expect

from tinygpt.explanations.explain import trace_of
from tinygpt.i18n import t
from tinygpt.training.links import decode_train
from tinygpt.training.train import train

pytestmark = pytest.mark.browser

POEM = "床前明月光疑是地上霜"
TRAIN = f"v1;d_model=32;n_heads=2;n_layers=1;d_ff=64;lr=0.003;epochs=60;text={POEM}"
TITLE_VALUES_JS = """() => Array.from(document.querySelectorAll('.tg-table')[0].querySelectorAll('tbody tr'))
    .map(tr => Array.from(tr.querySelectorAll('td')).map(td => td.title))"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_class_link_for_a_poem_model_opens_that_model_and_view_in_a_fresh_browser(browser, app_server, lang):
    query = f"lang={lang}&model=own&train={quote(TRAIN, safe='=;')}&layer=0&head=1&step=softmax"
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{app_server}/attention?{query}")
        step = t("attn.step_header", lang, number=6, n=9, name=t("step.softmax.name", lang))
        page.get_by_role("heading", name=step).wait_for(
            timeout=240_000
        )  # trained (or taken from the shelf), then shown
        wait_for_app(page)
        assert POEM in page.locator("[data-testid='stMain']").inner_text()
        open_step_table(page, t("attn.tensor.alpha", lang) + " · " + t("attn.panel_head", lang, h=2), lang)
        titles = page.evaluate(TITLE_VALUES_JS)  # α of head=1 (head 2 on the page), each cell's value in its tooltip
        shown = np.array([[float(v.replace("−∞", "-inf")) for v in row] for row in titles])
        text, gpt_cfg, train_cfg = decode_train(TRAIN)
        record = train(text, gpt_cfg, train_cfg)  # training is deterministic: the same settings, the same weights
        alpha = trace_of(record.model, record.vocab.encode(POEM)[None], 0).state["alpha"][0, 1].numpy()
        assert shown.shape == (10, 10)
        assert np.allclose(shown, alpha, atol=1e-6)  # the link's model, its head 1
        assert np.allclose(shown.sum(axis=1), 1.0, atol=1e-6) and (shown[np.triu_indices(10, 1)] == 0).all()
        page.screenshot(path=str(SCREENSHOTS / f"class_link_poem_{lang}.png"), full_page=False)
        assert_no_exception(page)
    finally:
        context.close()


def test_the_class_link_holds_the_step_and_switches_set_after_the_last_full_run(browser, app_server):
    """The step and the switches rerun only their fragments (the sidebar is not redrawn): opening
    the popover reruns it, so its link is the view as it stands, not as the page last ran in full."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{app_server}/attention?lang=en&model=textbook&step=projection")
        wait_for_app(page, 240_000)
        for step in ("split_heads", "scores", "scale", "mask", "softmax"):  # one step on from projection each time
            page.locator(".st-key-attn_next button").click()
            expect(page).to_have_url(re.compile(rf"step={step}(&|$)"), timeout=30_000)  # this step is shown
            wait_for_app(page)
        page.locator(".st-key-attn_mask label").first.click()  # the causal mask off
        expect(page).to_have_url(re.compile(r"step=softmax.*mask=0"), timeout=30_000)  # the fragments wrote the URL
        wait_for_app(page)
        popover = page.locator("[data-testid='stSidebar'] [data-testid='stPopover']").filter(
            has_text=t("link.button", "en")
        )  # the class link's, beside the glossary's
        expect(popover).to_have_count(1)
        popover.locator("button").first.click()
        wait_for_app(page)
        link = page.locator("[data-testid='stPopoverBody'] code").first
        expect(link).to_contain_text("step=softmax", timeout=10_000)
        assert "mask=0" in link.inner_text() and "model=textbook" in link.inner_text()
        assert_no_exception(page)
    finally:
        context.close()
