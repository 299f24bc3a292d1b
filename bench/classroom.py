"""A classroom on one server: thirty browser-less sessions follow a lesson from a teacher's link.

Each session is a websocket client speaking Streamlit's protocol (``bench.st_client``) against a
real ``streamlit run``, so the server does all the work it does for thirty browsers. Every
session (student):

1. opens the teacher's link: the Attention page with ``model=own&train=v1;…`` (a small model, d_model
   64, 2 layers, a line of a poem, 200 epochs). All open it at once; while its model trains the
   page shows the training's progress, and the session reruns the page every second, as the
   page's progress fragment does in a browser, until the page shows the model. The progress
   text tells a session whether it started that training or follows another session's run
   ("Another session asked for the same settings first"): one training for equal requests means
   exactly one session started it;
2. follows the lesson until ``--seconds`` have passed, pausing ``--think`` seconds (drawn from
   0.5–1.5 × think) between actions: steps through attention (``attn_step``), flips the causal
   mask (``attn_mask``), changes the softmax temperature τ (``attn_temperature``), opens the
   Predict page and types a prefix (``predict_prefix``), back to the Attention page;
3. a third of them (``--trainers``, 10) also train a small model of their own on the Train page,
   each at a different moment: the "small" preset, then their own line of the poem, weight seed
   and 200 epochs typed into the text boxes, then Train, rerunning the page every second until
   it says the training finished;
4. at the end opens the Predict page, whose banner must show the session's own model: the
   trainer's line of the poem for the trainers, the teacher's line for the others.

Every run is timed from sending ``rerun_script`` to the server's ``script_finished`` (the first
load of the link too). Errors are exception elements, error alerts, pages not found and broken
connections. The server's RSS is sampled from /proc every 0.5 s (with ``--url``: only if
``--pid`` names the server's process). Targets: p95 run time ≤ 1.5 s, peak RSS ≤ 2.5 GB, every
session's model still shown at the end, no error; each figure is printed with its ratio to the
target, then ``worst ratio: X.XX``. The CPU the server and the clients used (cores on average over
the lesson) tells whether the server had its two cores. The server's log goes to artifacts/bench-server.log.

Run: python -m bench.classroom [--sessions 30] [--seconds 180] [--trainers 10] [--think 3]
     [--url http://host:port [--pid PID]]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from urllib.parse import quote

from bench.cold_start import load_note, rss_mb, start_server, stop_server, wait_healthy
from bench.st_client import Run, Session, click, connect, select_slider_state, text_state, toggle_state

TARGET_P95_S = 1.5
TARGET_PEAK_MB = 2500.0
POLL_S = 1.0  # as the pages' progress fragments (tinygpt.ui.jobs.POLL_SECONDS)
WAIT_LIMIT_S = 600.0
RSS_EVERY_S = 0.5

TEACHER_TEXT = "床前明月光疑是地上霜"
TEACHER_TRAIN = f"v1;d_model=64;n_heads=4;n_layers=2;d_ff=256;lr=0.001;epochs=200;text={TEACHER_TEXT}"
TEACHER_QUERY = f"lang=en&model=own&train={quote(TEACHER_TRAIN, safe='=;')}"
#: The trainers' texts: each trains a line of its own (a different model for each of them).
TRAINER_TEXTS = (
    "举头望明月低头思故乡",
    "白日依山尽黄河入海流",
    "欲穷千里目更上一层楼",
    "春眠不觉晓处处闻啼鸟",
    "夜来风雨声花落知多少",
    "红豆生南国春来发几枝",
    "愿君多采撷此物最相思",
    "千山鸟飞绝万径人踪灭",
    "孤舟蓑笠翁独钓寒江雪",
    "锄禾日当午汗滴禾下土",
)


def english(key: str, **fields: object) -> str:
    """The app's English text of ``key`` (the sessions open the app with ``lang=en``)."""
    from tinygpt.i18n import t

    return t(key, "en", **fields)


@dataclass
class Texts:
    """What the sessions look for in the pages, in English."""

    shared: str = field(default_factory=lambda: english("link.shared"))
    link_training: str = field(default_factory=lambda: english("link.training_header"))
    own_banner: str = field(default_factory=lambda: english("model.banner.own", text="\0", trained="").split("\0")[0])


@dataclass
class Student:
    """What one session did and saw."""

    number: int
    text: str  # the text of the model the session should show at the end
    trainer: bool
    runs: list[tuple[str, float]] = field(default_factory=list)  # (what, seconds)
    errors: list[str] = field(default_factory=list)
    watched: bool = False  # saw the link's training in progress
    followed: bool = False  # ... as another session's run ("shared")
    trained_s: float | None = None  # the own training, from Train to its success message
    banner: str = ""  # the Predict page's banner at the end

    def keep(self, what: str, run: Run) -> Run:
        self.runs.append((what, run.seconds))
        self.errors.extend(f"session {self.number}, {what}: {e}" for e in run.errors)
        return run

    @property
    def kept_model(self) -> bool:
        return self.banner.startswith(Texts().own_banner + self.text + "”")


async def wait_for_link(s: Session, me: Student, texts: Texts, run: Run) -> Run:
    """Rerun the link's page every second while it shows the training's progress."""
    deadline = time.perf_counter() + WAIT_LIMIT_S
    while run.has(texts.link_training) and time.perf_counter() < deadline:
        me.watched = True
        me.followed = me.followed or run.has(texts.shared)
        await asyncio.sleep(POLL_S)
        run = me.keep("link wait", await s.run())
    return run


async def train_own(s: Session, me: Student) -> None:
    """The Train page: the small preset, an own text, seed and epochs, Train; wait for the result."""
    page = me.keep("train open", await s.run("", query=""))
    page = me.keep("train preset", await s.run(widgets=[click(page.widgets["train_preset_small"])]))
    w = page.widgets
    page = me.keep(
        "train settings",
        await s.run(
            widgets=[
                text_state(w["train_text"], me.text),
                text_state(w["train_seed"], str(me.number)),
                text_state(w["train_epochs"], "200"),
            ]
        ),
    )
    start = time.perf_counter()
    page = me.keep("train start", await s.run(widgets=[click(page.widgets["train_start"])]))
    deadline = start + WAIT_LIMIT_S
    while not page.successes and not page.errors and time.perf_counter() < deadline:
        await asyncio.sleep(POLL_S)
        page = me.keep("train wait", await s.run())
    if page.successes:
        me.trained_s = time.perf_counter() - start
    else:
        me.errors.append(f"session {me.number}: its training did not finish")


async def predict(s: Session, me: Student, prefix: str | None) -> Run:
    """Open the Predict page; type ``prefix`` if given."""
    page = me.keep("predict open", await s.run("predict", query=""))
    if prefix is not None and "predict_prefix" in page.widgets:
        page = me.keep("predict prefix", await s.run(widgets=[text_state(page.widgets["predict_prefix"], prefix)]))
    return page


async def student(url: str, me: Student, seconds: float, think: float, rng: random.Random, texts: Texts) -> None:
    """One session following the lesson (the module's docstring, 1–4)."""

    def pause() -> float:
        return think * rng.uniform(0.5, 1.5)

    try:
        async with connect(url) as ws:
            s = Session(ws)
            deadline = time.perf_counter() + seconds
            page = me.keep("link open", await s.run("attention", query=TEACHER_QUERY))
            page = await wait_for_link(s, me, texts, page)
            train_at = time.perf_counter() + rng.uniform(0.1, 0.5) * seconds if me.trainer else None
            mask_on, action, shown = True, rng.randrange(4), TEACHER_TEXT  # shown: the text of the model shown
            while time.perf_counter() < deadline:
                await asyncio.sleep(pause())
                if train_at is not None and time.perf_counter() >= train_at:
                    train_at = None
                    await train_own(s, me)
                    shown = me.text if me.trained_s is not None else shown
                    page = me.keep("attention open", await s.run("attention", query=""))
                    continue
                w, action = page.widgets, action + 1
                if action % 4 == 0 and "attn_step" in w:
                    options = list(w["attn_step"].options)
                    page = me.keep(
                        "attention step",
                        await s.run(widgets=[select_slider_state(w["attn_step"], rng.choice(options))]),
                    )
                elif action % 4 == 1 and "attn_mask" in w:
                    mask_on = not mask_on
                    page = me.keep("attention mask", await s.run(widgets=[toggle_state(w["attn_mask"], mask_on)]))
                elif action % 4 == 2 and "attn_temperature" in w:
                    options = list(w["attn_temperature"].options)
                    page = me.keep(
                        "attention tau",
                        await s.run(widgets=[select_slider_state(w["attn_temperature"], rng.choice(options))]),
                    )
                else:
                    await predict(s, me, shown[: rng.randint(1, 4)])
                    await asyncio.sleep(pause())
                    page = me.keep("attention open", await s.run("attention", query=""))
            if me.trainer and train_at is not None:
                me.errors.append(f"session {me.number}: the lesson ended before it trained")
            end = await predict(s, me, None)
            me.banner = next((t for t in end.texts if t.startswith(texts.own_banner)), " / ".join(end.texts[:3]))
    except Exception as exc:  # a broken connection or a timeout is an error of the run, not of the bench
        me.errors.append(f"session {me.number} failed: {exc!r}")


async def warm_up(url: str) -> float:
    """One session opens the Train page (imports, the default model), as the teacher did; seconds."""
    async with connect(url) as ws:
        return (await Session(ws).run("", query="lang=en")).seconds


def cpu_seconds(pid: int | None) -> float:
    """CPU time (user + system, s) a process has used, from /proc/<pid>/stat; NaN without a pid."""
    if pid is None:
        return float("nan")
    fields = open(f"/proc/{pid}/stat", encoding="ascii").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def sample_rss(pid: int | None, samples: list[float], stop: asyncio.Event) -> None:
    """The server's RSS (MB) every RSS_EVERY_S until ``stop`` is set."""
    while pid is not None and not stop.is_set():
        try:
            samples.append(rss_mb(pid)[0])
        except (OSError, KeyError):
            return
        try:
            await asyncio.wait_for(stop.wait(), RSS_EVERY_S)
        except asyncio.TimeoutError:
            pass


async def lesson(
    url: str, pid: int | None, sessions: int, trainers: int, seconds: float, think: float
) -> tuple[list[Student], list[float]]:
    """All the sessions at once, the RSS sampled meanwhile."""
    texts = Texts()
    students = [
        Student(k, TRAINER_TEXTS[k % len(TRAINER_TEXTS)] if k < trainers else TEACHER_TEXT, k < trainers)
        for k in range(sessions)
    ]
    samples: list[float] = []
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_rss(pid, samples, stop))
    await asyncio.gather(*(student(url, me, seconds, think, random.Random(me.number), texts) for me in students))
    stop.set()
    await sampler
    return students, samples


def ratio_line(name: str, value: float, target: float, unit: str, note: str = "") -> tuple[str, float]:
    """(an aligned line: figure, target, figure / target; that ratio)."""
    ratio = value / target
    return f"{name:<32} {value:9.2f} {unit:<2} target ≤ {target:g} {unit:<2} ratio {ratio:5.2f}{note}", ratio


def count_line(name: str, count: int, note: str = "") -> tuple[str, float]:
    """(an aligned line for a count whose target is 0; its ratio: 0 when met, infinite otherwise)."""
    ratio = 0.0 if count == 0 else float("inf")
    return f"{name:<32} {count:9d}    target = 0    ratio {ratio:5.2f}{note}", ratio


def report(students: list[Student], samples: list[float], peak_hwm: float | None, seconds: float) -> list[str]:
    """Figures, per-kind run times and the target lines; the last line is the worst ratio."""
    runs = sorted(t for me in students for _, t in me.runs)
    lines = []
    kinds: dict[str, list[float]] = {}
    for me in students:
        for what, t in me.runs:
            kinds.setdefault(what, []).append(t)
    lines.append(f"{len(runs)} runs in {seconds:.0f} s ({len(runs) / seconds:.1f}/s) by {len(students)} sessions:")
    for what, times in sorted(kinds.items()):
        times.sort()
        lines.append(
            f"  {what:<16} {len(times):5d}  median {statistics.median(times) * 1000:6.0f} ms  "
            f"p95 {percentile(times, 0.95) * 1000:6.0f} ms  max {times[-1] * 1000:6.0f} ms"
        )
    watched = [me for me in students if me.watched]
    starters = [me for me in watched if not me.followed]
    lines.append(
        f"teacher's link: {len(watched)} sessions watched its training, {len(starters)} of them started it "
        f"(sessions {', '.join(str(me.number) for me in starters) or '—'}), {len(watched) - len(starters)} "
        f"followed that run, {len(students) - len(watched)} found the model trained"
    )
    trained = [me.trained_s for me in students if me.trained_s is not None]
    if trained:
        lines.append(
            f"own trainings: {len(trained)} finished, Train to its success message median "
            f"{statistics.median(trained):.1f} s, "
            f"max {max(trained):.1f} s"
        )
    if samples:
        lines.append(
            f"server RSS: start {samples[0]:.0f} MB, median {statistics.median(samples):.0f} MB, "
            f"end {samples[-1]:.0f} MB ({len(samples)} samples)"
        )
    errors = [e for me in students for e in me.errors]
    if len(starters) > 1:
        errors.append(f"the teacher's model was trained {len(starters)} times")
    for error in dict.fromkeys(errors):
        lines.append(f"  ! {error}")
    lost = [me for me in students if not me.kept_model]
    for me in lost:
        lines.append(f"  ! session {me.number} ({'trainer' if me.trainer else 'follower'}) shows: {me.banner[:120]}")
    lines.append("")
    p95 = percentile(runs, 0.95) if runs else float("inf")
    figures = [
        ratio_line(
            "p95 run time (all runs)",
            p95,
            TARGET_P95_S,
            "s",
            f"   (median {statistics.median(runs) * 1000:.0f} ms, max {runs[-1]:.2f} s)" if runs else "",
        )
    ]
    if samples or peak_hwm is not None:
        peak = max(samples + ([peak_hwm] if peak_hwm is not None else []))
        figures.append(
            ratio_line("server peak RSS", peak, TARGET_PEAK_MB, "MB", "   (VmHWM of the process)" if peak_hwm else "")
        )
    else:
        lines.append("server peak RSS: not measured (--url without --pid)")
    figures.append(
        count_line(
            "sessions that lost their model",
            len(lost),
            f"   ({len(students) - len(lost)} of {len(students)} show their own: "
            f"{sum(me.trainer for me in students)} trainers' models, the others the teacher's)",
        )
    )
    figures.append(count_line("errors", len(errors)))
    lines.extend(line for line, _ in figures)
    lines.append(f"worst ratio: {max(r for _, r in figures):.2f}")
    return lines


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of sorted ``values`` (nearest rank)."""
    return values[min(len(values) - 1, max(0, int(round(q * len(values))) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.classroom", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=180.0, help="how long the sessions follow the lesson")
    parser.add_argument(
        "--trainers", type=int, default=None, help="sessions that also train a model (default: a third)"
    )
    parser.add_argument("--think", type=float, default=3.0, help="seconds between a session's actions (0.5–1.5 × this)")
    parser.add_argument("--url", help="an already running app (default: start streamlit run here)")
    parser.add_argument("--pid", type=int, help="with --url: the server's process id, to sample its RSS")
    args = parser.parse_args(argv)
    trainers = args.sessions // 3 if args.trainers is None else min(args.trainers, args.sessions)

    print(load_note())
    proc, url, pid = None, args.url, args.pid
    if url is None:
        proc, url = start_server()
        pid = proc.pid
    try:
        if proc is not None:
            wait_healthy(proc, url)
        warm = asyncio.run(warm_up(url))
        print(f"warm-up (the teacher opens the app): first load of the Train page {warm:.1f} s")
        start, client_cpu, server_cpu = time.perf_counter(), time.process_time(), cpu_seconds(pid)
        students, samples = asyncio.run(lesson(url, pid, args.sessions, trainers, args.seconds, args.think))
        elapsed = time.perf_counter() - start
        client_cpu, server_cpu = time.process_time() - client_cpu, cpu_seconds(pid) - server_cpu
        peak_hwm = rss_mb(pid)[1] if proc is not None else None
    finally:
        if proc is not None:
            stop_server(proc)
    print(
        f"{args.sessions} sessions ({trainers} also train), lesson of {args.seconds:g} s, think {args.think:g} s; "
        f"finished in {elapsed:.0f} s; CPU used: server {server_cpu / elapsed:.2f} cores, these clients "
        f"{client_cpu / elapsed:.2f} cores (same host)"
    )
    lines = report(students, samples, peak_hwm, elapsed)
    print("\n".join(lines))
    print("ratio = figure / target; at most 1.00 meets it.", load_note())
    return 0 if float(lines[-1].split()[-1]) <= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
