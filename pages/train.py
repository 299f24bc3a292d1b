"""Train page: settings, Train / Pause / Step / Stop / Reset, live loss chart, runs, checkpoints."""

import streamlit as st

from tinygpt.examples import EXAMPLES
from tinygpt.training.jobs import JobStatus
from tinygpt.ui.choice.model_banner import model_banner, until_default_model
from tinygpt.ui.frame.language import tr
from tinygpt.ui.navigation import ensure_entry_script
from tinygpt.ui.shared.models import K_JOB
from tinygpt.ui.train import train_url
from tinygpt.ui.train.train_buttons import draw_buttons, draw_train_again
from tinygpt.ui.train.train_preview import check_settings, draw_limits, draw_preview
from tinygpt.ui.train.train_runs import K_RUNS, draw_runs, session_runs
from tinygpt.ui.train.train_settings import draw_form, draw_presets, prepare_form, typed_values
from tinygpt.ui.train.train_view import checkpoints, form_locked, lesson_settings, start_here
from tinygpt.ui.train.training_jobs import POLL_SECONDS, show_progress
from tinygpt.ui.views.train_table import SEED, T_TEXT

ensure_entry_script()  # a deep link on a fresh server ran this file alone: go through streamlit_app.py

ss = st.session_state
prepare_form()  # a loaded checkpoint's settings, a reload's URL, the defaults: before the widgets
locked = form_locked()  # a lesson hides every setting: the page trains the lesson's model, and says so
st.title(tr("train.title_lesson" if locked else "train.title"))
start_here()
small = EXAMPLES["context"].gpt  # the model Predict and Attention open on, told apart from this one
sizes = dict(d_model=small.d_model, n_layers=small.n_layers, n_heads=small.n_heads)
st.markdown(tr("train.intro_lesson", settings=lesson_settings(), **sizes) if locked else tr("train.intro", **sizes))

# does not wait for the default model (trained in the background); checks for it after the page's last element
preparing = model_banner(job_notice=False, wait=False, poll=False) is None

draw_presets()
draw_form(locked)
text = ss[T_TEXT]
configs, refused = check_settings(text, typed_values())
if configs is not None:
    draw_preview(text, configs)
train_url.write(text, configs, SEED)  # the form and the trained model in the URL, for a reload
draw_limits()

job = ss.get(K_JOB)
# The job's status read once, for the buttons and the live part: a run that ends while the page is
# drawn is then seen by the live part, which redraws the page (the URL's trained=, the banner).
status = job.status if job is not None else None
polling = status in (JobStatus.WAITING, JobStatus.RUNNING)
draw_buttons(job, status, text, configs, locked, refused)
runs = session_runs(job)  # a run that ended joins the session's runs


@st.fragment(run_every=POLL_SECONDS if polling else None)
def live_progress() -> None:
    """Progress and the loss chart, redrawn from the job; the job's thread never touches Streamlit."""
    p = show_progress(ss.get(K_JOB), ss.get(K_RUNS, []))
    if (p is not None and p.status in (JobStatus.WAITING, JobStatus.RUNNING)) != polling:
        st.rerun()  # started or ended since the page was drawn: redraw the controls and the banner


st.markdown(tr("train.loss_formula"))
live_progress()
draw_train_again(job)
draw_runs(runs)
checkpoints(job, runs)  # safetensors, never pickle
if preparing:  # last: the page is drawn before the first check (tinygpt.ui.choice.model_banner.until_default_model)
    until_default_model()
