"""The student's path in a real browser: the bugs a student alone met, each with a test that
failed on the code before the fix.

- The context example's button works wherever it is drawn (it was drawn inside the switches'
  fragment, whose rerun did not reach the model choice: three clicks changed nothing).
- The first guess after a model change is judged on the question asked (a cell picker kept a row
  of the previous text, and the question changed between asking and answering).
"""

import pytest
from conftest import assert_no_exception, wait_for_app

from tinygpt.examples import EXAMPLES
from tinygpt.i18n import t

pytestmark = pytest.mark.browser

CONTEXT = EXAMPLES["context"]


def _url_param(page, name: str, value: str) -> None:
    page.wait_for_function(
        f"() => new URL(location.href).searchParams.get('{name}') === '{value}'", timeout=60_000, polling=100
    )


def test_the_context_example_button_opens_the_context_example(app_server, page):
    page.goto(f"{app_server}/attention?lang=en&model=textbook&part=prediction")
    wait_for_app(page, 240_000)
    page.get_by_test_id("stMain").get_by_text(t("attn.mask", "en"), exact=True).click()
    _url_param(page, "mask", "0")
    wait_for_app(page)
    button = page.get_by_role("button", name=t("model.offer_context", "en"))
    button.click()
    _url_param(page, "model", "context")
    wait_for_app(page)
    assert page.get_by_test_id("stMain").get_by_text(CONTEXT.display[:8]).count() >= 1
    assert_no_exception(page)


def test_the_first_guess_after_a_model_change_is_judged(app_server, page):
    page.goto(f"{app_server}/attention?lang=en&model=textbook&step=projection")
    wait_for_app(page, 240_000)
    page.get_by_test_id("stMain").get_by_text(t("model.choice.context", "en"), exact=True).first.click()
    _url_param(page, "model", "context")
    wait_for_app(page)
    page.get_by_test_id("stMain").get_by_text(t("attn.guess", "en"), exact=True).click()
    _url_param(page, "guess", "1")
    wait_for_app(page)
    for _ in range(5):  # from step 1 to step 6, as a student clicks Next
        page.locator(".st-key-attn_next").get_by_role("button").click()
        wait_for_app(page)
    _url_param(page, "step", "softmax")
    wait_for_app(page)
    question = page.get_by_text("Which key will query")
    question.first.wait_for(timeout=60_000)
    asked = question.first.inner_text()
    group = page.locator('[data-testid="stButtonGroup"]').filter(has_text="Which key will query")
    group.locator("button").first.click()
    wait_for_app(page)
    page.wait_for_timeout(500)
    wait_for_app(page)
    assert page.get_by_text("Which key will query").first.inner_text() == asked
    verdict = page.get_by_text("Right!").or_(page.get_by_text("Not quite"))
    verdict.first.wait_for(timeout=30_000)
    assert_no_exception(page)
