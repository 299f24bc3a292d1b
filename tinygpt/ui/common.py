"""Small pieces every page uses: the model banner and safe error display."""

from __future__ import annotations

import streamlit as st

from tinygpt.jobs import JobStatus
from tinygpt.record import ModelRecord
from tinygpt.ui.i18n import error_text, tr
from tinygpt.ui.models import current_model


def model_banner(job_notice: bool = True, wait: bool = True, choose: str = "") -> ModelRecord | None:
    """Show which model the page uses, its text and how it was trained (the causal mask included),
    and any running job; return the model.

    ``choose`` (the page's key prefix, e.g. "predict"): draw the model choice (textbook example,
    context example, the session's own; ``tinygpt.ui.model_choice``) and use the chosen model.
    Without it the page uses the session's own model or the default (textbook) one.
    ``job_notice=False`` leaves out the "training is running" line (the Train page shows the job itself).
    ``wait=False`` does not wait for the default model: while it is being trained the banner says
    so and None is returned.
    """
    from tinygpt.ui import model_choice  # it draws with this module's helpers

    if choose:
        tm, choice = model_choice.choose_model(choose)
    else:
        model_choice.show_messages()
        tm, own = current_model(wait=wait)
        choice = "own" if own else "textbook"
    if tm is None:
        st.caption(tr("model.preparing"))
    else:
        line = model_choice.describe(tm, choice)
        if choice != "own" and job_notice:  # other pages point to the Train page; the Train page does not
            line = tr("model.with_hint", line=line, hint=tr("model.train_hint"))
        st.caption(line)
    job = st.session_state.get("job")
    if job_notice and job is not None and job.active:
        paused = job.status == JobStatus.PAUSED
        st.info(tr("model.training_paused" if paused else "model.training_running", step=len(job.losses)))
    return tm


def keep_widget_state(defaults: dict[str, object]) -> None:
    """Give keyed widgets their default once and keep their values across page switches.

    Streamlit forgets a widget's value when a run of another page does not draw it; a shadow
    copy (``_keep.<key>``, a plain session value) restores it when the page comes back. Call at
    the top of the page and create the widgets with ``key=`` and no ``value=``.
    """
    for key, default in defaults.items():
        shadow = f"_keep.{key}"
        if key not in st.session_state:
            st.session_state[key] = st.session_state.get(shadow, default)
        st.session_state[shadow] = st.session_state[key]


def restore_widget_values(defaults: dict[str, object]) -> None:
    """Set each keyed widget's value from its shadow copy (``_keep.<key>``), or its default, at
    the top of every full run: for widgets drawn only part of the time (a page section that is
    closed) and changed inside fragments.

    :func:`keep_widget_state` restores a value only when Streamlit has dropped it; a widget
    changed by a fragment's rerun and then not drawn can come back with its old value instead,
    and the top of the page, which copies values to the shadows, does not run on a fragment's
    rerun. Here the shadow is written by the widget's own callback (:func:`remember_value`,
    ``on_change=remember_value, args=(key,)``), which runs on fragment reruns too, and is always
    the value the widget gets. Create the widgets with ``key=`` and no ``value=``.
    """
    for key, default in defaults.items():
        st.session_state[key] = st.session_state.get(f"_keep.{key}", default)


def remember_value(key: str) -> None:
    """``on_change`` callback of a widget kept by :func:`restore_widget_values`: copy its new
    value to its shadow."""
    st.session_state[f"_keep.{key}"] = st.session_state.get(key)


def set_kept_value(key: str, value: object) -> None:
    """Set a widget kept by :func:`restore_widget_values` from code (a button, a link): its value
    and its shadow."""
    st.session_state[key] = value
    st.session_state[f"_keep.{key}"] = value


def keep_radio_choice(key: str) -> None:
    """Send a keyed radio's choice to the browser again on this run; call just before the radio.

    The browser remembers a radio's choice by its label. After a language switch no label
    matches, so the radio would come back empty and the next rerun would drop the choice.
    Writing the session value back makes Streamlit send it with the new labels.
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
