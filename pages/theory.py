"""Theory page: the vector mathematics of seed section 22.2.1, each idea with a live example."""

import streamlit as st

from tinygpt.attention import step_by_id
from tinygpt.ui.frame import url
from tinygpt.ui.frame.language import tr
from tinygpt.ui.navigation import ensure_entry_script
from tinygpt.ui.shared.common import scroll_to
from tinygpt.ui.theory import theory_state
from tinygpt.ui.theory.theory_state import SECTIONS, first_section
from tinygpt.ui.theory.theory_view import AXES, section_label, show_section
from tinygpt.ui.views.theory_table import TH_SECTION

ensure_entry_script()  # a deep link on a fresh server ran this file alone: go through streamlit_app.py


def arrival_note() -> None:
    """A link from an Attention step (``?concept=<id>&step=<step id>``): say which section explains
    the step and link back to it."""
    came = theory_state.arrival()
    if came is None or came[1] is None:
        return
    cid, sid = came
    step, name = step_by_id(sid), tr(f"step.{sid}.name")
    st.info(tr("theory.from_step", number=step.number, name=name, title=tr(f"theory.{cid}.title")))
    st.page_link(
        "pages/attention.py",
        label=tr("theory.back_link", number=step.number, name=name),
        icon=":material/arrow_back:",
        query_params={"step": sid, "part": "steps"},
    )


st.title(tr("theory.title"))
url.warn(url.load(theory_state.PAGE, theory_state.URL_PARAMS))  # a link's or a reload's view
theory_state.defaults()  # once: the widgets keep their values
arrival_note()
st.markdown(tr("theory.intro"))
labels = {sid: section_label(sid) for sid in SECTIONS}  # format_func must not read the session
st.html('<div id="theory-sections"></div>', width="content")
section = st.segmented_control(
    tr("theory.sections"),
    list(SECTIONS),
    format_func=labels.get,
    key=TH_SECTION,
    persist_state="session",
    required=True,
    width="stretch",
)
theory_state.save()
show_section(section or first_section(), {k: tr(v) for k, v in AXES.items()})  # only the open section is built
if (anchor := theory_state.theory_session().take_scroll()) is not None:
    scroll_to(anchor)
