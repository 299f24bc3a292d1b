"""A class on one server: thirty browser-less sessions follow a teacher's lesson and answer its
questions while the teacher's view of the class refreshes.

Each session is a websocket client speaking Streamlit's protocol (``bench.st_client``) against a
real ``streamlit run``, so the server does all the work it does for thirty browsers. The class store
is a SQLite file in a temporary folder, or the PostgreSQL database of ``--database-url`` (the server
gets it as ``TINYGPT_DATABASE_URL``).

The teacher's lesson (made in the store as the lesson builder makes it: ``tinygpt.classroom.class_links``): the
Train, Predict and Attention pages, only the step, mask, τ and prefix controls and the Train page's
presets, text, seed and epochs (for the sessions that train), guess before the
numbers are shown, the teacher's own model (``model=own&train=v1;…``: d_model 64, 2 layers, a line
of a poem, 200 epochs), and a class. The teacher's session opens the class's view
(``/teacher?class=…&key=…``) and refreshes it as a browser does (its ``run_every`` fragment, every
3 s) for the whole lesson, reading how many answers it shows. Every student session:

1. joins at its moment (the class grows to ``--sessions`` over ``--ramp`` seconds): opens the
   lesson's short link ``/?s=<code>`` (the Train page, the lesson's first), then the Attention
   page; while the link's model trains the page shows the training's progress, and the session
   reruns the page every second, as the page's progress fragment does in a browser, until the page
   shows the model. The progress text tells a session whether it started that training or follows
   another session's run: one training for equal requests means exactly one session started it;
2. follows the lesson until the lesson's end, pausing ``--think`` seconds (drawn from 0.5–1.5 ×
   think) between actions: steps through attention (``attn_step``), flips the causal mask
   (``attn_mask``), changes the softmax temperature τ (``attn_temperature``), opens the Predict
   page and types a prefix (``predict_prefix``), back to the Attention page; after each action it
   answers the questions the step asks (``attn_ex_<kind>_pick``, a random choice; "Check" for a
   several-answer question) and counts each answer whose verdict the page shows: an answer sent;
3. a third of them (``--trainers``, 10) also train a small model of their own on the Train page,
   each at a different moment: the "small" preset, then their own line of the poem, weight seed
   and 200 epochs typed into the text boxes, then Train, rerunning the page every second until
   it says the training finished;
4. at the end opens the Predict page, whose banner must show the session's own model: the
   trainer's line of the poem for the trainers, the teacher's line for the others.

Every run is timed from sending ``rerun_script`` to the server's ``script_finished`` (the first
load of the link and the teacher's refreshes too). Errors are exception elements, error alerts
(but the "Not quite" of a wrong guess), pages not found and broken connections. The server's RSS
is sampled from /proc every 0.5 s (with ``--url``: only if ``--pid`` names the server's process).
At the end the store is asked how many answers the class has: ``answers recorded: A of B`` (A in
the store, B sent; every answer sent must be recorded). Targets: p95 run time ≤ 1.5 s, peak RSS ≤
2.5 GB, every answer recorded, every session's model still shown at the end, no error; each figure
is printed with its ratio to the target, then, last, ``worst ratio: X.XX``. The CPU the server and
the clients used tells whether the server had its two cores. The server's log goes to
artifacts/bench-server.log.

Run: python -m bench.classroom [--sessions 30] [--seconds 180] [--ramp 30] [--trainers 10] [--think 3]
     [--database-url postgresql://…] [--url http://host:port [--pid PID] (--database-url … | --data-dir DIR)]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field

from bench.cold_start import load_note, rss_mb, start_server, stop_server, wait_healthy
from bench.st_client import (
    Run,
    Session,
    choice_state,
    click,
    connect,
    pills_state,
    select_slider_state,
    text_state,
    toggle_state,
)

TARGET_P95_S = 1.5
TARGET_PEAK_MB = 2500.0
POLL_S = 1.0  # as the pages' progress fragments (tinygpt.ui.train.training_jobs.POLL_SECONDS)
WAIT_LIMIT_S = 600.0
RSS_EVERY_S = 0.5

TEACHER_TEXT = "床前明月光疑是地上霜"
TEACHER_TRAIN = f"v1;d_model=64;n_heads=4;n_layers=2;d_ff=256;lr=0.001;epochs=200;text={TEACHER_TEXT}"
#: The controls the lesson lets students use (everything else is locked).
LESSON_CONTROLS = (
    "attn_step",
    "attn_mask",
    "attn_temperature",
    "predict_prefix",
    "train_presets",
    "train_text",
    "train_seed",
    "train_epochs",
)
#: How often the teacher's view refreshes (tinygpt.ui.teacher.teacher_view.REFRESH_SECONDS).
TEACHER_REFRESH_S = 3.0
_SHOWN = re.compile(r"(\d+) students?, (\d+) answers?;")
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
    own_banner: str = field(default_factory=lambda: english("model.banner.own", text="\0", size="").split("\0")[0])
    link_banner: str = field(default_factory=lambda: english("model.banner.link", text="\0", size="").split("\0")[0])
    wrong: str = field(default_factory=lambda: english("ex.wrong", answer="\0", reason="").split("\0")[0])
    right: str = field(default_factory=lambda: english("ex.right", reason="\0").split("\0")[0])


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
    answered: int = 0  # answers sent: the page showed their verdict

    def keep(self, what: str, run: Run) -> Run:
        self.runs.append((what, run.seconds))
        wrong = "error message: " + Texts().wrong  # a wrong guess's verdict is shown as an error alert
        self.errors.extend(f"session {self.number}, {what}: {e}" for e in run.errors if not e.startswith(wrong))
        return run

    @property
    def kept_model(self) -> bool:
        texts = Texts()  # a trainer shows its own model; the others, the model of the teacher's link
        return self.banner.startswith((texts.own_banner if self.trainer else texts.link_banner) + self.text + "”")


async def wait_for_link(s: Session, me: Student, texts: Texts, run: Run) -> Run:
    """Rerun the link's page every second while it shows the training's progress."""
    deadline = time.perf_counter() + WAIT_LIMIT_S
    while run.has(texts.link_training) and time.perf_counter() < deadline:
        me.watched = True
        me.followed = me.followed or run.has(texts.shared)
        await asyncio.sleep(POLL_S)
        run = me.keep("link wait", await s.run())
    return run


def option_state(widget, label: str):
    """The state of a control choosing among labelled options: a select slider's or a radio's."""
    return select_slider_state(widget, label) if type(widget).__name__ == "Slider" else choice_state(widget, label)


async def answer_questions(s: Session, me: Student, page: Run, rng: random.Random, texts: Texts) -> Run:
    """Answer every question the step shows and has not revealed (a random choice; "Check" after a
    several-answer question's pick); count each answer whose verdict the page shows."""
    for _ in range(4):  # a step asks at most two questions; each answer may show the next
        open_picks = sorted(
            key
            for key, w in page.widgets.items()
            if key.startswith("attn_ex_") and key.endswith("_pick") and not w.disabled
        )
        if not open_picks:
            return page
        key = open_picks[0]
        widget = page.widgets[key]
        label = rng.choice([o.content for o in widget.options])
        page = me.keep("answer", await s.run(widgets=[pills_state(widget, [label])]))
        check = page.widgets.get(key.removesuffix("_pick") + "_check")
        if check is not None:  # a several-answer question reveals on "Check"
            page = me.keep("answer check", await s.run(widgets=[click(check)]))
        if any(t.startswith(texts.right) or t.startswith(texts.wrong) for t in page.texts):
            me.answered += 1
        else:
            me.errors.append(f"session {me.number}: no verdict after answering {key}")
            return page
    return page


async def train_own(s: Session, me: Student) -> None:
    """The Train page: the small preset, an own text, seed and epochs, Train; wait for the result."""
    page = me.keep("train open", await s.run("train"))
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
    page = me.keep("predict open", await s.run("predict"))
    if prefix is not None and "predict_prefix" in page.widgets:
        page = me.keep("predict prefix", await s.run(widgets=[text_state(page.widgets["predict_prefix"], prefix)]))
    return page


async def student(
    url: str, me: Student, end: float, join: float, think: float, rng: random.Random, texts: Texts, link: str
) -> None:
    """One session following the lesson (the module's docstring, 1–4): joins at ``join``, ends at
    ``end`` (perf_counter seconds); ``link`` is the lesson's short link code."""

    def pause() -> float:
        return think * rng.uniform(0.5, 1.5)

    await asyncio.sleep(max(0.0, join - time.perf_counter()))
    try:
        async with connect(url) as ws:
            s = Session(ws)
            seconds = end - time.perf_counter()
            deadline = end
            # the student's own language (a class's link names none); the lesson's first page: Train
            me.keep("link open", await s.run("", query=f"s={link}&lang=en"))
            page = me.keep("attention open", await s.run("attention"))
            page = await wait_for_link(s, me, texts, page)
            page = await answer_questions(s, me, page, rng, texts)
            train_at = time.perf_counter() + rng.uniform(0.1, 0.5) * seconds if me.trainer else None
            mask_on, action, shown = True, rng.randrange(4), TEACHER_TEXT  # shown: the text of the model shown
            while time.perf_counter() < deadline:
                await asyncio.sleep(pause())
                if train_at is not None and time.perf_counter() >= train_at:
                    train_at = None
                    await train_own(s, me)
                    shown = me.text if me.trained_s is not None else shown
                    page = me.keep("attention open", await s.run("attention"))
                    page = await answer_questions(s, me, page, rng, texts)
                    continue
                w, action = page.widgets, action + 1
                if action % 4 == 0 and "attn_step" in w:
                    options = list(w["attn_step"].options)
                    page = me.keep(
                        "attention step", await s.run(widgets=[option_state(w["attn_step"], rng.choice(options))])
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
                    page = me.keep("attention open", await s.run("attention"))
                page = await answer_questions(s, me, page, rng, texts)
            if me.trainer and train_at is not None:
                me.errors.append(f"session {me.number}: the lesson ended before it trained")
            end = await predict(s, me, None)
            banners = (texts.own_banner, texts.link_banner)
            me.banner = next((t for t in end.texts if t.startswith(banners)), " / ".join(end.texts[:3]))
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


@dataclass
class Teacher:
    """What the teacher's session did and saw: its refreshes and the answers its view showed."""

    runs: list[tuple[str, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)  # the answer count of each refresh

    def keep(self, what: str, run: Run) -> Run:
        self.runs.append((what, run.seconds))
        self.errors.extend(f"teacher, {what}: {e}" for e in run.errors)
        for text in run.texts:
            if (found := _SHOWN.match(text)) is not None:
                self.shown.append(int(found.group(2)))
        return run


async def teacher(url: str, code: str, key: str, me: Teacher, stop: asyncio.Event) -> None:
    """The teacher's view of the class, refreshed as a browser does (each of its run_every fragments) until
    ``stop`` is set, then once more."""
    try:
        async with connect(url) as ws:
            s = Session(ws)
            me.keep("teacher open", await s.run("teacher", query=f"class={code}&key={key}&lang=en"))
            while True:
                stopped = stop.is_set()
                try:
                    await asyncio.wait_for(stop.wait(), TEACHER_REFRESH_S)
                except asyncio.TimeoutError:
                    pass
                # a browser reruns every run_every fragment of the page (the live answers, the lead's
                # heartbeat, the class's question, ...), not only the first one drawn
                if not s.auto_reruns:
                    me.errors.append("teacher: the view has no refreshing part")
                for run in await s.refresh():
                    me.keep("teacher refresh", run)
                if stopped:
                    return
    except Exception as exc:  # a broken connection or a timeout is an error of the run, not of the bench
        me.errors.append(f"teacher failed: {exc!r}")


async def lesson(
    url: str, pid: int | None, sessions: int, trainers: int, seconds: float, ramp: float, think: float, klass: Class
) -> tuple[list[Student], Teacher, list[float]]:
    """The teacher's view and the students, joining over ``ramp`` seconds; the RSS sampled meanwhile."""
    texts = Texts()
    students = [
        Student(k, TRAINER_TEXTS[k % len(TRAINER_TEXTS)] if k < trainers else TEACHER_TEXT, k < trainers)
        for k in range(sessions)
    ]
    samples: list[float] = []
    stop, done = asyncio.Event(), asyncio.Event()
    sampler = asyncio.create_task(sample_rss(pid, samples, stop))
    watcher = Teacher()
    view = asyncio.create_task(teacher(url, klass.code, klass.key, watcher, done))
    start = time.perf_counter()
    end = start + seconds
    await asyncio.gather(
        *(
            student(
                url,
                me,
                end,
                start + ramp * me.number / max(sessions, 1),
                think,
                random.Random(me.number),
                texts,
                klass.link,
            )
            for me in students
        )
    )
    done.set()
    await view
    stop.set()
    await sampler
    return students, watcher, samples


@dataclass
class Class:
    """The lesson's class in the store: its code, the teacher's key, the short link's code."""

    code: str
    key: str
    link: str


def open_class(store) -> Class:
    """Make the lesson as the builder does (``tinygpt.classroom.class_links``) with a class, and its short link."""
    from tinygpt.classroom.class_links import LessonPlan, ascii_query, lesson_params, query_with_class

    plan = LessonPlan(
        pages=("train", "predict", "attention"),
        controls=LESSON_CONTROLS,
        model="own",
        train=TEACHER_TRAIN,
        view={"step": "softmax"},  # where the lesson's questions start
        guess=True,
        lang="en",
    )
    query = ascii_query(lesson_params(plan))
    code, key = store.create_class(query)
    return Class(code, key, store.shorten(query_with_class(query, code)))


def ratio_line(name: str, value: float, target: float, unit: str, note: str = "") -> tuple[str, float]:
    """(an aligned line: figure, target, figure / target; that ratio)."""
    ratio = value / target
    return f"{name:<32} {value:9.2f} {unit:<2} target ≤ {target:g} {unit:<2} ratio {ratio:5.2f}{note}", ratio


def count_line(name: str, count: int, note: str = "") -> tuple[str, float]:
    """(an aligned line for a count whose target is 0; its ratio: 0 when met, infinite otherwise)."""
    ratio = 0.0 if count == 0 else float("inf")
    return f"{name:<32} {count:9d}    target = 0    ratio {ratio:5.2f}{note}", ratio


def report(
    students: list[Student],
    watcher: Teacher,
    recorded: int,
    samples: list[float],
    peak_hwm: float | None,
    seconds: float,
) -> list[str]:
    """Figures, per-kind run times and the target lines; the last line is the worst ratio.
    ``recorded``: the answers the store holds for the class at the end."""
    runs = sorted(t for me in [*students, watcher] for _, t in me.runs)
    lines = []
    kinds: dict[str, list[float]] = {}
    for me in [*students, watcher]:
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
    sent = sum(me.answered for me in students)
    joined, refreshes = sum(bool(me.runs) for me in students), sum(w == "teacher refresh" for w, _ in watcher.runs)
    lines.append(
        f"the class: {joined} students answered {sent} questions; the teacher's view refreshed {refreshes} "
        f"times and showed {watcher.shown[-1] if watcher.shown else 0} answers at its last refresh"
    )
    lines.append(f"answers recorded: {recorded} of {sent}")
    errors = [e for me in [*students, watcher] for e in me.errors]
    if not watcher.shown:
        errors.append(f"the teacher's view never showed its count of answers; the store holds {recorded}")
    elif watcher.shown[-1] != recorded:
        errors.append(f"the teacher's view showed {watcher.shown[-1]} answers, the store holds {recorded}")
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
    figures.append(count_line("answers sent but not recorded", sent - recorded, f"   ({recorded} of {sent} recorded)"))
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
    parser.add_argument("--seconds", type=float, default=180.0, help="how long the lesson lasts")
    parser.add_argument("--ramp", type=float, default=30.0, help="the students join one by one over these seconds")
    parser.add_argument(
        "--trainers", type=int, default=None, help="sessions that also train a model (default: a third)"
    )
    parser.add_argument("--think", type=float, default=3.0, help="seconds between a session's actions (0.5–1.5 × this)")
    parser.add_argument(
        "--database-url", help="the class store: a PostgreSQL URL (default: SQLite in a temporary folder)"
    )
    parser.add_argument("--data-dir", help="with --url and SQLite: the server's TINYGPT_DATA_DIR")
    parser.add_argument("--url", help="an already running app (default: start streamlit run here)")
    parser.add_argument("--pid", type=int, help="with --url: the server's process id, to sample its RSS")
    args = parser.parse_args(argv)
    trainers = args.sessions // 3 if args.trainers is None else min(args.trainers, args.sessions)
    if args.url and not (args.database_url or args.data_dir):
        parser.error("with --url, name the server's class store: --database-url or --data-dir")

    from tinygpt.classroom.store import Store, database_url

    folder = None if (args.database_url or args.data_dir) else tempfile.TemporaryDirectory(prefix="bench-class-")
    env = {"TINYGPT_DATABASE_URL": args.database_url} if args.database_url else {}
    env = env or {"TINYGPT_DATA_DIR": args.data_dir or folder.name}
    store = Store(database_url(env))
    klass = open_class(store)
    print(load_note())
    print(f"class store: {store.kind} ({store.url.split('@')[-1]}); class {klass.code}, short link /?s={klass.link}")
    proc, url, pid = None, args.url, args.pid
    if url is None:
        proc, url = start_server(env=env)
        pid = proc.pid
    try:
        if proc is not None:
            wait_healthy(proc, url)
        warm = asyncio.run(warm_up(url))
        print(f"warm-up (the teacher opens the app): first load of the Train page {warm:.1f} s")
        start, client_cpu, server_cpu = time.perf_counter(), time.process_time(), cpu_seconds(pid)
        students, watcher, samples = asyncio.run(
            lesson(url, pid, args.sessions, trainers, args.seconds, args.ramp, args.think, klass)
        )
        elapsed = time.perf_counter() - start
        client_cpu, server_cpu = time.process_time() - client_cpu, cpu_seconds(pid) - server_cpu
        peak_hwm = rss_mb(pid)[1] if proc is not None else None
        recorded = store.count_answers(klass.code)
    finally:
        if proc is not None:
            stop_server(proc)
        store.dispose()
        if folder is not None:
            folder.cleanup()
    print(
        f"{args.sessions} sessions ({trainers} also train) joining over {args.ramp:g} s, lesson of {args.seconds:g} s, "
        f"think {args.think:g} s; finished in {elapsed:.0f} s; CPU used: server {server_cpu / elapsed:.2f} cores, "
        f"these clients {client_cpu / elapsed:.2f} cores (same host)"
    )
    print("ratio = figure / target; at most 1.00 meets it.", load_note())
    lines = report(students, watcher, recorded, samples, peak_hwm, elapsed)
    print("\n".join(lines))
    return 0 if float(lines[-1].split()[-1]) <= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
