"""The heatmaps of the steps next to the shown one, laid out ahead while the student reads.

A step's heatmap is built once per layout (its labels, its kind, whether cells are masked: see
:mod:`tinygpt.explanations.charts.fast`); the first time a layout is needed Altair builds it, tens
of milliseconds on a server's single core, paid by the click on "next step" that shows it. After
a step is drawn, a background thread builds the layouts of the step before and the step after
(Altair only, no Streamlit, no numbers of the student's), so a move by one step only fills in
the cells.

Shapes: T sequence length, D d_model.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import streamlit as st
import torch

from tinygpt.attention import AttentionTrace, step_by_id
from tinygpt.config import GPTConfig
from tinygpt.explanations.charts.heatmaps import warm_heatmap
from tinygpt.ui.attention import state as s
from tinygpt.ui.attention.matrix_view import heatmap_layout, shown_part, step_matrix

#: One heatmap layout to build: (row labels, column labels, any masked cell, layout options).
Job = tuple[Sequence[str], Sequence[str], bool, dict[str, str]]


def neighbour_jobs(
    trace: AttentionTrace, shown: str, head: int, labels: Sequence[str], cfg: GPTConfig, future: torch.Tensor | None
) -> list[Job]:
    """The heatmap layouts of the views just before and after ``shown`` (an id of
    :data:`state.NAV_IDS`), with the arguments their :func:`matrix_view` will draw them with."""
    index = s.NAV_IDS.index(shown)
    all_columns = bool(st.session_state.get(s.K_ALL_COLUMNS))
    jobs = []
    for nav_id in s.NAV_IDS[max(index - 1, 0) : index + 2]:
        if nav_id == shown:
            continue
        if nav_id == s.INPUT:  # show_input's heatmap of X
            m = trace.state["x"][0]  # (T, D)
            cols, square, kind, masked = [str(j) for j in range(m.shape[1])], False, "signed", None
            columns = (0, cfg.d_head, "", f"X[:, 0:{cfg.d_head}]")
            title = "X"
        else:
            step = step_by_id(nav_id)
            name = step.outputs[0]  # the outputs of a step have one shape
            m = trace.step_tensor(step, head, 0)
            cols, title, columns = step_matrix(step, m, name, head, labels, cfg)
            square, kind = step.square, "prob" if name == "alpha" else "signed"
            masked = future if step.id == "softmax" else None
        part, part_cols, part_title = shown_part(m, cols, title, columns, all_columns)
        any_masked = bool(torch.isneginf(part).any()) or (masked is not None and bool(masked.any()))
        jobs.append((list(labels), list(part_cols), any_masked, heatmap_layout(square, kind, part_title)))
    return jobs


def build(jobs: Sequence[Job]) -> None:
    """Build and keep each job's heatmap layout (:func:`warm_heatmap`); a layout already built is
    taken from the cache at once."""
    for rows, cols, any_masked, layout in jobs:
        warm_heatmap(rows, cols, any_masked=any_masked, **layout)


def warm_neighbours(
    trace: AttentionTrace, shown: str, head: int, labels: Sequence[str], cfg: GPTConfig, future: torch.Tensor | None
) -> None:
    """Build the layouts of the views next to ``shown`` in a background thread (daemon: a server
    that stops does not wait for it)."""
    jobs = neighbour_jobs(trace, shown, head, labels, cfg, future)
    threading.Thread(target=build, args=(jobs,), name="attention-heatmap-layouts", daemon=True).start()
