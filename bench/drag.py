"""Drag and see: the Attention page's α heatmap while τ is dragged and the mask is toggled.

Starts its own ``streamlit run`` (:func:`bench.cold_start.start_server`), opens
``/attention?model=textbook&step=softmax`` in headless Chromium and drags the τ slider's thumb
with the mouse from the left end of its track to the right end in ``--steps`` moves, one every
``--move-ms``, before releasing it. An init script records, with the page's clock, every pointer
move and every change of the step's heatmap (a ``MutationObserver`` on the first Vega-Lite chart,
its marks' ``fill`` read back to tell a new picture from a repaint), and the animation frame after
each change (the paint). Then it clicks the causal-mask toggle the same way.

Prints, for the drag: ``updates during the drag: N`` (different heatmaps drawn before the
release), ``input to paint p95: X ms`` (from the pointer move that changed the slider's value to
the paint of the heatmap that answers it; target 50 ms; also from the first move not yet answered,
which counts the moves within one of the slider's stops as waiting), the server's CPU seconds during the drag (its
process group's utime + stime; the server has nothing to do until the release) and after the
release; the same for the mask toggle; the load average; and ``worst ratio: X.XX`` last.

Run: python -m bench.drag [--steps N] [--move-ms MS] [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from bench.cold_start import launch_browser, load_note, start_server, stop_server, wait_healthy, wait_idle

TARGET_MS = 50.0
LOG = Path("artifacts/bench-drag-server.log")

#: Installed in the page before it loads: input times, heatmap changes and their paints.
RECORDER_JS = """
window.tgDrag = {inputs: [], changes: [], values: [], armed: false};
const note = (e) => { if (window.tgDrag.armed) window.tgDrag.inputs.push(performance.now()); };
for (const type of ["pointermove", "pointerdown", "click", "keydown"]) document.addEventListener(type, note, true);
let last = "", lastTau = null;
const tau = () => document.querySelector(".st-key-attn_temperature input[type=range]")?.getAttribute("aria-valuetext");
const picture = () => Array.from(document.querySelectorAll("[data-testid='stVegaLiteChart'] svg path, "
    + "[data-testid='stVegaLiteChart'] svg rect")).map((el) => el.getAttribute("fill")).join();
new MutationObserver(() => {
  if (!window.tgDrag.armed) return;
  const value = tau();
  if (value !== lastTau) { lastTau = value; window.tgDrag.values.push(performance.now()); }
  const now = picture();
  if (now === last || !now) return;
  last = now;
  const changed = performance.now();
  requestAnimationFrame(() => window.tgDrag.changes.push({changed, painted: performance.now()}));
}).observe(document, {subtree: true, childList: true, attributes: true});
window.tgDragReset = () => {
  last = picture(); lastTau = tau(); window.tgDrag = {inputs: [], changes: [], values: [], armed: true};
};
"""


def group_cpu_seconds(pgid: int) -> float:
    """utime + stime in seconds of every process in process group ``pgid`` (from /proc)."""
    total, tick = 0, os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields after the name: state, ppid, pgrp, ...
            total += int(fields[11]) + int(fields[12])
    return total / tick


def latencies(record: dict, by_value: bool = True) -> list[float]:
    """For each heatmap change: its paint minus the input that asked for it (ms). With ``by_value``,
    that input is the last pointer move before the slider's first change of value since the previous
    heatmap change (a move within one of the slider's stops asks for no new heatmap); without a change
    of value in between (a click), or with ``by_value`` False, the earliest input since the previous change."""
    inputs, values, out, since = sorted(record["inputs"]), sorted(record.get("values", [])), [], float("-inf")
    for change in record["changes"]:
        pending = [t for t in inputs if since < t <= change["changed"]]
        moved = [v for v in values if since < v <= change["changed"]] if by_value else []
        if moved and (cause := [t for t in pending if t <= moved[0]]):
            out.append(change["painted"] - cause[-1])
        elif pending:
            out.append(change["painted"] - pending[0])
        since = change["changed"]
    return out


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank) of ``values``; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]


def drag_tau(page, pgid: int, steps: int, move_ms: int) -> tuple[int, list[float], list[float], float, float]:
    """Drag the τ thumb from the track's left end to its right end: (changes before the release,
    input-to-paint latencies in ms, the same from the first move not yet answered, server CPU s during
    the drag, server CPU s of the release)."""
    box = page.locator(".st-key-attn_temperature")
    thumb = box.locator("input[type=range]").locator("xpath=../..")  # the thumb holds the slider's input
    thumb.scroll_into_view_if_needed()
    t = thumb.bounding_box()
    area = box.locator("[role=group] > div").first.bounding_box()  # the track
    y = t["y"] + t["height"] / 2
    left, right = area["x"] + 4, area["x"] + area["width"] - 4
    page.mouse.move(t["x"] + t["width"] / 2, y)
    page.evaluate("window.tgDragReset()")
    cpu0 = group_cpu_seconds(pgid)
    page.mouse.down()
    for k in range(steps + 1):  # to the left end first (half the moves), then to the right end
        frac = k / steps
        x = left + (t["x"] - left) * (1 - 2 * frac) if frac < 0.5 else left + (right - left) * (2 * frac - 1)
        page.mouse.move(x, y)
        page.wait_for_timeout(move_ms)
    page.wait_for_timeout(200)
    record = page.evaluate("window.tgDrag")
    cpu1 = group_cpu_seconds(pgid)
    page.mouse.up()
    wait_idle(page)
    page.wait_for_timeout(300)
    during = cpu1 - cpu0
    return len(record["changes"]), latencies(record), latencies(record, False), during, group_cpu_seconds(pgid) - cpu1


def toggle_mask(page, pgid: int) -> tuple[list[float], float]:
    """Click the causal-mask toggle: (input-to-paint of the heatmap's first change in ms, server
    CPU s until the rerun ends)."""
    page.evaluate("window.tgDragReset()")
    cpu0 = group_cpu_seconds(pgid)
    page.locator(".st-key-attn_mask label").first.click()
    page.wait_for_function("() => window.tgDrag.changes.length > 0", timeout=60_000)
    record = page.evaluate("window.tgDrag")
    wait_idle(page)
    page.wait_for_timeout(300)
    return latencies(record)[:1], group_cpu_seconds(pgid) - cpu0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.drag", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40, help="mouse moves across the track, default 40")
    parser.add_argument("--move-ms", type=int, default=30, help="pause after each move in ms, default 30")
    parser.add_argument("--repeats", type=int, default=2, help="drags and mask clicks, default 2")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    LOG.parent.mkdir(exist_ok=True)
    proc, url = start_server(log_path=LOG)
    try:
        wait_healthy(proc, url)
        with sync_playwright() as pw:
            browser = launch_browser(pw)
            context = browser.new_context(viewport={"width": 1280, "height": 1000}, locale="en-US")
            context.add_init_script(RECORDER_JS)
            page = context.new_page()
            page.goto(f"{url}/attention?lang=en&model=textbook&step=softmax", timeout=600_000)
            wait_idle(page, 600_000)
            page.locator("[data-testid='stVegaLiteChart'] svg").first.wait_for(timeout=60_000)
            page.wait_for_timeout(1000)
            updates, lat, first_move, cpu_drag, cpu_release = [], [], [], [], []
            mask_lat, mask_cpu = [], []
            for _ in range(args.repeats):
                n, ms, unanswered, during, after = drag_tau(page, proc.pid, args.steps, args.move_ms)
                updates.append(n)
                lat += ms
                first_move += unanswered
                cpu_drag.append(during)
                cpu_release.append(after)
                ms, cpu = toggle_mask(page, proc.pid)
                mask_lat += ms
                mask_cpu.append(cpu)
            browser.close()
    finally:
        stop_server(proc)
    drag_p95, mask_p95 = p95(lat), p95(mask_lat)
    print(f"τ drag ({args.steps} moves, {args.move_ms} ms apart, {args.repeats} drags)")
    print(f"updates during the drag: {min(updates)}   (each drag: {updates})")
    print(f"input to paint p95: {drag_p95:.0f} ms   target < {TARGET_MS:g} ms   median {statistics.median(lat):.0f} ms")
    print(f"  from the first move not yet answered (moves within a stop included): p95 {p95(first_move):.0f} ms")
    print(f"server CPU during the drag: {max(cpu_drag):.2f} s   after the release: {max(cpu_release):.2f} s")
    print("mask toggle")
    print(f"input to paint p95: {mask_p95:.0f} ms   target < {TARGET_MS:g} ms   (clicks: {len(mask_lat)})")
    print(f"server CPU of the rerun: {max(mask_cpu):.2f} s")
    print(load_note())
    print(f"worst ratio: {max(drag_p95, mask_p95) / TARGET_MS:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
