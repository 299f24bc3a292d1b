"""Load: concurrent browser-less sessions rerunning the Attention page of one server.

Each session is a websocket client speaking Streamlit's own protocol (``bench.st_client``: the
protobuf BackMsg / ForwardMsg messages the browser sends and receives on ``/_stcore/stream``), so
the server under test is an ordinary ``streamlit run`` process doing all the work it does for a
browser: running the page script, computing the attention trace, building the Altair specs and tables, and
serialising every element. The clients only parse the replies.

A rerun is timed from sending ``rerun_script`` to the server's ``script_finished``: the first run
names the page ``attention`` with ``?lang=en`` as loading that URL does, later ones name it by
the page's script hash, as the browser's rerun does. Every session first loads the page once
(not timed), then reruns it, pausing about ``--think`` seconds between reruns like a user moving a
slider: each pause is drawn uniformly from 0.5–1.5 × think (seeded per session), since ten
students do not move their sliders in step; pauses all equal to think keep the ten sessions
arriving together, so each rerun waits behind the other nine (0 = back to back, the saturation
case).

1. one session alone for ``--single`` seconds: the single-session median;
2. ``--sessions`` (10) sessions at once for ``--seconds`` (30): no error (no exception element,
   no error message, every run finished), and the median rerun stays under 3× the single figure.

Run: python -m bench.load [--sessions 10] [--seconds 30] [--think 1.0] [--url http://host:port]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

from bench.cold_start import load_note, start_server, stop_server, wait_healthy
from bench.st_client import Run, Session, connect

TARGET_RATIO = 3.0


@dataclass
class Stats:
    """What one or more sessions saw."""

    reruns: list[float] = field(default_factory=list)  # seconds per timed rerun
    first_loads: list[float] = field(default_factory=list)  # seconds of each session's first run
    errors: list[str] = field(default_factory=list)
    bytes_received: int = 0


async def session(
    url: str, page: str, query: str, seconds: float, think: float, stats: Stats, rng: random.Random | None = None
) -> None:
    """One client: load the page once, then rerun it until ``seconds`` have passed.

    With ``rng`` each pause is drawn uniformly from 0.5–1.5 × ``think`` (students do not move their
    sliders in step); without it every pause is ``think``.
    """

    def record(run: Run) -> float:
        stats.errors.extend(run.errors)
        stats.bytes_received += run.bytes_received
        return run.seconds

    try:
        async with connect(url) as ws:
            client = Session(ws)
            stats.first_loads.append(record(await client.run(page, query)))
            deadline = time.perf_counter() + seconds
            while time.perf_counter() < deadline:
                stats.reruns.append(record(await client.run(query=query)))
                if think:
                    await asyncio.sleep(think * (rng.uniform(0.5, 1.5) if rng is not None else 1.0))
    except Exception as exc:  # a broken connection or a timeout is an error of the run, not of the bench
        stats.errors.append(f"session failed: {exc!r}")


async def measure(url: str, sessions: int, seconds: float, think: float, page: str, query: str) -> Stats:
    """Run ``sessions`` clients at once for ``seconds``; all their reruns in one Stats."""
    stats = Stats()
    await asyncio.gather(*(session(url, page, query, seconds, think, stats, random.Random(i)) for i in range(sessions)))
    return stats


def describe(name: str, stats: Stats) -> str:
    """One line: reruns, median / p90 / max in ms, first-load median."""
    r = sorted(stats.reruns)
    if not r:
        return f"{name}: no rerun finished"
    p90 = r[min(len(r) - 1, int(0.9 * len(r)))]
    return (
        f"{name:<22} {len(r):5d} reruns  median {statistics.median(r) * 1000:7.0f} ms  p90 {p90 * 1000:7.0f} ms  "
        f"max {r[-1] * 1000:7.0f} ms  first load (median) {statistics.median(stats.first_loads) * 1000:7.0f} ms  "
        f"errors {len(stats.errors)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=30.0, help="duration of the concurrent phase")
    parser.add_argument("--single", type=float, default=15.0, help="duration of the single-session phase")
    parser.add_argument("--think", type=float, default=1.0, help="seconds each session waits between reruns")
    parser.add_argument("--page", default="attention", help="url path of the page to rerun")
    parser.add_argument("--url", help="an already running app (default: start streamlit run here)")
    args = parser.parse_args(argv)

    print(load_note())
    proc = None
    url = args.url
    if url is None:
        proc, url = start_server()
    try:
        if proc is not None:
            wait_healthy(proc, url)
        query = "lang=en"
        warm = asyncio.run(measure(url, 1, 0.0, 0.0, args.page, query))  # trains the default model, fills caches
        print(f"warm-up: first load of /{args.page} on this server took {warm.first_loads[0]:.1f} s")
        single = asyncio.run(measure(url, 1, args.single, args.think, args.page, query))
        print(describe("1 session", single))
        many = asyncio.run(measure(url, args.sessions, args.seconds, args.think, args.page, query))
        print(describe(f"{args.sessions} sessions", many))
    finally:
        if proc is not None:
            stop_server(proc)
    errors = warm.errors + single.errors + many.errors
    for error in dict.fromkeys(errors):
        print(f"  ! {error}")
    if not single.reruns or not many.reruns:
        print("no figure: a phase finished no rerun")
        return 1
    ratio = statistics.median(many.reruns) / statistics.median(single.reruns)
    print()
    print(
        f"median rerun, {args.sessions} sessions / 1 session: {ratio:.2f}   target < {TARGET_RATIO:g}   "
        f"ratio to target {ratio / TARGET_RATIO:.2f}   errors: {len(errors)} (target 0)"
    )
    print(
        f"think time {args.think:g} s between reruns; {len(many.reruns) / args.seconds:.1f} reruns/s served; "
        f"{many.bytes_received / max(1, len(many.reruns) + args.sessions) / 1e3:.0f} kB per run.",
        load_note(),
    )
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
