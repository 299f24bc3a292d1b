"""Which model the Predict and Attention pages show, and links that carry it.

One control (``model_choice``, shared by both pages, so the choice follows the student) chooses
the textbook example, the context example or the session's own model (offered once the session
has one: trained, loaded from a file or opened from a link). The choice is kept in the URL:

- ``model=textbook|context|own``; ``own`` in a session without a model of its own shows the
  textbook example and says so;
- ``train=v1;…;text=…`` (``tinygpt.links``) beside ``model=own``: the settings of that model.
  Opening such a link takes the model from the server's shelf or trains it as a job (one training
  for equal requests: sessions opening the same link while it trains watch that one run), with
  its progress and place in line, and then shows the page's view. Settings that are refused get
  a message naming the value and what is accepted; the page works on with the textbook example.

:func:`resolve_link` reads the link before each page runs (``tinygpt.ui.navigation.run_app``);
:func:`choose_model` draws the control and returns the model (``model_banner(choose=…)``);
:func:`class_link` draws "link for my class" in the sidebar of every page;
:func:`offer_context_example` is the button that switches to the context example.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

import streamlit as st

from tinygpt.classroom import PRIVATE_PARAMS, ascii_query
from tinygpt.config import ConfigError
from tinygpt.examples import EXAMPLES
from tinygpt.jobs import JobRefusedError, JobStatus, ModelKey, model_key
from tinygpt.links import decode_train, encode_train, reproducible_settings
from tinygpt.params import read_choice
from tinygpt.record import ModelRecord, StopReason
from tinygpt.ui import models, url
from tinygpt.ui.attention.data import reliance
from tinygpt.ui.common import resend
from tinygpt.ui.i18n import error_text, md_escape, tr
from tinygpt.ui.jobs import MAX_CONCURRENT_JOBS, POLL_SECONDS, start_job
from tinygpt.ui.lesson import lesson, visible
from tinygpt.ui.lesson_builder import builder_link
from tinygpt.ui.models import K_CHOICE, current_model, example_model, session_token, set_choice, set_own_model
from tinygpt.ui.navigation import PROJECTOR_PAGE, TEACHER_PAGE
from tinygpt.why import suggested_window

#: The choices, in the control's order: the page opens where attention decides (the context
#: example); "own" is offered only when the session has a model of its own.
CHOICES: tuple[str, ...] = ("context", "textbook", "own")
#: The choice of a session's first visit.
FIRST_CHOICE = "context"
_LINK_JOB = "_link_job_id"
#: The choice the pages showed last: what a control that comes back without a value shows.
_SHOWN = "_model_shown"
_MESSAGES = "_link_messages"
#: The uid of the session's own model when a link named it (a teacher's model, not the student's).
_FROM_LINK = "_own_from_link"
FROM_TEACHER = "_own_from_teacher"  # the uid of the own model when the class's teacher leads with it


# ---------------------------------------------------------------- reading a link (before the page runs)


def _read_model(raw: str, notes: list[str]) -> dict:
    choice = read_choice(raw, "model", {c: c for c in CHOICES})
    set_choice(str(choice))
    return {}


def _write_model(ss) -> str | None:
    return ss.get(K_CHOICE)


def _read_train(raw: str, notes: list[str]) -> dict:
    open_train_link(raw)
    return {}


def _write_train(ss) -> str | None:
    own = ss.get(models.K_OWN)
    settings = reproducible_settings(own) if own is not None and ss.get(K_CHOICE) == "own" else None
    return encode_train(*settings) if settings is not None else None


#: The model in the URL, on every page that shows one: ``model=`` (the choice) and, for an own
#: model that training reproduces, ``train=`` (its settings).
MODEL_PARAMS = (
    url.Param("model", _read_model, _write_model, "link.bad_model"),
    url.Param("train", _read_train, _write_train),
)


def resolve_link() -> None:
    """Apply the URL's ``model=`` and ``train=`` when they are new to this session (a link was
    opened or changed), and adopt the model of a link's finished training. Cheap when nothing changed."""
    for message in url.load("model", MODEL_PARAMS):
        _say(message)
    adopt_link_job()


def _say(message: str) -> None:
    st.session_state.setdefault(_MESSAGES, []).append(message)


def open_train_link(spec: str) -> None:
    """Take the model of a ``train=`` link from the shelf, or start (or join) its training."""
    ss = st.session_state
    try:
        text, gpt_cfg, train_cfg = decode_train(spec)
    except ConfigError as exc:
        _say(tr("link.bad", error=error_text(exc).rstrip(".。")))
        set_choice("textbook")
        return
    key = model_key(text, gpt_cfg, train_cfg)
    for name, ex in EXAMPLES.items():  # an example's settings: the example itself
        if model_key(ex.text, ex.gpt, ex.train) == key:
            set_choice(name)
            return
    own = ss.get(models.K_OWN)
    if own is not None and key_of(own) == key:
        set_choice("own")
        return
    job = ss.get(models.K_JOB)
    if job is not None and job.active and model_key(job.text, job.gpt_cfg, job.train_cfg) != key:
        _say(tr("link.busy"))
        return
    try:
        job = start_job(text, gpt_cfg, train_cfg)
    except JobRefusedError as exc:  # memory or the line is full: the textbook example meanwhile
        _say(tr("link.failed", reason=error_text(exc)))
        set_choice("textbook")
        return
    ss[models.K_JOB], ss[_LINK_JOB] = job, job.job_id
    set_choice("own")


def key_of(tm: ModelRecord) -> ModelKey | None:
    """The shelf's key of ``tm``'s settings (``tinygpt.jobs.model_key``), or None when training cannot rebuild it."""
    settings = reproducible_settings(tm)
    return model_key(*settings) if settings is not None else None


def adopt_link_job() -> None:
    """A link's training that ended: its model becomes the session's (even one whose loss rose:
    it is the model the link names), or a message and the textbook example if it left none."""
    ss = st.session_state
    job = ss.get(models.K_JOB)
    if ss.get(_LINK_JOB) is None or job is None or job.job_id != ss[_LINK_JOB] or job.active:
        return
    del ss[_LINK_JOB]
    if job.status == JobStatus.DONE:
        set_own_model(job.result)
        ss[_FROM_LINK] = job.result.uid
    else:
        reason = error_text(job.error) if job.error is not None else tr(f"train.reason.{StopReason.STOPPED}")
        _say(tr("link.failed", reason=reason))
        set_choice("textbook")


def pending_link_job():
    """The training job of an opened link that has not ended, or None."""
    job = st.session_state.get(models.K_JOB)
    if job is not None and job.active and job.job_id == st.session_state.get(_LINK_JOB):
        return job
    return None


# ---------------------------------------------------------------- the control and the model it chooses


def choose_model() -> tuple[ModelRecord, str]:
    """Draw the model choice and return (the chosen model, its choice: context / textbook / own).

    While an opened link's model trains, draws its progress instead and stops the page (it reruns
    by itself when the model is ready). Keeps ``model=``/``train=`` in the URL.
    """
    ss = st.session_state
    show_messages()
    if pending_link_job() is not None:
        _link_progress()
        st.stop()
    own, has_own = current_model(wait=False)
    if ss.get(K_CHOICE) not in CHOICES:  # the first visit, or the control's state was lost
        set_choice(ss.get(_SHOWN, first_choice()))
    if ss[K_CHOICE] == "own" and not has_own:
        st.info(tr("model.own_missing"))
        set_choice("textbook")
    options = CHOICES if has_own else CHOICES[:2]
    labels = {c: tr(f"model.choice.{own_kind(own) if c == 'own' else c}") for c in CHOICES}  # not in format_func
    if visible(K_CHOICE):
        resend(K_CHOICE)  # drawn on another page than last time: the browser shows the kept choice again
        st.segmented_control(
            tr("model.choice"),
            options,
            format_func=labels.get,
            required=True,
            key=K_CHOICE,
            persist_state="session",
            label_visibility="collapsed",
        )
    choice = ss[K_CHOICE] if ss.get(K_CHOICE) in options else ss.get(_SHOWN, FIRST_CHOICE)
    ss[_SHOWN] = choice
    tm = own if choice == "own" else example_model(choice)
    url.save("model", MODEL_PARAMS)
    return tm, choice


def first_choice() -> str:
    """The model a session's first visit shows: the context example, where attention decides,
    unless the link names a text (``text=``, ``prefix=``) that only the textbook example can read
    (a link made before the pages opened on the context example)."""
    linked = st.query_params.get("text") or st.query_params.get("prefix") or ""
    context, textbook = (set(EXAMPLES[name].text) for name in ("context", "textbook"))
    if linked and not set(linked) <= context and set(linked) <= textbook:
        return "textbook"
    return FIRST_CHOICE


def show_messages() -> None:
    """The messages of the last link opened (refused settings, a failed training), once."""
    for message in st.session_state.pop(_MESSAGES, []):
        st.warning(message)


@st.fragment(run_every=POLL_SECONDS)
def _link_progress() -> None:
    """The link's training as it goes (place in line, step, loss); reruns the page when it ends."""
    job = st.session_state.get(models.K_JOB)
    if job is None or not job.active or job.job_id != st.session_state.get(_LINK_JOB):
        st.rerun()
    p = job.progress()
    st.subheader(tr("link.training_header"))
    st.caption(tr("link.training_model", text=md_escape(job.text)))
    if p.status == JobStatus.WAITING:
        st.info(tr("link.waiting", place=p.place, slots=MAX_CONCURRENT_JOBS) if p.place else tr("link.starting"))
    elif p.status == JobStatus.PAUSED:
        st.info(tr("link.paused", step=len(p.losses)))
    else:
        loss = f"{p.losses[-1]:.3e}" if p.losses else "—"
        st.progress(
            min(len(p.losses) / p.epochs, 1.0), tr("link.running", step=len(p.losses), epochs=p.epochs, loss=loss)
        )
    if job.owner != session_token():
        st.caption(tr("link.shared"))


def settings_line(tm: ModelRecord) -> str:
    """How the model was trained (the causal mask included), in one line."""
    g, t = tm.gpt_cfg, tm.train_cfg
    loss = tm.losses[-1] if tm.losses else float("nan")
    return tr(
        "model.trained",
        d_model=g.d_model,
        n_layers=g.n_layers,
        n_heads=g.n_heads,
        steps=len(tm.losses),
        lr=f"{t.lr:g}",
        seed=t.seed,
        window=tm.window,
        loss=loss,
        mask=tr("model.mask_on" if t.causal_mask else "model.mask_off"),
    )


def own_kind(tm: ModelRecord | None) -> str:
    """What the session's own model ``tm`` is to the student: "teacher" when the class's teacher
    leads with it, "link" when a link named it, else "own" (trained or loaded by the student)."""
    if tm is not None and st.session_state.get(FROM_TEACHER) == tm.uid:
        return "teacher"
    return "link" if tm is not None and st.session_state.get(_FROM_LINK) == tm.uid else "own"


def describe(tm: ModelRecord, choice: str) -> str:
    """The banner's line: which model and its text (how it was trained is :func:`settings_line`)."""
    kind = own_kind(tm) if choice == "own" else choice
    g = tm.gpt_cfg
    size = tr("model.size", d_model=g.d_model, n_layers=g.n_layers, n_heads=g.n_heads)
    return tr(f"model.banner.{kind}", text=md_escape(tm.text), trained=settings_line(tm), size=size)


def reliance_line(tm: ModelRecord) -> str:
    """Does the model rely on attention? Uniform attention in every layer against its own, on its
    training windows: "changes k of N training predictions", and at k = 0 why."""
    r = reliance(tm)
    if r.changed:
        return tr("model.relies", k=r.changed, n=r.total, L=tm.gpt_cfg.n_layers)
    window = suggested_window(tm.text, tm.gpt_cfg.max_len)
    if window is None:
        return tr("model.relies_none_text", n=r.total, L=tm.gpt_cfg.n_layers)
    return tr("model.relies_none_window", n=r.total, window=tm.window, suggest=window, L=tm.gpt_cfg.n_layers)


def banner(tm: ModelRecord, choice: str) -> None:
    """Which model the page uses and its text, whether it relies on attention, and (behind the
    help icon) how it was trained."""
    st.caption(f"{describe(tm, choice)} {reliance_line(tm)}", help=f"{tr('model.choice_help')}\n\n{settings_line(tm)}")


def offer_context_example(key: str = "model_offer_context", help: str | None = None) -> bool:
    """A button that shows the context example on the Predict and Attention pages; True when it
    was pressed, and the caller reruns the whole page (a fragment's rerun would not redraw the
    model choice)."""
    return st.button(
        tr("model.offer_context"),
        icon=":material/swap_horiz:",
        on_click=set_choice,
        args=("context",),
        key=key,
        help=help,
        type="primary",
    )


# ---------------------------------------------------------------- the link for the class


def base_url(page_paths: Iterable[str]) -> str:
    """The app's address as the browser sees it (``st.context.url``, else the Host header), ending in "/".

    A page's own path (one of ``page_paths``) at its end is dropped.
    """
    parts = urlsplit(st.context.url or "")
    scheme, netloc, path = parts.scheme or "http", parts.netloc, parts.path
    if not netloc:
        netloc = (st.context.headers or {}).get("Host") or "localhost:8501"
    segments = [s for s in path.split("/") if s]
    if segments and segments[-1] in set(page_paths):
        segments.pop()
    return f"{scheme}://{netloc}/" + "".join(f"{s}/" for s in segments)


def class_link_url(url_path: str, page_paths: Iterable[str]) -> tuple[str | None, str]:
    """(the link that opens this page with this session's model and view, or None; what it says).

    The view is the page's query parameters as they are now; the model is the session's choice
    (an example by name, an own model by its settings). None with the reason when the own model
    cannot be rebuilt by training (a checkpoint file, a run ended at a non-finite loss).
    """
    ss = st.session_state
    choice = ss.get(K_CHOICE, FIRST_CHOICE)
    own = ss.get(models.K_OWN)
    params: dict[str, str] = {}
    if choice == "own" and own is not None:
        settings = reproducible_settings(own)
        if settings is None:
            reason = "link.no_link_file" if own.init_seed is None else "link.no_link_run"
            return None, tr(reason)
        params = {"model": "own", "train": encode_train(*settings)}
        note = tr("link.note_own", text=md_escape(own.text))
    else:
        choice = choice if choice in EXAMPLES else "textbook"
        params = {"model": choice}
        note = tr("link.note_example", name=tr(f"model.choice.{choice}"))
    params.update({k: v for k, v in st.query_params.items() if k not in ("model", "train") and k not in PRIVATE_PARAMS})
    return base_url(page_paths) + url_path + "?" + query_string(params), note


def query_string(params: dict[str, str]) -> str:
    """``k=v&…`` in ASCII only (``tinygpt.classroom.ascii_query``): chat apps cut a link at 你好 or "，"."""
    return ascii_query(params)


#: The key of the "link for my class" popover that reruns when it opens (:func:`class_link`).
K_CLASS_LINK = "class_link"


def class_link(url_path: str, page_paths: Iterable[str], fresh: bool = False) -> None:
    """ "Link for my class": a popover with the link (copy button) to this page, model and view.

    ``fresh``: opening the popover reruns the page, so its link holds the view as the URL stands
    at that moment. The Attention page's step and switches rerun only their own fragments, which
    write the URL but do not redraw the sidebar. (A fragment of its own in the sidebar would rerun
    less, but Streamlit's frontend can then fail with "Cannot set a node at a delta path" and
    leave a blank page when the main area changes shape, e.g. on the Theory page's sections.)
    Only one fresh popover per script run (it has a widget key).
    """
    if url_path in (TEACHER_PAGE[3], PROJECTOR_PAGE[3]):  # the teacher's page has its own links (teacher_view)
        return
    if lesson() is not None:  # students in a lesson: a teacher's tool would only puzzle them
        return
    _class_link_popover(url_path, page_paths, K_CLASS_LINK if fresh else None)


def _class_link_popover(url_path: str, page_paths: Iterable[str], key: str | None) -> None:
    with st.popover(
        tr("link.button"),
        icon=":material/share:",
        width="stretch",
        key=key,
        on_change="ignore" if key is None else "rerun",
    ):
        st.caption(tr("link.intro"))
        url, note = class_link_url(url_path, page_paths)
        if url is None:
            st.info(note)
        else:
            st.code(url, language=None, wrap_lines=True)
            st.caption(note)
        builder_link(url_path, list(page_paths))  # the lesson builder: short link, QR code, a class
