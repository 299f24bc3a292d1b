"""Train page: hyperparameters, Train / Stop, live loss chart."""

import pandas as pd
import streamlit as st

from tinygpt.charts import loss_chart
from tinygpt.config import DEFAULT_GPT, DEFAULT_TRAIN, MAX_TEXT_LEN, SEED_TEXT, ConfigError, GPTConfig, TrainConfig
from tinygpt.ui.common import model_banner, show_error
from tinygpt.ui.i18n import tr
from tinygpt.ui.jobs import job_queue, start_job
from tinygpt.ui.models import set_own_model
from tinygpt.vocab import CharVocab

st.title(tr("train.title"))
st.markdown(tr("train.intro"))
model_banner()

text = st.text_input(tr("train.text"), SEED_TEXT, max_chars=MAX_TEXT_LEN, help=tr("train.text_help", max=MAX_TEXT_LEN), key="train_text")
left, right = st.columns(2)
with left:
    st.subheader(tr("train.model_header"))
    d_model = st.select_slider(tr("train.d_model"), [16, 32, 64, 128, 256, 512], value=DEFAULT_GPT.d_model, key="train_d_model")
    heads = [h for h in (1, 2, 4, 8, 16) if d_model % h == 0]
    n_heads = st.select_slider(tr("train.n_heads"), heads, value=min(DEFAULT_GPT.n_heads, heads[-1]), help=tr("train.n_heads_help"), key="train_n_heads")
    n_layers = st.slider(tr("train.n_layers"), 1, 8, DEFAULT_GPT.n_layers, key="train_n_layers")
    d_ff = st.select_slider(tr("train.d_ff"), [32, 64, 128, 256, 512, 1024, 2048], value=DEFAULT_GPT.d_ff, key="train_d_ff")
    max_len = st.number_input(tr("train.max_len"), 4, 256, DEFAULT_GPT.max_len, key="train_max_len")
with right:
    st.subheader(tr("train.optim_header"))
    lr = st.select_slider(tr("train.lr"), [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0], value=DEFAULT_TRAIN.lr, format_func=lambda v: f"{v:g}", key="train_lr")
    epochs = st.number_input(tr("train.epochs"), 1, 5000, DEFAULT_TRAIN.epochs, key="train_epochs")
    seed = st.number_input(tr("train.seed"), 0, 2**31 - 1, DEFAULT_TRAIN.seed, key="train_seed")
    early = st.select_slider(tr("train.early_stop"), [0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2], value=DEFAULT_TRAIN.early_stop_loss, format_func=lambda v: f"{v:g}", help=tr("train.early_stop_help"), key="train_early_stop")

configs = None
try:
    vocab = CharVocab.from_text(text)
    gpt_cfg = GPTConfig(vocab_size=len(vocab), max_len=int(max_len), d_model=d_model, n_heads=n_heads, n_layers=n_layers, d_ff=d_ff)
    train_cfg = TrainConfig(lr=lr, epochs=int(epochs), seed=int(seed), early_stop_loss=early)
    configs = (gpt_cfg, train_cfg)
    st.caption(tr("train.params", n=gpt_cfg.n_parameters(), d_head=gpt_cfg.d_head))
except ConfigError as exc:
    show_error(exc)
except ValueError:
    st.error(tr("err.empty_text"))

job = st.session_state.get("job")
b1, b2 = st.columns(2)
if b1.button(tr("train.start"), type="primary", disabled=configs is None or (job is not None and job.active), key="train_start"):
    job = st.session_state["job"] = start_job(text, *configs)
    st.rerun()
if b2.button(tr("train.stop"), disabled=job is None or not job.active, key="train_stop"):
    job.stop()


@st.fragment(run_every=0.5 if job is not None and job.active else None)
def live_progress() -> None:
    """Redraws progress and the loss chart from the job; the job's thread never touches Streamlit."""
    job = st.session_state.get("job")
    if job is None:
        return
    status, losses = job.snapshot()
    epochs = job.train_cfg.epochs
    if status == "waiting":
        st.info(tr("train.waiting", place=job_queue().place(id(job))))
    elif status == "running" and losses:
        st.progress(min(len(losses) / epochs, 1.0), tr("train.running", step=len(losses), epochs=epochs, loss=losses[-1]))
    if losses:
        history = pd.DataFrame({"step": range(1, len(losses) + 1), "loss": losses})
        st.altair_chart(loss_chart(history, title=tr("train.chart_title"), x_title=tr("train.axis_step"), y_title=tr("train.axis_loss")), width="stretch")
    if status == "done":
        tm = job.result
        if st.session_state.get("own_model") is not tm:
            set_own_model(tm)
        st.success(tr("train.done", steps=len(tm.losses), loss=tm.losses[-1], seconds=tm.seconds, reason=tr(f"train.reason.{tm.stop_reason}")))
    elif status == "stopped":
        st.warning(tr("train.stopped", steps=len(losses)))
    elif status == "error":
        exc = job.error
        if hasattr(exc, "step"):
            st.error(tr("train.non_finite", step=exc.step, loss=exc.loss, lr=exc.lr, suggest=exc.lr / 10))
        else:
            show_error(exc)
    if not job.active and st.session_state.get("_polling"):
        st.session_state["_polling"] = False
        st.rerun()
    st.session_state["_polling"] = job.active


live_progress()
