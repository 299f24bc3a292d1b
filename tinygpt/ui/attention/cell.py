"""The arithmetic of one cell of a step, with the trace's own numbers, as LaTeX lines.

A student picks a row and a column of the step's matrix (:func:`show_cell`); the page writes how
that one number was computed: a dot product's first products and its sum, the division by the
scale, the mask, the softmax of the row (its maximum, the exponentials, their sum), or where a
copied number came from. The numbers are ``tinygpt.explanations.explain.explain_cell``'s: those of the trace.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import streamlit as st

from tinygpt.attention import AttentionTrace, DotSpec, Step, Switches
from tinygpt.explanations.explain import Copy, DotProduct, ScoreCell, explain_cell
from tinygpt.ui.attention import state as s
from tinygpt.ui.attention.live_bridge import live_row
from tinygpt.ui.attention.switches import index_slider
from tinygpt.ui.frame.language import tr
from tinygpt.ui.shared.common import resend
from tinygpt.ui.views.lesson import control, visible


def _num(v: float) -> str:
    if math.isinf(v):
        return r"-\infty" if v < 0 else r"\infty"
    text = f"{v:.4g}".replace("e-0", "e-").replace("e+0", "e+")
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = rf"{mantissa}\times 10^{{{int(exponent)}}}"
    return text


def _terms(a: Sequence[float], b: Sequence[float], shown: int) -> str:
    parts = [rf"({_num(x)})({_num(y)})" for x, y in zip(a[:shown], b[:shown])]
    if len(a) > shown:
        parts.append(r"\cdots")
    return " + ".join(parts)


def cell_latex(
    expl: ScoreCell | DotProduct | Copy, name: str, i: int, j: int, shown: int = 3, row_shown: int = 6
) -> list[tuple[str, dict[str, object], str]]:
    """The arithmetic of one cell as (caption i18n key, caption fields, LaTeX) lines.

    A :class:`ScoreCell` gives q_i·k_j (the first ``shown`` products, "⋯", the sum over d_head),
    the division by the divisor, the mask, and for ``name`` "alpha" (step 6) the softmax of row i
    (the row maximum, exp of up to ``row_shown`` entries, their sum, the division) — or, for a head
    made uniform, 1/(number of keys the mask allows); a :class:`DotProduct` its products and sum,
    then 0 when the step set the entry to 0 (a head switched off); a :class:`Copy` where the number
    was copied from.
    """
    if isinstance(expl, Copy):
        index = ", ".join(str(k) for k in expl.index)
        return [
            (
                "attn.cell_copy",
                {},
                rf"\mathrm{{{name}}}[{i}, {j}] = \mathrm{{{expl.source}}}[{index}] = {_num(expl.value)}",
            )
        ]
    if isinstance(expl, DotProduct):
        lines = [
            (
                "attn.cell_dot",
                {"shown": min(shown, len(expl.a)), "n": len(expl.a)},
                rf"\mathrm{{{name}}}[{i}, {j}] = {expl.a_name} \cdot {expl.b_name} = "
                rf"{_terms(expl.a, expl.b, shown)} = {_num(expl.total)}",
            )
        ]
        # The entry the trace holds is 0 although the product is not: the step zeroed it
        # afterwards (weighted_sum with the head in Switches.heads_off).
        if expl.value == 0.0 and not math.isclose(expl.total, 0.0, abs_tol=1e-12):
            lines.append(("attn.cell_head_off", {}, rf"\mathrm{{{name}}}[{i}, {j}] := 0"))
        return lines
    c = expl
    d = len(c.dot.a)
    lines = [
        (
            "attn.cell_dot",
            {"shown": min(shown, d), "n": d},
            rf"S_{{{i},{j}}} = q_{{{i}}} \cdot k_{{{j}}} = {_terms(c.dot.a, c.dot.b, shown)} = {_num(c.dot.total)}",
        )
    ]
    if c.edited:
        lines.append(("attn.cell_edited", {}, rf"S_{{{i},{j}}} := {_num(c.raw)}"))
    divisor = rf"\sqrt{{{d}}}" if math.isclose(c.divisor, math.sqrt(d)) else _num(c.divisor)
    lines.append(
        ("attn.cell_scale", {}, rf"\tilde S_{{{i},{j}}} = \dfrac{{{_num(c.raw)}}}{{{divisor}}} = {_num(c.scaled)}")
    )
    if c.masked:
        lines.append(("attn.cell_masked", {}, rf"{j} > {i} \Rightarrow \tilde S_{{{i},{j}}} = -\infty"))
    if name != "alpha":  # a score's cell (steps 3-5) ends at the score; its row's softmax is step 6
        return lines
    T = len(c.row)
    if c.uniform:  # Switches.uniform_heads: α ignores the scores, 1/n over the n keys the mask allows
        n = sum(1 for v in c.row if not (math.isinf(v) and v < 0))
        value = rf"\dfrac{{1}}{{{n}}} = {_num(c.alpha[j])}" if not c.masked else _num(c.alpha[j])
        lines.append(
            (
                "attn.cell_uniform_masked" if c.masked else "attn.cell_uniform",
                {"n": n},
                rf"\alpha_{{{i},{j}}} = {value}",
            )
        )
        return lines
    tau = "" if c.temperature == Switches.temperature else rf"/{_num(c.temperature)}"
    ks = list(range(min(T, row_shown)))
    if j not in ks:
        ks[-1] = j
    exps = r",\ ".join(rf"e_{{{k}}} = {_num(c.exps[k])}" for k in ks) + (r",\ \ldots" if T > len(ks) else "")
    lines.append(("attn.cell_max", {}, rf"m = \max_k \tilde S_{{{i},k}} = {_num(c.row_max)}"))
    row_masked = any(math.isinf(v) and v < 0 for v in c.row)  # no −∞ in the row: the mask is off (or i is last)
    lines.append(
        (
            "attn.cell_exp" if row_masked else "attn.cell_exp_unmasked",
            {"tau": c.temperature},
            rf"e_k = \exp\big((\tilde S_{{{i},k}} - m){tau}\big):\ {exps}",
        )
    )
    lines.append(("attn.cell_sum", {"n": T}, rf"\sum_k e_k = {_num(c.exp_sum)}"))
    lines.append(
        (
            "attn.cell_alpha",
            {},
            rf"\alpha_{{{i},{j}}} = \dfrac{{e_{{{j}}}}}{{\sum_k e_k}} = "
            rf"\dfrac{{{_num(c.exps[j])}}}{{{_num(c.exp_sum)}}} = {_num(c.alpha[j])}",
        )
    )
    return lines


#: The softmax's lines of :func:`cell_latex`, drawn live by ``live_bridge.live_row`` on the softmax step.
SOFTMAX_LINES = ("attn.cell_max", "attn.cell_exp", "attn.cell_exp_unmasked", "attn.cell_sum", "attn.cell_alpha")


def show_cell(
    trace: AttentionTrace, step: Step, head: int, output: int, labels: Sequence[str], cols: Sequence[str]
) -> None:
    """Two pickers (row i, column j) and the arithmetic of that cell with the trace's numbers."""
    st.markdown(f"**{tr('attn.cell_header')}**")
    rows, columns = list(range(len(labels))), list(range(len(cols)))
    ss = st.session_state
    if ss.get(s.K_CELL_J) not in columns:  # the columns change with the step (T keys, d_head or d_model)
        ss[s.K_CELL_J] = 0
    if ss.get(s.K_CELL_I) not in rows:
        ss[s.K_CELL_I] = rows[-1]
    a, b = st.columns(2) if visible(s.K_CELL_I) or visible(s.K_CELL_J) else (None, None)
    for key in (s.K_CELL_I, s.K_CELL_J):  # the labels change with the step: the choice is sent again
        if visible(key):
            resend(key)
    i = control(
        s.K_CELL_I, lambda: index_slider(a, tr("attn.cell_row"), rows, dict(enumerate(labels)), s.K_CELL_I), None
    )
    j = control(
        s.K_CELL_J, lambda: index_slider(b, tr("attn.cell_col"), columns, dict(enumerate(cols)), s.K_CELL_J), None
    )
    expl = explain_cell(trace, step, head, i, j, output)
    name = step.outputs[output]
    lines = cell_latex(expl, name, i, j)
    live = name == "alpha" and isinstance(expl, ScoreCell)
    if live:  # the row's softmax is the live table below, following the switches while they move
        lines = [line for line in lines if line[0] not in SOFTMAX_LINES]
    st.markdown("  \n".join(f"{tr(key, **fields)} ${latex}$" for key, fields, latex in lines))
    if live:
        st.markdown(tr("attn.live_row", i=i, j=j))
        st.vega_lite_chart(live_row(trace, head, labels, len(expl.dot.a), i, j), width="stretch")
    if isinstance(step.cell, DotSpec) and step.cell.b.startswith("W_"):
        st.caption(tr("attn.weights_layout", w=step.cell.b.format(o=name)))
