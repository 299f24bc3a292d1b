"""The Theory page's state: its sections, and its URL.

The controls' keys, defaults and URL rows are the page's table (``tinygpt.ui.theory_table``). The
URL (``tinygpt.ui.url``) keeps the open section (``section=``) and every slider and switch the
student moved away from its default (``a1=``, ``tau=``, ``mask=``, …), so a reload shows the same example.
A link from an Attention step (``concept=<id>&step=<step id>``) opens the concept's section once,
says which step it came from and scrolls to the concept; it stays in the URL while that section is
open. A refused value gets the message every page gives (``tinygpt.ui.url.refused``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from tinygpt.attention import STEP_IDS
from tinygpt.explanations.theory import CONCEPT_IDS, concept_anchor
from tinygpt.numbers import read_choice
from tinygpt.ui import url
from tinygpt.ui.controls import put_defaults, url_rows
from tinygpt.ui.lesson import lesson
from tinygpt.ui.theory_table import PAGE, SECTION_CONTROLS, TH_SECTION, THEORY

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
_CONCEPT, _FROM_STEP = "_theory_concept", "_theory_from_step"  # the link's concept and step (no widget)
SCROLL = "_theory_scroll"  # the anchor to scroll to once, on this run


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
    st.session_state[SCROLL] = "theory-sections"


def arrival() -> tuple[str, str | None] | None:
    """(concept, step) of the link from an Attention step while its section is open, else None."""
    ss = st.session_state
    cid = ss.get(_CONCEPT)
    if cid is None or SECTION_OF[cid] != ss.get(TH_SECTION):
        ss.pop(_CONCEPT, None)  # the student opened another section: the link is done with
        return None
    return cid, ss.get(_FROM_STEP)


def _read_concept(raw: str, notes: list[str]) -> dict[str, Any]:
    cid = str(read_choice(raw, "concept", {c: c for c in CONCEPT_IDS}))
    return {_CONCEPT: cid, _FROM_STEP: None, TH_SECTION: SECTION_OF[cid], SCROLL: concept_anchor(cid)}


def _read_step(raw: str, notes: list[str]) -> dict[str, Any]:
    return {_FROM_STEP: str(read_choice(raw, "step", {s: s for s in STEP_IDS}))}


def _write_concept(ss: Mapping[str, Any]) -> str | None:
    cid = ss.get(_CONCEPT)
    return cid if cid is not None and SECTION_OF[cid] == ss.get(TH_SECTION) else None


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
    url.Param("step", _read_step, lambda ss: ss.get(_FROM_STEP) if _write_concept(ss) else None),
)


def save() -> None:
    """Write the view into the URL (after the widgets, and in each example's fragment)."""
    url.save(PAGE, URL_PARAMS)
