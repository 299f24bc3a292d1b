"""The Train page's buttons: Train, Pause / Resume, Step, Stop and Reset in one row (they act at
step boundaries), and "Train again" under a model that came from the shelf. Stop and Reset end
this session's view of a run; a run others follow goes on for them (``training_jobs.leave_job``)."""

from __future__ import annotations

import streamlit as st

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.training.jobs import ACTIVE, JobStatus, TrainingJob
from tinygpt.ui.frame.language import tr
from tinygpt.ui.shared.models import K_JOB
from tinygpt.ui.train.training_jobs import FIRST_POINT_WAIT, controls_job, leave_job, show_notice, start_or_refuse

Configs = tuple[GPTConfig, TrainConfig]


def _start(text: str, configs: Configs, first_point: bool = True, **how: object) -> None:
    """Start a run of the form's settings (a refusal shows its message and starts nothing)."""
    if (started := start_or_refuse(text, *configs, **how)) is not None:
        st.session_state[K_JOB] = started
        if first_point:
            started.wait_first_step(FIRST_POINT_WAIT)  # the redraw then shows the first loss point
        st.rerun()


def draw_buttons(
    job: TrainingJob | None,
    status: JobStatus | None,
    text: str,
    configs: Configs | None,
    locked: bool,
    refused: list[str],
) -> None:
    """The row of buttons for ``job`` (the session's run, None before one) at ``status`` (its status
    as the page read it), the form's ``configs`` (None: a value is refused, Train is off and
    ``refused`` says why, next to it)."""
    paused = status == JobStatus.PAUSED
    mine = controls_job(job)  # a run shared with the session that started it: only that session controls it
    c = st.columns(5)
    start_label = tr("train.start_lesson_button" if locked else "train.start")
    if c[0].button(
        start_label, type="primary", disabled=configs is None or status in ACTIVE, key="train_start", width="stretch"
    ):
        _start(text, configs)
    if c[1].button(
        tr("train.resume" if paused else "train.pause"),
        disabled=status not in ACTIVE or not mine,
        key="train_pause",
        width="stretch",
    ):
        if paused:
            job.resume()
        else:
            job.pause()
        st.rerun()
    step_off = status in (JobStatus.WAITING, JobStatus.RUNNING) or (paused and not mine)
    if c[2].button(
        tr("train.step"),
        help=tr("train.step_help"),
        disabled=step_off or (not paused and configs is None),
        key="train_step",
        width="stretch",
    ):
        if paused:
            job.step_once()
            st.rerun()
        else:
            _start(text, configs, first_point=False, paused=True, steps=1)
    if c[3].button(tr("train.stop"), disabled=status not in ACTIVE, key="train_stop", width="stretch"):
        leave_job(job, keep_view=True)
        st.rerun()
    if c[4].button(
        tr("train.reset"), help=tr("train.reset_help"), disabled=job is None, key="train_reset", width="stretch"
    ):
        leave_job(job, keep_view=False)
        st.rerun()
    if refused:  # the messages above the form's end may be off screen
        one = len(refused) == 1
        st.caption(tr("train.start_off", error=refused[0]) if one else tr("train.start_off_many", n=len(refused)))
    show_notice()


def draw_train_again(job: TrainingJob | None) -> None:
    """Under a model the shelf gave (trained before, by anyone): a button to train it here, live."""
    if job is None or not job.from_cache:
        return
    if st.button(
        tr("train.train_again"), help=tr("train.train_again_help"), icon=":material/replay:", key="train_again"
    ):
        _start(job.text, (job.gpt_cfg, job.train_cfg), fresh=True)
