"""The nine steps of attention in one layer and head, one at a time, with the trace's real numbers.

A step opens on what it does, its formula and shape, and its heatmap; its table (with a CSV of
every value), the arithmetic of a picked cell and, for the curious, the on-screen checks and the
code that computed it are below or one click away. With the exercise on, the step asks its
question first and shows its numbers after the answer (:func:`guess_step`).

Shapes: T sequence length, h n_heads, d_head, D d_model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import streamlit as st
import torch

from tinygpt.arrays import to_numpy
from tinygpt.attention import STEP_IDS, STEPS, AttentionTrace, Step, Switches, step_by_id
from tinygpt.charts import heatmap_spec
from tinygpt.config import GPTConfig
from tinygpt.exercises import STEP_QUESTIONS
from tinygpt.explain import masked_weights, non_finite, row_sums, sdpa_switch_difference, step_source_location
from tinygpt.formatting import number
from tinygpt.i18n import CATALOGUE
from tinygpt.record import ModelRecord
from tinygpt.theory import STEP_CONCEPT
from tinygpt.ui import exercise_view, url
from tinygpt.ui.attention import data
from tinygpt.ui.attention import state as s
from tinygpt.ui.attention.cell import show_cell
from tinygpt.ui.common import resend
from tinygpt.ui.figures import figure_downloads, heatmap_text
from tinygpt.ui.i18n import tr
from tinygpt.ui.lesson import control, page_shown, visible
from tinygpt.ui.tables import is_static, matrix_text, show_table

#: Steps whose (T, D) output splits by head: the heatmap shows the chosen head's d_head columns
#: unless the student asks for all D (a T × 512 heatmap is ~2,000 SVG cells, about 0.4 s of drawing).
HEAD_COLUMN_STEPS = ("projection", "merge_heads")
#: Steps drawn on one shared colour scale, so the division of step 4 shows as paler colours.
SHARED_SCALE_STEPS = ("scores", "scale")
#: Width in pixels of a number column of a long text's T × T grid (2 decimals).
TABLE_COLUMN_PX = 52


def move_step(delta: int) -> None:
    """Button callback: ``delta`` places forward or back in :data:`state.NAV_IDS` (clamped)."""
    ids = s.NAV_IDS
    current = st.session_state.get(s.K_STEP, STEP_IDS[0])
    index = ids.index(current) if current in ids else ids.index(STEP_IDS[0])
    st.session_state[s.K_STEP] = ids[min(max(index + delta, 0), len(ids) - 1)]


def step_nav() -> str:
    """A slider over the input X and the nine steps (the arrow keys move it) between Previous and
    Next; returns the chosen id. A lesson may hide it (the three are one control)."""
    ss = st.session_state
    if not visible(s.K_STEP):
        return ss[s.K_STEP]
    labels = {s.INPUT: tr("attn.input_nav")} | {
        step.id: f"{step.number} · {tr(f'step.{step.id}.name')}" for step in STEPS
    }
    index = s.NAV_IDS.index(ss[s.K_STEP])
    with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
        st.button(
            tr("attn.prev"),
            icon=":material/arrow_back:",
            on_click=move_step,
            args=(-1,),
            disabled=index == 0,
            key="attn_prev",
        )
        resend(s.K_STEP)  # the labels follow the language: the choice is sent again with them
        chosen = st.select_slider(
            tr("attn.step"), s.NAV_IDS, format_func=labels.get, key=s.K_STEP, persist_state="session", width="stretch"
        )
        st.button(
            tr("attn.next"),
            icon=":material/arrow_forward:",
            on_click=move_step,
            args=(1,),
            disabled=index == len(s.NAV_IDS) - 1,
            key="attn_next",
        )
    return chosen


def guess_step(tm: ModelRecord, text: str, trace: AttentionTrace, step: Step, head: int) -> bool:
    """Guess, then reveal: the step's questions about the query row of the cell picker (the last
    position until the student picks one) and the score; True once answered, and for a step that
    asks nothing (said in a caption)."""
    if not STEP_QUESTIONS[step.id]:
        st.caption(tr("attn.guess_no_question"))
        exercise_view.show_score()
        return True
    query = st.session_state[s.K_CELL_I]  # within the text: state.clamp
    revealed = exercise_view.attention_exercise(
        trace, step, head, trace.layer, query=query, model=tm.model, idx=tm.vocab.encode(text)[None]
    )
    if not revealed:
        st.caption(tr("attn.guess_hidden"))
    return revealed


def show_input(trace: AttentionTrace, labels: Sequence[str], cfg: GPTConfig) -> None:
    """The input X of the traced layer (``trace.state["x"]``, (T, D)): what it is, heatmap, table."""
    st.subheader(tr("attn.input_header"))
    layer = trace.layer
    where = "first" if layer == 0 else "later"
    blocks = "0" if layer == 1 else f"0–{layer - 1}"
    st.markdown(
        tr(
            f"attn.input_{cfg.norm}_{where}",
            layer=layer,
            blocks=blocks,
            positions=tr(f"attn.positions_{cfg.positions}"),
        )
    )
    st.caption(tr("attn.input_next"))
    x = trace.state["x"][0]  # (T, D)
    st.markdown(tr("attn.shape", symbolic="(B, T, d_model)", concrete=f"(1, {x.shape[0]}, {x.shape[1]})"))
    matrix_view(
        x,
        labels,
        [str(j) for j in range(x.shape[1])],
        name="X",
        title="X",
        square=False,
        kind="signed",
        masked=None,
        bound=None,
        columns=(0, cfg.d_head, tr("attn.all_columns_help_x", n=cfg.d_head), f"X[:, 0:{cfg.d_head}]"),
        file_name=f"attention_0_input_X_layer{layer}.csv",
    )


def show_step(
    trace: AttentionTrace,
    step: Step,
    head: int,
    labels: Sequence[str],
    cfg: GPTConfig,
    future: torch.Tensor | None,
    exercise: Callable[[], bool] | None = None,
) -> bool:
    """One step: what it does and why (a link to its Theory section), its formula and shape, the
    heatmap (its table one click away), the arithmetic of a picked cell.

    ``future``: the (T, T) causal triangle while the mask is on (drawn masked on the softmax step,
    left out of the shared colour scale of steps 3 and 4), or None. ``exercise``: drawn after the
    formula (e.g. :func:`guess_step`); the numbers follow only when it returns True. Returns
    whether the numbers were drawn.
    """
    st.subheader(tr("attn.step_header", number=step.number, n=len(STEPS), name=tr(f"step.{step.id}.name")))
    st.markdown(tr(f"step.{step.id}.meaning"))
    concept = STEP_CONCEPT[step.id]
    if page_shown("theory"):  # a lesson without the Theory page has no link to it
        st.page_link(
            "pages/theory.py",
            label=tr("attn.theory_link", title=tr(f"theory.{concept}.title")),
            icon=":material/menu_book:",
            query_params={"concept": concept, "step": step.id},
        )
    st.latex(step.formula)
    if step.id == "mask" and not trace.switches.causal_mask:
        st.info(tr("attn.mask_off_note"))
    sizes = {"B": 1, "T": len(labels), "h": cfg.n_heads, "d_head": cfg.d_head, "d_model": cfg.d_model}
    st.markdown(tr("attn.shape", symbolic=step.shape_text, concrete=f"({', '.join(map(str, step.sized(sizes)))})"))
    if exercise is not None and not exercise():
        return False
    output = 0
    if len(step.outputs) > 1:
        if st.session_state.get(s.K_OUTPUT) not in step.outputs:
            st.session_state[s.K_OUTPUT] = step.outputs[0]
        name = control(
            s.K_OUTPUT,
            lambda: st.segmented_control(
                tr("attn.output"), step.outputs, key=s.K_OUTPUT, required=True, persist_state="session"
            ),
            None,
        )
        output = step.outputs.index(name) if name in step.outputs else 0
    name = step.outputs[output]
    m = trace.step_tensor(step, head, output)  # (T, T), (T, d_head) or (T, D)
    head_part = tr("attn.head_part", head=number(head)) if step.per_head else ""
    size = dict(rows=m.shape[0], cols=m.shape[1], head_part=head_part)
    st.caption(tr("attn.d_head", d_model=cfg.d_model, h=cfg.n_heads, d_head=cfg.d_head, **size))
    divisor = divisor_text(trace.switches, cfg.d_head)
    if step.id == "scale":
        st.caption(tr("attn.divisor_now", divisor=divisor))
    if step.id == "softmax":
        st.caption(tr("attn.tau_now", tau=trace.switches.temperature))
        if head in trace.switches.uniform_heads:  # the softmax of this head is replaced, scores unused
            st.info(tr("attn.uniform_ignores_scores", head=number(head)))
    bound = None
    if step.id in SHARED_SCALE_STEPS:
        bound = shared_score_bound(trace, head, future)
        future_note = tr("attn.shared_scale_future") if future is not None else ""
        st.caption(tr("attn.shared_scale", bound=bound, divisor=divisor, future=future_note))
    cols = list(labels) if step.square else [str(j) for j in range(m.shape[1])]
    shown_name = tensor_title(name)
    title = f"{shown_name} · {tr('attn.panel_head', h=number(head))}" if step.per_head else shown_name
    columns = None
    if step.id in HEAD_COLUMN_STEPS and cfg.n_heads > 1:
        first = head * cfg.d_head
        columns = (
            first,
            cfg.d_head,
            tr("attn.all_columns_help", h=number(head)),
            f"{shown_name}[:, {first}:{first + cfg.d_head}] · {tr('attn.panel_head', h=number(head))}",
        )
    elif not step.square and m.shape[1] > cfg.d_head:  # the output projection's d_model columns
        columns = (0, cfg.d_head, tr("attn.all_columns_help_x", n=cfg.d_head), f"{shown_name}[:, 0:{cfg.d_head}]")
    matrix_view(
        m,
        labels,
        cols,
        name=name,
        title=title,
        square=step.square,
        kind="prob" if name == "alpha" else "signed",
        masked=future if step.id == "softmax" else None,
        bound=bound,
        columns=columns,
        file_name=f"attention_{step.number}_{step.id}_{name}_layer{trace.layer}_head{head}.csv",
    )
    show_cell(trace, step, head, output, labels, cols)
    return True


def tensor_title(name: str) -> str:
    """A tensor's name as a chart's title writes it: its symbol ("α" for ``alpha``), with a word
    in the page's language where the code's name is a word ("S̃ (scaled)"), so a title never
    mixes languages ("alpha · 头 0"); a symbol as it is (Q, K, V, S)."""
    key = f"attn.tensor.{name}"
    return tr(key) if key in CATALOGUE else name


def matrix_view(
    m: torch.Tensor,
    labels: Sequence[str],
    cols: Sequence[str],
    *,
    name: str,
    title: str,
    square: bool,
    kind: str,
    masked: torch.Tensor | None,
    bound: float | None,
    columns: tuple[int, int, str, str] | None,
    file_name: str,
) -> None:
    """A matrix as a heatmap, with its table (and a CSV of every value) one click away.

    Args:
        m: (R, C) values; −∞ entries are written −∞ in the table and drawn as masked.
        square: a query × key matrix (T, T): its table shows 2 decimals; the CSV and the
            heatmap's tooltip keep every digit.
        masked: (R, C) booleans drawn grey on the heatmap, or None.
        bound: the signed colour scale's [-bound, bound], or None for the matrix's own max |value|.
        columns: (first, n, help, title) for a wide matrix: unless the student asks for all C
            columns, the heatmap and the table show columns first..first+n-1 under ``title``.
    """
    C = m.shape[1]
    shown, shown_cols, shown_title = m, cols, title
    if columns is not None and C > 16:
        first, n, help_text, part_title = columns
        if not control(
            s.K_ALL_COLUMNS,
            lambda: st.toggle(
                tr("attn.all_columns", D=C), help=help_text, key=s.K_ALL_COLUMNS, persist_state="session"
            ),
            None,
        ):
            shown, shown_cols, shown_title = m[:, first : first + n], cols[first : first + n], part_title
    row_title = tr("attn.axis_query") if square else tr("attn.axis_pos")
    col_title = tr("attn.axis_key") if square else tr("attn.axis_dim")
    value_title = "α" if kind == "prob" else tr("attn.value")
    spec = heatmap_spec(
        shown,
        labels,
        shown_cols,
        kind=kind,
        title=shown_title,
        masked=masked,
        bound=bound,
        row_title=row_title,
        col_title=col_title,
        value_title=value_title,
        masked_label=tr("attn.masked"),
        description=heatmap_text(
            shown_title,
            len(labels),
            len(shown_cols),
            row_title,
            col_title,
            value_title,
            masked is not None or bool(torch.isneginf(shown).any()),
        ),
    )
    st.vega_lite_chart(spec, width="content")
    decimals = 2 if square else 4
    # one label for every step, so the expander stays open from step to step; drawn only while open
    box = st.expander(tr("attn.table_open"), key=s.K_TABLE, on_change="rerun", icon=":material/table:")
    if not box.open:
        return
    with box:
        st.markdown(f"**{tr('attn.table', name=shown_title)}**")
        if is_static(shown.shape[0], len(shown_cols)):  # the text as shown, each value in its tooltip
            show_table(matrix_text(to_numpy(shown, floats=True), labels, shown_cols, decimals), max_height=600)
        elif square:  # a long text's T × T grid: the text, in narrow columns
            table = matrix_text(to_numpy(shown, floats=True), labels, shown_cols, decimals).to_arrow()
            config = {c: st.column_config.TextColumn(width=TABLE_COLUMN_PX, alignment="right") for c in shown_cols}
            show_table(table, column_config=config, max_height=600)
        else:  # a wide grid (every column of d_model): the numbers, every digit
            show_table(matrix_table(shown, labels, shown_cols), max_height=600)
        if square:
            st.caption(tr("attn.table_rounded"))
        left, right = st.columns(2)
        left.download_button(
            tr("attn.download"),
            lambda: data.matrix_csv(m, list(labels), list(cols)),
            icon=":material/download:",
            file_name=file_name,
            mime="text/csv",
            on_click="ignore",
            key="attn_download",
        )
        with right:
            figure_downloads(spec, "attn_figure", shown_title, file_stem=file_name.removesuffix(".csv"))


def matrix_table(values: torch.Tensor, row_labels: Sequence[str], col_labels: Sequence[str]) -> pd.DataFrame:
    """A (R, C) matrix as a DataFrame of float32 with the row labels as its index (a grid's data)."""
    arr = to_numpy(values, floats=True).astype(np.float32, copy=False)
    return pd.DataFrame(arr, index=list(row_labels), columns=list(col_labels))


def divisor_text(switches: Switches, d_head: int) -> str:
    """The divisor of step 4 as written on the page: "√64 = 8" for √d_head, else the number."""
    return f"√{d_head} = {math.sqrt(d_head):g}" if switches.divisor is None else f"{switches.divisor:g}"


def shared_score_bound(trace: AttentionTrace, head: int, future: torch.Tensor | None) -> float:
    """The colour bound steps 3 and 4 share: the larger max |value| of S and of S / divisor of
    ``head``, over the finite entries not in ``future`` (the (T, T) entries the mask will hide)."""
    S, scaled = trace.state["S"][0, head], trace.state["S_scaled"][0, head]  # (T, T) each
    keep = torch.isfinite(S) & torch.isfinite(scaled)
    if future is not None:
        keep &= ~future
    bound = max(float(S[keep].abs().max()), float(scaled[keep].abs().max())) if bool(keep.any()) else 1.0
    return bound or 1.0


def for_the_curious(
    tm: ModelRecord, text: str, base: AttentionTrace, trace: AttentionTrace, head: int, step: Step | None
) -> None:
    """ "For the curious": an expander drawn only while open, with the checks that the numbers on
    screen are the model's own (rows of α sum to 1, masked entries exactly 0, the attention
    module's output, PyTorch's scaled_dot_product_attention) and the code that computed the step."""
    box = st.expander(tr("attn.curious"), key=s.K_CURIOUS, on_change="rerun", icon=":material/science:")
    if not box.open:
        return
    with box:
        show_checks(tm, text, base, trace, head)
        if step is not None and visible(s.K_SOURCE):
            path, first, last = step_source_location(step)
            st.markdown(f"**{tr('attn.source', path=path, first=first, last=last)}**")
            st.caption(tr("attn.source_indices", layer=number(trace.layer), head=number(head), l=trace.layer, h=head))
            st.code(step.source(), language="python")


def show_checks(tm: ModelRecord, text: str, base: AttentionTrace, trace: AttentionTrace, head: int) -> None:
    """The on-screen checks: row sums, exact zeros under the mask, the model's own output, SDPA, NaN."""
    st.markdown(f"**{tr('attn.checks')}**")
    ok, warn = ":material/check_circle:", ":material/warning:"
    sums = row_sums(trace)[0, head]  # (T,)
    dev = float((sums.double() - 1).abs().max())
    lines = [f"{ok if dev < 1e-5 else warn} " + tr("attn.check_rows", n=sums.numel(), dev=dev, head=number(head))]
    n_masked, worst = masked_weights(trace)
    if trace.switches.causal_mask:
        value = tr("attn.check_masked_value") if worst == 0.0 else f"{worst:.3g}"
        lines.append(f"{ok if worst == 0.0 else warn} " + tr("attn.check_masked", n=n_masked, value=value))
    else:
        lines.append(f"{ok} " + tr("attn.check_no_mask"))
    diff = data.own_module_difference(tm, text, base.layer)
    lines.append(f"{ok if diff < 1e-6 else warn} " + tr("attn.check_module", diff=diff))
    if trace.switches != base.switches:
        change = float((trace.state["out"] - base.state["out"]).abs().max())
        lines.append(":material/info: " + tr("attn.check_changed", diff=change))
    sdpa = sdpa_switch_difference(trace)
    sw = trace.switches
    if sdpa is None:
        lines.append(":material/info: " + tr("attn.check_sdpa_edits" if sw.edits else "attn.check_sdpa_uniform"))
    else:
        scale = 1.0 / (sw.divisor_for(trace.state["Q_h"].shape[-1]) * sw.temperature)
        lines.append(
            f"{ok if sdpa < 1e-4 else warn} " + tr("attn.check_sdpa", causal=sw.causal_mask, scale=scale, diff=sdpa)
        )
    bad = non_finite(trace)
    lines.append(
        f"{warn} " + tr("attn.check_not_finite", names=", ".join(bad)) if bad else f"{ok} " + tr("attn.check_finite")
    )
    st.markdown("  \n".join(lines))


def steps_section(
    tm: ModelRecord, text: str, base: AttentionTrace, sw: Switches, labels: Sequence[str], causal: torch.Tensor
) -> None:
    """The step navigation, the step, and "for the curious" (a fragment: a move to another step
    and the step's own controls rerun only this part)."""
    cfg, head = tm.gpt_cfg, st.session_state[s.K_HEAD]
    trace = data.what_if(base, sw)
    future = causal if sw.causal_mask else None
    guess = st.session_state[s.K_GUESS]

    @st.fragment
    def step_part() -> None:
        chosen = step_nav()
        url.save(s.PAGE, s.url_params(cfg))
        if chosen == s.INPUT:
            show_input(trace, labels, cfg)
            step = None
        else:
            step = step_by_id(chosen)
            exercise = (lambda: guess_step(tm, text, trace, step, head)) if guess else None
            if not show_step(trace, step, head, labels, cfg, future, exercise):
                return  # the checks would give the answer away: after the guess
        for_the_curious(tm, text, base, trace, head, step)

    step_part()
