"""The nine steps of attention in one layer and head, one at a time, with the trace's real numbers.

A step opens on what it does, its formula and shape, and its heatmap; its table (with a CSV of
every value), the arithmetic of a picked cell and, for the curious, the on-screen checks and the
code that computed it are below or one click away (the heatmap and table: ``matrix_view``; the
checks and the code: ``curious``). With the exercise on, the step asks its question first and
shows its numbers after the answer (:func:`guess_step`).

Shapes: T sequence length, h n_heads, d_head, D d_model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import streamlit as st
import torch

from tinygpt.attention import STEP_IDS, STEPS, AttentionTrace, Step, Switches, step_by_id
from tinygpt.config import GPTConfig
from tinygpt.explanations.exercises import STEP_QUESTIONS
from tinygpt.explanations.theory import STEP_CONCEPT
from tinygpt.formatting import number
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention import state as s
from tinygpt.ui.attention.cell import show_cell
from tinygpt.ui.attention.curious import for_the_curious
from tinygpt.ui.attention.live_bridge import live_bridge, live_step, tau_caption
from tinygpt.ui.attention.matrix_view import matrix_view, tensor_title
from tinygpt.ui.classwork import exercise_view
from tinygpt.ui.frame import url
from tinygpt.ui.frame.language import tr
from tinygpt.ui.shared import attention_data as data
from tinygpt.ui.shared.common import resend
from tinygpt.ui.views.lesson import control, page_shown, visible

#: Steps whose (T, D) output splits by head: the heatmap shows the chosen head's d_head columns
#: unless the student asks for all D (a T × 512 heatmap is ~2,000 SVG cells, about 0.4 s of drawing).
HEAD_COLUMN_STEPS = ("projection", "merge_heads")
#: Steps drawn on one shared colour scale, so the division of step 4 shows as paler colours.
SHARED_SCALE_STEPS = ("scores", "scale")


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


def guess_step(record: ModelRecord, text: str, trace: AttentionTrace, step: Step, head: int) -> bool:
    """Guess, then reveal: the step's questions about the query row of the cell picker (the last
    position until the student picks one) and the score; True once answered, and for a step that
    asks nothing (said in a caption)."""
    if not STEP_QUESTIONS[step.id]:
        st.caption(tr("attn.guess_no_question"))
        exercise_view.show_score()
        return True
    query = st.session_state[s.K_CELL_I]  # within the text: state.clamp
    revealed = exercise_view.attention_exercise(
        trace, step, head, trace.layer, query=query, model=record.model, idx=record.vocab.encode(text)[None]
    )
    if not revealed:
        st.caption(tr("attn.guess_hidden"))
    return revealed


def show_input(trace: AttentionTrace, labels: Sequence[str], cfg: GPTConfig) -> None:
    """The input X of the traced layer (``trace.state["x"]``, (T, D)): what it is, heatmap, table."""
    st.subheader(tr("attn.input_header"))
    layer = trace.layer
    where = "first" if layer == 0 else "later"
    blocks = "1" if layer == 1 else f"1–{number(layer - 1)}"  # people count layers from 1
    st.markdown(
        tr(
            f"attn.input_{cfg.norm}_{where}",
            layer=number(layer),
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
        st.caption(tau_caption(trace.switches.temperature), unsafe_allow_html=True)  # τ as the slider stands
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
        live=live_step(trace, head, labels, cfg, title, name),
    )
    show_cell(trace, step, head, output, labels, cols)
    return True


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


def steps_section(
    record: ModelRecord, text: str, base: AttentionTrace, sw: Switches, labels: Sequence[str], causal: torch.Tensor
) -> None:
    """The step navigation, the step, and "for the curious" (a fragment: a move to another step
    and the step's own controls rerun only this part)."""
    cfg, head = record.gpt_cfg, st.session_state[s.K_HEAD]
    trace = data.what_if(base, sw)
    future = causal if sw.causal_mask else None
    guess = st.session_state[s.K_GUESS]

    @st.fragment
    def step_part() -> None:
        live_bridge()  # α follows τ, the mask and the other α-only switches while they move
        chosen = step_nav()
        url.save(s.PAGE, s.url_params(cfg))
        if chosen == s.INPUT:
            show_input(trace, labels, cfg)
            step = None
        else:
            step = step_by_id(chosen)
            exercise = (lambda: guess_step(record, text, trace, step, head)) if guess else None
            if not show_step(trace, step, head, labels, cfg, future, exercise):
                return  # the checks would give the answer away: after the guess
        for_the_curious(record, text, base, trace, head, step)

    step_part()
