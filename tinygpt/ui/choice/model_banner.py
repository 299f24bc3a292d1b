"""The line above a page that says which model it uses: its text, whether it relies on
attention, and (behind the help icon) how it was trained (the words: ``tinygpt.ui.shared.model_words``)."""

from __future__ import annotations

import streamlit as st

from tinygpt.examples import EXAMPLES
from tinygpt.training.record import ModelRecord
from tinygpt.ui.choice.model_choice import show_messages
from tinygpt.ui.frame.language import tr
from tinygpt.ui.shared.common import show_job_notice
from tinygpt.ui.shared.model_words import describe, reliance_line, settings_line
from tinygpt.ui.shared.models import current_model, default_model_ready


def banner(record: ModelRecord, choice: str) -> None:
    """Which model the page uses and its text, whether it relies on attention, and (behind the
    help icon) what an example's text means (its characters glossed in English), what the words of
    the caption and of the training line mean (the glossary's short phrases) and how it was trained."""
    gloss = next((tr(f"model.gloss.{name}") for name, ex in EXAMPLES.items() if ex.text == record.text), "")
    st.caption(
        f"{describe(record, choice)} {reliance_line(record)}",
        help="\n\n".join(
            part for part in (gloss, tr("model.choice_help"), tr("model.terms"), settings_line(record)) if part
        ),
    )


def model_banner(job_notice: bool = True, wait: bool = True, poll: bool = True) -> ModelRecord | None:
    """On a page without the model choice: which model the session uses (its own, else the
    textbook example), its text, whether it relies on attention, and any running job; returns it.

    ``job_notice=False`` leaves out the "training is running" line (the Train page shows the job
    itself). ``wait=False`` does not wait for the default model: while it is being trained the
    banner says so and None is returned; ``poll=False`` then leaves the page to call
    :func:`until_default_model` itself, after its last element.
    """
    show_messages()
    record, own = current_model(wait=wait)
    if record is None:
        st.caption(tr("model.preparing"))
        if poll:
            until_default_model()
    else:
        banner(record, "own" if own else "textbook")
    if job_notice:
        show_job_notice()
    return record


#: Seconds between two checks for the default model. Each check is a script run and a redraw in the
#: browser; on a fresh one-core server the model takes several seconds, and a check every second
#: would come while the browser still draws the first page (0.5–1 s after its script run ends).
DEFAULT_MODEL_POLL_S = 2.0


@st.fragment(run_every=DEFAULT_MODEL_POLL_S)
def until_default_model() -> None:
    """While the default model trains in the background: check every :data:`DEFAULT_MODEL_POLL_S`
    seconds, and redraw the page (its banner, the Train page's model) once it is ready. The
    browser starts its clock when it receives this part, so a page that calls it after its last
    element is drawn before the first check."""
    if default_model_ready():
        st.rerun(scope="app")
