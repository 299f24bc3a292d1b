"""Memory of the app's server process (RSS) with the default model, then after sessions train.

Measured on a real ``streamlit run`` (the process Community Cloud would run), driven by headless
Chromium sessions through Playwright, so the figure includes everything a session holds on the
server (session state, its training job and model, caches, Altair specs):

1. the server right after it answers its health check (Streamlit imported, no session yet);
2. one session that opened every page: imports (torch, altair, pandas) and the default model
   (the seed configuration, trained once per process). Target < 600 MB;
3. three more sessions, each training the seed configuration (512/8/6/2048, lr 1e-4, the default
   early stop) and then opening the Attention page with its own model. Each uses its own weight
   seed (1, 2, 3) so that three distinct models are trained and held: sessions with identical
   settings would share one cached model (``--same-seed`` measures that case). Target < 1.5 GB.

RSS is read from /proc/<pid>/status (VmRSS, and VmHWM for the peak). MB = 10⁶ bytes.

Run: python -m bench.app_memory [--sessions 3] [--same-seed]
"""

from __future__ import annotations

import argparse
import sys
import time

from bench.cold_start import (
    TIMEOUT_MS,
    exceptions_on,
    launch_browser,
    load_note,
    new_page,
    page_titles,
    ratio_line,
    rss_mb,
    start_server,
    stop_server,
    wait_healthy,
    wait_idle,
    wait_page,
)

TARGET_DEFAULT_MB = 600.0
TARGET_SESSIONS_MB = 1500.0
TRAIN_TIMEOUT_MS = 900_000


def open_every_page(page, url: str, titles: dict[str, str]) -> None:
    """Visit every page of the app in one session (the Train page last)."""
    for path in [p for p in titles if p] + [""]:
        page.goto(f"{url}/{path}?lang=en", timeout=TIMEOUT_MS)
        wait_page(page, titles[path])


def train_seed_config(page, url: str, title: str, seed: int) -> None:
    """In this session: set the weight seed, press Train (seed configuration) and wait for the result."""
    page.goto(f"{url}/?lang=en", timeout=TIMEOUT_MS)
    wait_page(page, title)
    seed_input = page.locator(".st-key-train_seed input")
    if seed_input.count():
        seed_input.fill(str(seed))
        seed_input.press("Enter")
        wait_idle(page)
    page.locator(".st-key-train_start button").click()


def wait_trained(page) -> None:
    """Wait for the Train page's success message (training finished)."""
    page.locator('[data-testid="stAlertContentSuccess"]').first.wait_for(timeout=TRAIN_TIMEOUT_MS)
    wait_idle(page)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.app_memory", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=3, help="sessions that each train the seed configuration")
    parser.add_argument(
        "--same-seed", action="store_true", help="all sessions use weight seed 0 (the cached default model)"
    )
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    titles = page_titles()
    print(load_note())
    proc, url = start_server()
    pages = []
    try:
        wait_healthy(proc, url)
        bare, _ = rss_mb(proc.pid)
        with sync_playwright() as pw:
            browser = launch_browser(pw)
            first = new_page(browser)
            pages.append(first)
            start = time.perf_counter()
            open_every_page(first, url, titles)
            default_rss, default_peak = rss_mb(proc.pid)
            print(f"every page opened in one session in {time.perf_counter() - start:.1f} s")

            start = time.perf_counter()
            sessions = [new_page(browser) for _ in range(args.sessions)]
            pages.extend(sessions)
            for k, page in enumerate(sessions):
                train_seed_config(page, url, titles[""], 0 if args.same_seed else k + 1)
            for page in sessions:
                wait_trained(page)
            for page in sessions:  # each session's own model on the attention page
                page.goto(f"{url}/attention?lang=en", timeout=TIMEOUT_MS)
                wait_page(page, titles["attention"])
            trained_rss, trained_peak = rss_mb(proc.pid)
            print(
                f"{args.sessions} sessions trained and opened the attention page in {time.perf_counter() - start:.1f} s"
            )
            errors = [e for page in pages for e in exceptions_on(page)]
            if errors:
                print(f"  ! exceptions shown: {errors}")
            for page in pages:
                page.context.close()
            browser.close()
    finally:
        stop_server(proc)
    print()
    print(f"{'server, healthy, no session':<34} {bare:9.0f} MB")
    print(
        ratio_line("default model + imports", default_rss, TARGET_DEFAULT_MB, "MB") + f"   (peak {default_peak:.0f} MB)"
    )
    label = f"+ {args.sessions} sessions trained" + (" (same seed)" if args.same_seed else "")
    print(ratio_line(label, trained_rss, TARGET_SESSIONS_MB, "MB") + f"   (peak {trained_peak:.0f} MB)")
    print("ratio = figure / target; below 1.00 meets the target.", load_note())
    return 0


if __name__ == "__main__":
    sys.exit(main())
