"""The line above a page that says which model it uses: its text, whether it relies on
attention, and (behind the help icon) how it was trained (the words: ``tinygpt.ui.model_words``)."""

from __future__ import annotations

import streamlit as st

from tinygpt.training.record import ModelRecord
from tinygpt.ui.common import show_job_notice
from tinygpt.ui.language import tr
from tinygpt.ui.model_choice import show_messages
from tinygpt.ui.model_words import describe, reliance_line, settings_line
from tinygpt.ui.models import current_model, default_model_ready


def banner(record: ModelRecord, choice: str) -> None:
    """Which model the page uses and its text, whether it relies on attention, and (behind the
    help icon) how it was trained."""
    st.caption(
        f"{describe(record, choice)} {reliance_line(record)}",
        help=f"{tr('model.choice_help')}\n\n{settings_line(record)}",
    )


def model_banner(job_notice: bool = True, wait: bool = True) -> ModelRecord | None:
    """On a page without the model choice: which model the session uses (its own, else the
    textbook example), its text, whether it relies on attention, and any running job; returns it.

    ``job_notice=False`` leaves out the "training is running" line (the Train page shows the job
    itself). ``wait=False`` does not wait for the default model: while it is being trained the
    banner says so and None is returned.
    """
    show_messages()
    record, own = current_model(wait=wait)
    if record is None:
        st.caption(tr("model.preparing"))
        _until_default_model()
    else:
        banner(record, "own" if own else "textbook")
    if job_notice:
        show_job_notice()
    return record


@st.fragment(run_every=1.0)
def _until_default_model() -> None:
    """While the default model trains in the background: check every second, and redraw the page
    (its banner, the Train page's model) once it is ready."""
    if default_model_ready():
        st.rerun(scope="app")
