"""Long texts on the Attention page: time to fully drawn and the number of drawn elements, by length.

Starts its own ``streamlit run`` (:func:`bench.cold_start.start_server`), opens the page once to
train the default model (the textbook example, 你/好/世/界), then, for T = 4, 16, 64 and the
longest text the page accepts (the model's ``max_len``; the page crops to it), opens
``/attention?lang=en&text=<你好世界 repeated to T characters>`` in a fresh browser session
(headless Chromium, 1400×1000) and waits for the screen to settle: a script run ended, the app is
idle, a title is shown and nothing in the document changed for ``QUIET_MS`` (the same end
condition as ``bench.interaction``'s cold visit; the quiet window is not counted). The time is
from the navigation's start, in the page's own clock. Each length is opened ``--repeats`` times
(the first also computes the text's walks on the server) and the median is reported.

For each length it prints the time, its ratio to the 3 s target, and what the page holds:
``document.querySelectorAll('*')`` (every element), the elements inside SVGs, the Vega-Lite
charts, SVGs, canvases, images and tables (grids and static tables). Then the last line ``worst ratio: X.XX``.

Run: python -m bench.long_text [--repeats N] [--lengths 4,16,64,128]
The server's log goes to artifacts/bench-long-text-server.log.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import urllib.parse

from bench.cold_start import (
    ARTIFACTS,
    TIMEOUT_MS,
    exceptions_on,
    launch_browser,
    load_note,
    ratio_line,
    start_server,
    stop_server,
    wait_healthy,
    wait_idle,
)
from bench.interaction import COLD_DONE_JS, INSTRUMENT_JS, VIEWPORT

SERVER_LOG = ARTIFACTS / "bench-long-text-server.log"
TARGET_S = 3.0
QUIET_MS = 500  # nothing changed for this long: the charts have been drawn
CHARS = "你好世界"

ELEMENTS_JS = """() => ({
  all: document.querySelectorAll('*').length,
  in_svg: document.querySelectorAll('svg *').length,
  vega: document.querySelectorAll("[data-testid='stVegaLiteChart']").length,
  svg: document.querySelectorAll('svg').length,
  canvas: document.querySelectorAll('canvas').length,
  images: document.querySelectorAll("[data-testid='stImage'] img, [data-testid='stImageContainer'] img").length,
  tables: document.querySelectorAll("[data-testid='stDataFrame'], .tg-table").length,
})"""


def long_text(T: int) -> str:
    """``CHARS`` repeated to ``T`` characters (the default model's own characters)."""
    return (CHARS * (T // len(CHARS) + 1))[:T]


def max_len() -> int:
    """The longest text the attention page reads with the default model (its ``max_len``)."""
    from tinygpt.config import GPTConfig

    return GPTConfig().max_len


def visit(browser, url: str, T: int) -> tuple[float, dict, list[str]]:
    """Open the attention page with a text of ``T`` characters in a fresh session; (seconds to the
    settled screen, element counts, exception texts)."""
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    context.add_init_script(INSTRUMENT_JS)
    context.add_init_script("window.__bench.armed = true; window.__bench.t0 = 0;")  # from the navigation
    try:
        page = context.new_page()
        query = urllib.parse.urlencode({"lang": "en", "text": long_text(T)})
        page.goto(f"{url}/attention?{query}", timeout=TIMEOUT_MS)
        handle = page.wait_for_function(COLD_DONE_JS, arg=[QUIET_MS], timeout=TIMEOUT_MS, polling=50)
        done, _now = handle.json_value()
        return done / 1000, page.evaluate(ELEMENTS_JS), exceptions_on(page)
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.long_text", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="visits per length (median reported), default 3")
    parser.add_argument("--lengths", default=None, help="comma-separated lengths (default 4,16,64,max_len)")
    args = parser.parse_args(argv)
    lengths = [int(x) for x in args.lengths.split(",")] if args.lengths else [4, 16, 64, max_len()]
    from playwright.sync_api import sync_playwright

    print(load_note(), flush=True)
    results: list[tuple[int, float, dict]] = []
    with sync_playwright() as pw:
        browser = launch_browser(pw)
        proc, url = start_server(log_path=SERVER_LOG)
        try:
            wait_healthy(proc, url)
            warm = browser.new_context(viewport=VIEWPORT, locale="en-US").new_page()
            warm.goto(f"{url}/attention?lang=en", timeout=TIMEOUT_MS)  # the default model is trained here
            wait_idle(warm)
            warm.context.close()
            for T in lengths:
                times, counts = [], {}
                for _ in range(args.repeats):
                    seconds, counts, errors = visit(browser, url, T)
                    times.append(seconds)
                    if errors:
                        print(f"  ! exceptions at T = {T}: {errors}", flush=True)
                median = statistics.median(times)
                results.append((T, median, counts))
                print(
                    f"{ratio_line(f'attention, T = {T}', median, TARGET_S)}   [{', '.join(f'{t:.2f}' for t in times)}]"
                )
                print(
                    f"{'':<36}elements {counts['all']:,} (in SVG {counts['in_svg']:,}); {counts['vega']} Vega-Lite "
                    f"charts, {counts['svg']} svg, {counts['canvas']} canvas, {counts['images']} images, "
                    f"{counts['tables']} tables",
                    flush=True,
                )
        finally:
            stop_server(proc)
        browser.close()
    print()
    print(f"{'T':>5} {'seconds':>8} {'ratio':>6} {'elements':>9} {'in SVG':>8}")
    for T, median, counts in results:
        print(f"{T:>5} {median:8.2f} {median / TARGET_S:6.2f} {counts['all']:>9,} {counts['in_svg']:>8,}")
    print("ratio = median / target (3 s); below 1.00 meets the target.", load_note())
    print(f"worst ratio: {max(m / TARGET_S for _, m, _ in results):.2f}" if results else "worst ratio: n/a")
    return 0


if __name__ == "__main__":
    sys.exit(main())
