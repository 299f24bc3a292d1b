"""The session's runs on the Train page: a run that ended joins them (its curve can be overlaid on
later ones, :data:`~tinygpt.ui.train.training_jobs.MAX_RUNS` kept), and their table side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from tinygpt.training.jobs import RunRecord, TrainingJob, record_of
from tinygpt.ui.frame.language import tr
from tinygpt.ui.train.training_jobs import MAX_RUNS, run_labels

#: The session's runs (a list of ``RunRecord``, oldest first).
K_RUNS = "train_runs"


def session_runs(job: TrainingJob | None) -> list[RunRecord]:
    """The session's runs, ``job`` among them once it ended."""
    runs = st.session_state.setdefault(K_RUNS, [])
    if job is not None and not job.active and not any(r.job_id == job.job_id for r in runs):
        runs.append(record_of(job, (runs[-1].number + 1) if runs else 1))
        del runs[:-MAX_RUNS]
    return runs


def draw_runs(runs: list[RunRecord]) -> None:
    """The runs' table: what a student compares first (the number and the match pinned: all four
    fit a phone's width without scrolling sideways), then the settings that tell the runs apart
    and the figures."""
    if not runs:
        return
    st.subheader(tr("train.runs_header"))
    st.caption(tr("train.runs_help"))
    labels = run_labels([r.settings for r in runs], [r.number for r in runs])
    yes, no = tr("train.yes"), tr("train.no")
    columns = {
        tr("train.col.number"): ([r.number for r in runs], st.column_config.NumberColumn(width=36, pinned=True)),
        tr("train.col.match"): (
            [yes if r.generation == r.expected else no for r in runs],
            st.column_config.TextColumn(width=56, pinned=True),
        ),
        tr("train.col.generation"): ([r.generation for r in runs], st.column_config.TextColumn(width=110)),
        tr("train.col.expected"): ([r.expected for r in runs], st.column_config.TextColumn(width=110)),
        tr("train.col.run"): (labels, st.column_config.TextColumn(width="large")),
        tr("train.col.final_loss"): ([f"{r.losses[-1]:.3e}" if r.losses else "—" for r in runs], None),
        tr("train.col.mask"): ([yes if r.settings["causal_mask"] else no for r in runs], None),
        tr("train.col.status"): ([tr(f"train.reason.{r.stop_reason}") for r in runs], None),
        tr("train.col.steps"): ([len(r.losses) for r in runs], None),
    }
    st.dataframe(
        pd.DataFrame({name: values for name, (values, _) in columns.items()}),
        hide_index=True,
        width="stretch",
        key="train_runs_table",
        column_config={name: config for name, (_, config) in columns.items() if config is not None},
    )
