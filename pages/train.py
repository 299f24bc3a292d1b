"""Train page: settings, Train / Pause / Step / Stop / Reset, live loss chart, runs, checkpoints."""

import pandas as pd
import streamlit as st

from tinygpt.config import (
    MAX_EPOCHS,
    MAX_PARAMETERS,
    MAX_TEXT_LEN,
    MAX_TOKENS_PER_STEP,
    ConfigError,
)
from tinygpt.examples import EXAMPLES
from tinygpt.limits import sequences_and_tokens_per_epoch
from tinygpt.numbers import parse_int
from tinygpt.training.jobs import ACTIVE, JobStatus, record_of
from tinygpt.ui.choice.model_banner import model_banner, until_default_model
from tinygpt.ui.frame.controls import put_defaults
from tinygpt.ui.frame.help import help_toggle
from tinygpt.ui.frame.language import error_text, tr
from tinygpt.ui.frame.tables import show_table
from tinygpt.ui.navigation import ensure_entry_script
from tinygpt.ui.shared.common import resend
from tinygpt.ui.shared.models import K_JOB
from tinygpt.ui.train import train_url
from tinygpt.ui.train.train_form import FORM_FIELDS, check_form
from tinygpt.ui.train.train_session import train_session
from tinygpt.ui.train.train_view import checkpoints, form_locked, lesson_settings, options_with, start_here
from tinygpt.ui.train.training_jobs import (
    FIRST_POINT_WAIT,
    MAX_RUNS,
    POLL_SECONDS,
    controls_job,
    leave_job,
    run_labels,
    show_notice,
    show_progress,
    start_or_refuse,
)
from tinygpt.ui.views.lesson import visible
from tinygpt.ui.views.train_table import (
    PRESETS,
    SEED,
    T_CAUSAL_MASK,
    T_D_FF,
    T_D_MODEL,
    T_EARLY_STOP,
    T_EPOCHS,
    T_LR,
    T_MAX_LEN,
    T_N_HEADS,
    T_N_LAYERS,
    T_NORM,
    T_POSITIONS,
    T_PRESET,
    T_PRESETS,
    T_SEED,
    T_TEXT,
    T_WINDOW,
    TRAIN,
)
from tinygpt.vocab import causal_loss_floor, pair_texts

ensure_entry_script()  # a deep link on a fresh server ran this file alone: go through streamlit_app.py

ss = st.session_state
MAX_PAIRS_SHOWN = 8
LARGE_LR = 0.03  # the "small" preset on 你好世界 trains smoothly at 1e-2; from 3e-2 its loss jumps back up


INT_KEYS = (T_MAX_LEN, T_WINDOW, T_EPOCHS, T_SEED)


def apply_preset(name: str) -> None:
    ss.update(PRESETS[name])
    ss[T_PRESET] = name


# A loaded checkpoint's settings, put in the form before its widgets are drawn.
ss.update(train_session().take_loaded_form())
train_url.restore()  # a reload: the URL's form= and trained= (the student's model, from the shelf or trained again)
put_defaults(TRAIN)  # once: the widgets keep what the student set (persist_state)
# Whole-number settings are text boxes read by parse_int: the box shows exactly what is checked and
# used. (Streamlit's number box keeps its last accepted value when the typed one is out of its range,
# e.g. more digits than 64 bits hold or 1e30, while still showing what was typed.)
for key in INT_KEYS:
    if not isinstance(ss[key], str):
        ss[key] = str(ss[key])
typed = {key: parse_int(ss[key]) for key in INT_KEYS}


def choice_radio(key: str, options: tuple[str, ...], **kwargs: object) -> None:
    """A horizontal radio of ``options`` labelled by ``train.<name>.<option>``, kept across a language switch."""
    if not visible(key):  # a teacher's lesson hides it: the form keeps its value
        return
    labels = {v: tr(f"{key.replace('_', '.', 1)}.{v}") for v in options}  # format_func must not call tr()
    resend(key)
    st.radio(
        tr(key.replace("_", ".", 1)),
        options,
        format_func=labels.get,
        horizontal=True,
        key=key,
        persist_state="session",
        **kwargs,
    )


locked = form_locked()  # a lesson hides every setting: the page trains the lesson's model, and says so
st.title(tr("train.title_lesson" if locked else "train.title"))
start_here()
small = EXAMPLES["context"].gpt  # the model Predict and Attention open on, told apart from this one
sizes = dict(d_model=small.d_model, n_layers=small.n_layers, n_heads=small.n_heads)
st.markdown(tr("train.intro_lesson", settings=lesson_settings(), **sizes) if locked else tr("train.intro", **sizes))

# does not wait for the default model (trained in the background); checks for it after the page's last element
preparing = model_banner(job_notice=False, wait=False, poll=False) is None

# Each setting is drawn unless a teacher's lesson link hides it (tinygpt.ui.views.lesson); a hidden one keeps its value.
cols = st.columns([2, 2, 2, 3], vertical_alignment="center") if visible(T_PRESETS) else []
if cols:
    cols[0].markdown(tr("train.presets"))
for col, name in zip(cols[1:], PRESETS):
    col.button(
        tr(f"train.preset.{name}"),
        help=tr(f"train.preset.{name}_help"),
        on_click=apply_preset,
        args=(name,),
        key=f"train_preset_{name}",
        width="stretch",
    )
cheat = ss.get(T_PRESET) == "cheat"
if cheat:  # the experiment's one switch right under its steps, and the model the next Train trains
    st.info(tr("train.cheat_steps"), icon=":material/science:")
    if visible(T_CAUSAL_MASK):
        help_toggle(tr("train.causal_mask"), tr("train.causal_mask_help"), key=T_CAUSAL_MASK, persist_state="session")
        st.caption(tr("train.cheat_next_on" if ss[T_CAUSAL_MASK] else "train.cheat_next_off"))

# tinygpt.config checks every typed value, so one out of range or not a whole number gets a
# message in the student's language naming the value and the accepted range, and Train is disabled.
# The choices' lists also hold a loaded checkpoint's own value, so the form can show it.
left, right = st.columns(2)
with left:
    if not locked:  # a header over no setting says nothing
        st.subheader(tr("train.model_header"))
    if visible(T_D_MODEL):
        st.select_slider(
            tr("train.d_model"),
            options_with([16, 32, 64, 128, 256, 512], ss[T_D_MODEL]),
            key=T_D_MODEL,
            persist_state="session",
        )
    d_model = ss[T_D_MODEL]
    heads = [h for h in options_with([1, 2, 4, 8, 16], ss[T_N_HEADS]) if d_model % h == 0]
    if visible(T_N_HEADS):
        st.select_slider(
            tr("train.n_heads"), heads, help=tr("train.n_heads_help"), key=T_N_HEADS, persist_state="session"
        )
    if visible(T_N_LAYERS):
        st.slider(tr("train.n_layers"), 1, max(8, ss[T_N_LAYERS]), key=T_N_LAYERS, persist_state="session")
    if visible(T_D_FF):
        st.select_slider(
            tr("train.d_ff"),
            options_with([32, 64, 128, 256, 512, 1024, 2048], ss[T_D_FF]),
            help=tr("train.d_ff_help"),
            key=T_D_FF,
            persist_state="session",
        )
    if visible(T_MAX_LEN):
        st.text_input(tr("train.max_len"), key=T_MAX_LEN, persist_state="session")
    choice_radio(T_NORM, ("pre", "post"), help=tr("train.norm_help"))
    choice_radio(T_POSITIONS, ("learned", "sinusoidal"))
with right:
    if not locked:
        st.subheader(tr("train.optim_header"))
    if visible(T_TEXT):
        st.text_input(
            tr("train.text"), help=tr("train.text_help", max=MAX_TEXT_LEN), key=T_TEXT, persist_state="session"
        )
    if visible(T_WINDOW):
        st.text_input(
            tr("train.window"),
            help=tr("train.window_help"),
            key=T_WINDOW,
            persist_state="session",
        )
    lr_labels = {
        v: f"{v:g}" for v in options_with([1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0], ss[T_LR])
    }
    if visible(T_LR):
        st.select_slider(tr("train.lr"), list(lr_labels), format_func=lr_labels.get, key=T_LR, persist_state="session")
    if ss[T_LR] >= LARGE_LR:
        st.caption(tr("train.lr_large", lr=ss[T_LR]))
    if visible(T_EPOCHS):
        st.text_input(
            tr("train.epochs"),
            help=tr("train.epochs_help", max=MAX_EPOCHS),
            key=T_EPOCHS,
            persist_state="session",
        )
    if visible(T_SEED):
        st.text_input(tr("train.seed"), key=T_SEED, persist_state="session")
    es_labels = {v: f"{v:g}" for v in options_with([0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2], ss[T_EARLY_STOP])}
    if visible(T_EARLY_STOP):
        st.select_slider(
            tr("train.early_stop"),
            list(es_labels),
            format_func=es_labels.get,
            help=tr("train.early_stop_help"),
            key=T_EARLY_STOP,
            persist_state="session",
        )
    if visible(T_CAUSAL_MASK) and not cheat:
        help_toggle(tr("train.causal_mask"), tr("train.causal_mask_help"), key=T_CAUSAL_MASK, persist_state="session")

text = ss[T_TEXT]
# Every refused value gets its own message (tinygpt.ui.train.train_form), not only the first the configs meet.
configs, refused = check_form(text, {name: typed.get(key, ss[key]) for key, name in FORM_FIELDS.items()})
messages = [error_text(exc) if isinstance(exc, ConfigError) else tr("err.empty_text") for exc in refused]
for message in messages:
    st.error(message)
if configs is not None:
    window = configs[1].window_for(len(text), configs[0].max_len)
    tokens = sequences_and_tokens_per_epoch(text, window)[1]
    st.caption(tr("train.params", n=configs[0].n_parameters(), d_head=configs[0].d_head, tokens=tokens))
    inputs, targets = pair_texts(text, window)
    shown_part = tr("train.pairs_shown", shown=MAX_PAIRS_SHOWN) if len(inputs) > MAX_PAIRS_SHOWN else ""
    st.markdown(tr("train.pairs", n=len(inputs), shown_part=shown_part))
    show_table(
        pd.DataFrame(
            {tr("train.col.input"): inputs[:MAX_PAIRS_SHOWN], tr("train.col.target"): targets[:MAX_PAIRS_SHOWN]}
        ),
        hide_index=True,
        max_height=400,
        key="train_pairs_table",
    )
    floor = causal_loss_floor(text, window)
    if floor > 0 and configs[1].causal_mask:
        st.info(tr("train.loss_floor", floor=floor), icon=":material/info:")
train_url.write(text, configs, SEED)  # the form and the trained model in the URL, for a reload
st.caption(
    tr("train.limits", params=f"{MAX_PARAMETERS:,}", epochs=MAX_EPOCHS, text=MAX_TEXT_LEN, tokens=MAX_TOKENS_PER_STEP)
)

# ---------------------------------------------------------------- controls (act at step boundaries)
job = ss.get(K_JOB)
status = job.status if job is not None else None
c = st.columns(5)
if c[0].button(
    tr("train.start_lesson_button" if locked else "train.start"),
    type="primary",
    disabled=configs is None or status in ACTIVE,
    key="train_start",
    width="stretch",
):
    if (started := start_or_refuse(text, *configs)) is not None:  # None: refused, the message is shown
        ss[K_JOB] = started
        started.wait_first_step(FIRST_POINT_WAIT)  # the redraw below then shows the first loss point
        st.rerun()
paused = status == JobStatus.PAUSED
mine = controls_job(job)  # a run shared with the session that started it: only that session controls it
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
if c[2].button(
    tr("train.step"),
    help=tr("train.step_help"),
    disabled=status in (JobStatus.WAITING, JobStatus.RUNNING)
    or (not paused and configs is None)
    or (paused and not mine),
    key="train_step",
    width="stretch",
):
    if paused:
        job.step_once()
        st.rerun()
    elif (started := start_or_refuse(text, *configs, paused=True, steps=1)) is not None:
        ss[K_JOB] = started
        st.rerun()
# Stop and Reset end this session's view of a run; a run others follow goes on for them (leave_job).
if c[3].button(tr("train.stop"), disabled=status not in ACTIVE, key="train_stop", width="stretch"):
    leave_job(job, keep_view=True)
    st.rerun()
if c[4].button(
    tr("train.reset"), help=tr("train.reset_help"), disabled=job is None, key="train_reset", width="stretch"
):
    leave_job(job, keep_view=False)
    st.rerun()
if messages:  # Train is off: why, next to it (the messages above may be off screen)
    one = len(messages) == 1
    st.caption(tr("train.start_off", error=messages[0]) if one else tr("train.start_off_many", n=len(messages)))
show_notice()

# A run that ended joins the session's runs (its curve can be overlaid on later ones).
runs = ss.setdefault("train_runs", [])
if job is not None and not job.active and not any(r.job_id == job.job_id for r in runs):
    runs.append(record_of(job, (runs[-1].number + 1) if runs else 1))
    del runs[:-MAX_RUNS]
polling = status in (JobStatus.WAITING, JobStatus.RUNNING)


@st.fragment(run_every=POLL_SECONDS if polling else None)
def live_progress() -> None:
    """Progress and the loss chart, redrawn from the job; the job's thread never touches Streamlit."""
    p = show_progress(ss.get(K_JOB), ss.get("train_runs", []))
    if (p is not None and p.status in (JobStatus.WAITING, JobStatus.RUNNING)) != polling:
        st.rerun()  # started or ended since the page was drawn: redraw the controls and the banner


st.markdown(tr("train.loss_formula"))
live_progress()
if job is not None and job.from_cache:
    if st.button(
        tr("train.train_again"), help=tr("train.train_again_help"), icon=":material/replay:", key="train_again"
    ):
        if (started := start_or_refuse(job.text, job.gpt_cfg, job.train_cfg, fresh=True)) is not None:
            ss[K_JOB] = started
            started.wait_first_step(FIRST_POINT_WAIT)
            st.rerun()

# ---------------------------------------------------------------- the session's runs, side by side
if runs:
    st.subheader(tr("train.runs_header"))
    st.caption(tr("train.runs_help"))
    labels = run_labels([r.settings for r in runs], [r.number for r in runs])
    yes, no = tr("train.yes"), tr("train.no")
    # What a student compares comes first, the number and the match pinned: all four fit a phone's
    # width without scrolling sideways; the settings that tell the runs apart and the figures follow.
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

# ---------------------------------------------------------------- checkpoints (safetensors, never pickle)
checkpoints(job, runs)
if preparing:  # last: the page is drawn before the first check (tinygpt.ui.choice.model_banner.until_default_model)
    until_default_model()
