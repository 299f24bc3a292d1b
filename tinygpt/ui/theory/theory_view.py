"""The Theory page's drawing: each concept's title, formula and explanation, its live example
(a fragment: moving one of its controls reruns that example only), the exercise and the quiz.

The controls' keys, defaults, ranges and URL rows are the page's table (``tinygpt.ui.views.theory_table``);
``pages/theory.py`` lays the sections out.
"""

from __future__ import annotations

import streamlit as st

from tinygpt.attention import future_mask, step_by_id
from tinygpt.explanations import theory
from tinygpt.explanations.charts import heatmap_spec, probability_bars_spec, vector_picture_spec
from tinygpt.explanations.theory import (
    EXAMPLE_KEYS,
    EXAMPLE_VALUES,
    TheoryInputError,
    concept_anchor,
    format_number,
    format_vector,
)
from tinygpt.ui.classwork.exercise_view import count_theory_answer
from tinygpt.ui.frame.figure_view import (
    bars_text,
    chart_data,
    figure_downloads,
    fitted_chart,
    heatmap_text,
    vectors_text,
)
from tinygpt.ui.frame.help import help_toggle
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.tables import matrix_text, show_table, text_table
from tinygpt.ui.shared.common import resend
from tinygpt.ui.theory.theory_live import LIVE_BARS, live_bars, live_matrix, theory_bridge
from tinygpt.ui.theory.theory_state import SECTIONS, open_section, save
from tinygpt.ui.views.attention_table import TEMPERATURES
from tinygpt.ui.views.lesson import control, page_shown, visible
from tinygpt.ui.views.theory_table import (
    QUIZ,
    SLIDERS,
    TH_A1,
    TH_A2,
    TH_ANSWER,
    TH_B1,
    TH_B2,
    TH_C,
    TH_MASK,
    TH_Q1,
    TH_Q2,
    TH_QUIZ,
    TH_R,
    TH_SCALED,
    TH_SHOW_ANSWER,
    TH_TAU,
)

#: The axis titles of the vector pictures: the picture's field -> its i18n key.
AXES = {"x_title": "theory.axis.x", "y_title": "theory.axis.y", "name_title": "theory.axis.vector"}


def slider(where, key: str, label: str, **kwargs) -> float:
    """A keyed slider over its range in ``SLIDERS``, starting at its default in the page's table
    (or that value when the lesson hides it)."""
    _, lo, hi, step = SLIDERS[key]
    return control(key, lambda: where.slider(label, lo, hi, step=step, key=key, persist_state="session", **kwargs))


def toggle(key: str, label: str, help_text: str | None = None) -> bool:
    """A keyed toggle starting at its default in the page's table (or that value when the lesson hides it)."""
    return control(key, lambda: help_toggle(label, help_text, key=key, persist_state="session"))


def vector_sliders(where, name: str, keys: tuple[str, str]) -> tuple[float, float]:
    """Two sliders for the x and y of a 2-vector called ``name``."""
    return slider(where, keys[0], tr("theory.ops.x", name=name)), slider(where, keys[1], tr("theory.ops.y", name=name))


def example_columns():
    """The "Example" heading, then (controls, picture) columns."""
    st.markdown(f"**{tr('theory.example')}**")
    return st.columns([1, 1])


def concept(cid: str) -> None:
    """Title, formula, explanation and links to the attention steps of one concept."""
    c = next(c for c in theory.CONCEPTS if c.id == cid)
    st.subheader(tr(f"theory.{cid}.title"), anchor=concept_anchor(cid))
    st.latex(c.formula)
    st.markdown(tr(f"theory.{cid}.body"))
    for sid in c.steps if page_shown("attention") else ():  # a lesson without the Attention page has no links to it
        step = step_by_id(sid)
        st.page_link(
            "pages/attention.py",
            label=tr("theory.link", number=step.number, name=tr(f"step.{sid}.name")),
            icon=":material/arrow_forward:",
            query_params={"step": sid, "part": "steps"},
        )


def chart(spec: dict, key: str, width: str = "content", live: dict | None = None) -> None:
    """Draw a titled chart (a Vega-Lite dict) with its PNG and SVG downloads (``key``: the
    buttons' key prefix); ``width`` "fit": a chart sized to its container (``fitted_chart``); ``live``: the
    same picture recomputed in the browser, drawn instead."""
    shown = spec if live is None else live
    if width == "fit":
        fitted_chart(shown)
    else:
        st.vega_lite_chart(shown, width=width)
    figure_downloads(spec, key, file_stem=key.removesuffix("_figure"))


def picture_text(title: str, vectors: list[tuple[str, object]], axes: dict[str, str]) -> str:
    """The text alternative of a picture of named 2-D vectors (its ``description``)."""
    return vectors_text(title, [name for name, _ in vectors], axes["x_title"], axes["y_title"])


def input_error(exc: TheoryInputError) -> None:
    """The example's input error in the user's language, naming the value."""
    st.error(tr(f"theory.err.{exc.reason}", value=exc.value))


# Each concept's live example is a fragment: moving one of its controls reruns that example only,
# not the page with its other charts and formulas. A fragment rerun reuses the arguments of the
# page's last full run (the axis titles in the session's language).


@st.fragment
def operations_example(axes: dict[str, str]) -> None:
    """Sum, multiple and dot product of two 2-vectors, with their picture."""
    controls, picture = example_columns()
    with controls:
        ca, cb = st.columns(2)
        a = vector_sliders(ca, "a", (TH_A1, TH_A2))
        b = vector_sliders(cb, "b", (TH_B1, TH_B2))
        c = slider(st, TH_C, tr("theory.ops.c"))
        save()  # the fragment's rerun writes the URL too
        total, multiple, product = theory.add(a, b), theory.scale(c, a), theory.dot(a, b)
        m1, m2, m3 = st.columns(3)
        m1.metric(tr("theory.ops.sum"), format_vector(total))
        m2.metric(tr("theory.ops.scaled"), format_vector(multiple))
        m3.metric(tr("theory.ops.dot"), format_number(product))
        st.caption(
            tr(
                "theory.ops.dot_detail",
                a1=format_number(a[0]),
                b1=format_number(b[0]),
                a2=format_number(a[1]),
                b2=format_number(b[1]),
                dot=format_number(product),
            )
        )
        st.caption(
            tr("theory.ops.positive" if product > 0 else "theory.ops.negative" if product < 0 else "theory.ops.zero")
        )
    vectors = [("a", a), ("b", b), ("a + b", total), ("c · a", multiple)]
    title = tr("theory.ops.chart_title")
    with picture:
        chart(
            vector_picture_spec(vectors, title=title, description=picture_text(title, vectors, axes), **axes),
            "theory_ops_figure",
        )
        if (box := chart_data("theory_ops_data")) is not None:
            with box:
                show_table(
                    text_table(
                        {
                            axes["name_title"]: [name for name, _ in vectors],
                            axes["x_title"]: [float(v[0]) for _, v in vectors],
                            axes["y_title"]: [float(v[1]) for _, v in vectors],
                        },
                        {axes["x_title"]: format_number, axes["y_title"]: format_number},
                    ),
                    hide_index=True,
                )


@st.fragment
def weighted_sum_example(axes: dict[str, str]) -> None:
    """Raw weights normalised to α, and the α-weighted sum of three fixed vectors."""
    controls, picture = example_columns()
    raw = [slider(controls, TH_R[i - 1], tr("theory.ws.raw", i=i), help=tr("theory.ws.raw_help")) for i in (1, 2, 3)]
    save()  # the fragment's rerun writes the URL too
    try:
        alpha = theory.normalize_weights(raw)
        mixed = theory.weighted_sum(alpha, EXAMPLE_VALUES)
    except TheoryInputError as exc:
        with controls:
            input_error(exc)
        return
    with controls:
        show_table(
            text_table(
                {
                    tr("theory.ws.col_vector"): [f"v{i + 1}" for i in range(3)],
                    tr("theory.ws.col_value"): [format_vector(v) for v in EXAMPLE_VALUES],
                    tr("theory.ws.col_raw"): raw,
                    tr("theory.ws.col_alpha"): alpha,
                },
                {tr("theory.ws.col_raw"): format_number, tr("theory.ws.col_alpha"): "{:.3f}".format},
            ),
            hide_index=True,
        )
    controls.metric(tr("theory.ws.output"), format_vector(mixed))
    controls.caption(tr("theory.ws.alpha_sum", total=format_number(sum(alpha))))
    vectors = [(f"v{i + 1}", v) for i, v in enumerate(EXAMPLE_VALUES)] + [("o", mixed)]
    title = tr("theory.ws.chart_title")
    with picture:
        chart(
            vector_picture_spec(vectors, title=title, description=picture_text(title, vectors, axes), **axes),
            "theory_ws_figure",
        )


@st.fragment
def softmax_and_matrix(axes: dict[str, str]) -> None:
    """The softmax example, then the matrix section, whose example uses the same τ: one fragment,
    so τ reaches the matrix; the matrix example is a fragment of its own inside it."""
    theory_bridge()  # the matrix's α follows τ and the mask while they move
    controls, picture = example_columns()
    with controls:
        q1, q2 = st.columns(2)
        q = (
            slider(q1, TH_Q1, tr("theory.sm.query", i=1)),
            slider(q2, TH_Q2, tr("theory.sm.query", i=2)),
        )
        _, lo, hi, step = SLIDERS[TH_TAU]
        attn_lo, attn_hi = TEMPERATURES[0], TEMPERATURES[-1]  # the Attention page's τ, which reaches the limits
        tau_help = tr("theory.sm.temperature_help", lo=lo, hi=hi, step=step, attn_lo=attn_lo, attn_hi=attn_hi)
        tau = slider(st, TH_TAU, tr("theory.sm.temperature"), help=tau_help)
        scaled = toggle(TH_SCALED, tr("theory.sm.scaled"), tr("theory.sm.scaled_help"))
        save()  # the fragment's rerun writes the URL too
        st.latex(theory.TEMPERATURE_FORMULA)
        att = theory.attend(q, EXAMPLE_KEYS, EXAMPLE_VALUES, temperature=tau, scaled=scaled)
        keys = [f"k{i + 1}" for i in range(len(EXAMPLE_KEYS))]
        show_table(
            text_table(
                {
                    tr("theory.sm.col_key"): keys,
                    tr("theory.sm.col_key_vector"): [format_vector(k) for k in EXAMPLE_KEYS],
                    tr("theory.sm.col_score"): att.scores,
                    tr("theory.sm.col_alpha"): att.weights,
                    tr("theory.sm.col_value"): [format_vector(v) for v in EXAMPLE_VALUES],
                },
                {tr("theory.sm.col_score"): "{:.3f}".format, tr("theory.sm.col_alpha"): "{:.3f}".format},
            ),
            hide_index=True,
        )
        st.metric(tr("theory.sm.output"), format_vector(att.output))
        st.caption(tr("theory.sm.alpha_sum", total=format_number(sum(att.weights))))
    with picture:
        bars = (tr("theory.sm.chart_title"), tr("theory.sm.axis_key"), tr("theory.sm.axis_alpha"))
        chart(
            probability_bars_spec(
                att.weights,
                keys,
                title=bars[0],
                x_title=bars[1],
                y_title=bars[2],
                description=bars_text(*bars[:1], len(keys), *bars[1:]),
            ),
            "theory_sm_bars_figure",
            width="stretch",
            live=live_bars(
                q, tau, scaled, keys, bars_text(*bars[:1], len(keys), *bars[1:]), **dict(zip(LIVE_BARS, bars))
            ),
        )
        vectors = [("q", q)] + list(zip(keys, EXAMPLE_KEYS)) + [("o", att.output)]
        title = tr("theory.sm.vectors_title")
        chart(
            vector_picture_spec(vectors, title=title, size=220, description=picture_text(title, vectors, axes), **axes),
            "theory_sm_vectors_figure",
        )
    concept("matrix")
    matrix_example(tau, axes)


@st.fragment
def matrix_example(tau: float, axes: dict[str, str]) -> None:
    """Attention of three tokens as one matrix product, with the causal mask switch."""
    st.markdown(f"**{tr('theory.example')}**")
    st.markdown(tr("theory.mx.setup"))
    masked = toggle(TH_MASK, tr("theory.mx.mask"), tr("theory.mx.mask_help"))
    save()  # the fragment's rerun writes the URL too
    mx = theory.attention_matrix(EXAMPLE_KEYS, EXAMPLE_KEYS, EXAMPLE_VALUES, temperature=tau, causal_mask=masked)
    tokens = [tr("theory.mx.token", i=i) for i in range(len(EXAMPLE_KEYS))]
    left, right = st.columns([1, 1])
    left.markdown(f"**{tr('theory.mx.weights')}**")
    with left:
        show_table(matrix_text(mx.weights, tokens, tokens, 3))
        st.markdown(f"**{tr('theory.mx.output')}**")
        show_table(matrix_text(mx.output, tokens, [axes["x_title"], axes["y_title"]], 3))
    single = theory.attend(EXAMPLE_KEYS[2], EXAMPLE_KEYS, EXAMPLE_VALUES, temperature=tau, scaled=True)
    left.caption(tr("theory.mx.check", diff=f"{max(abs(x - y) for x, y in zip(single.output, mx.output[2])):.1e}"))
    with right:
        chart(
            heatmap_spec(
                mx.weights,
                tokens,
                tokens,
                kind="prob",
                title=tr("theory.mx.chart_title"),
                masked=future_mask(len(tokens)) if masked else None,
                row_title=tr("theory.mx.axis_query"),
                col_title=tr("theory.mx.axis_key"),
                value_title=tr("theory.mx.value"),
                masked_label=tr("theory.mx.masked"),
                cell=60,
                description=heatmap_text(
                    tr("theory.mx.chart_title"),
                    len(tokens),
                    len(tokens),
                    tr("theory.mx.axis_query"),
                    tr("theory.mx.axis_key"),
                    tr("theory.mx.value"),
                    masked,
                ),
            ),
            "theory_mx_figure",
            "fit",
            live=live_matrix(tau, masked, tokens),
        )


@st.fragment
def own_answer() -> None:
    """The open question: the student's answer and the model answer."""
    if visible(TH_ANSWER):
        st.text_area(tr("theory.exercise.yours"), key=TH_ANSWER, persist_state="session")
    if toggle(TH_SHOW_ANSWER, tr("theory.exercise.show")):
        st.info(tr("theory.exercise.answer"))


@st.fragment
def quiz_question(qid: str, right_answer: str) -> None:
    """One quiz question; its verdict and reason appear under it once answered."""
    labels = {o: tr(f"theory.quiz.{qid}.{o}") for o in "abcd"}  # format_func must not read the session
    key = TH_QUIZ[qid]
    resend(key)  # after a language switch the browser gets the choice with the new labels
    choice = st.radio(
        tr(f"theory.quiz.{qid}.q"),
        list(labels),
        index=None,
        format_func=labels.get,
        key=key,
        persist_state="session",
    )
    if choice is not None:
        count_theory_answer(qid, right_answer, key)  # once, in the score and "my answers"
        ok, why = choice == right_answer, tr(f"theory.quiz.{qid}.why")
        (st.success if ok else st.warning)(tr("theory.quiz.right" if ok else "theory.quiz.wrong", why=why))


def section_label(sid: str) -> str:
    """A section's label in the section chooser, in the session's language."""
    return tr(f"theory.section.{sid}")


def show_section(sid: str, axes: dict[str, str]) -> None:
    """The concepts of section ``sid`` with their examples, then a button to the next section."""
    if sid == "definition":
        concept("definition")
    elif sid == "vectors":
        concept("vector")
        concept("operations")
        operations_example(axes)
    elif sid == "weighted_sum":
        concept("weighted_sum")
        weighted_sum_example(axes)
    elif sid == "attention":
        concept("qkv")
        concept("softmax")
        softmax_and_matrix(axes)
    else:
        st.subheader(tr("theory.exercise.title"))
        st.markdown(tr("theory.exercise.question"))
        own_answer()
        st.subheader(tr("theory.quiz.title"))
        st.caption(tr("theory.quiz.intro"))
        for qid, right_answer in QUIZ.items():
            if visible(TH_QUIZ[qid]):
                quiz_question(qid, right_answer)
    order = list(SECTIONS)
    if sid != order[-1]:
        following = order[order.index(sid) + 1]
        st.button(
            tr("theory.next_section", title=section_label(following)),
            key=f"theory_next_{sid}",
            icon=":material/arrow_forward:",
            on_click=open_section,
            args=(following,),
        )
