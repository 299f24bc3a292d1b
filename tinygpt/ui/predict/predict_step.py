"""One step of the Predict page's generation: the step slider and its buttons, what was fed, the
next-character distribution before and after the decoding reshaped it, and the character chosen.
Also the page's ways of showing characters (a space as ␣, invisible ones named)."""

from __future__ import annotations

import streamlit as st

from tinygpt.formatting import char_name, format_probability
from tinygpt.generate import DecodeConfig, GenerationStep, training_targets
from tinygpt.training.record import ModelRecord
from tinygpt.ui.frame.figure_view import figure_downloads, figure_spec
from tinygpt.ui.frame.language import lang, md_escape, tr
from tinygpt.ui.frame.tables import show_table, text_table
from tinygpt.ui.views.lesson import page_shown, visible
from tinygpt.ui.views.predict_table import P_STEP

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
    st.session_state[P_STEP] = st.session_state.get(P_STEP, 1) + delta


def step_picker(total: int) -> int:
    """The step slider and its two buttons (one lesson control): the step shown, 1..``total``."""
    ss = st.session_state
    ss[P_STEP] = min(max(ss.get(P_STEP, 1), 1), total)
    if visible(P_STEP):
        b1, b2, b3 = st.columns([1, 1, 3])
        b1.button(
            tr("predict.prev"),
            icon=":material/chevron_left:",
            on_click=go_to_step,
            args=(-1,),
            disabled=ss[P_STEP] <= 1,
            key="predict_prev",
        )
        b2.button(
            tr("predict.next"),
            icon=":material/chevron_right:",
            on_click=go_to_step,
            args=(1,),
            disabled=ss[P_STEP] >= total,
            key="predict_next",
        )
        if total > 1:
            b3.slider(
                tr("predict.step_slider"),
                1,
                total,
                key=P_STEP,
                label_visibility="collapsed",
                persist_state="session",
            )
    return ss[P_STEP]


def what_was_fed(record: ModelRecord, prefix: str, so_far: str, s: GenerationStep, k: int, total: int) -> str:
    """Step ``k``'s title, the text so far, the context the model read (and what was cropped of it),
    and the training target after it; returns the target's characters ("" when none)."""
    window = record.window
    target = training_targets(record.text, window, s.context)[-1]
    st.markdown(f"#### {tr('predict.step_title', n=k, total=total)}")
    st.markdown(tr("predict.so_far", text=md(so_far, spaces=True)))
    st.markdown(tr("predict.fed", T=len(s.context), last=s.position, context=md(s.context, spaces=True)))
    if s.cropped and not (k == 1 and len(prefix) > record.gpt_cfg.max_len):  # step 1: the prefix's crop is said above
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
    return target


def what_was_chosen(s: GenerationStep, chars: tuple[str, ...], decode: DecodeConfig) -> str:
    """The character the step chose and its probability (greedy, or sampled with the seed);
    returns the name of the distribution it was drawn from (the bars' second series)."""
    chosen_idx = chars.index(s.chosen)
    if decode.greedy:
        st.markdown(
            tr("predict.chose_greedy", chosen=md(s.chosen, spaces=True), p=format_probability(s.probs[chosen_idx]))
        )
        return tr("predict.series_greedy")
    series = (
        tr("predict.series_tau_k", tau=f"{decode.temperature:g}", k=decode.top_k)
        if 0 < decode.top_k < len(chars)
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
    return series


def step_bars(s: GenerationStep, chars: tuple[str, ...], target: str, series: str) -> None:
    """The model's distribution beside the one sampled from, as paired bars, with their downloads."""
    V = len(chars)
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
    st.vega_lite_chart(bars, width="stretch")  # the container's width: the chosen bar in view on a phone
    st.caption(tr("predict.marks_legend") if target else tr("predict.marks_legend_no_target"))
    figure_downloads(bars, "predict_bars_figure", bars_title, file_stem="tinygpt_next_char")


def step_table(s: GenerationStep, chars: tuple[str, ...], target: str, decode: DecodeConfig, sampling: bool) -> None:
    """Every character's probability, sampled probability and logit, the chosen one and the
    target marked; then what the logits are, and which characters top-p kept."""
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
    show_table(
        text_table(detail, formats),
        hide_index=True,
        column_config={tr("predict.col_char"): st.column_config.TextColumn(pinned=True)},
        key="predict_step_table",
    )
    st.caption(tr("predict.logit_note"))
    if sampling:
        st.caption(tr("predict.reshape_note"))
    if not decode.greedy and decode.top_p < 1:  # the nucleus: the characters the sampling kept
        kept = [c for c, q in zip(chars, s.sampling_probs.tolist()) if q > 0]
        st.caption(
            tr(
                "predict.top_p_kept",
                p=f"{decode.top_p:g}",
                n=len(kept),
                V=len(chars),
                chars=" ".join(md(readable(c)) for c in kept),
            )
        )


def attention_link(s: GenerationStep) -> None:
    """A link to the Attention page on the step's context (unless a lesson leaves that page out)."""
    if page_shown("attention"):
        st.page_link(
            "pages/attention.py",
            label=tr("predict.attn_link", context=short(s.context, 12)),
            icon=":material/grid_on:",
            query_params={"text": s.context, "layer": "0", "head": "0", "step": "softmax", "lang": lang()},
        )


def generation_step(
    record: ModelRecord, prefix: str, steps: list[GenerationStep], decode: DecodeConfig, sampling: bool
) -> None:
    """One generation step: pick it, what was fed, what was chosen, the distribution as bars and
    as a table, the way to its attention."""
    chars, generated = record.vocab.chars, "".join(s.chosen for s in steps)
    k = step_picker(len(steps))
    s = steps[k - 1]
    target = what_was_fed(record, prefix, prefix + generated[: k - 1], s, k, len(steps))
    series = what_was_chosen(s, chars, decode)
    # Beside the table while the bars fit in half the page (80 px per character); below it after that.
    left, right = st.columns([1, 1]) if len(chars) <= 5 else (st.container(), st.container())
    with left:
        step_bars(s, chars, target, series)
    with right:
        step_table(s, chars, target, decode, sampling)
    attention_link(s)
