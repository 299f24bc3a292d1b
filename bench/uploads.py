"""Uploads under a class: a 150 MB file of zeros uploaded on the Train page in five tabs.

Against a real ``streamlit run`` and headless Debian Chromium (Playwright):

1. warm-up: a browser-less session (``bench.st_client``) opens the Predict page, which waits for the
   default model, so the server is as a class finds it; the server's RSS then is "start";
2. five tabs open the Train page; each uploads the same file of ``--mb`` MB (10⁶ bytes) of zeros
   (``set_input_files``, generated in artifacts/), one after the other, and waits for the page's
   refusal ("This is not a safetensors file."). The tabs stay open;
3. meanwhile (the five tabs still open) a student's session trains a small model on the Train page
   (the "small" preset, 200 epochs, its own seed): it must not be refused;
4. ``--settle`` seconds after the last refusal the RSS is "after".

The RSS of the server process is sampled every 0.2 s. Targets: after − start ≤ 100 MB, the student's
training not refused. Each figure is printed with its ratio to the target (below 1.00 meets it).

Run: python -m bench.uploads [--mb 150] [--tabs 5] [--settle 10] [--app-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time
from pathlib import Path

from bench.cold_start import (
    ARTIFACTS,
    ROOT,
    launch_browser,
    load_note,
    new_page,
    rss_mb,
    start_server,
    stop_server,
    wait_healthy,
    wait_idle,
)
from bench.st_client import Session, click, connect, text_state

TARGET_GROWTH_MB = 100.0
RSS_EVERY_S = 0.2
TIMEOUT_MS = 300_000


def english(key: str, **fields: object) -> str:
    from tinygpt.i18n import t

    return t(key, "en", **fields)


def zeros_file(mb: float) -> Path:
    """artifacts/zeros-<mb>MB.safetensors: ``mb`` × 10⁶ zero bytes (written once)."""
    path = ARTIFACTS / f"zeros-{mb:g}MB.safetensors"
    size = int(mb * 1e6)
    if not path.exists() or path.stat().st_size != size:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            f.truncate(size)
    return path


class Sampler(threading.Thread):
    """Samples a process's RSS every RSS_EVERY_S s until stopped: (time, MB) pairs."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.samples, self.done = pid, [], threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.samples.append((time.perf_counter(), rss_mb(self.pid)[0]))
            time.sleep(RSS_EVERY_S)

    def peak(self) -> float:
        return max(mb for _, mb in self.samples)


async def warm_up(url: str) -> None:
    async with connect(url) as ws:
        await Session(ws).run("predict", query="lang=en")


async def small_training(url: str) -> tuple[str, float]:
    """A student's small training on the Train page: ("done" | the refusal or error, seconds)."""
    async with connect(url) as ws:
        s = Session(ws)
        page = await s.run("", query="lang=en")
        page = await s.run(widgets=[click(page.widgets["train_preset_small"])])
        w = page.widgets
        page = await s.run(widgets=[text_state(w["train_seed"], "8128"), text_state(w["train_epochs"], "200")])
        start = time.perf_counter()
        page = await s.run(widgets=[click(page.widgets["train_start"])])
        while not page.successes and not page.errors and time.perf_counter() - start < 300:
            await asyncio.sleep(1.0)
            page = await s.run()
        seconds = time.perf_counter() - start
        return ("done" if page.successes else "; ".join(page.errors)[:200] or "no answer"), seconds


def measure(url: str, pid: int, path: Path, tabs: int, settle_s: float) -> dict:
    from playwright.sync_api import sync_playwright

    asyncio.run(warm_up(url))
    time.sleep(3)
    start_rss = rss_mb(pid)[0]
    sampler = Sampler(pid)
    sampler.start()
    refusal = english("ckpt.err.not_safetensors")
    times = []
    with sync_playwright() as p:
        browser = launch_browser(p)
        pages = []
        for _ in range(tabs):
            page = new_page(browser)
            page.goto(f"{url}/?lang=en", timeout=TIMEOUT_MS)
            wait_idle(page)
            pages.append(page)
        for page in pages:
            t0 = time.perf_counter()
            page.locator('input[type="file"]').set_input_files(str(path), timeout=TIMEOUT_MS)
            page.get_by_text(refusal).first.wait_for(timeout=TIMEOUT_MS)
            times.append(time.perf_counter() - t0)
        refused_at = time.perf_counter()
        uploads_peak = sampler.peak()
        answer: list[tuple[str, float]] = []  # asyncio runs in a thread of its own: Playwright's loop runs here
        worker = threading.Thread(target=lambda: answer.append(asyncio.run(small_training(url))))
        worker.start()
        worker.join()
        student, student_s = answer[0] if answer else ("no answer", 0.0)
        remaining = settle_s - (time.perf_counter() - refused_at)
        if remaining > 0:
            time.sleep(remaining)
        after_rss = rss_mb(pid)[0]
        browser.close()
    sampler.done.set()
    sampler.join()
    return {
        "start": start_rss,
        "uploads_peak": uploads_peak,
        "peak": sampler.peak(),
        "after": after_rss,
        "after_s": time.perf_counter() - refused_at,
        "times": times,
        "student": student,
        "student_s": student_s,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=150.0, help="size of the file of zeros, MB (10⁶ bytes)")
    parser.add_argument("--tabs", type=int, default=5)
    parser.add_argument("--settle", type=float, default=10.0, help="seconds after the last refusal to read 'after'")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="the checkout to serve")
    args = parser.parse_args(argv)
    path = zeros_file(args.mb)
    proc, url = start_server(app_dir=args.app_dir.resolve())
    try:
        wait_healthy(proc, url)
        r = measure(url, proc.pid, path, args.tabs, args.settle)
    finally:
        stop_server(proc)
    growth = r["after"] - r["start"]
    print(f"app: {args.app_dir.resolve()}   {load_note()}")
    print(
        f"{args.tabs} tabs each uploaded {args.mb:g} MB of zeros; refused after "
        + ", ".join(f"{t:.1f}" for t in r["times"])
        + " s"
    )
    print(
        f"server RSS: start {r['start']:.0f} MB, peak {r['peak']:.0f} MB (during the uploads {r['uploads_peak']:.0f}),"
        f" {r['after_s']:.0f} s after the last refusal {r['after']:.0f} MB (tabs still open)"
    )
    print(f"student's small training meanwhile: {r['student']} ({r['student_s']:.1f} s)")
    print(
        f"{'RSS after − start':<34} {growth:9.0f} MB target ≤ {TARGET_GROWTH_MB:g} MB "
        f"ratio {max(growth, 0) / TARGET_GROWTH_MB:5.2f}"
    )
    refused = r["student"] != "done"
    ratio = float("inf") if refused else 0.0
    print(f"{'student training refused':<34} {int(refused):9d}    target = 0    ratio {ratio:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
