"""Browser tests: a real `streamlit run` in headless Debian Chromium."""

import pytest
from conftest import assert_no_exception, wait_for_app

from tinygpt.i18n import t

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    "path, title", [("", "train.title"), ("predict", "predict.title"), ("attention", "attn.title")]
)
def test_every_page_opens_without_exception(app_server, page, path, title):
    page.goto(f"{app_server}/{path}?lang=en")
    wait_for_app(page)
    page.get_by_role("heading", name=t(title, "en")).wait_for(timeout=60_000)
    assert_no_exception(page)
    if path:  # the train page (the root URL) draws its chart only once a model trains
        page.locator("[data-testid='stVegaLiteChart']").first.wait_for(timeout=30_000)
