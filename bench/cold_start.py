"""The app as a user feels it in a browser: cold start, page switches, the first loss point.

What is timed (headless Debian Chromium through Playwright, against a real ``streamlit run``):

- cold start: from starting ``streamlit run streamlit_app.py`` to the first page (Train, the
  root URL) fully rendered: its title shown, the script finished (no "Running…" status, no
  skeleton). The browser is already open, as a user's is. This includes importing torch; the
  default (seed) model is trained meanwhile in a background thread, which the first page does
  not wait for. Target < 6 s.
- page switch: a click on a sidebar link until the new page's title is shown and its script has
  finished; each page is visited twice (first visit, then with its caches warm). Target < 1 s.
- phone first paint: on a fresh server (healthy, nothing visited yet), a phone (390 × 844,
  Chinese) asks for the root page; from the request until the page's main area shows any text
  (the "opening" line or the page itself), and until the page's title. Target < 2 s.
- Predict's first paint: on a fresh server, two phones (390 × 844, English) open /predict one after
  the other; for each, from the request to Predict's title, to its prefix box and to its first chart
  (the predictions). The first phone's model is still loading in the background (the prefix box is
  drawn before it); the second one's is ready. Printed with the gap from the title to the prefix box.
- first loss point: on the Train page with the seed configuration (512/8/6/2048, lr 1e-4), a
  click on Train until the loss chart shows the run (its "press Train" caption, drawn under the
  empty chart before a run, is replaced). The seed value is set to 1 so the run is
  really trained: seed 0 is the default model, which the app already has and returns at once.
  Target < 2 s.

Run: python -m bench.cold_start [--runs N] [--phone-only] [--predict-only] [--app-dir PATH]   (N cold
starts, default 1; page switches and the training figure are measured in the first run;
``--phone-only``: only the phone's first paint; ``--predict-only``: only Predict's first paint;
``--app-dir``, with ``--predict-only``: serve another checkout, e.g. the main branch's, for a
before/after figure). Prints each figure and its ratio to the target (below 1.00 meets it).
The server's log goes to artifacts/bench-server.log.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
SERVER_LOG = ARTIFACTS / "bench-server.log"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
TARGET_COLD_S = 6.0
TARGET_SWITCH_S = 1.0
TARGET_FIRST_LOSS_S = 2.0
TARGET_PHONE_PAINT_S = 2.0
#: True once the main area shows text a reader sees (not only Streamlit's empty frame).
MAIN_TEXT_JS = """() => { const m = document.querySelector('[data-testid="stMain"]');
    return !!m && m.innerText.trim().length > 0; }"""
TIMEOUT_MS = 180_000

# Streamlit marks stApp with data-test-script-state and shows stStatusWidget while a script runs.
APP_IDLE_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app) return false;
    const state = app.getAttribute('data-test-script-state');
    if (state !== null && state !== 'notRunning') return false;
    if (document.querySelector('[data-testid="stSkeleton"]')) return false;
    for (const el of document.querySelectorAll('[data-testid="stStatusWidget"]')) {
        const style = window.getComputedStyle(el);
        if (el.getClientRects().length > 0 && style.visibility !== 'hidden' && style.display !== 'none') return false;
    }
    return true;
}"""


# ---------------------------------------------------------------- shared by the bench scripts


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    port: int | None = None,
    log_path: Path = SERVER_LOG,
    app_dir: Path = ROOT,
    env: dict[str, str] | None = None,
    cpus: str | None = None,
) -> tuple[subprocess.Popen, str]:
    """Start ``streamlit run streamlit_app.py`` on a free loopback port: (process, base URL).

    ``app_dir``: the checkout whose app is served (another one measures an earlier version);
    ``env``: variables added to this process's environment; ``cpus``: the CPUs the server (and
    every thread and child of it) may run on, as ``taskset -c`` reads them ("0": one core, the
    weakest host a school uses). The process leads its own process group (stopped by
    :func:`stop_server`). Returns at once; use :func:`wait_healthy` to wait.
    """
    port = port or free_port()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "streamlit_app.py",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]
    if cpus is not None:
        cmd = ["taskset", "-c", cpus, *cmd]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "w", encoding="utf-8")
    proc = subprocess.Popen(
        cmd,
        cwd=app_dir,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )
    log.close()
    return proc, f"http://127.0.0.1:{port}"


def wait_healthy(proc: subprocess.Popen, url: str, timeout_s: float = 120.0) -> None:
    """Poll ``/_stcore/health`` every 50 ms until it answers "ok"; RuntimeError on exit or timeout."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}; see {SERVER_LOG}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200 and resp.read().strip() == b"ok":
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.05)
    raise RuntimeError(f"streamlit at {url} not healthy within {timeout_s:.0f} s; see {SERVER_LOG}")


def stop_server(proc: subprocess.Popen) -> None:
    """Terminate the server's process group (SIGTERM, then SIGKILL after 10 s)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def launch_browser(playwright):
    """Headless Debian chromium (``playwright install`` is not needed); RuntimeError if missing."""
    executable = shutil.which("chromium")
    if executable is None:
        raise RuntimeError("Debian `chromium` is not on PATH (apt-get install -y chromium)")
    return playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)


def new_page(browser):
    """A page in a fresh context (1280×900, English locale): one browser session of the app."""
    return browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US").new_page()


def wait_idle(page, timeout_ms: int = TIMEOUT_MS) -> None:
    """Wait until the app has rendered and no script is running."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    page.wait_for_function(APP_IDLE_JS, timeout=timeout_ms, polling=50)


def wait_page(page, title: str, timeout_ms: int = TIMEOUT_MS) -> None:
    """Wait until the page titled ``title`` is shown and its script has finished."""
    page.get_by_role("heading", name=title).first.wait_for(timeout=timeout_ms)
    wait_idle(page, timeout_ms)


def exceptions_on(page) -> list[str]:
    """Texts of Streamlit exception boxes on the page (empty when all is well)."""
    return [t.strip() for t in page.locator('[data-testid="stException"]').all_inner_texts()]


def page_titles() -> dict[str, str]:
    """{url path: English page title} of the app's pages ("" is the Train page, the root)."""
    from tinygpt.i18n import CATALOGUE

    titles = {"": "train.title", "predict": "predict.title", "attention": "attn.title", "theory": "theory.title"}
    return {path: CATALOGUE[key]["en"] for path, key in titles.items() if key in CATALOGUE}


def rss_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) of a process in MB (10⁶ bytes), from /proc/<pid>/status."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) * 1024 / 1e6
    return fields["VmRSS"], fields["VmHWM"]


def ratio_line(name: str, value: float, target: float, unit: str = "s") -> str:
    """One aligned line: name, value, target and value / target."""
    return f"{name:<34} {value:9.2f} {unit:<2} target < {target:g} {unit:<2} ratio {value / target:5.2f}"


def load_note() -> str:
    """The machine's load average, printed with the figures (they are provisional when it is high)."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


# ---------------------------------------------------------------- the measurements


def cold_start(browser, titles: dict[str, str]) -> tuple[subprocess.Popen, str, object, dict[str, float]]:
    """Start the server and load the root page; returns (server, url, page, timings in s)."""
    page = new_page(browser)
    t0 = time.perf_counter()
    proc, url = start_server()
    try:
        wait_healthy(proc, url)
        t_health = time.perf_counter() - t0
        page.goto(f"{url}/?lang=en", timeout=TIMEOUT_MS)
        page.get_by_role("heading", name=titles[""]).first.wait_for(timeout=TIMEOUT_MS)
        t_title = time.perf_counter() - t0
        wait_idle(page)
        t_done = time.perf_counter() - t0
    except Exception:
        stop_server(proc)
        raise
    errors = exceptions_on(page)
    if errors:
        print(f"  ! exceptions on the first page: {errors}")
    return proc, url, page, {"health": t_health, "title": t_title, "done": t_done}


def phone_first_paint(browser) -> tuple[float, float]:
    """A fresh server, then a phone's first request of the root page in Chinese: (seconds to the
    first text in the main area, seconds to the page's title), both from the request."""
    from tinygpt.i18n import CATALOGUE

    proc, url = start_server()
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN", is_mobile=True)
    try:
        wait_healthy(proc, url)
        page = context.new_page()
        start = time.perf_counter()
        page.goto(f"{url}/?lang=zh", wait_until="commit", timeout=TIMEOUT_MS)
        page.wait_for_function(MAIN_TEXT_JS, timeout=TIMEOUT_MS, polling=20)
        painted = time.perf_counter() - start
        page.get_by_role("heading", name=CATALOGUE["train.title"]["zh"]).first.wait_for(timeout=TIMEOUT_MS)
        titled = time.perf_counter() - start
    finally:
        context.close()
        stop_server(proc)
    return painted, titled


def predict_first_paint(browser, app_dir: Path = ROOT) -> list[tuple[float, float, float]]:
    """A fresh server, then two phones (390 × 844, English) opening /predict one after the other:
    for each, (seconds to Predict's title, to its prefix box, to its first chart), from the request."""
    from tinygpt.i18n import CATALOGUE

    proc, url = start_server(app_dir=app_dir)
    times = []
    try:
        wait_healthy(proc, url)
        for _ in range(2):
            context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", is_mobile=True)
            page = context.new_page()
            start = time.perf_counter()
            page.goto(f"{url}/predict?lang=en", wait_until="commit", timeout=TIMEOUT_MS)
            page.get_by_role("heading", name=CATALOGUE["predict.title"]["en"]).first.wait_for(timeout=TIMEOUT_MS)
            titled = time.perf_counter() - start
            page.locator(".st-key-predict_prefix input").first.wait_for(timeout=TIMEOUT_MS)
            boxed = time.perf_counter() - start
            page.locator('[data-testid="stVegaLiteChart"]').first.wait_for(timeout=TIMEOUT_MS)
            times.append((titled, boxed, time.perf_counter() - start))
            errors = exceptions_on(page)
            if errors:
                print(f"  ! exceptions on Predict: {errors}")
            context.close()
    finally:
        stop_server(proc)
    return times


def switch_to(page, path: str, title: str) -> float:
    """Seconds from a click on the sidebar link to ``path`` until its page is rendered."""
    link = page.locator(f'[data-testid="stSidebarNav"] a[href$="/{path}"]').first
    if not path:  # the root page's link ends with the host and port
        link = page.locator('[data-testid="stSidebarNav"] a').first
    link.wait_for(timeout=TIMEOUT_MS)
    start = time.perf_counter()
    link.click()
    wait_page(page, title)
    return time.perf_counter() - start


def first_loss_point(page, url: str, title: str) -> float | None:
    """Seconds from pressing Train (seed config, weight seed 1) to the live loss chart; None if absent."""
    page.goto(f"{url}/?lang=en", timeout=TIMEOUT_MS)
    wait_page(page, title)
    seed_input = page.locator(".st-key-train_seed input")
    if seed_input.count():
        seed_input.fill("1")
        seed_input.press("Enter")
        wait_idle(page)
    else:
        print("  ! no widget with key train_seed: the run may be the cached default model")
    start_button = page.locator(".st-key-train_start button")
    if not start_button.count():
        print("  ! no button with key train_start on the Train page; first loss point not measured")
        return None
    # Before a run the chart is drawn empty with a caption under it; the first point replaces both.
    from tinygpt.i18n import CATALOGUE

    empty = CATALOGUE["train.chart_empty"]["en"]
    start = time.perf_counter()
    start_button.click()
    page.wait_for_function(
        """([empty]) => !document.body.innerText.includes(empty)
                        && document.querySelector('[data-testid="stVegaLiteChart"]') !== null""",
        arg=[empty],
        timeout=TIMEOUT_MS,
        polling=20,
    )
    elapsed = time.perf_counter() - start
    stop = page.locator(".st-key-train_stop button")
    if stop.count() and stop.is_enabled():
        stop.click()  # the figure is taken; do not keep the CPU busy
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cold_start", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="number of cold starts (median reported)")
    parser.add_argument("--phone-only", action="store_true", help="only the phone's first paint on a fresh server")
    parser.add_argument("--predict-only", action="store_true", help="only Predict's first paint on a fresh server")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="the checkout to serve (default: this one)")
    args = parser.parse_args(argv)
    if args.predict_only:
        return predict_only(args.app_dir)
    from playwright.sync_api import sync_playwright

    titles = page_titles()  # imports tinygpt (and torch) here, before any clock starts
    print(load_note())
    colds: list[dict[str, float]] = []
    switches: dict[str, list[float]] = {}
    first_loss = None
    with sync_playwright() as pw:
        browser = launch_browser(pw)
        painted, titled = phone_first_paint(browser)
        print(f"phone first paint: text {painted:.2f} s, title {titled:.2f} s after the request")
        if not args.phone_only:
            print_predict_paint(predict_first_paint(browser))
        for run in range(0 if args.phone_only else args.runs):
            proc, url, page, timing = cold_start(browser, titles)
            colds.append(timing)
            print(
                f"cold start {run + 1}: healthy {timing['health']:.2f} s, title shown {timing['title']:.2f} s, "
                f"fully rendered {timing['done']:.2f} s"
            )
            try:
                if run == 0:
                    order = [p for p in ("predict", "attention", "theory", "") if p in titles] * 2
                    for path in order:
                        switches.setdefault(path, []).append(switch_to(page, path, titles[path]))
                    errors = exceptions_on(page)
                    if errors:
                        print(f"  ! exceptions after the page switches: {errors}")
                    first_loss = first_loss_point(page, url, titles[""])
            finally:
                page.context.close()
                stop_server(proc)
        browser.close()
    print()
    if colds:
        print(ratio_line("cold start (median)", statistics.median(c["done"] for c in colds), TARGET_COLD_S))
    for path, times in switches.items():
        name = f"switch to /{path}" + (" (first, repeat)" if len(times) > 1 else "")
        print(ratio_line(name, max(times), TARGET_SWITCH_S) + f"   [{', '.join(f'{t:.2f}' for t in times)}]")
    all_switches = [t for times in switches.values() for t in times]
    if all_switches:
        print(ratio_line("page switch (median of all)", statistics.median(all_switches), TARGET_SWITCH_S))
    if first_loss is not None:
        print(ratio_line("first loss point after Train", first_loss, TARGET_FIRST_LOSS_S))
    print(ratio_line("phone first paint (fresh server)", painted, TARGET_PHONE_PAINT_S))
    ratios = [painted / TARGET_PHONE_PAINT_S]
    if colds:
        ratios.append(statistics.median(c["done"] for c in colds) / TARGET_COLD_S)
    ratios += [max(times) / TARGET_SWITCH_S for times in switches.values()]
    if first_loss is not None:
        ratios.append(first_loss / TARGET_FIRST_LOSS_S)
    print("ratio = figure / target; below 1.00 meets the target.", load_note())
    print(f"worst ratio: {max(ratios):.2f}")
    return 0


def predict_only(app_dir: Path) -> int:
    """``--predict-only``: Predict's first paint (:func:`predict_first_paint`) of the app in ``app_dir``."""
    from playwright.sync_api import sync_playwright

    page_titles()  # imports tinygpt (and torch) here, before any clock starts
    print(load_note())
    with sync_playwright() as pw:
        browser = launch_browser(pw)
        times = predict_first_paint(browser, app_dir)
        browser.close()
    print_predict_paint(times)
    print(load_note())
    return 0


def print_predict_paint(times: list[tuple[float, float, float]]) -> None:
    """One line per phone of :func:`predict_first_paint`."""
    for name, (titled, boxed, charted) in zip(("fresh server", "second phone"), times):
        print(
            f"predict first paint, {name}: title {titled:.2f} s, prefix box {boxed:.2f} s "
            f"(gap {boxed - titled:.2f} s), first chart {charted:.2f} s",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
