"""The teacher leads the class (sections of the teacher's view of a class, ``teacher_view``).

- :func:`lead`: "Students follow me" / "Let them explore", and the view students see while they
  follow: the page, the model (an example, or the model of the teacher's pages when training can
  rebuild it: ``tinygpt.ui.choice.led_model``), the text, the step, the Attention switches its table
  marks ``led`` (:func:`led_switches`: each drawn from its row), and the controls students may still
  use. Each change is written at once into the class's state (``tinygpt.classroom.period.write_led_state``),
  which every student's page reads every few seconds.
- The view is stored whole: each led page's complete view as the page's URL text (the model's
  defaults written out, the layer and head included) and the model's identity
  (``tinygpt.ui.attention.page_views``), so students and the teacher's question see the same head.
- One leader: the tab (or device) that wrote last leads (:func:`leads`) and sends a heartbeat every
  :data:`WATCH_SECONDS` while it is open; another tab of the teacher says so, writes nothing, and offers
  "Take the lead here"; it takes the lead by itself, and says so, once the leader has been silent
  longer than ``tinygpt.classroom.period.LEAD_EXPIRES_S`` (a reloaded page is a new tab).
- The question (vote, discuss, vote again) is ``tinygpt.ui.teacher.lead_question``.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import replace
from urllib.parse import parse_qsl

import streamlit as st

from tinygpt.classroom.class_links import ascii_query
from tinygpt.classroom.period import (
    LEAD_EXPIRES_S,
    LED_MODELS,
    LED_PAGES,
    LED_STEPS,
    OTHER,
    OWN,
    TOOK,
    ClassState,
    hold_lead,
    read_state,
    starting_state,
    view_query,
    write_led_state,
)
from tinygpt.classroom.store import ClassError, StoreError
from tinygpt.config import ConfigError
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention import page_views
from tinygpt.ui.attention.state import own_text
from tinygpt.ui.choice.led_model import led_model, model_identity, teacher_train
from tinygpt.ui.frame.app_url import base_url
from tinygpt.ui.frame.class_store import class_store, problem_text
from tinygpt.ui.frame.controls import Control, led_rows
from tinygpt.ui.frame.language import error_text, lang, listed, tr
from tinygpt.ui.frame.page_list import PAGES, TEACHER_PATH
from tinygpt.ui.frame.teacher_state import teacher_session
from tinygpt.ui.views import attention_table as table
from tinygpt.ui.views.lesson import LESSON_CONTROLS, parse_lesson
from tinygpt.ui.views.predict_table import P_PREFIX
from tinygpt.vocab import UnknownCharError

L_PAGE, L_MODEL, L_OPEN = "lead_page", "lead_model", "lead_open"
#: Seconds between two heartbeats of the leading tab (each checks that it still leads), and between two
#: checks, on another tab, whether the leader went silent.
WATCH_SECONDS = 3


def lead_key(key: str) -> str:
    """The lead form's widget key for the Attention page's control ``key`` (``attn_mask``: ``lead_mask``)."""
    return f"lead_{key.removeprefix('attn_')}"


def led_switches() -> list[Control]:
    """The Attention page's switches the lead form draws: the rows of its table marked ``led``
    (``tinygpt.ui.frame.controls.led_rows``), in the table's order."""
    return led_rows(table.ATTENTION)


def led_controls() -> tuple[str, ...]:
    """The Attention page's controls the lead form sets (its widget keys: :func:`lead_key`): the text,
    the step and the led switches."""
    return (table.K_TEXT, table.K_STEP, *(row.key for row in led_switches()))


def openable() -> tuple[str, ...]:
    """The controls a teacher may leave open to students while they follow."""
    return (*(row.key for row in led_switches()), table.K_STEP, table.K_TEXT, P_PREFIX)


def current_state(code: str) -> ClassState:
    """The class's stored state (before the teacher wrote any, where its lesson opens). StoreError when down."""
    stored = read_state(class_store(), code)
    if stored is not None:
        return stored
    info = class_store().get_class(code)
    return starting_state(info.lesson) if info is not None else ClassState()


def write_led(code: str, key: str, state: ClassState, take: bool = False) -> None:
    """Write ``state`` as this tab's (it leads from now); nothing when another tab leads, unless ``take``
    (``tinygpt.classroom.period.write_led_state``)."""
    try:
        written = write_led_state(class_store(), code, key, state, tab_id(), take=take)
    except (StoreError, ClassError, ConfigError) as exc:
        teacher_session().lead_problem = problem_text(exc)
        return
    if written is None:
        teacher_session().lead_problem = tr("period.other_tab")


def stored_values(stored: ClassState, record: ModelRecord) -> dict[str, object]:
    """The values of the stored Attention view for ``record`` (the model's defaults where it names nothing)."""
    return page_views.values("attention", record, stored.view("attention"))


def _widgets_state(stored: ClassState) -> ClassState:
    """``stored`` with the view the teacher's widgets set: each led page's complete view (the model's
    defaults where the teacher set nothing) and the model's identity; this tab leads."""
    ss = st.session_state
    model = ss.get(L_MODEL) or stored.model  # a segmented control clicked twice holds None
    train = (teacher_train(publish=True)[0] or (stored.train if stored.model == OWN else "")) if model == OWN else ""
    new = replace(
        stored,
        page=ss.get(L_PAGE) or stored.page,
        model=model if model != OWN or train else LED_MODELS[0],
        train=train,
        open_controls=tuple(ss.get(L_OPEN) or ()),
    )
    record = led_model(new)
    if record is None:  # the own model is not on this server: the views wait for it
        return new
    changes = {k: ss[lead_key(k)] for k in led_controls() if ss.get(lead_key(k)) is not None}
    text = str(changes.pop(table.K_TEXT, "") or "").strip() or own_text(record)
    attention = page_views.complete("attention", record, stored.view("attention"), **changes, **{table.K_TEXT: text})
    predict = page_views.complete("predict", record, stored.view("predict"), **{P_PREFIX: text})
    views = new.with_view("attention", attention).with_view("predict", predict)
    return replace(views, model_id=model_identity(record))


def tab_id() -> str:
    """This tab's id as the leader of a class (one per browser session: a tab, or a device)."""
    ts = teacher_session()
    if not ts.tab:
        ts.tab = secrets.token_hex(6)
    return ts.tab


def leads(stored: ClassState) -> bool:
    """True when this tab leads the class: it is the stored leader, or no tab leads yet."""
    return stored.leader in ("", tab_id())


def _publish(code: str, key: str, follow: bool | None = None) -> None:
    """Widget callback: write the view of the widgets (and ``follow`` when given) into the class's
    state while this tab leads (another tab's lead is taken only with "Take the lead here")."""
    try:
        stored = current_state(code)
    except (StoreError, ConfigError) as exc:
        teacher_session().lead_problem = problem_text(exc)
        return
    if not leads(stored):
        teacher_session().lead_loaded = None  # the widgets show the leading tab's view again
        return
    new = _widgets_state(stored)
    write_led(code, key, new if follow is None else replace(new, follow=follow))


def _take_lead(code: str, key: str) -> None:
    """Button callback: this tab leads; its widgets take the stored view first (what students see)."""
    try:
        stored = current_state(code)
    except (StoreError, ConfigError) as exc:
        teacher_session().lead_problem = problem_text(exc)
        return
    teacher_session().lead_loaded = None
    write_led(code, key, stored, take=True)


def _hold(code: str, key: str, used: bool = False) -> str:
    """This tab's heartbeat, or its taking the lead of a silent tab (``tinygpt.classroom.period.hold_lead``;
    ``used``: the page ran, so a waiting tab is the one to lead next);
    :data:`~tinygpt.classroom.period.TOOK` leaves the note "You lead the class from this tab" for the page."""
    held = hold_lead(class_store(), code, key, tab_id(), used=used)
    if held == TOOK:
        ts = teacher_session()
        ts.lead_loaded, ts.lead_note = None, True
    return held


@st.fragment(run_every=WATCH_SECONDS)
def _watch_lead(code: str, key: str, leading: bool) -> None:
    """Every few seconds: the leading tab's heartbeat, or another tab's look whether the leader went silent;
    the whole page runs again once this tab's lead changed, so it says so within a few seconds."""
    with contextlib.suppress(StoreError, ClassError, ConfigError):  # the next heartbeat tries again
        if (_hold(code, key) != OTHER) != leading:
            st.rerun(scope="app")


def _load(code: str, stored: ClassState) -> None:
    """Give the widgets the stored view once per class (the session keeps what the teacher sets)."""
    ss, ts = st.session_state, teacher_session()
    if ts.lead_loaded == code:
        return
    ts.lead_loaded = code
    ss[L_PAGE], ss[L_MODEL] = stored.page, stored.model
    ss[L_OPEN] = [k for k in stored.open_controls if k in openable()]
    record = led_model(stored)
    if record is None:
        return
    values = stored_values(stored, record)
    for k in led_controls():
        ss[lead_key(k)] = values[k]
    if values[table.K_TEXT] == own_text(record):  # the empty box is the model's own text
        ss[lead_key(table.K_TEXT)] = ""
    if ss[lead_key(table.K_STEP)] not in LED_STEPS:
        ss[lead_key(table.K_STEP)] = LED_STEPS[0]


def _lesson_pages(code: str) -> set[str]:
    """The pages the class's lesson lists (every page when it lists none, or cannot be read)."""
    every = {p[3] for p in PAGES}
    try:
        info = class_store().get_class(code)
    except (StoreError, ConfigError):
        return every
    if info is None:
        return every
    plan = parse_lesson(dict(parse_qsl(info.lesson)), [p[3] for p in PAGES])
    return every if plan is None else {p for p in every if plan.page_shown(p)}


def lead(code: str, key: str) -> None:
    """Lead the class: follow or explore, and the view students see while they follow."""

    st.subheader(tr("period.lead_header"), anchor=False)
    try:
        stored = current_state(code)
    except (StoreError, ConfigError) as exc:
        st.error(tr("teacher.not_recording", reason=problem_text(exc)), icon=":material/cloud_off:")
        return
    if stored.closed:  # closing the class ended its period: nobody follows, nothing is asked
        st.info(tr("period.closed_teacher"), icon=":material/lock:")
        return
    if not leads(stored):  # the leader may be gone (a reloaded page is a new tab): this tab leads then
        with contextlib.suppress(StoreError, ClassError, ConfigError):
            if _hold(code, key, used=True) == TOOK:
                stored = current_state(code)
    if not leads(stored):  # another tab or device leads: this one shows it and writes nothing
        teacher_session().lead_loaded = None
        st.warning(tr("period.other_tab"), icon=":material/devices:")
        st.button(
            tr("period.take_lead"),
            key="lead_take",
            type="primary",
            on_click=_take_lead,
            args=(code, key),
            icon=":material/co_present:",
        )
        st.caption(tr("period.lead_waits", seconds=f"{LEAD_EXPIRES_S:g}"))
        _watch_lead(code, key, leading=False)
        return
    _load(code, stored)
    _watch_lead(code, key, leading=True)
    if teacher_session().take_lead_note():
        st.success(tr("period.you_lead"), icon=":material/co_present:")
    else:
        st.caption(tr("period.this_tab_leads"))
    record = led_model(stored)
    if stored.model_id and record is not None and model_identity(record) != stored.model_id:
        st.warning(tr("period.model_changed"), icon=":material/update:")
    if (problem := teacher_session().take_lead_problem()) is not None:
        st.error(problem, icon=":material/cloud_off:")
    args = (code, key)
    with st.container(border=True, key="lead_box"):
        if stored.follow:
            st.success(tr("period.following"), icon=":material/co_present:")
        else:
            st.caption(tr("period.exploring"))
        switch, preview = st.columns(2, vertical_alignment="center")
        if stored.follow:
            switch.button(
                tr("period.explore"),
                key="lead_explore",
                on_click=_publish,
                args=(*args, False),
                icon=":material/explore:",
            )
        else:
            switch.button(
                tr("period.follow"),
                key="lead_follow",
                type="primary",
                on_click=_publish,
                args=(*args, True),
                icon=":material/co_present:",
            )
        with preview:
            _preview(stored)
        shown = _lesson_pages(code)
        pages = {p: tr(f"nav.{p}") for p in LED_PAGES if p in shown}
        if len(pages) < len(LED_PAGES):  # a student's page can only open pages the class's lesson lists
            left_out = [tr(f"nav.{p}") for p in LED_PAGES if p not in pages]
            st.caption(tr("period.pages_left_out", pages=listed(left_out), n=len(left_out)))
        own_train, no_own = teacher_train()
        models = {m: tr(f"model.choice.{m}") for m in LED_MODELS}
        if own_train is not None or stored.model == OWN:
            models[OWN] = tr("period.own_choice")
        steps = {
            s: tr("attn.input_nav") if s == "input" else f"{n} · {tr(f'step.{s}.name')}"
            for n, s in enumerate(LED_STEPS)
        }
        left, right = st.columns(2)
        if pages:
            if st.session_state.get(L_PAGE) not in pages:  # the state names a page the lesson does not list
                st.session_state[L_PAGE] = next(iter(pages))
            left.segmented_control(
                tr("period.page"), list(pages), format_func=pages.get, key=L_PAGE, on_change=_publish, args=args
            )
        right.segmented_control(
            tr("model.choice"), list(models), format_func=models.get, key=L_MODEL, on_change=_publish, args=args
        )
        if own_train is None:
            right.caption(no_own)
        words = {"help": tr("period.text_help"), "placeholder": tr("period.text_placeholder")}  # empty: own text
        left.text_input(
            tr("period.text"), key=lead_key(table.K_TEXT), on_change=_publish, args=args, max_chars=200, **words
        )
        right.selectbox(
            tr("attn.step"),
            list(steps),
            format_func=steps.get,
            key=lead_key(table.K_STEP),
            on_change=_publish,
            args=args,
        )
        _check_text(stored)
        _switch_widgets((left, right), args)
        controls = {k: tr(LESSON_CONTROLS[k][0], **LESSON_CONTROLS[k][1]) for k in openable()}
        st.multiselect(
            tr("period.open"),
            list(controls),
            format_func=controls.get,
            key=L_OPEN,
            help=tr("period.open_help"),
            on_change=_publish,
            args=args,
            placeholder=tr("period.open_none"),
            select_all=False,  # Streamlit's "Select all" is English only
        )


def _shown(option: object) -> str:
    """A slider's option as the students' pages write it: a number as ``{:g}`` (τ 1, not 1.0)."""
    return f"{option:g}" if isinstance(option, float) else str(option)


def _switch_widgets(columns: tuple, args: tuple[str, str]) -> None:
    """The led switches' widgets, each from its row (label, kind; key :func:`lead_key`): the toggles
    by turns in ``columns``, then the sliders over their ``options`` full width."""
    rows = [(row, row.switch) for row in led_switches() if row.switch is not None and row.label is not None]
    toggles = [(row, sw) for row, sw in rows if not sw.options]
    for n, (row, _) in enumerate(toggles):
        label = tr(row.label, **row.fields)
        columns[n % len(columns)].toggle(label, key=lead_key(row.key), on_change=_publish, args=args)
    for row, sw in rows:
        if sw.options:
            label = tr(row.label, **row.fields)
            st.select_slider(
                label, sw.options, format_func=_shown, key=lead_key(row.key), on_change=_publish, args=args
            )


def _preview(state: ClassState) -> None:
    """A link to the view students see, without the class (to show it on the projector)."""

    url = f"{base_url([p[3] for p in PAGES] + [TEACHER_PATH])}{state.page}?{ascii_query(view_query(state, lang()))}"
    st.link_button(tr("period.preview"), url, icon=":material/open_in_new:", help=tr("period.preview_help"))


def _check_text(state: ClassState) -> None:
    """A warning when the model students see cannot read the text (their pages would say so too)."""

    record = led_model(state)
    text = page_views.named("attention", record, state.view("attention")).get(table.K_TEXT) if record else None
    if text and record is not None:
        try:
            record.vocab.encode(text)
        except UnknownCharError as exc:
            st.warning(error_text(exc))
