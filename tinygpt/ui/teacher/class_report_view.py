"""The teacher's report "what the class learned": the concept check before and after, per idea.

One call in the teacher's view (:func:`section`): the table of :func:`tinygpt.classroom.report.report`
over the students who answered both times (their number n, the share right before and after, the
normalised gain, how many went wrong → right and right → wrong, who answered only once, the wrong
ideas still there), the per-student line (:func:`tinygpt.classroom.report.student_changes`) and who
took only one check, refreshed every few seconds, with Markdown and CSV downloads. Anonymous (counts
only) and computed from the store's answers whenever asked, so it lives no longer than they do.
"""

from __future__ import annotations

import streamlit as st

from tinygpt.classroom.report import COLUMNS, report, report_csv, report_markdown, report_rows, student_changes
from tinygpt.classroom.store import DEFAULT_ANSWER_DAYS, answer_days
from tinygpt.config import ConfigError
from tinygpt.explanations.concept_check import CONCEPTS
from tinygpt.explanations.misconceptions import Misconception
from tinygpt.ui.classwork.misconception_view import idea_name
from tinygpt.ui.frame.class_store import class_answers
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.tables import show_table, text_table

#: Seconds between two refreshes of the report.
REFRESH_SECONDS = 5


def _names() -> tuple[dict[str, str], dict[Misconception, str]]:
    """The ideas' and the misconceptions' names in the teacher's language."""
    concepts = {c: tr(f"check.concept.{c}") for c in CONCEPTS}
    ideas = {m: idea_name(m) for m in Misconception}
    return concepts, ideas


@st.fragment(run_every=REFRESH_SECONDS)
def section(code: str) -> None:
    """The report of class ``code`` with its downloads (see the module's docstring)."""
    st.subheader(tr("report.header"), anchor=False)
    st.caption(tr("report.how"))
    if (found := class_answers(code)) is None:
        return
    results = report(*found)
    if not any(r.answered for r in results):
        st.info(tr("report.none"))
        return
    concepts, ideas = _names()
    headers = [tr(f"report.col.{c}") for c in COLUMNS]
    rows = report_rows(results, concepts, ideas)
    changes = student_changes(found[0])
    who = [tr("report.paired", n=changes.paired, up=changes.up, same=changes.same, down=changes.down)]
    if changes.pre_only or changes.post_only:
        who.append(tr("report.unpaired", pre=changes.pre_only, post=changes.post_only))
    st.markdown(" ".join(who))
    show_table(text_table({h: [row[n] for row in rows] for n, h in enumerate(headers)}), hide_index=True)
    st.caption(tr("report.gain_help"))
    try:
        days = answer_days()
    except ConfigError:
        days = DEFAULT_ANSWER_DAYS
    notes = [tr("report.how"), *who, tr("report.gain_help"), tr("report.anonymous", days=days)]
    st.caption(notes[-1])
    left, right = st.columns(2)
    left.download_button(
        tr("report.markdown"),
        data=report_markdown(results, tr("report.title", code=code), notes, headers, concepts, ideas),
        file_name=f"class-{code}-report.md",
        mime="text/markdown",
        on_click="ignore",
        key="report_markdown",
        icon=":material/description:",
    )
    right.download_button(
        tr("report.csv"),
        data=report_csv(results, headers, concepts, ideas).encode("utf-8-sig"),  # a BOM: spreadsheets read UTF-8
        file_name=f"class-{code}-report.csv",
        mime="text/csv",
        on_click="ignore",
        key="report_csv",
        icon=":material/table:",
    )
