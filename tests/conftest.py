"""Shared pytest fixtures: repo paths, a live Streamlit server, and headless Debian Chromium.

Fixtures
    app_server  (session)  base URL "http://127.0.0.1:<port>" of `streamlit run streamlit_app.py`
    browser     (session)  Playwright sync-API Chromium (Debian /usr/bin/chromium), headless
    page        (function) new page, 1280x900, locale en-US; screenshot saved at teardown
    store       (function) a fresh SQLite class store, the one the app's sessions of the test use
Helpers
    wait_for_app(page, timeout_ms=60_000)  wait until Streamlit finished running the script
    assert_no_exception(page)              assert no st.exception / uncaught-error box is shown
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

APP_SCRIPT = "streamlit_app.py"
ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
SERVER_LOG = ARTIFACTS / "streamlit-server.log"

# The class store of every test (AppTest sessions and the servers the tests start) is a SQLite file
# in a temporary folder, never the repository's .data/ (tests that need their own set it themselves).
os.environ.setdefault("TINYGPT_DATA_DIR", tempfile.mkdtemp(prefix="tinygpt-test-store-"))

SERVER_START_TIMEOUT_S = 90.0
APP_TIMEOUT_MS = 60_000

# The browser flags, the free port, the server's stop and the idle check are shared with the
# benchmarks (bench/cold_start.py), so tests and figures wait for the same thing.
from bench.cold_start import APP_IDLE_JS, CHROMIUM_ARGS, free_port, stop_server  # noqa: E402


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _log_tail(path: Path, n_lines: int = 60) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        return f"<no log: {exc}>"
    return "\n".join(lines[-n_lines:])


@pytest.fixture(scope="session")
def app_server() -> Iterator[str]:
    """Run the app with `streamlit run` on a free loopback port; yield its base URL.

    Settings not given here come from .streamlit/config.toml. Waits up to 90 s for
    GET /_stcore/health to answer "ok". The server's stdout/stderr go to
    artifacts/streamlit-server.log; the process group is terminated at teardown.
    """
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        APP_SCRIPT,
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
    ]  # usage statistics follow .streamlit/config.toml, as deployed (tests/test_browser_requests.py)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with open(SERVER_LOG, "w", encoding="utf-8") as log:
        log.write(f"$ {' '.join(cmd)}  (cwd={ROOT})\n")
        log.flush()
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        last_error = "no attempt"
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"streamlit exited with code {proc.returncode} before becoming healthy.\n"
                    f"--- tail of {SERVER_LOG} ---\n{_log_tail(SERVER_LOG)}",
                    pytrace=False,
                )
            try:
                with urllib.request.urlopen(f"{base_url}/_stcore/health", timeout=2) as resp:
                    body = resp.read().decode("utf-8", errors="replace").strip()
                if resp.status == 200 and body == "ok":
                    break
                last_error = f"HTTP {resp.status}: {body!r}"
            except (urllib.error.URLError, OSError) as exc:
                last_error = repr(exc)
            if time.monotonic() > deadline:
                pytest.fail(
                    f"streamlit did not become healthy at {base_url} within "
                    f"{SERVER_START_TIMEOUT_S:.0f} s (last: {last_error}).\n"
                    f"--- tail of {SERVER_LOG} ---\n{_log_tail(SERVER_LOG)}",
                    pytrace=False,
                )
            time.sleep(0.25)
        yield base_url
    finally:
        stop_server(proc)


@pytest.fixture(scope="session")
def browser():
    """Headless Debian chromium via Playwright's sync API.

    Skips when `chromium` is not on PATH, unless CI is set: under CI a missing chromium fails.
    """
    executable = shutil.which("chromium")
    if executable is None:
        message = "Debian `chromium` not on PATH (install it: apt-get install -y chromium)"
        if _in_ci():
            pytest.fail(f"CI is set but {message}", pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser, request):
    """A new page (1280x900, locale en-US) in a fresh context.

    At teardown a full-page screenshot goes to artifacts/screenshots/<test name>.png.
    """
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    pg = context.new_page()
    try:
        yield pg
    finally:
        try:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            name = re.sub(r"[^\w.\-\[\]]+", "_", request.node.name)
            pg.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
        except Exception as exc:  # a failed screenshot must not mask the test's own result
            print(f"screenshot for {request.node.nodeid} failed: {exc!r}", file=sys.stderr)
        finally:
            context.close()


def wait_for_app(page, timeout_ms: int = APP_TIMEOUT_MS) -> None:
    """Wait until Streamlit has rendered the app and finished running the script.

    Waits for `[data-testid="stApp"]`, then until its script state is "notRunning" and no
    `[data-testid="stStatusWidget"]` element is visible. Raises Playwright's TimeoutError.
    """
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    page.wait_for_function(APP_IDLE_JS, timeout=timeout_ms, polling=100)


def open_step_table(page, name: str, lang: str = "en", timeout_ms: int = APP_TIMEOUT_MS) -> None:
    """Open the Attention page's step table (the expander keyed ``attn_table_open``, one click away
    under the step's heatmap) and wait until it shows the table of ``name`` (``attn.table``)."""
    from tinygpt.i18n import t

    box = page.locator(".st-key-attn_table_open")
    if not box.locator("details[open]").count():
        box.locator("summary").click()
    page.get_by_test_id("stMain").get_by_text(t("attn.table", lang, name=name), exact=True).wait_for(timeout=timeout_ms)
    wait_for_app(page, timeout_ms)


def assert_no_exception(page) -> None:
    """Assert the page shows no `[data-testid="stException"]` element; show their text if any."""
    exceptions = page.locator('[data-testid="stException"]')
    count = exceptions.count()
    if count:
        texts = "\n---\n".join(t.strip() for t in exceptions.all_inner_texts())
        raise AssertionError(f"{count} Streamlit exception(s) on the page:\n{texts}")


def pytest_sessionfinish(session, exitstatus) -> None:
    """Let this process's background training threads end before the interpreter does.

    AppTest sessions start the examples' training and training jobs in daemon threads; a thread
    still inside torch when Python exits aborts the process ("terminate called without an active
    exception", exit 134) and would turn a passing run into a failure. Running jobs are stopped
    (they stop at their next step) and the examples' trainings are waited for.
    """
    from tinygpt.training import jobs

    with jobs._running_lock:
        running = list(jobs._running.values())
    for job in running:
        job.stop()
    for job in running:
        job.join(timeout=60)
    for future in list(jobs._example_futures.values()):
        try:
            future.result(timeout=120)
        except Exception:  # a failed example training is reported by the tests that use it
            pass


@pytest.fixture(scope="session")
def postgres_cluster():
    """A throwaway PostgreSQL cluster (``bench.postgres``) for the session's tests; stopped and removed at the end.

    Skips when PostgreSQL's server binaries are not installed, unless CI is set: under CI a missing
    PostgreSQL fails (.ci/run installs it, as it installs chromium).
    """
    from bench.postgres import server_bin, start_cluster

    if server_bin() is None:
        message = "PostgreSQL not installed (apt-get install -y postgresql)"
        if _in_ci():
            pytest.fail(f"CI is set but {message}", pytrace=False)
        pytest.skip(message)
    cluster = start_cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def postgres_url(postgres_cluster, request) -> str:
    """The URL of a new, empty database in the session's PostgreSQL cluster (one per test)."""
    name = "t_" + re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:40] + f"_{time.monotonic_ns() % 10**9}"
    return postgres_cluster.new_database(name)


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A fresh SQLite class store for the test, the one the app's sessions use (``TINYGPT_DATA_DIR``
    set to the test's own folder, so no answer, class or published model of another test is seen)."""
    from tinygpt.classroom.store import Store, database_url

    monkeypatch.delenv("TINYGPT_DATABASE_URL", raising=False)
    monkeypatch.setenv("TINYGPT_DATA_DIR", str(tmp_path / "store"))
    s = Store(database_url())
    yield s
    s.dispose()
