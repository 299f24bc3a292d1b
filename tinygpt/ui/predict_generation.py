"""The Predict page's generation: its controls, the generated text, one step at a time, and the
bar panels of the next-character distribution at every position.

The parts that answer their own controls are fragments: moving one of their controls reruns that
part only (the panels are not redrawn when τ changes, the generation is not recomputed when the
step changes). A fragment's rerun reuses the arguments of the page's last full run; the prefix,
the model and the guess toggle rerun the whole page. Every control keeps its value across pages
(``persist_state="session"``) and is a lesson control (``tinygpt.ui.lesson.control``).
"""

from __future__ import annotations

import streamlit as st

from tinygpt.charts import panel_columns
from tinygpt.formatting import char_name, format_probability
from tinygpt.generate import MAX_NEW_CHARS, MAX_TEMPERATURE, DecodeConfig, GenerationStep, training_targets
from tinygpt.record import ModelRecord
from tinygpt.ui.common import resend, show_error
from tinygpt.ui.figure_view import figure_downloads, figure_spec
from tinygpt.ui.language import lang, md_escape, tr
from tinygpt.ui.lesson import control, page_shown, visible
from tinygpt.ui.predict_view import MAX_PANELS, STRATEGIES, cached_generate, save_url
from tinygpt.ui.tables import show_table, text_table
from tinygpt.vocab import UnknownCharError

SPACE_MARK = "␣"
TARGET_MARK = "▼"  # the training target, in every table and chart of this page, and nothing else
CHOSEN_MARK = "◆"  # the character a generation step chose (greedy or sampled)


def md(text: str, spaces: bool = False) -> str:
    """``text`` with Markdown's special characters escaped (the vocabulary may hold any character).

    ``spaces=True`` shows each space as ␣: what the model reads, and bold text cannot start or
    end with a space in Markdown.
    """
    escaped = md_escape(text)
    return escaped.replace(" ", SPACE_MARK) if spaces else escaped


def readable(c: str) -> str:
    """A character as a student can read it in a message: itself, or named when it is a space,
    invisible, combining or bidirectional (``tinygpt.formatting.char_name``, as on every page)."""
    return char_name(c)


def short(text: str, n: int = 8) -> str:
    """The last ``n`` characters, with … when more came before."""
    return text if len(text) <= n else "…" + text[-n:]


def go_to_step(delta: int) -> None:
    """Button callback: move the step slider by ``delta`` (clamped when the page draws it)."""
    st.session_state["predict_step"] = st.session_state.get("predict_step", 1) + delta


def restart_steps() -> None:
    """on_change of every input that changes the generated text: a new generation starts at step 1."""
    st.session_state["predict_step"] = 1


#: The top-p slider's step and smallest value.
TOP_P_STEP = 0.05


def decoding_controls(V: int, max_len: int) -> tuple[int, str, DecodeConfig, int]:
    """The generation's controls and their notes: (N, strategy, decoding, context length)."""
    n_new = control(
        "predict_n_new",
        lambda: st.slider(
            tr("predict.n_new"),
            0,
            MAX_NEW_CHARS,
            key="predict_n_new",
            persist_state="session",
        ),
        None,
    )
    strategy_labels = {s: tr(f"predict.strategy.{s}") for s in STRATEGIES}  # format_func must not call tr()
    d1, d2, d3, d5, d4 = st.columns([2, 2, 2, 2, 1])
    if visible("predict_strategy"):
        resend("predict_strategy")
    strategy = control(
        "predict_strategy",
        lambda: d1.radio(
            tr("predict.decoding"),
            STRATEGIES,
            format_func=strategy_labels.get,
            key="predict_strategy",
            on_change=restart_steps,
            persist_state="session",
        ),
        None,
    )
    sampling = strategy != "greedy"
    tau = control(
        "predict_temperature",
        lambda: d2.slider(
            tr("predict.temperature"),
            0.0,
            MAX_TEMPERATURE,
            step=0.05,
            help=tr("predict.temperature_help"),
            disabled=not sampling,
            key="predict_temperature",
            on_change=restart_steps,
            persist_state="session",
        ),
        None,
    )
    top_k = control(
        "predict_top_k",
        lambda: d3.number_input(
            tr("predict.top_k"),
            0,
            1000,
            step=1,
            help=tr("predict.top_k_help"),
            disabled=strategy != "top_k",
            key="predict_top_k",
            on_change=restart_steps,
            persist_state="session",
        ),
        None,
    )
    top_p = control(  # nucleus sampling beside top-k: applied after it, for every sampling strategy
        "predict_top_p",
        lambda: d5.slider(
            tr("predict.top_p"),
            TOP_P_STEP,
            1.0,
            step=TOP_P_STEP,
            help=tr("predict.top_p_help"),
            disabled=not sampling,
            key="predict_top_p",
            on_change=restart_steps,
            persist_state="session",
        ),
        None,
    )
    seed = control(
        "predict_seed",
        lambda: d4.number_input(
            tr("predict.seed"),
            0,
            2**31 - 1,
            step=1,
            help=tr("predict.seed_help"),
            disabled=not sampling,
            key="predict_seed",
            on_change=restart_steps,
            persist_state="session",
        ),
        None,
    )
    context_len = max_len
    if max_len > 1 and visible("predict_context_len"):
        with st.expander(tr("predict.context_len")):
            context_len = st.slider(
                tr("predict.context_len"),
                1,
                max_len,
                help=tr("predict.context_len_help", max_len=max_len),
                key="predict_context_len",
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
def position_panels(tm: ModelRecord, shown: str, probs, targets: list[str]) -> None:
    """The bar panels of the next-character distribution, MAX_PANELS positions at a time."""
    chars, T = tm.vocab.chars, len(shown)
    first = 0
    if T > MAX_PANELS and visible("predict_panel_start"):
        if not 0 <= st.session_state.get("predict_panel_start", -1) <= T - MAX_PANELS:
            st.session_state["predict_panel_start"] = T - MAX_PANELS
        first = st.slider(
            tr("predict.panels_range", n=MAX_PANELS),
            0,
            T - MAX_PANELS,
            key="predict_panel_start",
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
def generation(tm: ModelRecord, prefix: str) -> None:
    """Autoregressive generation: its controls, the generated text, the steps one at a time and all of them."""
    chars, V = tm.vocab.chars, len(tm.vocab.chars)
    st.subheader(tr("predict.generation"))
    n_new, strategy, decode, context_len = decoding_controls(V, tm.gpt_cfg.max_len)
    save_url(tm)
    try:
        steps = cached_generate(
            tm, prefix, n_new, decode.temperature, decode.top_k, decode.seed, context_len, top_p=decode.top_p
        )
    except (UnknownCharError, ValueError) as exc:
        show_error(exc)
        return
    if not steps:
        st.info(tr("predict.n_zero"))
        return
    generated = "".join(s.chosen for s in steps)
    st.markdown(tr("predict.result", prefix=md(prefix, spaces=True), generated=md(generated, spaces=True)))
    generation_step(tm, prefix, steps, decode, strategy != "greedy")
    with st.expander(tr("predict.all_steps")):
        yes, no = tr("predict.yes"), tr("predict.no")
        all_steps = {
            tr("predict.col_step"): range(1, len(steps) + 1),
            tr("predict.col_fed"): [x.context for x in steps],
            tr("predict.col_cropped"): [yes if x.cropped else no for x in steps],
            tr("predict.col_pos"): [x.position for x in steps],
            tr("predict.col_chosen"): [readable(x.chosen) for x in steps],
            tr("predict.col_p_chosen"): [float(x.probs[chars.index(x.chosen)]) for x in steps],
            tr("predict.col_expected"): [
                " / ".join(map(readable, training_targets(tm.text, tm.window, x.context)[-1]))
                or tr("predict.no_target")
                for x in steps
            ],
            tr("predict.col_beyond"): [yes if x.beyond_training else no for x in steps],
        }
        show_table(text_table(all_steps, {tr("predict.col_p_chosen"): format_probability}), hide_index=True)


@st.fragment
def generation_step(
    tm: ModelRecord, prefix: str, steps: list[GenerationStep], decode: DecodeConfig, sampling: bool
) -> None:
    """One generation step (the step slider and its buttons): what was fed, the distribution, the choice."""
    chars, V, window = tm.vocab.chars, len(tm.vocab.chars), tm.window
    generated = "".join(s.chosen for s in steps)
    total = len(steps)
    st.session_state["predict_step"] = min(max(st.session_state.get("predict_step", 1), 1), total)
    if visible("predict_step"):  # the step slider and its two buttons are one control
        b1, b2, b3 = st.columns([1, 1, 3])
        b1.button(
            tr("predict.prev"),
            icon=":material/chevron_left:",
            on_click=go_to_step,
            args=(-1,),
            disabled=st.session_state["predict_step"] <= 1,
            key="predict_prev",
        )
        b2.button(
            tr("predict.next"),
            icon=":material/chevron_right:",
            on_click=go_to_step,
            args=(1,),
            disabled=st.session_state["predict_step"] >= total,
            key="predict_next",
        )
        if total > 1:
            b3.slider(
                tr("predict.step_slider"),
                1,
                total,
                key="predict_step",
                label_visibility="collapsed",
                persist_state="session",
            )
    k = st.session_state["predict_step"]
    s = steps[k - 1]
    so_far = prefix + generated[: k - 1]
    target = training_targets(tm.text, window, s.context)[-1]

    st.markdown(f"#### {tr('predict.step_title', n=k, total=total)}")
    st.markdown(tr("predict.so_far", text=md(so_far, spaces=True)))
    st.markdown(tr("predict.fed", T=len(s.context), last=s.position, context=md(s.context, spaces=True)))
    if s.cropped and not (k == 1 and len(prefix) > tm.gpt_cfg.max_len):  # step 1: the prefix's crop is said above
        dropped = len(so_far) - len(s.context)
        st.info(
            tr("predict.cropped", n=len(so_far), kept=len(s.context), dropped=dropped, gone=short(so_far[:dropped], 12))
        )
    if s.beyond_training:
        st.warning(tr("predict.beyond", pos=s.position, last=window - 1, window=window), icon=":material/warning:")
    elif not target:
        st.caption(tr("predict.unseen"))
    else:
        st.caption(tr("predict.target", target=" / ".join(target)))

    chosen_idx = chars.index(s.chosen)
    if decode.greedy:
        series = tr("predict.series_greedy")
        st.markdown(
            tr("predict.chose_greedy", chosen=md(s.chosen, spaces=True), p=format_probability(s.probs[chosen_idx]))
        )
    else:
        series = (
            tr("predict.series_tau_k", tau=f"{decode.temperature:g}", k=decode.top_k)
            if 0 < decode.top_k < V
            else tr("predict.series_tau", tau=f"{decode.temperature:g}")
        )
        if decode.top_p < 1:
            series = tr("predict.series_top_p", series=series, p=f"{decode.top_p:g}")
        st.markdown(
            tr(
                "predict.chose_sampled",
                chosen=md(s.chosen, spaces=True),
                seed=decode.seed,
                q=format_probability(s.sampling_probs[chosen_idx]),
                p=format_probability(s.probs[chosen_idx]),
            )
        )
    # Beside the table while the bars fit in half the page (80 px per character); below it after that.
    left, right = st.columns([1, 1]) if V <= 5 else (st.container(), st.container())
    bars_title = tr("predict.bars_title", context=short(s.context, 12))
    bars = figure_spec(
        "paired_probability_bars",
        s.probs,
        s.sampling_probs,
        chars,
        labels=(tr("predict.series_p"), series),
        chosen=s.chosen,
        target=target,
        chosen_label=tr("predict.legend_chosen"),
        target_label=tr("predict.legend_target"),
        title=bars_title,
        x_title=tr("predict.axis_char"),
        y_title=tr("predict.axis_prob"),
        description=tr("predict.bars_text", title=bars_title, V=V, p=tr("predict.series_p"), series=series),
    )
    left.vega_lite_chart(bars, width="content")
    left.caption(tr("predict.marks_legend") if target else tr("predict.marks_legend_no_target"))
    with left:
        figure_downloads(bars, "predict_bars_figure", bars_title, file_stem="tinygpt_next_char")
    detail = {
        tr("predict.col_char"): [readable(c) for c in chars],  # a space named, not an empty-looking cell
        tr("predict.col_chosen"): [CHOSEN_MARK if c == s.chosen else "" for c in chars],
        tr("predict.col_target_short"): [TARGET_MARK if c in target else "" for c in chars],
        "p": s.probs.tolist(),
        tr("predict.col_sampled"): s.sampling_probs.tolist(),
        tr("predict.col_logit"): s.logits.tolist(),
    }
    formats = {
        "p": format_probability,
        tr("predict.col_sampled"): format_probability,
        tr("predict.col_logit"): "{:.4f}".format,
    }
    with right:
        show_table(
            text_table(detail, formats),
            hide_index=True,
            column_config={tr("predict.col_char"): st.column_config.TextColumn(pinned=True)},
            key="predict_step_table",
        )
    right.caption(tr("predict.logit_note"))
    if sampling:
        right.caption(tr("predict.reshape_note"))
    if not decode.greedy and decode.top_p < 1:  # the nucleus: the characters the sampling kept
        kept = [c for c, q in zip(chars, s.sampling_probs.tolist()) if q > 0]
        right.caption(
            tr(
                "predict.top_p_kept",
                p=f"{decode.top_p:g}",
                n=len(kept),
                V=V,
                chars=" ".join(md(readable(c)) for c in kept),
            )
        )
    if page_shown("attention"):  # a lesson without the Attention page has no link to it
        st.page_link(
            "pages/attention.py",
            label=tr("predict.attn_link", context=short(s.context, 12)),
            icon=":material/grid_on:",
            query_params={"text": s.context, "layer": "0", "head": "0", "step": "softmax", "lang": lang()},
        )
