"""Server time of one attention-page rerun after a slider move (the softmax temperature).

The design (DESIGN.md) shows one step at a time and caches the trace, so a slider move should
only redo the steps from the one it changes plus the drawing. This runs the app in Streamlit's
AppTest (the script runs as on a server, without a browser), opens the Attention page with the
seed configuration's model (你好世界, 512/8/6/2048, trained once), and times ``at.run()`` after
setting a new temperature — each rerun a value not used before, so no what-if result is cached.

Texts: 4 characters (你好世界) and 64 (你好世界 × 16; the seed model's max_len is 128).
Steps: the page's first step (projection: three 512-wide outputs, the Q table and heatmap shown)
and the softmax step (where the temperature acts).
Targets: under 150 ms at 4 characters and under 400 ms at 64 (median of the reruns).

Run: python -m bench.attention_rerun [reruns]      (default 7 reruns per case)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tinygpt.ui.attention.state import K_STEP, K_TAU, K_TEXT, TEMPERATURES
from tinygpt.ui.shared.attention_data import effects, flip_reasons, switched_walk

APP = str(Path(__file__).resolve().parents[1] / "streamlit_app.py")
TARGETS_MS = {4: 150.0, 64: 400.0}


def open_attention() -> AppTest:
    """The app on the Attention page (English), with the default (seed) model trained."""
    at = AppTest.from_file(APP, default_timeout=600)
    at.query_params["lang"] = "en"
    at.run()
    at.query_params["model"] = "textbook"  # the seed model (the page opens on the context example)
    at.switch_page("pages/attention.py")
    at.run()
    if at.exception:
        raise RuntimeError(f"the page failed: {[e.value for e in at.exception]}")
    return at


def time_reruns(at: AppTest, text: str, step: str, reruns: int) -> list[float]:
    """Milliseconds of ``at.run()`` after each of ``reruns`` new temperatures."""
    at.session_state[K_TEXT] = text
    at.session_state[K_STEP] = step
    at.session_state[K_TAU] = 1.0
    at.run()  # computes and caches the trace and the model's own pass for this text
    for cache in (effects, flip_reasons, switched_walk):  # every temperature below is new to the caches
        cache.clear()
    values = [t for t in TEMPERATURES if t != 1.0]
    times = []
    for k in range(reruns):
        at.session_state[K_TAU] = values[k % len(values)]
        start = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - start) * 1000)
        if at.exception:
            raise RuntimeError(f"the page failed: {[e.value for e in at.exception]}")
    return times


def main(reruns: int = 7) -> None:
    t0 = time.perf_counter()
    at = open_attention()
    print(f"opened the Attention page (seed model trained and cached) in {time.perf_counter() - t0:.1f} s")
    print(f"{'chars':>5} {'step':<11} {'median ms':>9} {'min':>7} {'max':>7} {'target':>7} {'ratio':>6}")
    worst = 0.0
    for n in (4, 64):
        text = ("你好世界" * 16)[:n]
        for step in ("projection", "softmax"):
            times = time_reruns(at, text, step, reruns)
            median = statistics.median(times)
            target = TARGETS_MS[n]
            worst = max(worst, median / target)
            print(
                f"{n:>5} {step:<11} {median:9.1f} {min(times):7.1f} {max(times):7.1f} {target:7.0f} "
                f"{median / target:6.2f}"
            )
    print("ratio = median / target; below 1.00 meets the target")
    print(f"worst ratio: {worst:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
