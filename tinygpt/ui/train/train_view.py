"""The Train page's helpers: where a newcomer starts, the form's values of a loaded model, its run
record, the choices' lists, and saving and loading a model
(checkpoints). Whether a trained model needs attention: ``tinygpt.ui.train.train_reliance``."""

from __future__ import annotations

import streamlit as st

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.formatting import shown_text
from tinygpt.training import checkpoint
from tinygpt.training.jobs import JobStatus, RunRecord, TrainingJob, greedy_continuation, settings_of
from tinygpt.training.record import ModelRecord
from tinygpt.ui.frame import url
from tinygpt.ui.frame.language import error_text, tr
from tinygpt.ui.frame.student_state import class_session
from tinygpt.ui.shared.models import K_JOB, K_OWN, current_model, set_own_model
from tinygpt.ui.train.train_form import FORM_FIELDS
from tinygpt.ui.train.train_session import train_session
from tinygpt.ui.train.train_words import setting_text
from tinygpt.ui.train.training_jobs import MAX_RUNS
from tinygpt.ui.train.uploads import read_upload, upload_key
from tinygpt.ui.views.lesson import LESSON_CONTROLS, lesson, page_shown, visible, who_flips
from tinygpt.ui.views.train_table import (
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
    T_SEED,
    T_TEXT,
    T_UPLOAD,
    T_WINDOW,
)

#: The start box's links in a lesson: page -> (i18n key of its label without a number, its icon).
PATH_LINKS: dict[str, tuple[str, str]] = {
    "predict": ("train.path_predict", ":material/keyboard_tab:"),
    "attention": ("train.path_attention", ":material/grid_on:"),
    "theory": ("train.path_theory", ":material/functions:"),
}
#: The numbers of a lesson's pages, as the start box writes them.
CIRCLED = "①②③④⑤⑥"


def start_here() -> None:
    """What the app teaches and where to start, one click to each step: watch the model predict,
    flip the mask and see what changes, then read why (the landing page's first box). A student
    with answers already (a returning one) is not asked whether this is the first visit."""
    back = bool(class_session().answers)  # answers came back: "welcome back" is said, not "new here?"
    flips = who_flips() == "student"  # else the lesson or the teacher sets the switches: no "flip" asked for
    current = lesson()
    if current is not None and current.pages:  # a lesson: only its own pages, numbered in its order
        lesson_path(current.pages, flips)
        return
    with st.container(border=True, key="train_start_here"):
        if flips:
            st.markdown(tr("train.start_back" if back else "train.start_here"))
        else:
            st.markdown(tr("train.start_back_locked" if back else "train.start_here_locked"))
        with st.container(horizontal=True, gap="small"):
            for page, key, icon in (
                ("predict", "train.start_predict", ":material/keyboard_tab:"),
                (
                    "attention",
                    "train.start_attention" if flips else "train.start_attention_locked",
                    ":material/grid_on:",
                ),
                ("theory", "train.start_theory", ":material/functions:"),
            ):
                if page_shown(page):
                    st.page_link(f"pages/{page}.py", label=tr(key), icon=icon)


def lesson_path(pages: tuple[str, ...], flips: bool) -> None:
    """The start box of a lesson listing ``pages`` (URL paths, in the app's order, this page among
    them): the lesson's other pages, numbered as the lesson goes; nothing when it has no other page."""
    others = [p for p in pages if p in PATH_LINKS]
    if not others:
        return
    with st.container(border=True, key="train_start_here"):
        st.markdown(tr("train.start_lesson", n=len(others)))
        with st.container(horizontal=True, gap="small"):
            for page in others:
                key, icon = PATH_LINKS[page]
                key = key if flips or page != "attention" else "train.path_attention_locked"
                number = CIRCLED[pages.index(page)] if pages.index(page) < len(CIRCLED) else ""
                st.page_link(f"pages/{page}.py", label=f"{number} {tr(key)}".strip(), icon=icon)


def form_locked() -> bool:
    """True when the page draws none of the Train form's controls (a lesson hides them all): the
    student trains the model as the lesson set it, and the page says so."""
    return not any(visible(k) for k in LESSON_CONTROLS if k.startswith("train_"))


def lesson_settings() -> str:
    """The form's settings in words ("d_model 512; n_heads 8; …"), for a page that draws none of them."""
    ss = st.session_state
    return "; ".join(setting_text(name, ss[key]) for key, name in FORM_FIELDS.items() if key in ss)


def options_with(options: list, value: object) -> list:
    """``options``, plus ``value`` in sorted place when the list lacks it (e.g. a loaded checkpoint's d_model 1024)."""
    return options if value in options else sorted([*options, value])


def form_values(record: ModelRecord) -> dict[str, object]:
    """The Train form's widget values (session keys) that reproduce ``record``'s settings."""
    return settings_values(record.text, record.gpt_cfg, record.train_cfg)


def settings_values(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> dict[str, object]:
    """The Train form's widget values (session keys) for these settings (whole numbers as the text boxes hold them)."""
    g, c = gpt_cfg, train_cfg
    return {
        T_TEXT: text,
        T_WINDOW: str(c.window or 0),
        T_D_MODEL: g.d_model,
        T_N_HEADS: g.n_heads,
        T_N_LAYERS: g.n_layers,
        T_D_FF: g.d_ff,
        T_MAX_LEN: str(g.max_len),
        T_NORM: g.norm,
        T_POSITIONS: g.positions,
        T_LR: c.lr,
        T_EPOCHS: str(c.epochs),
        T_SEED: str(c.seed),
        T_EARLY_STOP: c.early_stop_loss,
        T_CAUSAL_MASK: c.causal_mask,
    }


def loaded_run(record: ModelRecord, number: int) -> RunRecord:
    """A loaded checkpoint as one of the session's runs: its settings, its loss curve and greedy check."""
    generation, expected = greedy_continuation(record)
    return RunRecord(
        number,
        f"file:{record.uid}",
        settings_of(record.text, record.gpt_cfg, record.train_cfg),
        tuple(record.losses),
        JobStatus.DONE,
        record.stop_reason,
        generation,
        expected,
        record.seconds,
    )


def checkpoints(job: TrainingJob | None, runs: list[RunRecord]) -> None:
    """The Train page's save and load: the session's model as a safetensors download, and an
    uploaded checkpoint (checked from its first bytes, never pickle) that becomes the session's
    model, fills the form with its settings and joins ``runs`` with its curve. A refused file
    gets a message naming it, in the user's language."""
    ss = st.session_state
    st.subheader(tr("train.ckpt_header"))
    own = ss.get(K_OWN)
    if own is not None and own.init_seed is None:  # a loaded file: the address cannot bring it back
        st.info(tr("train.session_note_file_kept" if url.peek("trained") else "train.session_note_file"))
    else:
        st.caption(tr("train.session_note"))
    record, _ = current_model(wait=False)  # None while the default model is still being trained
    st.download_button(
        tr("train.download"),
        data=(lambda: checkpoint.to_bytes(record)) if record is not None else b"",
        file_name=f"tinygpt-{record.uid[:8] if record is not None else 'default'}.safetensors",
        mime="application/octet-stream",
        help=tr("train.download_help") if record is not None else tr("model.preparing"),
        on_click="ignore",
        disabled=record is None,
        key="train_download",
    )
    upload_limit = f"{checkpoint.MAX_CHECKPOINT_BYTES / 2**20:.0f} MB"
    upload = None
    if visible(T_UPLOAD):  # a loaded model's settings would replace a lesson's locked ones
        upload = st.file_uploader(
            tr("train.upload"), help=tr("train.upload_help", limit=upload_limit), key=upload_key()
        )
        st.caption(tr("train.upload_caption", limit=upload_limit))
    if upload is not None:  # read once, then released: the uploader forgets it (read_upload)
        try:
            loaded = read_upload(upload)
            set_own_model(loaded)
            train_session().upload_message = (
                "success",
                tr("train.upload_ok", text=loaded.text, params=loaded.gpt_cfg.n_parameters(), steps=len(loaded.losses)),
            )
            # The form shows the loaded model's settings (applied before the widgets on the next run) and
            # the chart its curve, as one of the session's runs.
            train_session().loaded_form = form_values(loaded)
            ss.pop(T_PRESET, None)
            if job is not None and not job.active:
                ss.pop(K_JOB)
            if loaded.losses:
                runs.append(loaded_run(loaded, (runs[-1].number + 1) if runs else 1))
                del runs[:-MAX_RUNS]
        except Exception as exc:  # a message in the student's language, never a traceback
            train_session().upload_message = (
                "error",
                tr("train.upload_refused", name=shown_text(upload.name, 60), error=error_text(exc)),
            )
        st.rerun()
    if (upload_message := train_session().upload_message) is not None:
        kind, message = upload_message
        (st.success if kind == "success" else st.error)(message)
        if kind == "success" and record is not None and not record.losses:
            st.caption(tr("train.loaded_no_curve"))
