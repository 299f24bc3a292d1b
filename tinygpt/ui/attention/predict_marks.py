"""Predict first, on the strip: the positions a student expects a switch to change, scored after the flip.

While the switches are the model's own attention, a multiselect under the strip takes the
positions the student expects to change (or "none will change"); the marks are kept in the
session (and, in a class, sent as they are made, so the projector counts who marked). Once a
switch differs from the model's own, the marks are scored against the strip's changed positions
(:func:`tinygpt.explanations.predictions.score_marks`): the counts of hits, misses and false
alarms, a row per position (symbol and words, never colour alone), and the missed positions named
in one line that points to their reasons: the effect's list of reasons right below gives each
once, the missed ones first and marked (``tinygpt.ui.attention.effect``). The prediction is
recorded once as an answer (``predict:<switch>:<layer>:<digest>``), so a class's teacher and
projector can count it. Back at the model's own attention, the marks are cleared for the next
prediction.
"""

from __future__ import annotations

import html

import streamlit as st

from tinygpt.attention import Switches
from tinygpt.explanations.exercises import NONE
from tinygpt.explanations.explain import PositionEffects
from tinygpt.explanations.predictions import Outcome, flipped, mark_ids, prediction_id, prediction_question, score_marks
from tinygpt.formatting import char_name
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention import state as s
from tinygpt.ui.attention.session import attention_session
from tinygpt.ui.classwork import misconception_view, student
from tinygpt.ui.frame.controls import SCORE
from tinygpt.ui.frame.language import listed, md_escape, tr
from tinygpt.ui.frame.student_state import class_session
from tinygpt.ui.frame.style import CHANGED_COLOR
from tinygpt.ui.views.attention_table import (
    K_MARKS,  # the multiselect of the positions expected to change (a lesson control)
)
from tinygpt.ui.views.lesson import lesson, visible

MARK, CHANGED = "●", "▲"
#: A changed position drawn as the effect's strip draws it; the result in words, small.
_CSS = f"""<style>
.tg-marks .col.flipped {{ background: {CHANGED_COLOR}33; outline: 1px solid {CHANGED_COLOR}; }}
.tg-marks .col .n {{ font-size: 0.7rem; }}
@media (max-width: 640px) {{ .tg-marks .col .n {{ font-size: 0.55rem; }} }}
</style>"""


def _char(c: str) -> str:
    return "␣" if c == " " else char_name(c)


def _labels(text: str) -> dict[str, str]:
    """{choice id: label}: the positions as the strip names them, then "none will change"."""
    return {str(k): f"{k} {_char(c)}" for k, c in enumerate(text)} | {NONE: tr("attn.marks.none")}


def _exclusive(round_of: str) -> None:
    """Multiselect callback: "none will change" and positions exclude each other; the one just
    picked wins (read against the marks before the change, whatever order the widget sends). In a
    class, the marks are sent at once so the projector counts who marked (``round_of``: the model,
    text and layer marked)."""
    ss = st.session_state
    marks = list(ss.get(K_MARKS) or [])
    added = set(marks) - set(attention_session().marks_before or [])
    if NONE in added:
        marks = [NONE]
    elif added and NONE in marks:
        marks = [m for m in marks if m != NONE]
    ss[K_MARKS] = attention_session().marks_before = marks
    student.marked(round_of, marks)


def made(text: str) -> bool:
    """True when the student marked positions of ``text`` (their score comes right under the strip)."""
    labels = _labels(text)
    return any(m in labels for m in st.session_state.get(K_MARKS) or [])


def false_alarms(text: str, fx: PositionEffects) -> tuple[int, ...]:
    """The positions the student marked whose prediction did not change under the switches (their
    false alarms), in text order; () without marks or while the model's own attention is shown."""
    labels = _labels(text)
    marked = {int(m) for m in st.session_state.get(K_MARKS) or [] if m in labels and m != NONE}
    changed = fx.changed.tolist()
    return tuple(i for i in sorted(marked) if i < len(changed) and not changed[i])


def section(record: ModelRecord, text: str, layer: int, sw: Switches, fx: PositionEffects) -> frozenset[int]:
    """Before a flip, the marks; after it, their score (see the module's docstring). Not drawn when
    a teacher's lesson link hides the marks (``attn_marks``); drawn while a teacher leads the class,
    which locks the view, not the student's own answers.

    Returns the positions the student missed (changed, not marked), whose reasons the caller lists
    first and marks; empty before a flip and without marks."""
    if (current := lesson()) is not None and not current.visible(K_MARKS):
        return frozenset()
    ss, mine = st.session_state, attention_session()
    labels = _labels(text)
    switch = flipped(s.own_switches(record), sw)
    if switch is None:
        scored, mine.marks_scored = mine.marks_scored, None
        if scored is not None:  # a new prediction for the next flip
            ss[K_MARKS] = []
        # written back on every run: the text may have changed, and the browser knows "none will
        # change" by its label, which the language changes (as common.resend does)
        ss[K_MARKS] = mine.marks_before = [m for m in ss.get(K_MARKS) or [] if m in labels]
        st.multiselect(
            tr("attn.marks.label"),
            list(labels),
            format_func=labels.get,
            key=K_MARKS,
            placeholder=tr("attn.marks.placeholder"),
            help=tr("attn.marks.help"),
            on_change=_exclusive,
            args=(f"{record.uid}\n{layer}\n{text}",),
            persist_state="session",
            select_all=False,  # "Select all" is Streamlit's English, and all positions is no prediction
        )
        return frozenset()
    marks = [m for m in ss.get(K_MARKS) or [] if m in labels]
    if not marks:
        if visible(s.K_RESET) and mine.marks_scored is None:
            st.caption(tr("attn.marks.not_made"))
        return frozenset()
    changed = [bool(c) for c in fx.changed.tolist()]
    positions = [int(m) for m in marks if m != NONE]
    score = score_marks(positions, changed)
    question = prediction_question(list(text), changed, switch, layer, layer == record.gpt_cfg.n_layers - 1)
    identity = prediction_id(question)
    if mine.marks_scored is None:
        _record(question, identity, mark_ids(positions))
        mine.marks_scored = identity
    with st.container(key="attn_marks_score"):
        st.caption(tr("attn.marks.kept", marks=md_escape(listed(labels[m] for m in marks))))
        st.markdown(
            tr(
                "attn.marks.score",
                hits=len(score.hits),
                misses=len(score.misses),
                false_alarms=len(score.false_alarms),
                T=len(text),
            )
            + (" " + tr("attn.marks.perfect") if score.perfect else "")
        )
        st.html(marks_html(text, positions, changed, score.outcomes))
        st.caption(tr("attn.marks.legend", mark=MARK, changed=CHANGED))
        if not score.perfect:
            misconception_view.note(question, mark_ids(positions))  # the wrong idea the marks reveal, if any
        if score.misses:  # named here; each one's reason is said once, in the list below
            missed = md_escape(listed(labels[str(k)] for k in score.misses))
            st.markdown(tr("attn.marks.misses", n=len(score.misses), positions=missed))
    return frozenset(score.misses)


def _record(question, identity: str, picked: list[str]) -> None:
    """Keep the prediction in "my answers" and the class's answers (once), and in the session's score."""
    ss = st.session_state
    if identity in class_session().answers:
        return
    student.answered(question, identity, picked)
    right, asked = ss.get(SCORE, (0, 0))
    ss[SCORE] = (right + question.is_right(picked), asked + 1)
    student.keep_cookie()


def marks_html(text: str, marked: list[int], changed: list[bool], outcomes: tuple[Outcome, ...]) -> str:
    """Every position as a column (the strip's look): its index and character, the student's mark
    (●), whether it changed (▲) and the result in a word; each column's label says it in words."""
    rows = ["", tr("attn.strip.char"), tr("attn.marks.row.mark"), tr("attn.marks.row.changed")]
    rows.append(tr("attn.marks.row.verdict"))
    legend = "".join(f"<span>{html.escape(r) or '&nbsp;'}</span>" for r in rows)
    parts = [f'<div class="col legend" aria-hidden="true">{legend}</div>']
    marks = set(marked)
    for k, c in enumerate(text):
        outcome = outcomes[k]
        label = tr(
            "attn.marks.aria",
            i=k,
            c=_char(c),
            marked=tr("attn.marks.marked" if k in marks else "attn.marks.unmarked"),
            changed=tr("attn.strip.changed" if changed[k] else "attn.strip.same"),
            verdict=tr(f"attn.marks.outcome.{outcome}"),
        )
        short = tr(f"attn.marks.short.{outcome}") if outcome is not Outcome.QUIET else ""
        cells = [str(k), _char(c), MARK if k in marks else "", CHANGED if changed[k] else "", short]
        classes = ("i", "c", "o", "m", "n")
        spans = "".join(f'<span class="{cls}">{html.escape(v) or "&nbsp;"}</span>' for cls, v in zip(classes, cells))
        css = f"col {outcome}" + (" flipped" if changed[k] else "")  # not "changed": that is the effect's strip
        parts.append(f'<div class="{css}" role="listitem" aria-label="{html.escape(label)}">{spans}</div>')
    aria = html.escape(tr("attn.marks.strip_label"))
    return f'{_CSS}<div class="tg-strip tg-marks" role="list" aria-label="{aria}">{"".join(parts)}</div>'
