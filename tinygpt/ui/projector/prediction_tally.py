"""A class's predictions of a flip, per position, for the projector (and any teacher's view).

:func:`draw_prediction_tally` reads a class's answers and draws the latest prediction
(:func:`tinygpt.explanations.predictions.tallies`): for every position, how many students expected its
prediction to change, as a bar with the number, and whether it changed (▲ and a word, never colour
alone), then the same as a table; before a flip, how many students have marked positions so far.
Counts only: never a nickname or a token.
"""

from __future__ import annotations

import html

import streamlit as st

from tinygpt.classroom.store import StoreError
from tinygpt.config import ConfigError
from tinygpt.explanations.charts import CHANGED_COLOR, SAME_COLOR
from tinygpt.explanations.predictions import PredictionTally, tallies
from tinygpt.ui.frame.class_store import class_store, problem_text
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.tables import show_table, text_table

CHANGED = "▲"
#: The tallest bar, in rem (the projector's type is large).
BAR_REM = 6.0
_CSS = f"""<style>
.tg-tally {{ display: flex; flex-wrap: wrap; gap: 6px; align-items: flex-end; font-size: 1.6rem; }}
.tg-tally .col {{ display: flex; flex-direction: column; align-items: center; min-width: 2.6em; }}
.tg-tally .bar {{ width: 1.6em; background: {SAME_COLOR}; border-radius: 3px 3px 0 0; }}
.tg-tally .col.changed .bar {{ background: {CHANGED_COLOR}; }}
.tg-tally .n {{ font-weight: 700; }}
.tg-tally .pos {{ font-size: 1.1rem; }}
.tg-tally .ch {{ font-size: 1rem; color: #8a5a00; height: 1.6em; line-height: 1.6em; }}
</style>"""


def latest(code: str) -> PredictionTally | None:
    """The tally of the latest prediction of class ``code``, None when there is none.
    Raises StoreError or ConfigError when the store cannot be reached."""
    return latest_with_marks(code)[0]


def latest_with_marks(code: str) -> tuple[PredictionTally | None, int]:
    """The latest prediction's tally of class ``code`` (None when there is none), and how many students
    have marked positions for the next flip since (marks made after that prediction's first answer).
    Counts only. Raises StoreError or ConfigError when the store cannot be reached."""
    store = class_store()
    records = {s.question_id: s.question for s in store.summary(code)}
    answers = store.answers(code)
    found = tallies(answers, records)
    tally = found[-1] if found else None
    since = min((a.at for a in answers if tally is not None and a.question_id == tally.question_id), default=0.0)
    return tally, store.marked(code, since)


def tally_html(tally: PredictionTally) -> str:
    """The tally as columns: the count and a bar of that height, the position, ▲ and "changed"
    where it changed; each column's label says it in words."""
    most = max(tally.predicted, default=0) or 1
    parts = []
    for label, n, changed in zip(tally.labels, tally.predicted, tally.changed):
        aria = tr("tally.aria", pos=label, n=n, changed=tr("tally.changed" if changed else "tally.same"))
        height = BAR_REM * n / most
        mark = f"{CHANGED} {tr('tally.changed')}" if changed else ""
        parts.append(
            f'<div class="col{" changed" if changed else ""}" role="listitem" aria-label="{html.escape(aria)}">'
            f'<span class="n">{n}</span><span class="bar" style="height:{height:.2f}rem"></span>'
            f'<span class="pos">{html.escape(label)}</span><span class="ch">{html.escape(mark)}</span></div>'
        )
    label = html.escape(tr("tally.label"))
    return f'{_CSS}<div class="tg-tally" role="list" aria-label="{label}">{"".join(parts)}</div>'


def draw_tally(tally: PredictionTally, key: str = "tally") -> None:
    """One prediction's tally: the summary line, the columns and the table (widget keys ``<key>_…``)."""
    changed = [label for label, c in zip(tally.labels, tally.changed) if c]
    st.markdown(
        tr(
            "tally.summary",
            students=tally.students,
            nothing=tally.nothing,
            changed=", ".join(changed) or tr("tally.changed_none"),
        )
    )
    st.html(tally_html(tally))
    show_table(
        text_table(
            {
                tr("tally.col.pos"): list(tally.labels),
                tr("tally.col.predicted"): list(tally.predicted),
                tr("tally.col.changed"): [f"{CHANGED} {tr('tally.changed')}" if c else "" for c in tally.changed],
            }
        ),
        hide_index=True,
        key=f"{key}_table",
    )


def draw_prediction_tally(code: str, key: str = "tally", reveal: bool = True) -> bool:
    """The projector's section: the header and the latest prediction's tally of class ``code``;
    True when there was one to draw. ``reveal=False`` shows only how many predicted (the spread
    waits until the teacher reveals it). A store that cannot be reached is said, never raised."""
    st.subheader(tr("tally.header"), anchor=False)
    try:
        tally, marked = latest_with_marks(code)
    except (StoreError, ConfigError) as exc:
        st.error(tr("teacher.not_recording", reason=problem_text(exc)), icon=":material/cloud_off:")
        return False
    if marked:  # marks come in before the flip: counted as they arrive, scored after it
        st.markdown(tr("tally.marked", n=marked))
    if tally is None:
        if not marked:
            st.info(tr("tally.none_yet"))
        return False
    if reveal:
        draw_tally(tally, key)
    else:
        st.markdown(tr("tally.hidden", students=tally.students))
    return True
