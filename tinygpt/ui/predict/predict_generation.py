"""The Predict page's generation: its controls, the generated text, one step at a time, and the
bar panels of the next-character distribution at every position.

The parts that answer their own controls are fragments: moving one of their controls reruns that
part only (the panels are not redrawn when τ changes, the generation is not recomputed when the
step changes). A fragment's rerun reuses the arguments of the page's last full run; the prefix,
the model and the guess toggle rerun the whole page. Every control keeps its value across pages
(``persist_state="session"``) and is a lesson control (``tinygpt.ui.views.lesson.control``).
"""

from __future__ import annotations

import streamlit as st

from tinygpt.explanations.charts import panel_columns
from tinygpt.formatting import format_probability
from tinygpt.generate import MAX_NEW_CHARS, MAX_TEMPERATURE, DecodeConfig, training_targets
from tinygpt.training.record import ModelRecord
from tinygpt.ui.frame import url
from tinygpt.ui.frame.figure_view import figure_downloads, figure_spec
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.number_input import ranged_number_input
from tinygpt.ui.frame.tables import show_table, text_table
from tinygpt.ui.predict.predict_step import generation_step, md, readable, short
from tinygpt.ui.predict.predict_view import cached_generate
from tinygpt.ui.shared.common import resend, show_error
from tinygpt.ui.views.lesson import control, visible
from tinygpt.ui.views.predict_table import (
    MAX_PANELS,
    MAX_SEED,
    MAX_TOP_K,
    P_CONTEXT_LEN,
    P_N_NEW,
    P_PANEL_START,
    P_SEED,
    P_STEP,
    P_STRATEGY,
    P_TAU,
    P_TOP_K,
    P_TOP_P,
    PAGE,
    STRATEGIES,
    TAU_STEP,
    TOP_P_STEP,
    url_params,
)
from tinygpt.vocab import UnknownCharError

#: The expanders of the context length's slider and of the table of all steps: drawn only while open.
CONTEXT_BOX, ALL_STEPS_BOX = "predict_context_box", "predict_all_steps"


def restart_steps() -> None:
    """on_change of every input that changes the generated text: a new generation starts at step 1."""
    st.session_state[P_STEP] = 1


def decoding_controls(V: int, max_len: int) -> tuple[int, str, DecodeConfig, int]:
    """The generation's controls and their notes: (N, strategy, decoding, context length)."""
    n_new = control(
        P_N_NEW,
        lambda: st.slider(
            tr("predict.n_new"),
            0,
            MAX_NEW_CHARS,
            key=P_N_NEW,
            persist_state="session",
        ),
        None,
    )
    strategy_labels = {s: tr(f"predict.strategy.{s}") for s in STRATEGIES}  # format_func must not call tr()
    d1, d2, d3, d5, d4 = st.columns([2, 2, 2, 2, 1])
    if visible(P_STRATEGY):
        resend(P_STRATEGY)
    strategy = control(
        P_STRATEGY,
        lambda: d1.radio(
            tr("predict.decoding"),
            STRATEGIES,
            format_func=strategy_labels.get,
            key=P_STRATEGY,
            on_change=restart_steps,
            persist_state="session",
        ),
        None,
    )
    sampling = strategy != "greedy"
    tau = control(
        P_TAU,
        lambda: d2.slider(
            tr("predict.temperature"),
            0.0,
            MAX_TEMPERATURE,
            step=TAU_STEP,
            help=tr("predict.temperature_help", hi=MAX_TEMPERATURE, step=TAU_STEP),
            disabled=not sampling,
            key=P_TAU,
            on_change=restart_steps,
            persist_state="session",
        ),
        None,
    )
    top_k = control(
        P_TOP_K,
        lambda: ranged_number_input(
            d3,
            tr("predict.top_k"),
            P_TOP_K,
            0,
            MAX_TOP_K,
            step=1,
            help=tr("predict.top_k_help"),
            disabled=strategy != "top_k",
            on_change=restart_steps,
            persist_state="session",
        ),
        None,
    )
    top_p = control(  # nucleus sampling beside top-k: applied after it, for every sampling strategy
        P_TOP_P,
        lambda: d5.slider(
            tr("predict.top_p"),
            TOP_P_STEP,
            1.0,
            step=TOP_P_STEP,
            help=tr("predict.top_p_help"),
            disabled=not sampling,
            key=P_TOP_P,
            on_change=restart_steps,
            persist_state="session",
        ),
        None,
    )
    seed = control(
        P_SEED,
        lambda: ranged_number_input(
            d4,
            tr("predict.seed"),
            P_SEED,
            0,
            MAX_SEED,
            step=1,
            help=tr("predict.seed_help"),
            disabled=not sampling,
            on_change=restart_steps,
            persist_state="session",
        ),
        None,
    )
    context_len = min(st.session_state.get(P_CONTEXT_LEN, max_len), max_len)  # kept while its expander is closed
    if max_len > 1 and visible(P_CONTEXT_LEN):
        box = st.expander(tr("predict.context_len"), key=CONTEXT_BOX, on_change="rerun", icon=":material/tune:")
        if box.open:  # the slider is drawn only while the student has it open
            context_len = box.slider(
                tr("predict.context_len"),
                1,
                max_len,
                help=tr("predict.context_len_help", max_len=max_len),
                key=P_CONTEXT_LEN,
                on_change=restart_steps,
                persist_state="session",
            )
    if sampling and tau == 0:
        st.info(tr("predict.tau_zero"))
    elif sampling and tau >= MAX_TEMPERATURE:
        st.info(tr("predict.tau_max", tau=MAX_TEMPERATURE))
    if strategy == "top_k":
        if top_k == 0:
            st.info(tr("predict.k_zero", V=V))
        elif top_k == 1:
            st.info(tr("predict.k_one"))
        elif top_k > V:
            st.info(tr("predict.k_large", k=top_k, V=V))
    decode = DecodeConfig(
        float(tau) if sampling else 0.0,
        int(top_k) if strategy == "top_k" else 0,
        int(seed),
        top_p=float(top_p) if sampling and top_p is not None else 1.0,
    )
    return n_new, strategy, decode, context_len


@st.fragment
def position_panels(record: ModelRecord, shown: str, probs, targets: list[str]) -> None:
    """The bar panels of the next-character distribution, MAX_PANELS positions at a time."""
    chars, T = record.vocab.chars, len(shown)
    first = 0
    if T > MAX_PANELS and visible(P_PANEL_START):
        if not 0 <= st.session_state.get(P_PANEL_START, -1) <= T - MAX_PANELS:
            st.session_state[P_PANEL_START] = T - MAX_PANELS
        first = st.slider(
            tr("predict.panels_range", n=MAX_PANELS),
            0,
            T - MAX_PANELS,
            key=P_PANEL_START,
            persist_state="session",
        )
    rows = range(first, min(T, first + MAX_PANELS))
    panels = figure_spec(
        "next_char_panels",
        probs[first : first + MAX_PANELS],
        chars,
        [tr("predict.panel", pos=i, context=short(shown[: i + 1], 6)) for i in rows],
        [targets[i] for i in rows],
        top_label=tr("predict.legend_top"),
        other_label=tr("predict.legend_other"),
        expected_label=tr("predict.legend_target"),
        x_title=tr("predict.axis_char"),
        y_title=tr("predict.axis_prob"),
        columns=panel_columns(len(chars), len(rows)),
        description=tr("predict.panels_text", n=len(rows), V=len(chars)),
    )
    st.vega_lite_chart(panels, width="content")
    figure_downloads(
        panels, "predict_panels_figure", tr("predict.per_position"), file_stem="tinygpt_next_char_by_position"
    )


@st.fragment
def generation(record: ModelRecord, prefix: str) -> None:
    """Autoregressive generation: its controls, the generated text, the steps one at a time and all of them."""
    chars, V = record.vocab.chars, len(record.vocab.chars)
    st.subheader(tr("predict.generation"))
    n_new, strategy, decode, context_len = decoding_controls(V, record.gpt_cfg.max_len)
    url.save(PAGE, url_params())
    try:
        steps = cached_generate(
            record, prefix, n_new, decode.temperature, decode.top_k, decode.seed, context_len, top_p=decode.top_p
        )
    except (UnknownCharError, ValueError) as exc:
        show_error(exc)
        return
    if not steps:
        st.info(tr("predict.n_zero"))
        return
    generated = "".join(s.chosen for s in steps)
    st.markdown(tr("predict.result", prefix=md(prefix, spaces=True), generated=md(generated, spaces=True)))
    generation_step(record, prefix, steps, decode, strategy != "greedy")
    box = st.expander(tr("predict.all_steps"), key=ALL_STEPS_BOX, on_change="rerun", icon=":material/table:")
    if not box.open:  # the table is drawn only while the student has it open
        return
    with box:
        yes, no = tr("predict.yes"), tr("predict.no")
        all_steps = {
            tr("predict.col_step"): range(1, len(steps) + 1),
            tr("predict.col_fed"): [x.context for x in steps],
            tr("predict.col_cropped"): [yes if x.cropped else no for x in steps],
            tr("predict.col_pos"): [x.position for x in steps],
            tr("predict.col_chosen"): [readable(x.chosen) for x in steps],
            tr("predict.col_p_chosen"): [float(x.probs[chars.index(x.chosen)]) for x in steps],
            tr("predict.col_expected"): [
                " / ".join(map(readable, training_targets(record.text, record.window, x.context)[-1]))
                or tr("predict.no_target")
                for x in steps
            ],
            tr("predict.col_beyond"): [yes if x.beyond_training else no for x in steps],
        }
        show_table(text_table(all_steps, {tr("predict.col_p_chosen"): format_probability}), hide_index=True)
