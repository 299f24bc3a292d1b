"""The teacher leads the class (sections of the teacher's view of a class, ``teacher_view``).

- :func:`lead`: "Students follow me" / "Let them explore", and the view students see while they
  follow: the page, the model (an example, or the model of the teacher's pages when training can
  rebuild it: ``tinygpt.ui.choice.led_model``), the text, the step, the first switches of the Attention page, and
  the controls students may still use. Each change is written at once into the class's state
  (``tinygpt.classroom.period.write_state``), which every student's page reads every few seconds.
- :func:`question`: vote, discuss, vote again. The teacher asks a question computed from the
  model's own numbers (``tinygpt.explanations.exercises``) on the view students see; students answer without
  seeing anyone else's answer; the teacher sees the spread here, privately, refreshed every
  :data:`REFRESH_SECONDS`; between 30 % and 70 % right the app suggests that students discuss with
  a neighbour and answer again (round 2); "Reveal" shows the spread, the right answer and the
  model's numbers on the projector and on every student's page.
"""

from __future__ import annotations

import contextlib
from urllib.parse import parse_qsl

import streamlit as st

from tinygpt.attention import Switches
from tinygpt.classroom.class_links import ascii_query
from tinygpt.classroom.period import (
    LED_MODELS,
    LED_PAGES,
    LED_STEPS,
    OWN,
    ClassState,
    read_state,
    starting_state,
    suggest_discussion,
    tally,
    view_query,
    write_state,
)
from tinygpt.classroom.store import ClassError, StoreError
from tinygpt.config import ConfigError
from tinygpt.explanations.charts import position_labels
from tinygpt.explanations.exercises import STEP_QUESTIONS, Question, QuestionKind, question_for
from tinygpt.formatting import number
from tinygpt.ui.attention.state import TEMPERATURES, opening_head, own_text
from tinygpt.ui.choice.led_model import led_model, teacher_train
from tinygpt.ui.frame.app_url import base_url
from tinygpt.ui.frame.class_store import class_store, problem_text
from tinygpt.ui.frame.language import error_text, lang, listed, tr
from tinygpt.ui.frame.page_list import PAGES, TEACHER_PATH
from tinygpt.ui.frame.teacher_state import teacher_session
from tinygpt.ui.projector.votes import (
    compare_line,
    draw_spread,
    question_prompt,
    question_reason,
    right_labels,
    warn_all_right,
)
from tinygpt.ui.shared.attention_data import what_if
from tinygpt.ui.shared.models import attention_trace
from tinygpt.ui.views.attention_table import K_MASK, K_STEP, K_TAU, K_TEXT, K_UNIFORM
from tinygpt.ui.views.lesson import LESSON_CONTROLS, parse_lesson
from tinygpt.ui.views.predict_table import P_PREFIX
from tinygpt.vocab import UnknownCharError

#: Seconds between two refreshes of the open question's answers on the teacher's view.
REFRESH_SECONDS = 2
#: The controls a teacher may leave open to students while they follow.
OPENABLE: tuple[str, ...] = (K_MASK, K_UNIFORM, K_TAU, K_STEP, K_TEXT, P_PREFIX)
#: The questions a teacher can ask the class (those of the Attention page's steps).
KINDS: tuple[QuestionKind, ...] = (
    QuestionKind.ARGMAX_KEY,
    QuestionKind.MASKED_CELLS,
    QuestionKind.ROW_SUM,
    QuestionKind.HEAD_OFF,
)
K_PAGE, K_MODEL, K_TEXT, K_STEP = "lead_page", "lead_model", "lead_text", "lead_step"
K_MASK, K_UNIFORM, K_TAU, K_OPEN = "lead_mask", "lead_uniform", "lead_tau", "lead_open"
K_KIND, K_ROW = "lead_kind", "lead_row"


def _state(code: str) -> ClassState:
    """The class's stored state (before the teacher wrote any, where its lesson opens). StoreError when down."""
    stored = read_state(class_store(), code)
    if stored is not None:
        return stored
    info = class_store().get_class(code)
    return starting_state(info.lesson) if info is not None else ClassState()


def _write(code: str, key: str, state: ClassState) -> None:
    try:
        write_state(class_store(), code, key, state)
    except (StoreError, ClassError, ConfigError) as exc:
        teacher_session().lead_problem = problem_text(exc)


def _widgets_state(stored: ClassState) -> ClassState:
    """``stored`` with the view the teacher's widgets set."""
    from dataclasses import replace

    ss = st.session_state
    model = ss.get(K_MODEL) or stored.model  # a segmented control clicked twice holds None
    train = (teacher_train(publish=True)[0] or (stored.train if stored.model == OWN else "")) if model == OWN else ""
    return replace(
        stored,
        page=ss.get(K_PAGE) or stored.page,
        model=model if model != OWN or train else LED_MODELS[0],
        train=train,
        text=(ss.get(K_TEXT) or "").strip(),
        step=ss.get(K_STEP) or stored.step,
        mask=bool(ss[K_MASK]),
        uniform=bool(ss[K_UNIFORM]),
        tau=float(ss[K_TAU]),
        open_controls=tuple(ss.get(K_OPEN) or ()),
    )


def _publish(code: str, key: str, follow: bool | None = None) -> None:
    """Widget callback: write the view of the widgets (and ``follow`` when given) into the class's state."""
    from dataclasses import replace

    try:
        stored = _state(code)
    except (StoreError, ConfigError) as exc:
        teacher_session().lead_problem = problem_text(exc)
        return
    new = _widgets_state(stored)
    _write(code, key, new if follow is None else replace(new, follow=follow))


def _load(code: str, stored: ClassState) -> None:
    """Give the widgets the stored view once per class (the session keeps what the teacher sets)."""

    ss, ts = st.session_state, teacher_session()
    if ts.lead_loaded == code:
        return
    ts.lead_loaded = code
    ss[K_PAGE], ss[K_MODEL], ss[K_TEXT], ss[K_STEP] = stored.page, stored.model, stored.text, stored.step
    ss[K_MASK], ss[K_UNIFORM] = stored.mask, stored.uniform
    ss[K_TAU] = min(TEMPERATURES, key=lambda t: abs(t - stored.tau))
    ss[K_OPEN] = [k for k in stored.open_controls if k in OPENABLE]


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
        stored = _state(code)
    except (StoreError, ConfigError) as exc:
        st.error(tr("teacher.not_recording", reason=problem_text(exc)), icon=":material/cloud_off:")
        return
    if stored.closed:  # closing the class ended its period: nobody follows, nothing is asked
        st.info(tr("period.closed_teacher"), icon=":material/lock:")
        return
    _load(code, stored)
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
            if st.session_state.get(K_PAGE) not in pages:  # the state names a page the lesson does not list
                st.session_state[K_PAGE] = next(iter(pages))
            left.segmented_control(
                tr("period.page"), list(pages), format_func=pages.get, key=K_PAGE, on_change=_publish, args=args
            )
        right.segmented_control(
            tr("model.choice"), list(models), format_func=models.get, key=K_MODEL, on_change=_publish, args=args
        )
        if own_train is None:
            right.caption(no_own)
        words = {"help": tr("period.text_help"), "placeholder": tr("period.text_placeholder")}  # empty: own text
        left.text_input(tr("period.text"), key=K_TEXT, on_change=_publish, args=args, max_chars=200, **words)
        right.selectbox(tr("attn.step"), list(steps), format_func=steps.get, key=K_STEP, on_change=_publish, args=args)
        _check_text(stored)
        left.toggle(tr("attn.mask"), key=K_MASK, on_change=_publish, args=args)
        right.toggle(tr("attn.uniform"), key=K_UNIFORM, on_change=_publish, args=args)
        st.select_slider(tr("attn.temperature"), TEMPERATURES, key=K_TAU, on_change=_publish, args=args)
        controls = {k: tr(LESSON_CONTROLS[k][0], **LESSON_CONTROLS[k][1]) for k in OPENABLE}
        st.multiselect(
            tr("period.open"),
            list(controls),
            format_func=controls.get,
            key=K_OPEN,
            help=tr("period.open_help"),
            on_change=_publish,
            args=args,
            placeholder=tr("period.open_none"),
            select_all=False,  # Streamlit's "Select all" is English only
        )


def _preview(state: ClassState) -> None:
    """A link to the view students see, without the class (to show it on the projector)."""

    url = f"{base_url([p[3] for p in PAGES] + [TEACHER_PATH])}{state.page}?{ascii_query(view_query(state, lang()))}"
    st.link_button(tr("period.preview"), url, icon=":material/open_in_new:", help=tr("period.preview_help"))


def _check_text(state: ClassState) -> None:
    """A warning when the model students see cannot read the text (their pages would say so too)."""

    if state.text and (record := led_model(state)) is not None:
        try:
            record.vocab.encode(state.text)
        except UnknownCharError as exc:
            st.warning(error_text(exc))


def _step_for(kind: QuestionKind, step: str) -> str:
    """The step whose question ``kind`` is: ``step`` when it asks it, else the first step that does."""
    if kind in STEP_QUESTIONS.get(step, ()):
        return step
    return next(s for s, kinds in STEP_QUESTIONS.items() if kind in kinds)


def make_question(state: ClassState, kind: QuestionKind, row: int) -> tuple[Question, str]:
    """(the question ``kind`` about query row ``row`` of the head the students' steps show in layer 1
    (``attention.state.opening_head``), the text it is about),
    computed from the model, text and switches students see. Raises UnknownCharError for a text
    the model cannot read, IndexError for a row outside it, KeyError while the model is not here."""

    record = led_model(state)
    if record is None:
        raise KeyError(state.train)
    text = (state.text or own_text(record))[: record.gpt_cfg.max_len]
    uniform = tuple(range(record.gpt_cfg.n_heads)) if state.uniform else ()
    trace = what_if(
        attention_trace(record, text, 0), Switches(causal_mask=state.mask, temperature=state.tau, uniform_heads=uniform)
    )
    idx = record.vocab.encode(text)[None]  # (1, T)
    head = opening_head(record)  # the head whose steps students see (the page opens on it)
    return question_for(_step_for(kind, state.step), trace, head, row, kind, record.model, idx), text


def _ask(code: str, key: str) -> None:
    ss = st.session_state
    try:
        state = _state(code)
        if led_model(state) is None:  # the own model is not on this server yet
            teacher_session().lead_problem = tr("period.own_missing")
            return
        q, _ = make_question(state, QuestionKind(ss[K_KIND]), int(ss.get(K_ROW) or 0))
    except (StoreError, ConfigError) as exc:
        teacher_session().lead_problem = problem_text(exc)
        return
    except (KeyError, IndexError, ValueError) as exc:
        teacher_session().lead_problem = error_text(exc)
        return
    _write(code, key, state.with_question(q))


def _set(code: str, key: str, **changes: object) -> None:
    from dataclasses import replace

    try:
        state = _state(code)
    except (StoreError, ConfigError) as exc:
        teacher_session().lead_problem = problem_text(exc)
        return
    _write(code, key, state.without_question() if changes.pop("close", False) else replace(state, **changes))


def question(code: str, key: str) -> None:
    """The class's question: the form that asks one, or the open question (:func:`open_question`)."""
    try:
        state = _state(code)
    except (StoreError, ConfigError) as exc:
        st.error(tr("teacher.not_recording", reason=problem_text(exc)), icon=":material/cloud_off:")
        return
    if state.closed:  # a closed class asks nothing (the class's section says so)
        return
    st.subheader(tr("period.question_section"), anchor=False)
    if state.question is None:  # drawn outside the refreshing part: a pick is never redrawn under the mouse
        if (problem := teacher_session().take_lead_problem()) is not None:
            st.error(problem)
        _ask_form(state, (code, key))
        return
    open_question(code, key)


@st.fragment(run_every=REFRESH_SECONDS)
def open_question(code: str, key: str) -> None:
    """The open question's answers (private to the teacher), refreshed; round 2, reveal, close."""
    try:
        state = _state(code)
        votes = tally(class_store(), code, state.question_id) if state.question else None
    except (StoreError, ConfigError) as exc:
        st.error(tr("teacher.not_recording", reason=problem_text(exc)), icon=":material/cloud_off:")
        return
    if state.question is None or votes is None:  # closed (in another tab): the form to ask the next one
        st.rerun(scope="app")
    if (problem := teacher_session().take_lead_problem()) is not None:
        st.error(problem)
    args = (code, key)
    st.markdown(f"**{question_prompt(state.question)}**")
    now = votes.of(state.round)
    share = f"{100 * now.share_right:.0f}"
    st.markdown(tr("period.teacher_counts", round=state.round, answered=now.answered, right=now.right, share=share))
    draw_spread(state.question, now, state.round, key="lead_spread")
    if state.round == 2:
        st.caption(compare_line(votes))
    if not state.revealed:
        discuss = state.round == 1 and now.answered > 0 and suggest_discussion(now.share_right)
        if discuss:
            st.info(tr("period.suggest", share=share), icon=":material/forum:")
        cols = st.columns(2)
        if state.round == 1:
            cols[0].button(
                tr("period.round2"),
                key="lead_round2",
                type="primary" if discuss else "secondary",
                on_click=_set,
                args=args,
                kwargs={"round": 2},
                icon=":material/forum:",
            )
        cols[1].button(
            tr("period.reveal"),
            key="lead_reveal",
            on_click=_set,
            args=args,
            kwargs={"revealed": True},
            icon=":material/visibility:",
        )
    else:
        st.success(
            tr("period.revealed_teacher", answer=right_labels(state.question), reason=question_reason(state.question))
        )
        if st.button(tr("period.close"), key="lead_close", icon=":material/done:"):
            _set(code, key, close=True)
            st.rerun(scope="app")  # the form to ask the next question is outside this part


def _ask_form(state: ClassState, args: tuple[str, str]) -> None:
    """Choose a question about the view students see, and ask it."""

    record = led_model(state)
    if record is None:
        st.info(tr("period.own_missing"))
        return
    text = (state.text or own_text(record))[: record.gpt_cfg.max_len]
    kinds = {str(k): tr(f"period.kind.{k}") for k in KINDS}
    rows = dict(enumerate(position_labels(text)))
    st.session_state.setdefault(K_KIND, str(KINDS[0]))
    if st.session_state.get(K_ROW) not in rows:
        st.session_state[K_ROW] = max(rows) if rows else 0
    left, right = st.columns(2)
    left.selectbox(tr("period.kind"), list(kinds), format_func=kinds.get, key=K_KIND)
    if rows:
        right.selectbox(tr("period.row"), list(rows), format_func=rows.get, key=K_ROW)
    st.caption(tr("period.ask_help", text=text, head=number(opening_head(record))))
    with contextlib.suppress(KeyError, IndexError, ValueError):  # asking says why (_ask)
        ss = st.session_state
        warn_all_right(make_question(state, QuestionKind(ss[K_KIND]), int(ss.get(K_ROW) or 0))[0], state.uniform)
    st.button(tr("period.ask"), key="lead_ask", type="primary", on_click=_ask, args=args, icon=":material/how_to_vote:")
