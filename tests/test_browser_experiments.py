"""Browser test of the Attention page's experiments on the context example: uniform attention in
layer 0 marks the positions whose prediction changes.

The student opens the Attention page (the textbook example), picks the context example in the
model choice and switches attention to uniform in layer 0 in the switch panel.
"""

import pytest
from conftest import assert_no_exception, wait_for_app

from tinygpt.examples import EXAMPLES
from tinygpt.i18n import t

pytestmark = pytest.mark.browser

CONTEXT = EXAMPLES["context"]
#: Positions whose prediction uniform attention in layer 0 changes (python -m bench.experiments).
UNIFORM_LAYER0_CHANGES = [3, 5, 6, 7, 10, 12, 13, 14]

# The cells of every row of the effects table (static HTML at this size, tinygpt.ui.tables):
# [position label, "changed" cell, …].
ROWS_JS = """(grid) => Array.from(grid.querySelectorAll('tbody tr'))
    .map(tr => Array.from(tr.querySelectorAll('th, td')).map(cell => cell.innerText))"""


def marked_rows(grid, mark: str) -> list[str]:
    """Position labels of the rows whose cells include ``mark``."""
    return [cells[0] for cells in grid.evaluate(ROWS_JS) if any(c.startswith(mark) for c in cells)]


def test_uniform_attention_in_layer_0_marks_the_changed_positions(app_server, page):
    from tinygpt.ui.experiments_view import CHANGED_MARK

    page.goto(f"{app_server}/attention?lang=en&part=prediction")  # the part of the page with the effects
    wait_for_app(page, 240_000)
    page.get_by_role("heading", name=t("attn.title", "en")).wait_for(timeout=240_000)
    page.get_by_text(t("model.choice.context", "en"), exact=True).first.click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('model') === 'context'", timeout=60_000)
    wait_for_app(page, 240_000)
    header = page.get_by_role("heading", name=t("attn.exp.header", "en"))
    header.wait_for(timeout=60_000)
    wait_for_app(page)
    grid = header.locator("xpath=following::*[contains(@class, 'tg-table')][1]")
    grid.scroll_into_view_if_needed(timeout=30_000)
    grid.locator("td").first.wait_for(state="attached", timeout=30_000)
    assert len(grid.evaluate(ROWS_JS)) == 15 and marked_rows(grid, CHANGED_MARK) == []

    page.get_by_test_id("stMain").get_by_text(t("attn.uniform_layer", "en", layer=0), exact=True).click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('uniform') === 'layer'", timeout=60_000)
    page.get_by_text("8 of 15 positions").first.wait_for(timeout=60_000)
    wait_for_app(page)
    grid.scroll_into_view_if_needed(timeout=30_000)
    page.wait_for_function(
        f"(grid) => ({ROWS_JS})(grid).filter(r => r.some(c => c.startsWith('{CHANGED_MARK}'))).length > 0",
        arg=grid.element_handle(),
        timeout=60_000,
        polling=200,
    )
    assert marked_rows(grid, CHANGED_MARK) == [f"{i} {CONTEXT.display[i]}" for i in UNIFORM_LAYER0_CHANGES]
    assert_no_exception(page)
