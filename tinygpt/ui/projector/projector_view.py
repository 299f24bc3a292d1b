"""The projector's page: ``/projector?class=K7M2QP``, with no key in its address.

It shows what the whole room may see, sized for the back of the room: the class code and the QR
code of the students' link, the open question in large type, how many have answered, and, only
after the teacher reveals it, the spread of the answers, the right answer and the model's own
numbers; in round 2, how many changed to the right answer and how many away from it. It reads
aggregates only (``tinygpt.classroom.period.tally``): never a nickname or a token. Everything of the
class is one fragment (:func:`room`) that reads the class every :data:`REFRESH_SECONDS`
(``st.fragment(run_every=…)``): the page follows the teacher closing and reopening the class, the
question and the students' marks as they happen, without a reload and without running the whole
page again. Without a class in its address the page asks for the code in a box.
"""

from __future__ import annotations

import streamlit as st

from tinygpt.classroom.class_links import query_with_class
from tinygpt.classroom.period import read_state, tally
from tinygpt.classroom.store import StoreError, read_class_code
from tinygpt.classroom.store_values import CLASS_CODE_LEN
from tinygpt.config import ConfigError
from tinygpt.ui.classwork.class_guard import lookup_missed, lookup_wait_s
from tinygpt.ui.frame.app_url import base_url
from tinygpt.ui.frame.class_store import class_store, problem_text
from tinygpt.ui.frame.language import lang, md_escape, tr
from tinygpt.ui.frame.page_list import PAGES, PROJECTOR_PATH, TEACHER_PATH
from tinygpt.ui.frame.qr import qr_png
from tinygpt.ui.frame.url import app_param, put
from tinygpt.ui.projector.prediction_tally import draw_prediction_tally
from tinygpt.ui.projector.votes import compare_line, draw_spread, question_prompt, question_reason, right_labels

REFRESH_SECONDS = 2
#: Large type for the back of the room; smaller on a phone (the width decides).
STYLE = """<style>
.st-key-projector_code p { font-size: clamp(2.2rem, 7vw, 5rem); font-weight: 700; letter-spacing: .12em; margin: 0; }
.st-key-projector_code_small p { font-size: clamp(1.2rem, 2.4vw, 2rem); font-weight: 700; margin: 0; }
.st-key-projector_prompt p { font-size: clamp(1.5rem, 3.6vw, 3rem); line-height: 1.3; }
.st-key-projector_count p { font-size: clamp(1.25rem, 2.6vw, 2.2rem); }
.st-key-projector_question h1 { font-size: 1.5rem; padding: 0; }
.st-key-projector_reveal p { font-size: clamp(1.1rem, 2.2vw, 1.8rem); }
/* a projector's screen (1400 × 900): less padding and spacing, so a revealed round 2 fits without scrolling */
@media (min-width: 900px) and (min-height: 700px) {
  [data-testid="stMainBlockContainer"] { padding-top: 4rem; padding-bottom: 1rem; }
  .st-key-projector_main, .st-key-projector_predictions { gap: 0.5rem; }
  .st-key-projector_main .st-key-projector_count p { font-size: clamp(1.25rem, 2vw, 1.8rem); }
  .st-key-projector_main .st-key-projector_reveal p { font-size: clamp(1.1rem, 2vw, 1.6rem); }
}
</style>"""


def _student_url(code: str, lesson: str, page_paths: list[str]) -> str:
    """The students' link of the class: a short link when the store makes one, else the whole link."""

    base = base_url(page_paths + [TEACHER_PATH, PROJECTOR_PATH])
    query = query_with_class(lesson, code)
    try:
        return f"{base}?s={class_store().shorten(query)}"
    except (StoreError, ValueError):
        return f"{base}?{query}"


def projector_link(code: str, key: str) -> None:
    """On the teacher's view: the projector's link (no key in it), to open on the projector."""

    url = f"{base_url([p[3] for p in PAGES] + [TEACHER_PATH])}{PROJECTOR_PATH}?class={code}&lang={lang()}"
    with st.expander(tr("projector.link"), icon=":material/cast_for_education:"):
        st.caption(tr("projector.link_help"))
        st.code(url, language=None, wrap_lines=True)
        st.link_button(tr("projector.open"), url, icon=":material/open_in_new:")


def page(page_paths: list[str]) -> None:
    """The projector's page for ``class=`` (a box to type the code without one; a message for a bad
    code, an unknown class or a store that cannot be reached)."""

    st.html(STYLE)
    st.set_page_config(initial_sidebar_state="collapsed")  # the room sees the class, not the app's menu
    raw = app_param("class")
    if not raw:
        st.title(tr("projector.title"))
        st.info(tr("projector.no_class"), icon=":material/school:")
        _code_box()
        return
    if wait := lookup_wait_s():  # a class code's existence is told a few times a minute per client
        st.title(tr("projector.title"))
        st.error(tr("class.too_many", seconds=wait), icon=":material/lock:")
        return
    try:
        code = read_class_code(raw)
    except ConfigError as exc:
        st.title(tr("projector.title"))
        st.error(tr("projector.bad_code", value=md_escape(str(exc.value)), n=CLASS_CODE_LEN), icon=":material/school:")
        _code_box()
        return
    room(code, page_paths)


def _code_box() -> None:
    """A box to type a class code: the page then shows that class (``class=`` in its address)."""
    with st.form("projector_code_form", border=False):
        typed = st.text_input(tr("projector.type_code"), max_chars=CLASS_CODE_LEN + 4, key="projector_typed")
        if st.form_submit_button(tr("projector.show_class"), icon=":material/cast_for_education:"):
            put("class", (typed or "").strip().upper())
            st.rerun()


@st.fragment(run_every=REFRESH_SECONDS)
def room(code: str, page_paths: list[str]) -> None:
    """The class on the projector, read anew every few seconds: closed, unknown, or open with its
    code, link, QR code, question and predictions."""
    try:
        info = class_store().get_class(code)
    except (StoreError, ConfigError) as exc:
        st.title(tr("projector.title"))
        st.error(tr("teacher.store_down", reason=problem_text(exc)), icon=":material/cloud_off:")
        return
    if info is None:
        lookup_missed()
        st.title(tr("projector.title"))
        st.error(tr("projector.unknown", code=code), icon=":material/school:")
        return
    if not info.is_open:  # the room is not told to join a class that takes no answers
        st.title(tr("projector.title"))
        st.info(tr("projector.closed", code=code), icon=":material/lock:")
        return
    try:
        asking = (state := read_state(class_store(), code)) is not None and state.question is not None
    except (StoreError, ConfigError):
        asking = False  # said by the question's part below
    url = _student_url(code, info.lesson, page_paths)
    if asking:  # the question takes the screen; the code and the QR code stay in a narrow column beside it
        main, side = st.columns([5, 1])
        with side:
            st.caption(tr("projector.join"))
            with st.container(key="projector_code_small"):
                st.markdown(code)
            st.image(qr_png(url, scale=8), alt=tr("builder.qr_alt", url=url), width=140)
        with main, st.container(key="projector_main"):
            live(code)
    else:
        st.title(tr("projector.heading"))
        left, right = st.columns([3, 2], vertical_alignment="center")
        with left:
            st.caption(tr("projector.join"))
            with st.container(key="projector_code"):
                st.markdown(code)
            st.code(url, language=None, wrap_lines=True)
        right.image(qr_png(url, scale=8), alt=tr("builder.qr_alt", url=url), width=220)
        live(code)
    with st.container(key="projector_predictions"):
        predictions(code)


def live(code: str) -> None:
    """The open question, how many answered; the spread and the reason once revealed."""
    try:
        state = read_state(class_store(), code)
        votes = tally(class_store(), code, state.question_id) if state is not None and state.question else None
    except (StoreError, ConfigError) as exc:
        st.warning(tr("teacher.store_down", reason=problem_text(exc)), icon=":material/cloud_off:")
        return
    if state is None or state.question is None or votes is None:
        st.info(tr("projector.no_question"), icon=":material/hourglass_empty:")
        return
    with st.container(key="projector_question"):  # the page's one heading while a question takes the screen
        st.title(tr("period.question_header", round=state.round), anchor=False)
    with st.container(key="projector_prompt"):
        st.markdown(question_prompt(state.question))
    now = votes.of(state.round)
    with st.container(key="projector_count"):
        st.markdown(tr("projector.answered", n=now.answered, round=state.round))
        if state.round == 2:  # one line in this place whatever the state: a revealed page keeps no stale line here
            st.markdown(tr("projector.round2_revealed" if state.revealed else "projector.round2"))
    if not state.revealed:
        st.caption(tr("projector.hidden"))
        return
    with st.container(key="projector_reveal"):
        st.markdown(tr("projector.right", answer=right_labels(state.question), reason=question_reason(state.question)))
        if state.round == 2:
            st.markdown(compare_line(votes))
    if state.round == 2:  # both rounds side by side: a 1400×900 screen shows them without scrolling
        for column, rnd in zip(st.columns(2), (1, 2)):
            with column:
                draw_spread(state.question, votes.of(rnd), rnd, key="projector_spread", table=False)
    else:
        draw_spread(state.question, now, state.round, key="projector_spread")


def predictions(code: str) -> None:
    """The class's latest prediction of a switch (``tinygpt.ui.projector.prediction_tally``): per position, how
    many expected a change and whether it changed; only the count while the teacher's question is open
    and not yet revealed, so the room's answers do not lean on it."""
    try:
        state = read_state(class_store(), code)
    except (StoreError, ConfigError):
        state = None  # the question's part above says the store is down
    hidden = state is not None and state.question is not None and not state.revealed
    draw_prediction_tally(code, key="projector_tally", reveal=not hidden)
