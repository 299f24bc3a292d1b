"""A session's training job: a background thread that trains while the pages keep working.

The thread never calls ``st.*``; it only writes the job's fields under its lock, and the page
polls :meth:`TrainingJob.progress` from a fragment that redraws the live chart. Controls act at
step boundaries (Pause, Resume, Step = one optimizer step, Stop). A process-wide
:class:`JobQueue` bounds how many jobs hold a training slot at once (the host has 2 cores and
each job trains with one thread); a waiting job reports its place in line. A paused job keeps
its slot (its weights and Adam state stay in memory) and stops by itself after
``MAX_PAUSE_SECONDS``.

Also here: the session's earlier runs (:class:`RunRecord`), labelled by the settings that differ,
and the loss table the chart draws.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import streamlit as st

from tinygpt.charts import loss_chart
from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.generate import MAX_NEW_CHARS, generate
from tinygpt.train import NonFiniteLossError, TrainedModel, Trainer, build, release_free_memory
from tinygpt.ui.common import show_error
from tinygpt.ui.i18n import tr
from tinygpt.ui.models import ModelShelf, model_key, set_own_model, shelf
from tinygpt.ui.train_words import setting_text

#: Jobs training at once in this process (env TINYGPT_MAX_JOBS overrides): 2 cores, 1 thread each.
MAX_CONCURRENT_JOBS = max(1, int(os.environ.get("TINYGPT_MAX_JOBS", "2") or 2))
#: A job paused longer than this stops by itself and frees its slot.
MAX_PAUSE_SECONDS = 300.0
#: Steps/s is measured over this many recent steps.
RATE_WINDOW = 20
#: The chart draws at most this many points per run (evenly thinned, first and last kept).
MAX_CHART_POINTS = 500
#: The Train page's fragment redraws progress and chart this often (s). bench.train_step: at 1 s
#: the redraw costs the training thread < 5 % with the seed config and with a d_model-64 model;
#: at 0.5 s about 3 % and 10–20 % (the small model's steps are mostly Python, sharing the GIL).
POLL_SECONDS = 1.0
#: After Train is pressed the page waits up to this long (s) for the first loss, so the chart
#: appears in that very redraw instead of at the next poll (bench.cold_start: first loss point).
FIRST_POINT_WAIT = 1.5
#: Earlier runs a session keeps for the overlay.
MAX_RUNS = 8

ACTIVE = ("waiting", "running", "paused")


class JobQueue:
    """Process-wide limit on concurrent training jobs, first come first served."""

    def __init__(self, slots: int = MAX_CONCURRENT_JOBS) -> None:
        self.slots = slots
        self.running = 0
        self.waiting: list[str] = []
        self._cond = threading.Condition()

    def acquire(self, job_id: str, cancelled=lambda: False) -> bool:
        """Wait for a slot in line; False if ``cancelled()`` became true while waiting."""
        with self._cond:
            self.waiting.append(job_id)
            try:
                while not (self.running < self.slots and self.waiting[0] == job_id):
                    if cancelled():
                        return False
                    self._cond.wait(0.2)
                self.running += 1
                return True
            finally:
                self.waiting.remove(job_id)
                self._cond.notify_all()

    def release(self) -> None:
        """Give a slot back."""
        with self._cond:
            self.running -= 1
            self._cond.notify_all()

    def place(self, job_id: str) -> int:
        """1-based place of a waiting job in the line (0 when it is not waiting)."""
        with self._cond:
            return self.waiting.index(job_id) + 1 if job_id in self.waiting else 0


@st.cache_resource(show_spinner=False)
def job_queue() -> JobQueue:
    """The one JobQueue of this server process."""
    return JobQueue()


def greedy_check(tm: TrainedModel) -> tuple[str, str]:
    """(greedy continuation of the text's first character, what the text says comes next).

    Generation runs with the causal mask, as it must (the future is not there yet), whatever
    mask the model trained with; window - 1 characters (at most MAX_NEW_CHARS), the positions trained.
    """
    n = min(tm.window - 1, MAX_NEW_CHARS)
    steps = generate(tm.model, tm.vocab, tm.text[0], n, trained_len=tm.window)
    cyc = tm.text * (tm.window // len(tm.text) + 2)
    return "".join(s.chosen for s in steps), cyc[1 : n + 1]


@dataclass(frozen=True)
class Progress:
    """A consistent view of a job for the page: status, losses so far, speed, place in line."""

    status: str
    losses: list[float]
    epochs: int
    steps_per_s: float | None
    eta_s: float | None
    place: int
    replay: tuple[int, int] | None


@dataclass(eq=False)
class TrainingJob:
    """One training run in a background thread.

    ``status``: "waiting" (for a slot), "running", "paused", "done" (epochs or early stop;
    ``result`` is the shared model), "stopped" (Stop pressed or paused too long; ``result`` has
    the weights reached), "error" (``error`` holds the exception; for a non-finite loss
    ``result`` has the last finite weights). ``losses`` grows step by step; read it through
    :meth:`progress`. ``from_cache``: the settings were trained before, nothing ran.
    """

    text: str
    gpt_cfg: GPTConfig
    train_cfg: TrainConfig
    status: str = "waiting"
    losses: list[float] = field(default_factory=list)
    result: TrainedModel | None = None
    error: Exception | None = None
    from_cache: bool = False
    timed_out: bool = False
    generation: tuple[str, str] = ("", "")
    job_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    _queue: JobQueue | None = None
    _trainer: Trainer | None = None
    _want: str = "run"
    _budget: int = 0
    _stop: bool = False
    _times: deque = field(default_factory=lambda: deque(maxlen=RATE_WINDOW))
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _thread: threading.Thread | None = None

    # ------------------------------------------------------------------ controls (any thread)
    def start(self, queue: JobQueue, models: ModelShelf, paused: bool = False, steps: int = 0) -> None:
        """Start the thread and return at once; ``paused`` starts paused after ``steps`` steps."""
        self._queue = queue
        self._want, self._budget = ("pause", steps) if paused else ("run", 0)
        self._thread = threading.Thread(target=self._run, args=(queue, models), daemon=True, name=f"train-{self.job_id[:8]}")
        self._thread.start()

    def pause(self) -> None:
        """Pause at the next step boundary."""
        with self._cond:
            self._want = "pause"
            self._cond.notify_all()

    def resume(self) -> None:
        """Continue training."""
        with self._cond:
            self._want, self._budget = "run", 0
            self._times.clear()
            self._cond.notify_all()

    def step_once(self) -> None:
        """While paused: one optimizer step, then paused again."""
        with self._cond:
            self._want = "pause"
            self._budget += 1
            self._cond.notify_all()

    def stop(self) -> None:
        """Stop at the next step boundary (a waiting job leaves the line); keeps the weights reached."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the thread to end (tests and benchmarks)."""
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def active(self) -> bool:
        """True while waiting, running or paused."""
        return self.status in ACTIVE

    def progress(self) -> Progress:
        """Status, a copy of the losses, steps/s over the last steps, seconds left at that rate, place in line."""
        with self._cond:
            status, losses, times = self.status, list(self.losses), list(self._times)
        rate = (len(times) - 1) / (times[-1] - times[0]) if len(times) >= 2 and times[-1] > times[0] else None
        eta = (self.train_cfg.epochs - len(losses)) / rate if rate and status == "running" else None
        place = self._queue.place(self.job_id) if self._queue is not None and status == "waiting" else 0
        replay = self._trainer.replay_progress if self._trainer is not None else None
        return Progress(status, losses, self.train_cfg.epochs, rate, eta, place, replay)

    def wait_first_step(self, timeout: float) -> bool:
        """Block up to ``timeout`` s until the job has a loss or is no longer waiting/running; True if so.

        Returns at once for a paused job (it takes no step until told to).
        """
        with self._cond:
            return self._cond.wait_for(lambda: bool(self.losses) or self.status not in ("waiting", "running"), timeout)

    @property
    def diverged(self) -> bool:
        """True for a finished run whose last loss is higher than its first (lr too large, typically)."""
        losses = self.result.losses if self.result is not None else []
        return len(losses) >= 2 and losses[-1] > losses[0]

    def finished_model(self) -> TrainedModel | None:
        """The model to use on every page once the job is done (epochs or early stop), else None.

        A run that diverged is not taken up by itself: the model the student had is kept, and
        the Train page offers the diverged one (``end_message``).
        """
        return self.result if self.status == "done" and not self.diverged else None

    # ------------------------------------------------------------------ the thread
    def _set(self, **fields: object) -> None:
        with self._cond:
            for name, value in fields.items():
                setattr(self, name, value)
            self._cond.notify_all()

    def _run(self, queue: JobQueue, models: ModelShelf) -> None:
        try:
            if not queue.acquire(self.job_id, lambda: self._stop):
                self._set(status="stopped")
                return
            try:
                self._train(models)
            finally:
                queue.release()
        except Exception as exc:  # reported on the page, never raised into Streamlit
            self._set(error=exc, status="error")

    def _wait_for_go(self, tm: TrainedModel) -> bool:
        """Block while paused; True to take one more step, False to stop."""
        with self._cond:
            paused_at = time.monotonic()
            while not self._stop and self._want == "pause" and self._budget == 0:
                self.status = "paused"
                self._cond.wait(1.0)
                if time.monotonic() - paused_at > MAX_PAUSE_SECONDS:
                    self._stop = self.timed_out = True
            if self._stop:
                tm.stop_reason = "stopped"
                return False
            if self._budget:
                self._budget -= 1
            self.status = "running"
            return True

    def _train(self, models: ModelShelf) -> None:
        try:
            self._train_run(models)
        finally:
            self._trainer = None  # drop the Adam state and gradients, then return the memory
            release_free_memory()

    def _train_run(self, models: ModelShelf) -> None:
        tm = build(self.text, self.gpt_cfg, self.train_cfg)
        trainer = self._trainer = Trainer(tm)
        try:
            while not trainer.done and self._wait_for_go(tm):
                loss = trainer.step()
                with self._cond:
                    self.losses.append(loss)
                    self._times.append(time.perf_counter())
                    self._cond.notify_all()
        except NonFiniteLossError as exc:
            trainer.finish()
            self._set(result=tm.freeze(), error=exc, generation=greedy_check(tm), status="error")
            return
        trainer.finish()
        if tm.stop_reason == "stopped":
            self._set(result=tm.freeze(), generation=greedy_check(tm), status="stopped")
            return
        shared = models.put(model_key(self.text, self.gpt_cfg, self.train_cfg), tm)
        self._set(result=shared, generation=greedy_check(shared), status="done")


def start_job(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig, paused: bool = False, steps: int = 0,
              queue: JobQueue | None = None, models: ModelShelf | None = None, fresh: bool = False) -> TrainingJob:
    """This session's job for the settings (the caller keeps it in st.session_state).

    Settings trained before (in any session) return a finished job at once with the shared model
    (``from_cache``), unless ``fresh`` (the student asked to watch it train); otherwise a thread
    starts training (paused after ``steps`` steps if ``paused``).
    """
    queue = queue or job_queue()
    models = models or shelf()
    job = TrainingJob(text, gpt_cfg, train_cfg)
    cached = None if fresh else models.get(model_key(text, gpt_cfg, train_cfg))
    if cached is not None:
        job._queue = queue
        job.losses, job.result, job.from_cache = list(cached.losses), cached, True
        job.generation, job.status = greedy_check(cached), "done"
        return job
    job.start(queue, models, paused=paused, steps=steps)
    return job


# ---------------------------------------------------------------------- earlier runs, chart data


def settings_of(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> dict[str, object]:
    """The settings that identify a run, by their field names (used to label runs)."""
    g, t = gpt_cfg, train_cfg
    return {
        "text": text, "d_model": g.d_model, "n_heads": g.n_heads, "n_layers": g.n_layers, "d_ff": g.d_ff,
        "max_len": g.max_len, "norm": g.norm, "positions": g.positions, "lr": t.lr, "epochs": t.epochs,
        "seed": t.seed, "early_stop_loss": t.early_stop_loss, "causal_mask": t.causal_mask,
        "window": t.window or min(len(text), g.max_len),
    }


@dataclass(frozen=True)
class RunRecord:
    """What a session keeps of a finished run: its settings, loss curve and greedy generation."""

    number: int
    job_id: str
    settings: dict[str, object]
    losses: tuple[float, ...]
    status: str
    stop_reason: str
    generation: str
    expected: str
    seconds: float


def record_of(job: TrainingJob, number: int) -> RunRecord:
    """A RunRecord of a job that has ended."""
    tm = job.result
    gen, expected = job.generation
    return RunRecord(number, job.job_id, settings_of(job.text, job.gpt_cfg, job.train_cfg), tuple(job.losses), job.status,
                     tm.stop_reason if tm is not None else "error", gen, expected, tm.seconds if tm is not None else 0.0)


def run_labels(settings: list[dict[str, object]], numbers: list[int]) -> list[str]:
    """"#n · setting value · …" for each run, naming only the settings that differ, in the form's words.

    The setting changed most recently comes first (ties in the settings' order), so the one a
    student just switched, e.g. causal_mask=False after a run with the mask, leads every label.
    """
    if not settings:
        return []
    keys = [k for k in settings[0] if len({repr(s.get(k)) for s in settings}) > 1]
    last_change = {k: max(i for i in range(1, len(settings)) if repr(settings[i].get(k)) != repr(settings[i - 1].get(k)))
                   for k in keys}
    keys.sort(key=lambda k: -last_change[k])  # stable: ties keep the settings' order
    return [" · ".join([f"#{n}"] + [setting_text(k, s[k]) for k in keys]) for s, n in zip(settings, numbers)]


def thin(losses: list[float] | tuple[float, ...], limit: int = MAX_CHART_POINTS) -> pd.DataFrame:
    """Steps (1-based) and losses, at most ``limit`` evenly spaced points, first and last kept."""
    values = np.asarray(losses, dtype=float)
    n = len(values)
    idx = np.arange(n) if n <= limit else np.unique(np.linspace(0, n - 1, limit).round().astype(int))
    return pd.DataFrame({"step": idx + 1, "loss": values[idx]})


def loss_table(runs: list[tuple[str, list[float] | tuple[float, ...]]]) -> pd.DataFrame:
    """Long table (step, loss, run) of several labelled loss curves, thinned for the chart."""
    frames = [thin(losses).assign(run=label) for label, losses in runs if losses]
    if not frames:
        return pd.DataFrame({"step": [], "loss": [], "run": []})
    return pd.concat(frames, ignore_index=True)


@functools.lru_cache(maxsize=32)
def _loss_spec(title: str, x_title: str, y_title: str, series_title: str, points: bool) -> str:
    """The Vega-Lite spec ``charts.loss_chart`` makes, without its data (JSON; built once per labels)."""
    sample = pd.DataFrame({"step": range(1, 3 if points else 61), "loss": 1.0, "run": "#1"})
    spec = loss_chart(sample, title=title, x_title=x_title, y_title=y_title, series_title=series_title).to_dict(validate=False)
    spec.pop("datasets", None)
    spec.pop("data", None)
    return json.dumps(spec)


def draw_loss_chart(history: pd.DataFrame) -> None:
    """Draw ``charts.loss_chart`` of (step, loss, run) in the page language.

    The spec is built by ``charts.loss_chart`` once per set of labels and reused with each poll's
    data (Altair's spec building and validation were most of a poll's cost). Like loss_chart,
    drops non-finite and non-positive losses (log axis), so NaN is never plotted.
    """
    df = history[np.isfinite(history["loss"]) & (history["loss"] > 0)]
    spec = _loss_spec(tr("train.chart_title"), tr("train.axis_step"), tr("train.axis_loss"), tr("train.axis_run"), len(df) < 60)
    st.vega_lite_chart(df, json.loads(spec), width="stretch")


def draw_empty_loss_chart() -> None:
    """The loss chart's axes before any run: steps 0–1000 (the seed's epochs), loss 1e-4–10, no legend."""
    spec = json.loads(_loss_spec(tr("train.chart_title"), tr("train.axis_step"), tr("train.axis_loss"), tr("train.axis_run"), False))
    spec["encoding"]["x"]["scale"] = {"domain": [0, 1000]}
    spec["encoding"]["y"]["scale"] = {"type": "log", "domain": [1e-4, 10]}
    spec["encoding"]["color"] = {"value": "#1f77b4"}
    st.vega_lite_chart(pd.DataFrame({"step": [], "loss": []}), spec, width="stretch")


# ---------------------------------------------------------------------- drawing (script thread only)


def show_progress(job: TrainingJob | None, runs: list[RunRecord]) -> Progress | None:
    """Draw a job's progress, the loss chart (with earlier runs) and how it ended; returns its Progress.

    What the Train page's polling fragment draws; reads the job, never waits for it.
    """
    p = job.progress() if job is not None else None
    if p is not None:
        st.caption(tr("train.this_run", settings=" · ".join(setting_text(k, v) for k, v in settings_of(job.text, job.gpt_cfg, job.train_cfg).items())))
        loss = f"{p.losses[-1]:.3e}" if p.losses else "—"
        if p.replay is not None:
            st.info(tr("train.replaying", i=p.replay[0], n=p.replay[1]))
        elif p.status == "waiting":
            st.info(tr("train.waiting", place=p.place, slots=MAX_CONCURRENT_JOBS) if p.place else tr("train.starting"))
        elif p.status == "running":
            st.progress(min(len(p.losses) / p.epochs, 1.0), tr("train.running", step=len(p.losses), epochs=p.epochs, loss=p.losses[-1]) if p.losses else tr("train.starting"))
            if p.steps_per_s:
                st.caption(tr("train.speed", rate=p.steps_per_s, eta=p.eta_s or 0))
        elif p.status == "paused":
            st.info(tr("train.paused", step=len(p.losses), loss=loss))
    earlier = [r for r in runs if job is None or r.job_id != job.job_id]
    overlay = st.toggle(tr("train.overlay"), value=True, key="train_overlay") if earlier else False
    curves = [(r.settings, r.losses, r.number) for r in (earlier if overlay else [])]
    if p is not None:
        number = next((r.number for r in runs if r.job_id == job.job_id), (runs[-1].number + 1) if runs else 1)
        curves.append((settings_of(job.text, job.gpt_cfg, job.train_cfg), p.losses, number))
    if any(losses for _, losses, _ in curves):
        labels = run_labels([s for s, _, _ in curves], [n for _, _, n in curves])
        draw_loss_chart(loss_table(list(zip(labels, [losses for _, losses, _ in curves]))))
    else:  # the empty chart shows where the curve will appear (and loads the chart code early)
        draw_empty_loss_chart()
        st.caption(tr("train.chart_empty"))
    if p is not None:
        end_message(job, p)
    return p


def end_message(job: TrainingJob, p: Progress) -> None:
    """What a finished, stopped or failed run says."""
    if p.status == "done":
        tm = job.result
        figures = {"steps": len(tm.losses), "loss": tm.losses[-1], "seconds": tm.seconds,
                   "reason": tr(f"train.reason.{tm.stop_reason}")}
        if job.diverged:
            if st.session_state.get("own_model") is tm:
                st.warning(tr("train.diverged_in_use", first=tm.losses[0], last=tm.losses[-1]))
            else:
                st.warning(tr("train.diverged", first=tm.losses[0], last=tm.losses[-1], lr=tm.train_cfg.lr,
                              suggest=tm.train_cfg.lr / 10))
                if st.button(tr("train.use_diverged"), key="train_use_diverged"):
                    set_own_model(tm)
                    st.rerun()
        else:
            st.success(tr("train.done_cached" if job.from_cache else "train.done", **figures))
    elif p.status == "stopped":
        in_use = job.result is not None and st.session_state.get("own_model") is job.result
        if in_use:
            st.success(tr("train.stopped_in_use", steps=len(job.result.losses)))
        else:
            st.warning(tr("train.stopped_timeout", minutes=int(MAX_PAUSE_SECONDS // 60)) if job.timed_out else tr("train.stopped", steps=len(p.losses)))
            if job.result is not None and job.result.losses and st.button(tr("train.use_stopped"), key="train_use_stopped"):
                set_own_model(job.result)
                st.rerun()
    elif p.status == "error":
        exc = job.error
        if isinstance(exc, NonFiniteLossError):
            st.error(tr("train.non_finite", step=exc.step, loss=exc.loss, lr=exc.lr, suggest=exc.lr / 10))
            if job.result is not None and job.result.losses:
                st.caption(tr("train.non_finite_kept", kept=exc.step - 1, loss=job.result.losses[-1]))
        else:
            show_error(exc)
