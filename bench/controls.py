"""How fast the Predict and Theory pages answer their controls, page switches and the first visit.

What is timed (headless Debian Chromium through Playwright, against a real ``streamlit run``):

- a control: from the input event (ArrowRight on a focused slider, a click on a button, toggle
  or radio option) until what the control changes is shown with its new data (the SVG of the
  page's charts, the text of its Markdown and alerts) and no script is running;
- a page switch: a click on the sidebar link until the page's title is shown and it is idle;
- the first visit: from starting the server to the first page (the root URL, Train) fully drawn
  (and its title shown).

Each figure is the median of ``--repeat`` (default 5). Run: ``python -m bench.controls``
(``--root DIR`` measures another checkout of the app with this script).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from bench import cold_start as cs

#: What a control's answer changes: every chart's SVG, Markdown text and alerts, not the widgets
#: (a slider's own value label changes in the browser before the server answers).
SIGNATURE_JS = """() => {
    const parts = [];
    for (const el of document.querySelectorAll(
            '[data-testid="stVegaLiteChart"] svg, [data-testid="stMarkdownContainer"], [data-testid="stAlert"], [data-testid="stMetricValue"]')) {
        if (el.closest('[data-testid="stSidebar"]') || el.closest('[data-testid="stSlider"]')) continue;
        parts.push(el.tagName === 'svg' ? el.innerHTML : el.innerText);
    }
    return parts.join('\\u0001');
}"""

#: (page, name, how to act): "slider:<key>" (ArrowRight, then ArrowLeft on the next repeat),
#: "click:<css>" (alternating between two selectors separated by "|").
PREDICT = (
    ("predict", "τ slider", "slider:predict_temperature"),
    ("predict", "length slider", "slider:predict_n_new"),
    ("predict", "next step", "click:.st-key-predict_next button|.st-key-predict_prev button"),
)
THEORY = (
    ("theory", "operations slider (a1)", "slider:theory_a1"),
    ("theory", "weighted sum slider (r1)", "slider:theory_r1"),
    ("theory", "softmax τ slider", "slider:theory_tau"),
    ("theory", "matrix mask toggle", "click:.st-key-theory_mask label|.st-key-theory_mask label"),
    ("theory", "quiz answer", "click:.st-key-theory_quiz_shift [data-testid='stRadioOption'] >> nth=3|.st-key-theory_quiz_shift [data-testid='stRadioOption'] >> nth=1"),
)


def answer_time(page, act) -> float:
    """Seconds from ``act()`` until the signature changed and the app is idle."""
    before = page.evaluate(SIGNATURE_JS)
    start = time.perf_counter()
    act()
    page.wait_for_function(f"(before) => ({SIGNATURE_JS})() !== before", arg=before, timeout=cs.TIMEOUT_MS, polling="raf")
    page.wait_for_function(cs.APP_IDLE_JS, timeout=cs.TIMEOUT_MS, polling="raf")
    return time.perf_counter() - start


def measure_control(page, how: str, repeat: int) -> list[float]:
    kind, _, target = how.partition(":")
    times = []
    for n in range(repeat):
        if kind == "slider":
            thumb = page.locator(f".st-key-{target} input[type='range']")
            thumb.scroll_into_view_if_needed()
            thumb.focus()
            key = "ArrowRight" if n % 2 == 0 else "ArrowLeft"
            times.append(answer_time(page, lambda: thumb.press(key)))
        else:
            selector = target.split("|")[n % 2]
            element = page.locator(selector).first
            element.wait_for(timeout=cs.TIMEOUT_MS)
            element.scroll_into_view_if_needed()  # a student sees the control before using it
            times.append(answer_time(page, element.click))
        page.wait_for_timeout(300)
    return times


def setup(page, path: str) -> None:
    """Bring a page to the state its controls are measured in."""
    if path == "predict":  # τ acts only while sampling; the length slider with a few steps
        page.locator(".st-key-predict_strategy [data-testid='stRadioOption']").nth(1).click()
        cs.wait_idle(page)
        page.wait_for_timeout(500)
        cs.wait_idle(page)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.controls", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--root", type=Path, default=cs.ROOT, help="the app's checkout to serve")
    parser.add_argument("--only", default="", help="comma-separated: controls, switches, first")
    args = parser.parse_args(argv)
    parts = set(args.only.split(",")) if args.only else {"controls", "switches", "first"}
    from playwright.sync_api import sync_playwright

    titles = cs.page_titles()
    cs.ROOT = args.root  # start_server runs the app of this checkout
    print(cs.load_note())
    results: dict[str, list[float]] = {}
    with sync_playwright() as pw:
        browser = cs.launch_browser(pw)
        if "first" in parts:
            for _ in range(args.repeat):
                page = cs.new_page(browser)
                t0 = time.perf_counter()
                proc, url = cs.start_server()
                try:
                    cs.wait_healthy(proc, url)
                    page.goto(f"{url}/?lang=en", timeout=cs.TIMEOUT_MS)
                    page.get_by_role("heading", name=titles[""]).first.wait_for(timeout=cs.TIMEOUT_MS)
                    results.setdefault("first visit: title", []).append(time.perf_counter() - t0)
                    cs.wait_idle(page)
                    results.setdefault("first visit: fully drawn", []).append(time.perf_counter() - t0)
                finally:
                    page.context.close()
                    cs.stop_server(proc)
        if parts & {"controls", "switches"}:
            proc, url = cs.start_server()
            try:
                cs.wait_healthy(proc, url)
                page = cs.new_page(browser)
                page.goto(f"{url}/predict?lang=en", timeout=cs.TIMEOUT_MS)
                cs.wait_page(page, titles["predict"])
                page.wait_for_timeout(15_000)  # the examples finish training in the background
                if "switches" in parts:
                    for _ in range(args.repeat):
                        for path in ("theory", "predict"):
                            results.setdefault(f"switch to /{path}", []).append(cs.switch_to(page, path, titles[path]))
                if "controls" in parts:
                    for path, controls in (("predict", PREDICT), ("theory", THEORY)):
                        page.goto(f"{url}/{path}?lang=en", timeout=cs.TIMEOUT_MS)
                        cs.wait_page(page, titles[path])
                        setup(page, path)
                        for _, name, how in controls:
                            results[f"{path}: {name}"] = measure_control(page, how, args.repeat)
                errors = cs.exceptions_on(page)
                if errors:
                    print(f"  ! exceptions: {errors}")
                page.context.close()
            finally:
                cs.stop_server(proc)
        browser.close()
    for name, times in results.items():
        print(f"{name:<40} median {statistics.median(times):5.2f} s   [{', '.join(f'{t:.2f}' for t in times)}]")
    print(cs.load_note())
    return 0


if __name__ == "__main__":
    sys.exit(main())
