"""Small pieces every page uses: the running-training line, a choice sent again, safe error display, scrolling."""

from __future__ import annotations

import streamlit as st

from tinygpt.training.jobs import JobStatus
from tinygpt.ui.frame.language import error_text, tr
from tinygpt.ui.shared.models import K_JOB


def show_job_notice() -> None:
    """A line saying the session's own training still runs (the page uses its latest finished model)."""
    job = st.session_state.get(K_JOB)
    if job is not None and job.active:
        paused = job.status == JobStatus.PAUSED
        st.info(tr("model.training_paused" if paused else "model.training_running", step=len(job.losses)))


def resend(key: str) -> None:
    """Send a keyed radio's, selectbox's or select slider's value to the browser again on this run;
    call just before the widget.

    Widgets keep their values across pages and reruns by Streamlit's own ``persist_state="session"``.
    But the browser knows a radio's (and a selectbox's) choice by its label: after the labels
    change (another language, another step's column names) no label matches, the widget comes
    back empty and the next rerun drops the choice. Writing the session value back makes
    Streamlit send it with the new labels.
    """
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]


def show_error(exc: Exception) -> None:
    """A clear message for ``exc`` in the user's language (never a traceback)."""
    st.error(error_text(exc))


# Scrolls to the anchor (waiting up to 5 s for it to be drawn), then watches it for a moment: the
# run that asked for the scroll is still replacing the page's elements, and a part drawn above or
# below can move the anchor after the first scroll. It scrolls again while the anchor is not where the first
# scroll put it, until it
# stays there for half a second (at most 5 s), and stops at once when the student scrolls or clicks.
_SCROLL_JS = """<script>
(() => { const start = performance.now(); let want = null, still = 0, stop = false;
  for (const ev of ["wheel", "touchstart", "keydown", "mousedown"])
    addEventListener(ev, () => { stop = true; }, {once: true, passive: true});
  const go = () => { if (stop) return; const el = document.getElementById("ANCHOR");
    if (el) { const top = el.getBoundingClientRect().top;
      if (want === null || Math.abs(top - want) > 2) {
        el.scrollIntoView({block: "start"}); want = el.getBoundingClientRect().top; still = 0; }
      else if (++still >= 5) return; }
    if (performance.now() - start < 5000) setTimeout(go, 100); };
  go(); })();
</script>"""


def scroll_to(anchor: str) -> None:
    """Scroll the browser to the element with id ``anchor`` once (a button that opened a part of
    the page below the fold: the student lands on it)."""
    st.html(_SCROLL_JS.replace("ANCHOR", anchor), unsafe_allow_javascript=True, width="content")
