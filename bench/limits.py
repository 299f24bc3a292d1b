"""Limits under a class: twenty links for the largest model at once, then every tab closed.

Against a real ``streamlit run`` (browser-less sessions of ``bench.st_client``):

1. warm-up: one session opens the Predict page, which waits for the default model (trained in the
   background when the server starts), so the server is as a class finds it;
2. twenty sessions open, at once, a ``train=`` link for the largest model the host accepts
   (d_model 1024, 16 heads, 3 layers, d_ff 4096, ``--epochs`` 5000, seeds 1–20; with the link's
   early stop at loss 1e-4 these runs end after some hundred steps and each session keeps its
   model, the memory case; ``--early-stop 0`` trains every epoch, the queue case) on the Predict
   page, and rerun it every second (as its progress fragment does) for ``--hold`` seconds. Each
   ends in one of: training (the run's progress), waiting (a place in line), refused (the page's
   "could not be trained" message: memory or a full line);
3. all twenty close their websockets at once (their tabs are closed); then a teacher opens a small
   model's link (d_model 64, 2 layers, 200 epochs) every 5 s until it is accepted, and reruns it
   until the page shows the model. "Queue freed" is the time from closing the tabs to the teacher's
   model being shown, its own training (about 2 s) included.

The server's RSS is sampled every 0.1 s in a thread of its own (VmRSS; VmHWM, the kernel's own peak,
at the end); the time the samples spend over the limit is printed too. Targets: peak RSS under the
memory limit (``TINYGPT_MEMORY_LIMIT_MB``, default 2000), queue freed within 60 s. Each figure is
printed with its ratio to the target (below 1.00 meets it).

Run: python -m bench.limits [--hold 60] [--epochs 5000] [--early-stop 0] [--give-up 300] [--app-dir DIR]
(``--app-dir`` serves another checkout, e.g. a ``git worktree`` of an earlier commit, to measure
it the same way.)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

from bench.cold_start import ROOT, load_note, rss_mb, start_server, stop_server, wait_healthy
from bench.st_client import Run, Session, connect

LINKS = 20
TARGET_FREED_S = 60.0
POLL_S = 1.0
RETRY_S = 5.0
RSS_EVERY_S = 0.1
LARGEST = "d_model=1024;n_heads=16;n_layers=3;d_ff=4096"
TEACHER = "d_model=64;n_heads=4;n_layers=2;d_ff=256;lr=0.001;epochs=200;seed=77"


def pattern(key: str) -> re.Pattern[str]:
    """A regular expression matching the app's English text of ``key`` with any field values."""
    from tinygpt.i18n import CATALOGUE

    parts = re.split(r"\{[^{}]*\}", CATALOGUE[key]["en"])
    return re.compile(".*?".join(map(re.escape, parts)), re.S)


def link_query(settings: str, text: str = "你好世界") -> str:
    """The query string of a Predict page link that trains ``settings`` on ``text``."""
    return f"lang=en&model=own&train={quote(f'v1;{settings};text={text}', safe='=;')}"


def state_of(run: Run) -> str:
    """What a link's page shows: "training", "waiting", "refused", "ready" (the model) or "other"."""

    def shows(key: str) -> bool:
        return any(pattern(key).search(text) for text in run.texts)

    if shows("link.failed"):
        return "refused"
    if shows("link.running"):
        return "training"
    if shows("link.training_header"):
        return "waiting"
    return "ready" if not run.errors else "other"


def sample_rss(pid: int, samples: list[float], stop: threading.Event) -> None:
    """The server's RSS (MB) every :data:`RSS_EVERY_S` seconds into ``samples`` until ``stop`` is set
    (a thread, so the sessions' event loop never delays a sample)."""
    while True:
        samples.append(rss_mb(pid)[0])
        if stop.wait(RSS_EVERY_S):
            return


async def student(url: str, settings: str, seed: int, states: dict[int, list[str]], close: asyncio.Event) -> None:
    """One tab: open the link, rerun every second until the tabs close."""
    async with connect(url) as ws:
        s = Session(ws)
        run = await s.run("predict", query=link_query(f"{settings};seed={seed}"))
        states[seed] = [state_of(run)]
        while not close.is_set():
            try:
                await asyncio.wait_for(close.wait(), POLL_S)
            except TimeoutError:
                run = await s.run()
                # a refusal is said once, then the page shows the textbook example: it stays refused
                states[seed].append("refused" if "refused" in states[seed] else state_of(run))


async def teacher(url: str, give_up_s: float) -> tuple[float | None, int]:
    """(seconds until the teacher's small model is shown, attempts), None if not within ``give_up_s``."""
    start, attempts = time.perf_counter(), 0
    while time.perf_counter() - start < give_up_s:
        attempts += 1
        async with connect(url) as ws:
            s = Session(ws)
            run = await s.run("predict", query=link_query(TEACHER))
            while state_of(run) in ("training", "waiting") and time.perf_counter() - start < give_up_s:
                await asyncio.sleep(POLL_S)
                run = await s.run()
            if state_of(run) == "ready":
                return time.perf_counter() - start, attempts
        await asyncio.sleep(RETRY_S)
    return None, attempts


async def warm_up(url: str) -> None:
    async with connect(url) as ws:
        await Session(ws).run("predict", query="lang=en")


async def measure(url: str, pid: int, hold_s: float, settings: str, give_up_s: float) -> dict:
    await warm_up(url)
    await asyncio.sleep(3)
    start_rss = rss_mb(pid)[0]
    samples: list[float] = []
    stop = threading.Event()
    sampler = threading.Thread(target=sample_rss, args=(pid, samples, stop), daemon=True)
    sampler.start()
    close = asyncio.Event()
    states: dict[int, list[str]] = {}
    tabs = [asyncio.create_task(student(url, settings, seed, states, close)) for seed in range(1, LINKS + 1)]
    await asyncio.sleep(hold_s)
    close.set()
    await asyncio.gather(*tabs)
    during_peak = max(samples)
    freed_s, attempts = await teacher(url, give_up_s)
    await asyncio.sleep(2)
    stop.set()
    sampler.join()
    return {
        "start_rss": start_rss,
        "peak_rss": max(samples),
        "during_peak": during_peak,
        "end_rss": samples[-1],
        "samples": samples,
        "hwm": rss_mb(pid)[1],
        "first": [states[s][0] for s in sorted(states)],
        "last": [states[s][-1] for s in sorted(states)],
        "ever_trained": sum("training" in states[s] for s in states),
        "freed_s": freed_s,
        "attempts": attempts,
    }


def counts(states: list[str]) -> str:
    return ", ".join(f"{states.count(k)} {k}" for k in ("training", "waiting", "refused", "ready", "other"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hold", type=float, default=60.0, help="seconds the twenty tabs stay open")
    parser.add_argument("--epochs", type=int, default=5000, help="epochs of the twenty links")
    parser.add_argument(
        "--early-stop", type=float, default=None, help="the links' early stop loss (default: the link's own, 1e-4)"
    )
    parser.add_argument("--give-up", type=float, default=300.0, help="seconds the teacher waits at most")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="the checkout to serve")
    args = parser.parse_args(argv)
    limit = float(os.environ.get("TINYGPT_MEMORY_LIMIT_MB", "2000"))
    proc, url = start_server(app_dir=args.app_dir.resolve())
    try:
        wait_healthy(proc, url)
        settings = f"{LARGEST};epochs={args.epochs}"
        if args.early_stop is not None:
            settings += f";early_stop_loss={args.early_stop:g}"
        result = asyncio.run(measure(url, proc.pid, args.hold, settings, args.give_up))
    finally:
        stop_server(proc)
    print(f"app: {args.app_dir.resolve()}   {load_note()}")
    print(f"{LINKS} links ({settings}, seeds 1-{LINKS}), held {args.hold:.0f} s:")
    print(f"  on opening:    {counts(result['first'])}")
    print(f"  before close:  {counts(result['last'])}   ({result['ever_trained']} trained at some point)")
    print(
        f"server RSS: start {result['start_rss']:.0f} MB, peak {result['peak_rss']:.0f} MB "
        f"(VmHWM {result['hwm']:.0f} MB), end {result['end_rss']:.0f} MB"
    )
    over = sum(s > limit for s in result["samples"]) * RSS_EVERY_S
    print(f"samples every {RSS_EVERY_S:g} s: {len(result['samples'])}; over the limit for {over:.1f} s")
    peak = max(result["peak_rss"], result["hwm"])
    print(f"{'server peak RSS':<34} {peak:9.0f} MB target < {limit:g} MB ratio {peak / limit:5.2f}")
    freed = result["freed_s"]
    if freed is None:
        print(
            f"{'queue freed after closing the tabs':<34} > {args.give_up:.0f} s  target < {TARGET_FREED_S:g} s   "
            f"ratio > {args.give_up / TARGET_FREED_S:.2f}   ({result['attempts']} attempts)"
        )
    else:
        print(
            f"{'queue freed after closing the tabs':<34} {freed:9.1f} s  target < {TARGET_FREED_S:g} s  "
            f"ratio {freed / TARGET_FREED_S:5.2f}   (teacher's attempts: {result['attempts']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
