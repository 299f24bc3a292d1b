"""The Train page's Streamlit side of training jobs: the process-wide job queue, starting a
session's job, leaving a shared run, the reaper of jobs nobody waits for, and drawing its
progress, the loss chart (with the session's earlier runs) and how it ended. The jobs themselves
are ``tinygpt.training.jobs`` (no Streamlit there); drawing only reads them.

Which sessions are open: a job's watchers are session tokens (``tinygpt.ui.shared.models.session_token``);
:func:`start_job` notes each token's Streamlit session id, and one background thread per process
(:func:`reaper`, every :data:`REAP_SECONDS`) asks Streamlit's runtime
(``Runtime.instance().is_active_session``: the session's browser tab is connected) about each and
calls ``tinygpt.training.jobs.reap_unwatched``. A session that switches pages stays connected, so its job
goes on; a closed tab's session is cancelled within ``REAP_SECONDS`` + ``UNWATCHED_GRACE_S`` +
``REAP_SECONDS`` (under a minute).
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd
import streamlit as st

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.explanations.charts import loss_chart_spec
from tinygpt.explanations.charts.fast import DATA_NAME
from tinygpt.training.jobs import (
    MAX_CONCURRENT_JOBS,
    MAX_PAUSE_SECONDS,
    JobQueue,
    JobRefusedError,
    JobStatus,
    Progress,
    RunRecord,
    TrainingJob,
    active_jobs,
    reap_unwatched,
    settings_of,
)
from tinygpt.training.jobs import run_labels as _run_labels
from tinygpt.training.jobs import start_job as _start_job
from tinygpt.training.train import NonFiniteLossError
from tinygpt.ui.frame.figure_view import chart_data, figure_downloads, lines_text
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.tables import show_table, text_table
from tinygpt.ui.shared.common import show_error
from tinygpt.ui.shared.models import K_JOB, K_OWN, session_token, set_own_model, shelf
from tinygpt.ui.train.train_reliance import attention_check
from tinygpt.ui.train.train_session import train_session
from tinygpt.ui.train.train_words import setting_text

#: The chart draws at most this many points per run (evenly thinned, first and last kept).
MAX_CHART_POINTS = 500
#: The Train page's fragment redraws progress and chart this often (s): often enough to look live,
#: seldom enough that the redraw takes little from the training thread, whose small-model steps are
#: mostly Python sharing the GIL (``python -m bench.train_step`` measures it; README, Benchmarks).
POLL_SECONDS = 1.0
#: After Train is pressed the page waits up to this long (s) for the first loss, so the chart
#: appears in that very redraw instead of at the next poll (bench.cold_start: first loss point).
FIRST_POINT_WAIT = 1.5
#: Earlier runs a session keeps for the overlay.
MAX_RUNS = 8
#: The reaper asks the runtime which watchers' sessions are open this often (s).
REAP_SECONDS = 15.0
#: Session key of a message the Train page shows once after a rerun (e.g. leaving a shared run).


@st.cache_resource(show_spinner=False)
def job_queue() -> JobQueue:
    """The one JobQueue of this server process."""
    return JobQueue()


class Reaper:
    """The process's reaper: which Streamlit session each watcher token belongs to, and the
    thread that cancels jobs none of whose sessions is open (``tinygpt.training.jobs.reap_unwatched``)."""

    def __init__(self, interval: float = REAP_SECONDS) -> None:
        self.interval = interval
        self.session_ids: dict[str, str] = {}  # watcher token -> Streamlit session id
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="tinygpt-job-reaper", daemon=True)
        self._thread.start()

    def note(self, token: str, session_id: str) -> None:
        """Remember that ``token`` is the session ``session_id``."""
        with self._lock:
            self.session_ids[token] = session_id

    def is_open(self, token: str) -> bool:
        """True while the token's session is connected to this server. A token whose session is
        unknown, or a process without Streamlit's runtime (AppTest), counts as open: nothing is
        cancelled on a guess."""
        from streamlit.runtime import Runtime

        with self._lock:
            session_id = self.session_ids.get(token)
        if session_id is None or not Runtime.exists():
            return True
        return Runtime.instance().is_active_session(session_id)

    def reap(self) -> list[TrainingJob]:
        """One pass: cancel the jobs nobody waits for, forget the tokens of sessions gone."""
        cancelled = reap_unwatched(self.is_open)
        watched = {t for job in active_jobs() for t in job.watchers}
        with self._lock:
            for token in [t for t in self.session_ids if t not in watched]:
                del self.session_ids[token]
        return cancelled

    def _loop(self) -> None:
        while True:
            time.sleep(self.interval)
            try:
                self.reap()
            except Exception:  # a failed pass must not end the thread; the next one tries again
                pass


@st.cache_resource(show_spinner=False)
def reaper() -> Reaper:
    """The one Reaper of this server process (its thread starts with the first training)."""
    return Reaper()


def _note_session() -> str:
    """This session's token, noted with its Streamlit session id for the reaper."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    token = session_token()
    ctx = get_script_run_ctx()
    if ctx is not None:
        reaper().note(token, ctx.session_id)
    return token


def run_labels(settings: list[dict[str, object]], numbers: list[int]) -> list[str]:
    """The runs' labels (``tinygpt.training.jobs.run_labels``) in the form's words, in the session's language."""
    return _run_labels(settings, numbers, setting_text)


def start_job(
    text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig, paused: bool = False, steps: int = 0, fresh: bool = False
) -> TrainingJob:
    """This session's job for the settings (the caller keeps it in st.session_state), in this
    process's job queue and model shelf (``tinygpt.training.jobs.start_job``): a job another session is
    running for the same settings is shared, and only :func:`controls_job` may control it."""
    return _start_job(
        text, gpt_cfg, train_cfg, job_queue(), shelf(), paused=paused, steps=steps, owner=_note_session(), fresh=fresh
    )


def start_or_refuse(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig, **options: object) -> TrainingJob | None:
    """:func:`start_job`, or None after showing (in the session's language) why the server
    refused to start a training (``tinygpt.training.jobs.JobRefusedError``): it would pass the memory limit,
    the server's line is full, or this session already waits for a training."""
    try:
        return start_job(text, gpt_cfg, train_cfg, **options)
    except JobRefusedError as exc:
        show_error(exc)
        return None


def leave_job(job: TrainingJob | None, keep_view: bool) -> None:
    """Stop or Reset on the Train page: this session leaves ``job``.

    When other sessions follow the run it goes on for them: this session's view of it ends
    (``st.session_state[K_JOB]`` is dropped) and the page says how many follow it (:func:`show_notice`).
    When none does, the run stops at its next step boundary; ``keep_view`` (Stop) keeps it in
    view with the weights reached, otherwise (Reset) it is dropped too.
    """
    if job is None:
        return
    others = job.leave(session_token()) if job.active else 0
    if others:
        train_session().notice = tr("train.left_shared", n=others)
    if others or not keep_view:
        st.session_state.pop(K_JOB, None)


def show_notice() -> None:
    """The message a Stop or Reset left for this run of the page (shown once)."""
    notice = train_session().take_notice()
    if notice:
        st.info(notice, icon=":material/group:")


def controls_job(job: TrainingJob | None) -> bool:
    """True when this session may pause, step or stop ``job``: it started it (or there is none).

    A session following another's run of the same settings only watches it; its Stop detaches it.
    """
    return job is None or job.owner in ("", session_token())


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


def _loss_labels() -> dict[str, str]:
    """The loss chart's title, axes and legend in the page language."""
    return {
        "title": tr("train.chart_title"),
        "x_title": tr("train.axis_step"),
        "y_title": tr("train.axis_loss"),
        "series_title": tr("train.axis_run"),
    }


def draw_loss_chart(history: pd.DataFrame) -> None:
    """Draw ``charts.loss_chart`` of (step, loss, run) in the page language, its figure downloads
    and its table.

    The spec is ``charts.loss_chart_spec``: its layout is built once per set of labels and each
    poll only puts in the rows (building and validating the spec with Altair would be most of a
    poll's cost). Non-finite and non-positive losses are dropped (log axis), so NaN is never plotted.
    """
    labels = _loss_labels()
    title, step, loss, run = labels["title"], labels["x_title"], labels["y_title"], labels["series_title"]
    spec = loss_chart_spec(history, description=lines_text(title, step, loss), **labels)
    st.vega_lite_chart(spec, width="stretch")
    figure_downloads(spec, "train_loss_figure", title, file_stem="tinygpt_loss")
    if (box := chart_data("train_loss_data")) is not None:
        with box:
            df = spec["datasets"][DATA_NAME].to_pandas()
            columns = {step: df["step"].tolist(), loss: df["loss"].tolist()}
            if "run" in df.columns:
                columns = {run: df["run"].tolist()} | columns
            show_table(text_table(columns, {loss: "{:.4g}".format}), hide_index=True, max_height=400)


def draw_empty_loss_chart() -> None:
    """The loss chart's axes before any run: steps 0–1000 (the seed's epochs), loss 1e-4–10, no legend."""
    labels = _loss_labels()
    empty = pd.DataFrame({"step": np.array([], dtype=int), "loss": np.array([], dtype=float)})
    spec = loss_chart_spec(
        empty, description=lines_text(labels["title"], labels["x_title"], labels["y_title"]), **labels
    )
    spec["encoding"]["x"]["scale"] = {"domain": [0, 1000]}
    spec["encoding"]["y"]["scale"] = {"type": "log", "domain": [1e-4, 10]}
    spec["mark"] = {**spec["mark"], "aria": False}  # no line yet: no empty mark container without a name
    st.vega_lite_chart(spec, width="stretch")


# ---------------------------------------------------------------------- drawing (script thread only)


def show_progress(job: TrainingJob | None, runs: list[RunRecord]) -> Progress | None:
    """Draw a job's progress, the loss chart (with earlier runs) and how it ended; returns its Progress.

    What the Train page's polling fragment draws; reads the job, never waits for it.
    """
    p = job.progress() if job is not None else None
    if p is not None:
        st.caption(
            tr(
                "train.this_run",
                settings=" · ".join(
                    setting_text(k, v) for k, v in settings_of(job.text, job.gpt_cfg, job.train_cfg).items()
                ),
            )
        )
        loss = f"{p.losses[-1]:.3e}" if p.losses else "—"
        if p.replay is not None:
            st.info(tr("train.replaying", i=p.replay[0], n=p.replay[1]))
        elif p.status == JobStatus.WAITING:
            st.info(tr("train.waiting", place=p.place, slots=MAX_CONCURRENT_JOBS) if p.place else tr("train.starting"))
        elif p.status == JobStatus.RUNNING:
            st.progress(
                min(len(p.losses) / p.epochs, 1.0),
                tr("train.running", step=len(p.losses), epochs=p.epochs, loss=p.losses[-1])
                if p.losses
                else tr("train.starting"),
            )
            if p.steps_per_s:
                st.caption(tr("train.speed", rate=p.steps_per_s, eta=p.eta_s or 0))
        elif p.status == JobStatus.PAUSED:
            st.info(tr("train.paused", step=len(p.losses), loss=loss))
        if job.active and (n := job.followers(session_token())):
            st.caption(tr("train.followers", n=n))
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
    if p.status == JobStatus.DONE:
        record = job.result
        figures = {
            "steps": len(record.losses),
            "loss": record.losses[-1],
            "seconds": record.seconds,
            "reason": tr(f"train.reason.{record.stop_reason}"),
        }
        if job.diverged:
            if st.session_state.get(K_OWN) is record:
                st.warning(tr("train.diverged_in_use", first=record.losses[0], last=record.losses[-1]))
            else:
                st.warning(
                    tr(
                        "train.diverged",
                        first=record.losses[0],
                        last=record.losses[-1],
                        lr=record.train_cfg.lr,
                        suggest=record.train_cfg.lr / 10,
                    )
                )
                if st.button(tr("train.use_diverged"), key="train_use_diverged"):
                    set_own_model(record)
                    st.rerun()
        else:
            cached = "train.done_cached" if record.seconds > 0 else "train.done_cached_untimed"  # 0: time unknown
            st.success(tr(cached if job.from_cache else "train.done", **figures))
            attention_check(record, start_or_refuse)
    elif p.status == JobStatus.STOPPED:
        in_use = job.result is not None and st.session_state.get(K_OWN) is job.result
        if in_use:
            st.success(tr("train.stopped_in_use", steps=len(job.result.losses)))
        else:
            st.warning(
                tr("train.stopped_timeout", minutes=int(MAX_PAUSE_SECONDS // 60))
                if job.timed_out
                else tr("train.stopped", steps=len(p.losses))
            )
            if (
                job.result is not None
                and job.result.losses
                and st.button(tr("train.use_stopped"), key="train_use_stopped")
            ):
                set_own_model(job.result)
                st.rerun()
    elif p.status == JobStatus.ERROR:
        exc = job.error
        if isinstance(exc, NonFiniteLossError):
            st.error(tr("train.non_finite", step=exc.step, loss=exc.loss, lr=exc.lr, suggest=exc.lr / 10))
            if job.result is not None and job.result.losses:
                st.caption(tr("train.non_finite_kept", kept=exc.step - 1, loss=job.result.losses[-1]))
        else:
            show_error(exc)
