"""Two app servers on other CPU kernels, one class link: the same count and the same flips.

One server runs PyTorch's portable kernels (``ATEN_CPU_CAPABILITY=default``), the other the CPU's
own; both share one class store (a SQLite file), as servers of one class do. The context example
with uniform attention in layer 0, and a model of a teacher's ``train=`` link (trained by the
first server that opens it, published in the store, loaded by the other), must show the same
"k of N changed" and mark the same positions on both.

Screenshots: artifacts/screenshots/same_model_<server>_<model>.png.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from conftest import SCREENSHOTS, assert_no_exception, wait_for_app

from bench.cold_start import ARTIFACTS, start_server, stop_server, wait_healthy
from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.examples import CONTEXT_TEXT
from tinygpt.training.links import encode_train

pytestmark = pytest.mark.browser

TIMEOUT = 240_000
#: A teacher's own model: the context text, a smaller model and another seed (no file ships it).
OWN = encode_train(
    CONTEXT_TEXT,
    GPTConfig(vocab_size=10, max_len=15, d_model=16, n_heads=2, n_layers=2, d_ff=64),
    TrainConfig(lr=2e-2, epochs=120, seed=3, early_stop_loss=0.0, window=15),
)
STRIP_JS = """() => Array.from(document.querySelectorAll('.tg-strip .col[role=listitem]'))
    .map(c => [c.classList.contains('changed'), c.querySelector('.i').innerText])"""


@pytest.fixture
def two_kernel_servers(tmp_path):
    """Base URLs of two app servers sharing one SQLite store: the portable kernels, the CPU's own."""
    store = {"TINYGPT_DATA_DIR": str(tmp_path / "store")}
    started = [
        start_server(log_path=ARTIFACTS / "same-model-default.log", env={**store, "ATEN_CPU_CAPABILITY": "default"}),
        start_server(log_path=ARTIFACTS / "same-model-own.log", env=store),
    ]
    try:
        for proc, url in started:
            wait_healthy(proc, url)
        yield [url for _, url in started]
    finally:
        for proc, _ in started:
            stop_server(proc)


def effect_of(browser, url: str, shot: str) -> tuple[str, list[int]]:
    """(the count line, the changed positions) the Attention page shows at ``url``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(url)
        wait_for_app(page, TIMEOUT)
        page.wait_for_function(f"() => ({STRIP_JS})().length === 15", timeout=TIMEOUT)
        page.wait_for_function(f"() => ({STRIP_JS})().some(c => c[0])", timeout=TIMEOUT, polling=200)
        wait_for_app(page)
        count = page.locator(".st-key-effect_count p").first.inner_text()
        changed = [int(i) for flipped, i in page.evaluate(STRIP_JS) if flipped]
        page.screenshot(path=str(SCREENSHOTS / f"same_model_{shot}.png"))
        assert_no_exception(page)
        return count, changed
    finally:
        context.close()


@pytest.mark.parametrize(
    "model,query",
    [("context", "model=context"), ("own", f"model=own&train={quote(OWN, safe='=;')}")],
)
def test_two_servers_on_other_kernels_show_the_same_flips_for_one_link(browser, two_kernel_servers, model, query):
    link = f"/attention?lang=en&{query}&uniform=layer"
    seen = [effect_of(browser, base + link, f"{n}_{model}") for n, base in enumerate(two_kernel_servers)]
    assert seen[0] == seen[1]
    count, changed = seen[0]
    assert f"{len(changed)} of 15 predictions changed" in count
