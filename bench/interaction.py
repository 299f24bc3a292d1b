"""Cause and effect: from a student's input to the changed chart showing its new data, in a browser.

Every control should answer within a quarter second. This starts its own ``streamlit run``
(:func:`bench.cold_start.start_server`), drives headless Chromium (1400×1000, English) through
Playwright and times, for each control, the median of ``--repeats`` inputs.

What one measurement waits for. An init script in every page of the browser records, with the
page's own clock (``performance.now()``):

- t0: the input event itself (the first ``keydown`` / ``pointerdown`` / ``click`` after the
  measurement is armed), caught on ``document`` in the capture phase, before Streamlit sees it;
- every DOM mutation (children, text, attributes: Vega's SVG marks, the data grids' cell copies,
  the stale markers) after t0, through a ``MutationObserver`` on the whole document;
- the script state Streamlit writes on ``stApp`` (``data-test-script-state``): when a run started
  after t0 and when it ended;
- the first websocket message the page sends after t0 (the rerun request) and the last one it
  receives (the script's last delta), to split the figure into frontend, server and drawing.

The measurement ends when (1) a script run started and ended after t0 and the app is idle
(``APP_IDLE_JS``: no run, no skeleton, no status widget), (2) nothing in the document changed
for ``QUIET_MS``, and (3) the content differs from its snapshot taken just before the input: the
SVG (or canvas) of the Vega-Lite charts, the cells of the tables (a static table's own cells, a
grid's accessible ``<td>`` copies), the texts of markdown, alerts and metrics. The figure is the
later of the last mutation and the end of the run, minus t0: the
moment the screen stopped changing, so it includes every chart the input redraws, not only the
script's end. The quiet window itself is not counted. Each row also says how many charts and
tables changed and how many Vega-Lite charts, SVGs and canvases the page holds.

Controls (located by widget key: Streamlit puts a ``st-key-<key>`` class on the element's
container, wherever the page places it: sidebar, expander, columns). A control that is not
found is printed as ``skipped (control not found)``, not an error.

- Attention (``/attention?model=textbook&step=softmax``, "More controls" open): τ slider one notch
  (ArrowRight on the focused thumb,
  ``attn_temperature``), the causal-mask toggle (``attn_mask``), the scaling radio
  (``attn_scaling``: √d_head ↔ 1), a score edit (``attn_editing`` on, then a value typed into
  the score editor's number input and Enter), next / previous step (``attn_next``,
  ``attn_prev``, from the input X forward and back). Target 0.25 s, the step buttons too.
- Predict (``/predict``, sampling with temperature): τ slider one notch (``predict_temperature``),
  length slider one notch (``predict_n_new``), next generation step (``predict_next``).
  Target 0.25 s each.
- Theory (``/theory``, each control in its own section, opened first): the softmax example's
  temperature slider one notch (``theory_tau``:
  a table, the bar chart and the matrix heatmap depend on it), a quiz answer (the first
  ``theory_quiz_<id>`` radio, alternating the right answer and a wrong one). Targets 0.25 s.
- Page switches: in a fresh browser session, Train (the root) then clicks on the sidebar links
  to Theory, Attention, Predict, each a first visit in that session. One untimed session first
  visits every page, so one-offs of the server process (imports, the default model's training,
  process-wide caches) are not counted. Target 0.5 s each.
- Cold: a new server per repeat; once it answers its health check, the first visit of the root
  page until it is fully drawn (same end condition, from ``page.goto``). Target 4 s.

Slider notches go up from the default each repeat, so no result is served from a cache of an
earlier repeat; inputs that toggle go back and forth.

Run: python -m bench.interaction [--repeats N] [--only attention|predict|theory|switch|cold]
[--server-cpus LIST]   (``--server-cpus 0``: the server pinned to one core with ``taskset``, as
on the smallest host a school uses; the browser, the student's own device, is not pinned)
Prints a line per figure (:func:`bench.cold_start.ratio_line`), the load average, and last
``worst ratio: X.XX``. The server's log goes to artifacts/bench-interaction-server.log.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from bench.cold_start import (
    APP_IDLE_JS,
    ARTIFACTS,
    ROOT,
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

SERVER_LOG = ARTIFACTS / "bench-interaction-server.log"
VIEWPORT = {"width": 1400, "height": 1000}
QUIET_MS = 300  # nothing changed for this long after the run ended: the screen has settled
MEASURE_TIMEOUT_MS = 60_000
PARTS = ("attention", "predict", "theory", "switch", "cold")

TARGET_CONTROL_S = 0.25  # every control, the step buttons too
TARGET_SWITCH_S = 0.5
TARGET_COLD_S = 4.0

# Installed in every document before its own scripts (context.add_init_script).
INSTRUMENT_JS = """(() => {
  if (window.__bench) return;
  const b = window.__bench = {armed: false, t0: null, lastMut: null, runStart: null, runEnd: null,
                              sent: null, lastRecv: null, before: null, states: []};
  const now = () => performance.now();
  for (const type of ['keydown', 'pointerdown', 'mousedown', 'click']) {
    document.addEventListener(type, () => { if (b.armed && b.t0 === null) b.t0 = now(); }, true);
  }
  const Native = window.WebSocket;
  const send = Native.prototype.send;
  Native.prototype.send = function (data) {
    if (b.t0 !== null && b.sent === null) b.sent = now();
    return send.call(this, data);
  };
  window.WebSocket = new Proxy(Native, {construct(target, args) {
    const ws = new target(...args);
    ws.addEventListener('message', () => { if (b.t0 !== null) b.lastRecv = now(); });
    return ws;
  }});
  const observe = () => {
    new MutationObserver(records => {
      if (b.t0 === null) return;
      const t = now();
      b.lastMut = t;
      // the script state on stApp (read on every change: stApp may also be mounted anew)
      const app = document.querySelector("[data-testid='stApp']");
      const state = app ? app.getAttribute('data-test-script-state') : null;
      // a run that started and ended between two callbacks leaves the state as it was: its
      // records on the attribute still say that it ran
      const ran = records.some(r => r.attributeName === 'data-test-script-state');
      if (app !== b.app || state !== b.state || ran) {
        b.app = app; b.state = state;
        if (b.runStart === null) b.runStart = t;  // the state changed after the input: a run
        b.runEnd = (state === null || state === 'notRunning') ? t : null;
        b.states.push([Math.round(t - b.t0), state]);
      }
    }).observe(document.documentElement, {subtree: true, childList: true, characterData: true, attributes: true});
  };
  if (document.documentElement) observe(); else document.addEventListener('DOMContentLoaded', observe);
})()"""

# The content a student looks at: charts, table cells, texts (not the widgets themselves).
CONTENT_JS = """() => {
  const strip = s => s.replace(/ (id|clip-path|aria-labelledby|aria-describedby)="[^"]*"/g, '');
  const charts = Array.from(document.querySelectorAll("[data-testid='stVegaLiteChart']")).map(c => {
    const svg = c.querySelector('svg');
    if (svg) return strip(svg.outerHTML);
    const canvas = c.querySelector('canvas');
    try { return canvas ? canvas.toDataURL() : ''; } catch (e) { return ''; }
  });
  const tables = Array.from(document.querySelectorAll("[data-testid='stDataFrame'], .tg-table"))
    .map(t => Array.from(t.querySelectorAll('th, td')).map(td => td.innerText).join('|'));
  const texts = Array.from(document.querySelectorAll(
      "[data-testid='stMain'] [data-testid='stMarkdownContainer'], [data-testid='stAlert'], [data-testid='stMetric']"))
    .map(e => e.innerText).join('\\n');
  return {charts, tables, texts};
}"""

ARM_JS = f"""() => {{
  const b = window.__bench;
  Object.assign(b, {{armed: true, t0: null, lastMut: null, runStart: null, runEnd: null, sent: null,
                     lastRecv: null, states: []}});
  b.before = ({CONTENT_JS})();
  b.app = document.querySelector("[data-testid='stApp']");
  b.state = b.app ? b.app.getAttribute('data-test-script-state') : null;
  return true;
}}"""

# Polled until true; returns [done, now] in the page's clock (done = when the screen settled).
DONE_JS = f"""([quiet, needBefore]) => {{
  const b = window.__bench;
  if (!b || b.t0 === null) return false;
  // A whole-script run changes stApp's script state; a fragment's rerun may not, but its
  // messages still arrive over the websocket: then the last message received ends it.
  const ran = b.runStart !== null && b.runEnd !== null;
  const fragment = b.runStart === null && b.lastRecv !== null;
  if (!ran && !fragment) return false;
  if (!({APP_IDLE_JS})()) return false;
  const end = ran ? b.runEnd : b.lastRecv;
  const t = performance.now(), done = Math.max(b.lastMut ?? end, end);
  if (t - done < quiet) return false;
  if (needBefore) {{
    const now = ({CONTENT_JS})(), before = b.before;
    if (JSON.stringify(now) === JSON.stringify(before)) return false;
  }}
  return [done, t];
}}"""

# The cold visit: no input to arm on; done when a run ended, the app is idle, a title is shown
# and nothing changed for the quiet window (times from the navigation's start).
COLD_DONE_JS = f"""([quiet]) => {{
  const b = window.__bench;
  if (!b || b.runEnd === null || !document.querySelector("[data-testid='stMain'] h1")) return false;
  if (!({APP_IDLE_JS})()) return false;
  const t = performance.now(), done = Math.max(b.lastMut, b.runEnd);
  if (t - done < quiet) return false;
  return [done, t];
}}"""

# Why a measurement did not end: which of DONE_JS's conditions still fails.
WHY_JS = f"""() => {{
  const b = window.__bench, now = ({CONTENT_JS})();
  return {{idle: ({APP_IDLE_JS})(), changed: JSON.stringify(now) !== JSON.stringify(b.before),
          skeleton: !!document.querySelector("[data-testid='stSkeleton']"),
          quietMs: b.lastMut === null ? null : Math.round(performance.now() - b.lastMut),
          t0: b.t0, runStart: b.runStart, runEnd: b.runEnd, lastRecv: b.lastRecv, states: b.states,
          url: location.href}};
}}"""

COUNTS_JS = """() => ({
  vega: document.querySelectorAll("[data-testid='stVegaLiteChart']").length,
  svg: document.querySelectorAll('svg').length,
  canvas: document.querySelectorAll('canvas').length,
  tables: document.querySelectorAll("[data-testid='stDataFrame'], .tg-table").length,
})"""

CHANGED_JS = f"""() => {{
  const b = window.__bench, now = ({CONTENT_JS})(), before = b.before;
  const diff = (a, c) => a.length !== c.length ? a.length  // another page: all of its own
      : a.filter((x, i) => x !== c[i]).length;
  return {{charts: diff(now.charts, before.charts), tables: diff(now.tables, before.tables),
          texts: now.texts !== before.texts}};
}}"""


class NotFound(Exception):
    """A control the benchmark drives is not on the page (the page changed)."""


@dataclass
class Sample:
    """One input: seconds to the settled screen, and its parts (None when not seen)."""

    total: float
    to_send: float | None = None  # input -> first websocket message sent (frontend, debounce)
    to_last_msg: float | None = None  # input -> last message received (server run)
    changed: dict = field(default_factory=dict)


@dataclass
class Row:
    name: str
    target: float
    samples: list[Sample] = field(default_factory=list)
    skipped: str | None = None
    counts: dict | None = None


def control(page, key: str, inner: str = ""):
    """The element of widget ``key`` (its ``st-key-<key>`` container), or an inner part of it."""
    loc = page.locator(f".st-key-{key} {inner}".strip()).first
    try:
        loc.wait_for(state="attached", timeout=5_000)
    except Exception as exc:  # playwright's TimeoutError
        raise NotFound(f"{key} {inner}".strip()) from exc
    return loc


def measure(page, act: Callable[[], None], content_check: bool = True) -> Sample:
    """Arm the page's monitor, perform ``act`` (one input), wait for the settled screen."""
    page.evaluate(ARM_JS)
    act()
    try:
        handle = page.wait_for_function(DONE_JS, arg=[QUIET_MS, content_check], timeout=MEASURE_TIMEOUT_MS, polling=20)
    except Exception as exc:
        state = page.evaluate(WHY_JS)
        raise TimeoutError(f"no settled change within {MEASURE_TIMEOUT_MS / 1000:g} s: {state}") from exc
    done, _ = handle.json_value()
    b = page.evaluate(
        "() => { const b = window.__bench; b.armed = false; return {t0: b.t0, sent: b.sent, lastRecv: b.lastRecv}; }"
    )
    changed = page.evaluate(CHANGED_JS)
    t0 = b["t0"]
    return Sample(
        total=(done - t0) / 1000,
        to_send=(b["sent"] - t0) / 1000 if b["sent"] is not None else None,
        to_last_msg=(b["lastRecv"] - t0) / 1000 if b["lastRecv"] is not None else None,
        changed=changed,
    )


def open_page(context, url: str):
    page = context.new_page()
    page.goto(url, timeout=TIMEOUT_MS)
    wait_idle(page)
    page.wait_for_timeout(500)  # charts drawn after the run
    return page


def run_row(
    rows: list[Row],
    name: str,
    target: float,
    repeats: int,
    page,
    prepare: Callable[[], None] | None,
    act: Callable[[int], None],
) -> None:
    """Measure one control ``repeats`` times (``act(k)`` performs the k-th input)."""
    row = Row(name, target)
    rows.append(row)
    try:
        if prepare is not None:
            prepare()
        for k in range(repeats):
            row.samples.append(measure(page, lambda: act(k)))
            page.wait_for_timeout(150)
        row.counts = page.evaluate(COUNTS_JS)
    except NotFound as exc:
        row.skipped = f"skipped (control not found: {exc})"
    except Exception as exc:  # a wait that timed out: report it, go on with the next row
        row.skipped = f"failed ({type(exc).__name__}: {str(exc).splitlines()[0][:400]})"
    print_row(row)


def press_slider(page, key: str, key_name: str = "ArrowRight") -> Callable[[int], None]:
    thumb = control(page, key, "input[type='range']")

    def act(_k: int) -> None:
        thumb.focus()
        page.keyboard.press(key_name)

    return act


# ---------------------------------------------------------------- the parts


def attention_part(context, url: str, repeats: int, rows: list[Row]) -> None:
    page = open_page(context, f"{url}/attention?lang=en&model=textbook&step=softmax")
    page.locator("[data-testid='stVegaLiteChart'] svg").first.wait_for(timeout=TIMEOUT_MS)
    page.locator(".st-key-attn_more summary").click()  # scaling and the score editor: "More controls"
    wait_idle(page)
    run_row(
        rows,
        "attention: τ slider one notch",
        TARGET_CONTROL_S,
        repeats,
        page,
        None,
        lambda k: press_slider(page, "attn_temperature")(k),
    )

    def toggle(key: str) -> Callable[[int], None]:
        return lambda _k: control(page, key, "label").click()

    run_row(rows, "attention: mask toggle", TARGET_CONTROL_S, repeats, page, None, toggle("attn_mask"))

    def scaling(k: int) -> None:  # √d_head (option 0) <-> 1 (option 1); "custom" adds an input
        control(page, "attn_scaling", "[role='radiogroup']")
        page.locator(".st-key-attn_scaling [role='radiogroup'] label").nth(1 if k % 2 == 0 else 0).click()

    run_row(rows, "attention: scaling radio", TARGET_CONTROL_S, repeats, page, None, scaling)

    def editor_prepare() -> None:
        toggle("attn_editing")(0)
        wait_idle(page)
        cell = page.locator("[class*='st-key-attn_edit_value'] input").first
        try:
            cell.wait_for(timeout=10_000)
        except Exception as exc:
            raise NotFound("attn_edit_value_* (score editor)") from exc
        page.wait_for_timeout(500)

    def edit(k: int) -> None:
        # The picked cell's number input (S[T-1, 0] at first: allowed by the mask): a new value
        # is typed in (not timed), then t0 is the Enter that sends it.
        cell = page.locator("[class*='st-key-attn_edit_value'] input").first
        cell.fill(str(3 + k) if k % 2 == 0 else str(-3 - k))
        page.wait_for_timeout(300)
        page.evaluate(ARM_JS)  # re-arm: t0 is the Enter that commits the edit
        cell.press("Enter")

    run_row(rows, "attention: score edit", TARGET_CONTROL_S, repeats, page, editor_prepare, edit)
    try:
        toggle("attn_editing")(0)
        wait_idle(page)
    except Exception:  # the editor stays open: the next row opens a page of its own
        pass
    page.close()

    page = open_page(context, f"{url}/attention?lang=en&model=textbook&step=input")
    page.locator("[data-testid='stVegaLiteChart'] svg").first.wait_for(timeout=TIMEOUT_MS)
    run_row(
        rows,
        "attention: next step",
        TARGET_CONTROL_S,
        repeats,
        page,
        None,
        lambda _k: control(page, "attn_next", "button").click(),
    )
    run_row(
        rows,
        "attention: previous step",
        TARGET_CONTROL_S,
        repeats,
        page,
        None,
        lambda _k: control(page, "attn_prev", "button").click(),
    )
    report_exceptions(page, "attention")
    page.close()


def predict_part(context, url: str, repeats: int, rows: list[Row]) -> None:
    page = open_page(context, f"{url}/predict?lang=en")

    def sampling() -> None:  # the temperature slider is disabled under greedy decoding
        radio = control(page, "predict_strategy", "[role='radiogroup']")
        radio.locator("label").nth(1).click()
        wait_idle(page)
        page.wait_for_timeout(300)

    run_row(
        rows,
        "predict: τ slider one notch",
        TARGET_CONTROL_S,
        repeats,
        page,
        sampling,
        lambda k: press_slider(page, "predict_temperature")(k),
    )
    run_row(
        rows,
        "predict: length slider one notch",
        TARGET_CONTROL_S,
        repeats,
        page,
        None,
        lambda k: press_slider(page, "predict_n_new")(k),
    )
    run_row(
        rows,
        "predict: next generation step",
        TARGET_CONTROL_S,
        repeats,
        page,
        None,
        lambda _k: control(page, "predict_next", "button").click(),
    )
    report_exceptions(page, "predict")
    page.close()


def quiz_key_and_answers() -> tuple[str | None, int, int]:
    """(key of the first quiz radio, index of its right answer, index of a wrong one) from
    tinygpt/ui/views/theory_table.py's QUIZ dict (the Theory page's quiz); (None, 1, 0) when it cannot be read."""
    try:
        tree = ast.parse((ROOT / "tinygpt" / "ui" / "views" / "theory_table.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "QUIZ" for t in node.targets):
                quiz = ast.literal_eval(node.value)
                qid, right = next(iter(quiz.items()))
                right_index = "abcd".index(right)
                return f"theory_quiz_{qid}", right_index, 0 if right_index else 1
    except (OSError, SyntaxError, ValueError, StopIteration):
        pass
    return None, 1, 0


#: The buttons that open a page's sections (the Theory page's section chooser) or tabs.
SECTION_BUTTONS = ".st-key-theory_section button, [role='tab']"


def open_section_with(page, key: str) -> None:
    """Open the section (the Theory page's section chooser, or a tab) that holds the control
    ``key``: each in turn until it is drawn; nothing when it is drawn already or none holds it."""
    tabs = page.locator(SECTION_BUTTONS)
    for i in range(tabs.count()):
        if page.locator(f".st-key-{key}").count():
            return
        tabs.nth(i).click()
        wait_idle(page)
        page.wait_for_timeout(500)


def theory_part(context, url: str, repeats: int, rows: list[Row]) -> None:
    page = open_page(context, f"{url}/theory?lang=en")
    open_section_with(page, "theory_tau")
    run_row(
        rows,
        "theory: τ slider one notch",
        TARGET_CONTROL_S,
        repeats,
        page,
        None,
        lambda k: press_slider(page, "theory_tau")(k),
    )
    key, right, wrong = quiz_key_and_answers()
    if key is not None:
        open_section_with(page, key)
    if key is None or not page.locator(f".st-key-{key}").count():
        found = page.evaluate("""() => { const e = document.querySelector("[class*='st-key-theory_quiz_']");
            return e ? Array.from(e.classList).find(c => c.startsWith('st-key-')).slice(7) : null; }""")
        key, right, wrong = found or "theory_quiz", 1, 0

    def answer(k: int) -> None:  # right, wrong, right, …: the feedback changes every time
        radio = control(page, key, "[role='radiogroup']")
        radio.locator("label").nth(right if k % 2 == 0 else wrong).click()

    run_row(rows, "theory: quiz answer", TARGET_CONTROL_S, repeats, page, None, answer)
    report_exceptions(page, "theory")
    page.close()


def switch_part(context_factory, url: str, repeats: int, rows: list[Row]) -> None:
    targets = [
        ("theory", "switch Train→Theory (first visit)"),
        ("attention", "switch →Attention (first visit)"),
        ("predict", "switch →Predict (first visit)"),
    ]
    # one untimed session: the server's one-offs (imports, default model, process caches)
    context = context_factory()
    for path in ("", "theory", "attention", "predict"):
        page = open_page(context, f"{url}/{path}?lang=en")
        page.close()
    context.close()
    by_path = {path: Row(name, TARGET_SWITCH_S) for path, name in targets}
    rows.extend(by_path.values())
    for _ in range(repeats):
        context = context_factory()
        page = open_page(context, f"{url}/?lang=en")
        for path, _name in targets:
            row = by_path[path]
            if row.skipped:
                continue
            link = page.locator(f'[data-testid="stSidebarNav"] a[href$="/{path}"]').first
            if not link.count():
                row.skipped = f"skipped (control not found: sidebar link to /{path})"
                continue
            try:
                row.samples.append(measure(page, link.click))
                row.counts = page.evaluate(COUNTS_JS)
            except Exception as exc:
                row.skipped = f"failed ({type(exc).__name__}: {str(exc).splitlines()[0][:400]})"
            page.wait_for_timeout(300)
        report_exceptions(page, "page switches")
        context.close()
    for row in by_path.values():
        print_row(row)


def cold_part(context_factory, repeats: int, rows: list[Row], serve: Callable = start_server) -> None:
    row = Row("first visit after a server start", TARGET_COLD_S)
    rows.append(row)
    for _ in range(repeats):
        proc, url = serve()
        try:
            wait_healthy(proc, url)
            context = context_factory()
            context.add_init_script("window.__bench.armed = true; window.__bench.t0 = 0;")  # from the navigation
            page = context.new_page()
            start = time.perf_counter()
            page.goto(f"{url}/?lang=en", timeout=TIMEOUT_MS)
            handle = page.wait_for_function(COLD_DONE_JS, arg=[QUIET_MS], timeout=TIMEOUT_MS, polling=20)
            done, now = handle.json_value()
            elapsed = time.perf_counter() - start - (now - done) / 1000  # without the quiet window
            row.samples.append(Sample(total=elapsed))
            row.counts = page.evaluate(COUNTS_JS)
            report_exceptions(page, "first visit")
            context.close()
        finally:
            stop_server(proc)
    print_row(row)


# ---------------------------------------------------------------- output


def report_exceptions(page, where: str) -> None:
    errors = exceptions_on(page)
    if errors:
        print(f"  ! exceptions on {where}: {errors}")


def _parts(samples: list[Sample]) -> str:
    sends = [s.to_send for s in samples if s.to_send is not None]
    msgs = [s.to_last_msg for s in samples if s.to_last_msg is not None]
    out = []
    if sends:
        out.append(f"sent {statistics.median(sends):.2f}")
    if msgs:
        out.append(f"last msg {statistics.median(msgs):.2f}")
    changed = samples[-1].changed
    if changed:
        out.append(
            f"changed {changed['charts']} charts, {changed['tables']} tables" + (", text" if changed["texts"] else "")
        )
    return "; ".join(out)


def print_row(row: Row) -> None:
    if row.skipped or not row.samples:
        print(f"{row.name:<34} {row.skipped or 'skipped (no sample)'}", flush=True)
        return
    totals = [s.total for s in row.samples]
    line = ratio_line(row.name, statistics.median(totals), row.target)
    print(f"{line}   [{', '.join(f'{t:.2f}' for t in totals)}]", flush=True)
    detail = _parts(row.samples)
    counts = row.counts or {}
    page_counts = (
        (
            f"page: {counts.get('vega', '?')} Vega-Lite charts, {counts.get('svg', '?')} svg, "
            f"{counts.get('canvas', '?')} canvas, {counts.get('tables', '?')} tables"
        )
        if counts
        else ""
    )
    print(f"{'':<36}{'; '.join(x for x in (detail, page_counts) if x)}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.interaction", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="inputs per control (median reported), default 5")
    parser.add_argument("--only", choices=PARTS, help="run one part")
    parser.add_argument(
        "--server-cpus",
        metavar="LIST",
        help='pin the server to these CPUs (taskset -c LIST, e.g. "0": one core); the browser is not pinned',
    )
    args = parser.parse_args(argv)
    serve = partial(start_server, log_path=SERVER_LOG, cpus=args.server_cpus)
    parts = [args.only] if args.only else list(PARTS)
    from playwright.sync_api import sync_playwright

    print(load_note(), flush=True)
    rows: list[Row] = []
    with sync_playwright() as pw:
        browser = launch_browser(pw)

        def context_factory():
            context = browser.new_context(viewport=VIEWPORT, locale="en-US")
            context.add_init_script(INSTRUMENT_JS)
            return context

        if "cold" in parts:
            cold_part(context_factory, args.repeats, rows, serve)
        server_parts = [p for p in parts if p != "cold"]
        if server_parts:
            proc, url = serve()
            try:
                wait_healthy(proc, url)
                context = context_factory()
                warm = open_page(context, f"{url}/attention?lang=en")  # the default model is trained here
                warm.close()
                for part in server_parts:
                    if part == "attention":
                        attention_part(context, url, args.repeats, rows)
                    elif part == "predict":
                        predict_part(context, url, args.repeats, rows)
                    elif part == "theory":
                        theory_part(context, url, args.repeats, rows)
                    elif part == "switch":
                        switch_part(context_factory, url, args.repeats, rows)
                context.close()
            finally:
                stop_server(proc)
        browser.close()
    print()
    ratios = []
    for row in rows:
        if row.skipped or not row.samples:
            print(f"{row.name:<34} {row.skipped or 'skipped (no sample)'}")
        else:
            median = statistics.median(s.total for s in row.samples)
            ratios.append(median / row.target)
            print(ratio_line(row.name, median, row.target))
    print("ratio = median / target; below 1.00 meets the target.", load_note())
    print(f"worst ratio: {max(ratios):.2f}" if ratios else "worst ratio: n/a (nothing measured)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
