"""The Theory page's state: its sections, its URL, and what it keeps that no widget owns.

The controls' keys, defaults and URL rows are the page's table (``tinygpt.ui.views.theory_table``). The
URL (``tinygpt.ui.frame.url``) keeps the open section (``section=``) and every slider and switch the
student moved away from its default (``a1=``, ``tau=``, ``mask=``, …), so a reload shows the same example.
A link from an Attention step (``concept=<id>&step=<step id>``) opens the concept's section once,
says which step it came from and scrolls to the concept; it stays in the URL while that section is
open. A refused value gets the message every page gives (``tinygpt.ui.frame.url.refused``). The link's
concept and step and the anchor to scroll to live in one :class:`TheorySession` under one private key.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from tinygpt.attention import STEP_IDS
from tinygpt.explanations.theory import CONCEPT_IDS, concept_anchor
from tinygpt.numbers import read_choice
from tinygpt.ui.frame import url
from tinygpt.ui.frame.controls import put_defaults, url_rows
from tinygpt.ui.views.lesson import lesson
from tinygpt.ui.views.theory_table import PAGE, SECTION_CONTROLS, TH_SECTION, THEORY

#: The page's sections, drawn one at a time (the student picks one above them): section id -> the
#: concepts it holds, in order. Only the open section's formulas, examples and charts are built and
#: sent, so the page opens with one section's drawing instead of all seven concepts'.
SECTIONS: dict[str, tuple[str, ...]] = {
    "definition": ("definition",),
    "vectors": ("vector", "operations"),
    "weighted_sum": ("weighted_sum",),
    "attention": ("qkv", "softmax", "matrix"),
    "practice": (),  # the exercise and the quiz
}
SECTION_OF: dict[str, str] = {cid: sid for sid, cids in SECTIONS.items() for cid in cids}


@dataclass
class TheorySession:
    """The Theory page's values that no widget owns, as this browser session keeps them."""

    concept: str | None = None  # the concept a link from an Attention step names (``concept=``)
    from_step: str | None = None  # the step id that link came from (``step=``; None: none)
    scroll: str | None = None  # the anchor to scroll to once, on this run

    def take_scroll(self) -> str | None:
        """:attr:`scroll`, once (cleared as it is read)."""
        anchor, self.scroll = self.scroll, None
        return anchor


#: The one session key the Theory page's own values live under.
K_THEORY_SESSION = "_theory"


def theory_session(state: MutableMapping[str, Any] | None = None) -> TheorySession:
    """This session's :class:`TheorySession`, made on first use; ``state``: the session state to
    look in (default ``st.session_state``; a test passes its ``AppTest.session_state``)."""
    ss = st.session_state if state is None else state
    if K_THEORY_SESSION not in ss:
        ss[K_THEORY_SESSION] = TheorySession()
    return ss[K_THEORY_SESSION]


def first_section() -> str:
    """The section a session opens with: the first holding a control a teacher's lesson link
    shows (``show=theory_tau`` opens the attention section), else the first section."""
    shown = lesson().show if lesson() is not None else frozenset()
    return next((sid for sid, keys in SECTION_CONTROLS.items() if shown & set(keys)), next(iter(SECTIONS)))


def defaults() -> None:
    """Every control's default, once (the widgets keep what the student set)."""
    put_defaults(THEORY, given={TH_SECTION: first_section()})


def open_section(sid: str) -> None:
    """Open section ``sid`` on the next run and scroll to the section chooser (the "next section"
    button at the foot of a section)."""
    st.session_state[TH_SECTION] = sid
    theory_session().scroll = "theory-sections"


def arrival() -> tuple[str, str | None] | None:
    """(concept, step) of the link from an Attention step while its section is open, else None."""
    session = theory_session()
    cid = session.concept
    if cid is None or SECTION_OF[cid] != st.session_state.get(TH_SECTION):
        session.concept = None  # the student opened another section: the link is done with
        return None
    return cid, session.from_step


def _read_concept(raw: str, notes: list[str]) -> dict[str, Any]:
    cid = str(read_choice(raw, "concept", {c: c for c in CONCEPT_IDS}))
    session = theory_session()
    session.concept, session.from_step, session.scroll = cid, None, concept_anchor(cid)
    return {TH_SECTION: SECTION_OF[cid]}


def _read_step(raw: str, notes: list[str]) -> dict[str, Any]:
    theory_session().from_step = str(read_choice(raw, "step", {s: s for s in STEP_IDS}))
    return {}


def _write_concept(ss: Mapping[str, Any]) -> str | None:
    session = ss.get(K_THEORY_SESSION)
    cid = session.concept if session is not None else None
    return cid if cid is not None and SECTION_OF[cid] == ss.get(TH_SECTION) else None


def _write_step(ss: Mapping[str, Any]) -> str | None:
    return ss[K_THEORY_SESSION].from_step if _write_concept(ss) else None


def _section(name: str):
    def read(raw: str, notes: list[str]) -> dict[str, Any]:
        return {TH_SECTION: read_choice(raw, name, {s: s for s in SECTIONS})}

    return read


#: The Theory page's query parameters. ``part=`` is read as ``section=`` (the word the Attention
#: page's links use for a part of a page) and written as ``section=``; the concept comes after
#: them: a link to a concept opens its section.
URL_PARAMS: tuple[url.Param, ...] = (
    url.Param(
        "section", _section("section"), lambda ss: None if ss.get(TH_SECTION) == first_section() else ss[TH_SECTION]
    ),
    url.Param("part", _section("part"), lambda ss: None),
    *url_rows(THEORY),
    url.Param("concept", _read_concept, _write_concept),
    url.Param("step", _read_step, _write_step),
)


def save() -> None:
    """Write the view into the URL (after the widgets, and in each example's fragment)."""
    url.save(PAGE, URL_PARAMS)
