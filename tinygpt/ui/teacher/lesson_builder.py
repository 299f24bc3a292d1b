"""The lesson builder: a teacher picks pages, controls, model, where the lesson opens, guess first
and whether to open a class; the result is a short ASCII link and a QR code for the projector.

It lives on the teacher's page (``pages/teacher.py``), reached from "Link for my class" by
:func:`builder_link`, which carries the page the teacher was on and its view. Controls are named
by their labels in the teacher's language (``tinygpt.ui.views.lesson.LESSON_CONTROLS``), not by widget
keys. The lesson's query is built by ``tinygpt.classroom.class_links.lesson_params`` in the old
``lesson=1&pages=…&show=…&guess=1`` syntax (old links keep working), written in ASCII only, and
stored as a short link (``/?s=Ab3xYz7``). When the store cannot be reached, the whole ASCII link
and its QR code are given instead (they work without the store), with the reason. What the builder
keeps that no widget owns lives in one :class:`BuilderSession` under one private key.
"""

from __future__ import annotations

import ipaddress
from collections.abc import MutableMapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import streamlit as st

from tinygpt.attention import STEP_IDS, step_by_id
from tinygpt.classroom.class_links import (
    MODEL_ID_PARAM,
    LessonPlan,
    ascii_query,
    lesson_params,
    query_with_class,
)
from tinygpt.classroom.class_links import (
    NOT_VIEW as LINK_NOT_VIEW,
)
from tinygpt.classroom.store import StoreError
from tinygpt.config import ConfigError
from tinygpt.examples import EXAMPLES
from tinygpt.explanations.exercises import STEP_QUESTIONS
from tinygpt.explanations.theory import CONCEPT_IDS
from tinygpt.formatting import shown_text
from tinygpt.training.links import encode_train, reproducible_settings
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention import page_views
from tinygpt.ui.choice.led_model import model_identity
from tinygpt.ui.classwork.class_guard import remember_key
from tinygpt.ui.frame import url
from tinygpt.ui.frame.app_url import base_url
from tinygpt.ui.frame.class_store import class_store, problem_text
from tinygpt.ui.frame.controls import K_MODEL, switched, view_values
from tinygpt.ui.frame.help import help_toggle
from tinygpt.ui.frame.language import lang, md_escape, tr
from tinygpt.ui.frame.page_list import TEACHER_PATH
from tinygpt.ui.frame.qr import qr_png, qr_svg
from tinygpt.ui.shared.models import K_OWN, example_model
from tinygpt.ui.views.attention_table import ATTENTION, K_CHECK, K_MARKS, K_STEP, K_TEXT
from tinygpt.ui.views.lesson import LESSON_CONTROLS, lesson
from tinygpt.ui.views.predict_table import P_PREFIX

#: Query parameters that are not the view of a page (the view is what a lesson opens on).
NOT_VIEW = set(LINK_NOT_VIEW) | {"guess"}
#: Pages whose controls a lesson can lock, by the prefix of their widget keys.
PAGE_PREFIX = {"train": "train_", "predict": "predict_", "attention": "attn_", "theory": "theory_"}
#: The model choice is a control of both the Predict and the Attention page.
MODEL_CONTROL = K_MODEL
TEACHER_FILE = "pages/teacher.py"


@dataclass(frozen=True)
class LessonLinks:
    """What the builder made: the link students open (short when the store took it), the whole
    ASCII link, the class (code and the teacher's key) if one was opened, and a note (why there
    is no short link or class)."""

    student_url: str
    long_url: str
    class_code: str | None = None
    teacher_key: str | None = None
    note: str = ""


@dataclass
class BuilderSession:
    """The lesson builder's values that no widget owns, as this browser session keeps them."""

    came_from: tuple[str, dict[str, str]] | None = None  # (the page the builder was opened from, its view)
    made: LessonLinks | None = None  # the links the builder made last


#: The one session key the lesson builder's own values live under.
K_BUILDER_SESSION = "_builder"


def builder_session(state: MutableMapping[str, Any] | None = None) -> BuilderSession:
    """This session's :class:`BuilderSession`, made on first use; ``state``: the session state to
    look in (default ``st.session_state``; a test passes its ``AppTest.session_state``)."""
    ss = st.session_state if state is None else state
    if K_BUILDER_SESSION not in ss:
        ss[K_BUILDER_SESSION] = BuilderSession()
    return ss[K_BUILDER_SESSION]


def page_controls(page: str, pages: tuple[str, ...]) -> list[str]:
    """The lockable controls of ``page`` (widget keys, in the app's order); the model choice goes
    with the first of Predict and Attention among ``pages``."""
    prefix = PAGE_PREFIX.get(page)
    if prefix is None:
        return []
    keys = [k for k in LESSON_CONTROLS if k.startswith(prefix)]
    first_model_page = next((p for p in pages if p in ("predict", "attention")), None)
    return [MODEL_CONTROL] + keys if page == first_model_page else keys


def control_labels() -> dict[str, str]:
    """{widget key: its label on the page, in the session's language}."""
    return {key: tr(label, **fields) for key, (label, fields) in LESSON_CONTROLS.items()}


def builder_link(url_path: str, page_paths: list[str]) -> None:
    """In "Link for my class": a link to the lesson builder, carrying this page and its view
    (not drawn inside a lesson, whose navigation has no teacher's page)."""
    if lesson() is not None or url_path == TEACHER_PATH:
        return
    view = {k: v for k, v in url.query().items() if k not in NOT_VIEW}
    st.page_link(
        TEACHER_FILE,
        label=tr("builder.open"),
        icon=":material/school:",
        query_params={"from": url_path, **view, "lang": lang()},
    )


def _came_from(page_paths: list[str]) -> tuple[str, dict[str, str]]:
    """(the page the builder was opened from, its view), read once from the URL."""
    session = builder_session()
    source = url.app_param("from")
    if source is not None and (session.came_from is None or session.came_from[0] != source):
        view = {k: v for k, v in url.query().items() if k not in NOT_VIEW}
        session.came_from = (source if source in page_paths else "attention", view)
    return session.came_from or ("attention", {})


def builder(page_paths: list[str], page_titles: dict[str, str]) -> None:
    """The lesson builder's form and, once made, the lesson's links and QR code."""
    ss = st.session_state
    source, view = _came_from(page_paths)
    st.subheader(tr("builder.title"), anchor=False)
    st.caption(tr("builder.intro"))
    ss.setdefault("builder_pages", [source])
    pages = st.multiselect(
        tr("builder.pages"),
        page_paths,
        format_func=page_titles.get,
        key="builder_pages",
        placeholder=tr("builder.pick"),
        select_all=False,  # Streamlit's "Select all" is English only
    )
    pages = tuple(p for p in page_paths if p in pages)
    lock_labels = {"all": tr("builder.lock.all"), "chosen": tr("builder.lock.chosen")}
    ss.setdefault("builder_lock", "chosen")
    lock = st.radio(
        tr("builder.lock"), list(lock_labels), format_func=lock_labels.get, key="builder_lock", horizontal=True
    )
    labels = control_labels()
    chosen: list[str] = []
    every: list[str] = []
    for page in pages:
        keys = page_controls(page, pages)
        every += keys
        if lock == "chosen" and keys:
            if page == "attention" and not STEP_QUESTIONS.get(view.get("step") or STEP_IDS[0]):
                # a view on a step that asks nothing: students may move to one that asks (guess first is on)
                ss.setdefault(f"builder_controls_{page}", [K_STEP])
            chosen += st.multiselect(
                tr("builder.controls", page=page_titles[page]),
                keys,
                format_func=labels.get,
                key=f"builder_controls_{page}",
                placeholder=tr("builder.none_picked"),
                select_all=False,  # Streamlit's "Select all" is English only
            )
    if lock == "chosen" and pages and not chosen:
        st.caption(tr("builder.locked_all"))
    model, train = _model_choice()
    if carried := view_settings(
        view, lesson_record(model, train, wait=False)
    ):  # what the lesson takes from the page the builder came from
        st.caption(tr("builder.view", settings=tr("common.clause_sep").join(carried)))
    step, concept = _start_choice(pages, view)
    ss.setdefault("builder_guess", True)  # a class sees its students' answers to the questions of guess first
    guess = help_toggle(tr("builder.guess"), tr("builder.guess_help"), key="builder_guess")
    ss.setdefault("builder_class", True)
    open_class = help_toggle(tr("builder.class"), tr("builder.class_help"), key="builder_class")
    if open_class and not guess:
        st.warning(tr("builder.class_without_guess"), icon=":material/help:")
    if open_class and lock == "chosen":
        chosen += [k for k in class_parts(pages) if k not in chosen]
    viewed = view.get("step") if view.get("step") in ("input", *STEP_IDS) else None
    opening = step or viewed or STEP_IDS[0]  # "" opens on the view's step, else step 1
    if guess and "attention" in pages and lock == "chosen" and K_STEP not in chosen:
        if not STEP_QUESTIONS.get(opening):  # students stay on a step that asks nothing
            name = tr("attn.input_nav") if opening == "input" else tr(f"step.{opening}.name")
            st.warning(tr("builder.guess_no_question", step=name), icon=":material/help:")
    start_view = dict(view) if source in pages else {}  # the view of the page the builder was opened from
    for name, value in (("step", step), ("concept", concept)):
        if value:
            start_view[name] = value
    plan = LessonPlan(
        pages=pages,
        controls=tuple(chosen) if lock == "chosen" else None,
        page_controls=tuple(every),
        model=model,
        train=train,
        view=start_view,
        guess=guess,
        lang=lang(),
    )
    if st.button(tr("builder.make"), type="primary", disabled=not pages, key="builder_make", icon=":material/link:"):
        plan = replace(plan, view=complete_view(plan.view, pages, lesson_record(model, train)))
        made = make_lesson(plan, open_class, page_paths)
        builder_session().made = made
        if made.class_code is not None:  # the teacher's view of the new class, on this page
            remember_key(made.class_code, made.teacher_key)  # the key stays out of the address
            url.put("class", made.class_code)
            st.rerun()
    if not pages:
        st.caption(tr("builder.no_pages"))
    made = builder_session().made
    if made is not None and made.class_code is None:
        show_links(made.student_url, made.long_url, made.note)


def class_parts(pages: tuple[str, ...]) -> list[str]:
    """The period's parts a lesson for a class shows unless the teacher turns them off (a toggle
    each, on by default): the concept check before and after (on Attention and Predict) and
    "Predict first" (Attention). Returns their control keys."""
    ss = st.session_state
    parts = []
    if "attention" in pages or "predict" in pages:
        ss.setdefault("builder_check", True)
        if help_toggle(tr("builder.with_check"), tr("builder.with_check_help"), key="builder_check"):
            parts.append(K_CHECK)
    if "attention" in pages:
        ss.setdefault("builder_marks", True)
        if help_toggle(tr("builder.with_marks"), tr("builder.with_marks_help"), key="builder_marks"):
            parts.append(K_MARKS)
    return parts


def view_settings(view: dict[str, str], record: ModelRecord | None) -> list[str]:
    """The settings of ``view`` (the query of the page the builder came from) a lesson keeps and a
    student would notice, in the teacher's language, as the pages' rows read them: the Attention
    switches away from the model ``record``'s own (none without a record), the texts."""
    text = ascii_query(view)
    named: list[str] = []
    texts = [page_views.named("predict", record, text).get(P_PREFIX)] if record is None else []
    if record is not None:
        values = page_views.named("attention", record, text)
        full = {**view_values(ATTENTION, record), **values}
        named += [row.switch.said(row.switch.of(row.key, full), full) for row in switched(ATTENTION, full, record)]
        texts = [values.get(K_TEXT), page_views.named("predict", record, text).get(P_PREFIX)]
    named += [tr("builder.view_text", text=md_escape(shown_text(t, 30))) for t in texts if t]
    return named


def lesson_record(model: str, train: str | None, wait: bool = True) -> ModelRecord | None:
    """The model a lesson is made with: an example (trained once here; None while it trains unless
    ``wait``), or the session's own model when ``train`` names it."""
    if model in EXAMPLES:
        return example_model(model, wait)
    own = st.session_state.get(K_OWN)
    return own if own is not None and train is not None else None


def complete_view(view: dict[str, str], pages: tuple[str, ...], record: ModelRecord | None) -> dict[str, str]:
    """``view`` with the Attention page's complete view for ``record`` (every row, the layer and head
    it opens on included) and the model's identity, so the lesson opens the same after an update."""
    if record is None or "attention" not in pages:
        return view
    full = dict(parse_qsl(page_views.complete("attention", record, ascii_query(view)), keep_blank_values=True))
    return {**view, **full, MODEL_ID_PARAM: model_identity(record)}


def _model_choice() -> tuple[str, str | None]:
    """The lesson's model (the session's choice by default, else the context example) and, for an own
    model, its ``train=``."""
    ss = st.session_state
    own = ss.get(K_OWN)
    settings = reproducible_settings(own) if own is not None else None
    options = list(EXAMPLES) + (["own"] if settings is not None else [])
    # the model the teacher's pages show, else the one a student's first visit shows (the context example)
    current = ss.get(K_MODEL) or "context"
    ss.setdefault("builder_model", current if current in options else "context")
    if ss["builder_model"] not in options:
        ss["builder_model"] = "context"
    names = {c: tr(f"model.choice.{c}") for c in options}
    model = st.segmented_control(
        tr("builder.model"), options, format_func=names.get, required=True, key="builder_model"
    )
    if own is not None and settings is None:
        st.caption(tr("builder.own_no_link"))
    return model, encode_train(*settings) if model == "own" and settings is not None else None


def _start_choice(pages: tuple[str, ...], view: dict[str, str]) -> tuple[str, str]:
    """Where the lesson opens: a step of Attention and a section of Theory ("" = as the view has it)."""
    ss = st.session_state
    step = concept = ""
    cols = st.columns(2)
    if "attention" in pages:
        options = ["", "input", *STEP_IDS]
        names = {"": tr("builder.step_first"), "input": tr("attn.input_nav")}
        names |= {s: tr("builder.step_name", number=step_by_id(s).number, name=tr(f"step.{s}.name")) for s in STEP_IDS}
        asking = next(s for s in STEP_IDS if STEP_QUESTIONS.get(s))  # guess first (on by default) asks here
        ss.setdefault("builder_step", view.get("step") if view.get("step") in options else asking)
        step = cols[0].selectbox(tr("builder.step"), options, format_func=names.get, key="builder_step")
    if "theory" in pages:
        options = ["", *CONCEPT_IDS]
        names = {"": tr("builder.concept_first")} | {c: tr(f"theory.{c}.title") for c in CONCEPT_IDS}
        concept = cols[1].selectbox(tr("builder.concept"), options, format_func=names.get, key="builder_concept")
    return step, concept


def make_lesson(plan: LessonPlan, open_class: bool, page_paths: list[str]) -> LessonLinks:
    """Store the lesson (and open its class): the links students and the teacher use. Without
    the store, the whole ASCII link and the reason."""
    base = base_url(page_paths + [TEACHER_PATH])
    query = ascii_query(lesson_params(plan))
    long_url = f"{base}?{query}"
    try:
        store = class_store()
        code = key = None
        if open_class:
            code, key = store.create_class(query)
            query = query_with_class(query, code)
            long_url = f"{base}?{query}"
        short = store.shorten(query)
    except (StoreError, ConfigError, ValueError) as exc:
        note = tr("builder.no_store" if open_class else "builder.no_short", reason=problem_text(exc))
        return LessonLinks(long_url, long_url, note=note)
    return LessonLinks(f"{base}?s={short}", long_url, code, key)


def show_links(student_url: str, long_url: str, note: str = "", key: str = "builder") -> None:
    """The students' link in large type with its QR code (for the projector), the whole link and a note."""
    left, right = st.columns([1, 2], vertical_alignment="center")
    with left:
        st.image(qr_png(student_url), alt=tr("builder.qr_alt", url=student_url), width=260)
        st.download_button(
            tr("builder.qr_svg"),
            data=qr_svg(student_url),
            file_name="lesson-qr.svg",
            mime="image/svg+xml",
            on_click="ignore",
            key=f"{key}_qr_svg",
            icon=":material/qr_code_2:",
        )
    with right:
        st.markdown(tr("builder.student_link"))
        st.subheader(student_url, anchor=False)  # large enough to read and type from the back of the room
        st.code(student_url, language=None, wrap_lines=True)
        if long_url != student_url:
            with st.expander(tr("builder.long_link")):
                st.code(long_url, language=None, wrap_lines=True)
        if note:
            st.warning(note, icon=":material/cloud_off:")
        if (host := local_host(student_url)) is not None:  # a projected QR code no phone can open
            st.warning(tr("builder.local_link", host=host), icon=":material/wifi_off:")


def local_host(url: str) -> str | None:
    """The host of ``url`` when it is this computer alone (localhost, 127.x.x.x, ::1, 0.0.0.0),
    which no other device can open; None for any other host."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return host
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    return host if address.is_loopback or address.is_unspecified else None
