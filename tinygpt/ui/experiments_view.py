"""The Attention page's experiments: what the switches change at every position (and why nothing
does when nothing does), which heads matter, and the logit lens.

The page (``pages/attention.py``) reads the switches and calls :func:`show_effects` in the part
the switches rerun, :func:`show_model_experiments` below it. The
numbers come from ``tinygpt.explain`` (``position_effects`` through the page's cached
``whatif_effects``, ``head_importance``, ``logit_lens``, ``walk``), cached per model (its uid) and
text; the charts from ``tinygpt.charts``.

Shapes: T sequence length, V vocab_size, L n_layers, h n_heads.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st
import torch

from tinygpt.arrays import to_numpy
from tinygpt.attention import Switches
from tinygpt.charts import effects_spec, labelled_heatmap_spec
from tinygpt.examples import EXAMPLES
from tinygpt.explain import PositionEffects, head_importance, logit_lens, walk
from tinygpt.formatting import format_probability
from tinygpt.train import ModelRecord
from tinygpt.ui import model_choice
from tinygpt.ui.attention_view import cached_walk, whatif_effects
from tinygpt.ui.figures import figure_downloads
from tinygpt.ui.i18n import tr
from tinygpt.ui.lesson import visible
from tinygpt.ui.tables import TextTable, show_table, text_table

#: The symbol beside a position whose predicted character changed (with the colour, never instead of it).
CHANGED_MARK = "▲"
#: A largest |Δp| below this is called tiny.
TINY_DELTA = 0.01
#: Attention whose rows put on average at least this share on one key counts as (almost) one-hot.
ONE_HOT_SHARE = 0.9
#: The session key the model choice reads; the context example's button sets it.
K_LENS, K_HEADS = "attn_lens", "attn_heads"
#: The expander of the effects table when it is a grid (a long text): drawn only while open.
K_EFFECTS_TABLE = "attn_effects_table"
#: Parameters × positions × heads above which "which heads matter" starts closed: its L·h walks
#: of the whole model take about 0.7 s at 5e9 on this host (the seed model on 4 characters:
#: 3.6e9; on 128 characters: 1.2e11, about 4 s).
HEADS_OPEN_WORK = 5e9
#: Up to this many positions the logit lens writes the character in each cell; beyond, cells are
#: too narrow for it and the character is in the tooltip and the table.
LENS_TEXT_MAX_T = 32

_BY_UID = {ModelRecord: lambda tm: tm.uid}


# ---------------------------------------------------------------- cached numbers


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_BY_UID)
def head_effects(tm: ModelRecord, text: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tinygpt.explain.head_importance` of ``text``: (positions changed (L, h) int, largest
    |Δp| of the model's own choice (L, h) float), cached per model and text (L·h walks)."""
    hi = head_importance(tm.model, tm.vocab.encode(text)[None])
    return to_numpy(hi.changed), to_numpy(hi.max_delta)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_BY_UID)
def lens_probs(tm: ModelRecord, text: str) -> np.ndarray:
    """:func:`tinygpt.explain.logit_lens` of ``text``: P(next character) after each block, (L, T, V)."""
    return to_numpy(logit_lens(tm.model, tm.vocab.encode(text)[None]))


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_BY_UID)
def one_char_ids(tm: ModelRecord, text: str) -> np.ndarray:
    """The character the model predicts after each character of ``text`` read alone (a text of one
    character, nothing before it to attend to), (T,)."""
    # A text of one character sits at position 0, so its prediction depends on the character
    # only: one walk over the distinct characters, (U, 1), read back for each position.
    distinct, position_of = torch.unique(tm.vocab.encode(text), return_inverse=True)  # (U,), (T,)
    return to_numpy(walk(tm.model, distinct[:, None]).logits[:, 0].argmax(dim=-1)[position_of])


def mean_row_max(alpha: torch.Tensor) -> float:
    """The average over heads and rows of a row's largest weight, for rows with two or more keys
    to choose from ((h, T, T) α with the causal mask: rows 1..T-1); 1.0 when there are none."""
    rows = alpha[:, 1:]  # (h, T-1, T)
    return float(rows.amax(dim=-1).mean()) if rows.numel() else 1.0


# ---------------------------------------------------------------- why nothing changes


def unchanged_reasons(
    fx: PositionEffects,
    switches: Switches,
    layer: int,
    n_layers: int,
    follows_current: bool,
    row_max: float,
    labels: Sequence[str],
) -> list[tuple[str, dict[str, object]]]:
    """Why the switches change no prediction, as (i18n key, fields) sentences, from the model's numbers.

    Args:
        fx: the effects (no position changed).
        layer, n_layers: the switched layer and the model's number of layers.
        follows_current: the model's own prediction at every position equals its prediction from
            that character alone (:func:`one_char_ids`).
        row_max: :func:`mean_row_max` of the switched layer's own α.
        labels: position labels ("0 你").
    """
    T = len(labels)
    reasons: list[tuple[str, dict[str, object]]] = []
    if switches.is_default:
        reasons.append(("attn.exp.why_default", {}))
    if follows_current:
        reasons.append(("attn.exp.why_one_char", {"T": T}))
    if switches.is_default:
        return reasons
    if not switches.causal_mask and T > 1:
        key = "attn.exp.why_mask_last" if layer == n_layers - 1 else "attn.exp.why_mask"
        reasons.append((key, {"last": labels[-1], "layer": layer}))
    if switches.temperature < 1.0:
        key = "attn.exp.why_one_hot" if row_max >= ONE_HOT_SHARE else "attn.exp.why_sharp"
        reasons.append((key, {"tau": switches.temperature, "share": row_max, "layer": layer}))
    k = int(fx.delta_own.argmax())
    dp = float(fx.delta_own[k])
    reasons.append(("attn.exp.why_tiny" if dp < TINY_DELTA else "attn.exp.why_small", {"dp": dp, "pos": labels[k]}))
    return reasons


def offer_context_example() -> None:
    """Why to try the context example (我爱你，你爱我。…), where attention matters, and the button
    that switches the model choice to it (``tinygpt.ui.model_choice.offer_context_example``); not
    offered when a lesson hides the model choice, which the button would change."""
    if not visible(model_choice.K_CHOICE):
        return
    st.caption(tr("attn.exp.try_context_help", text=EXAMPLES["context"].text))
    model_choice.offer_context_example(key="attn_try_context")


# ---------------------------------------------------------------- drawing


def show_model_experiments(tm: ModelRecord, text: str, labels: Sequence[str]) -> None:
    """The two experiment sections that no switch changes: which heads matter, and the logit lens.
    The switches' own experiment is :func:`show_effects`."""
    show_head_importance(tm, text, labels)
    show_logit_lens(tm, text, labels)


def effects_columns(fx: PositionEffects, chars: Sequence[str], labels: Sequence[str]) -> dict[str, list]:
    """The columns of :func:`show_effects`'s table, one row per position, in the session's language:
    the characters as text, the probabilities and their change as numbers."""
    own_ids, new_ids = fx.own_ids.tolist(), fx.new_ids.tolist()
    return {  # the mark beside the position: on a narrow screen the last columns scroll away
        tr("attn.pred_pos"): list(labels),
        tr("attn.exp.changed"): [
            f"{CHANGED_MARK} {tr('attn.exp.changed_yes')}" if c else "" for c in fx.changed.tolist()
        ],
        tr("attn.pred_own_next"): [chars[k] for k in own_ids],
        tr("attn.exp.p_own"): fx.own_p.tolist(),
        tr("attn.pred_new_next"): [chars[k] for k in new_ids],
        tr("attn.exp.p_new"): fx.new_p.tolist(),
        tr("attn.exp.dp"): fx.delta_own.tolist(),
    }


def show_effects(tm: ModelRecord, text: str, layer: int, switches: Switches, labels: Sequence[str]) -> None:
    """The whole model's prediction at every position, its own and under the switches: a headline
    counting the changed positions, a table and a chart marking them, and, when none changes, why."""
    fx = whatif_effects(tm, text, layer, switches)
    chars = list(tm.vocab.chars)
    T = len(labels)
    st.subheader(tr("attn.exp.header"))
    if switches.is_default:
        st.markdown(tr("attn.exp.headline_default"))
    else:
        st.markdown(tr("attn.exp.headline", n=fx.n_changed, T=T, layer=layer))
    if not switches.causal_mask and fx.n_changed and not bool(fx.changed[-1]):
        st.caption(tr("attn.exp.mask_last_note", last=labels[-1]))
    if fx.n_changed == 0:
        follows = bool((one_char_ids(tm, text) == to_numpy(fx.own_ids)).all())
        if follows or not switches.is_default:  # the model's own switches on a text that needs attention: no riddle
            alphas = cached_walk(tm, text).alphas[layer]  # (h, T, T)
            reasons = unchanged_reasons(
                fx, switches, layer, len(tm.model.blocks), follows, mean_row_max(alphas), labels
            )
            with st.container(border=True):
                st.markdown(f"**{tr('attn.exp.why_header')}**")
                st.markdown("\n".join(f"- {tr(key, **fields)}" for key, fields in reasons))
                if tm.text != EXAMPLES["context"].text:
                    offer_context_example()
    probabilities = (tr("attn.exp.p_own"), tr("attn.exp.p_new"), tr("attn.exp.dp"))
    show_table(
        text_table(
            effects_columns(fx, chars, labels),
            dict.fromkeys(probabilities, format_probability),
            highlight=fx.changed.tolist(),
        ),
        hide_index=True,
        max_height=560,
        on_demand=(tr("attn.exp.table_on_demand", T=T), K_EFFECTS_TABLE),
    )
    own_text = [f"{chars[k]} {p:.3f}" for k, p in zip(fx.own_ids.tolist(), fx.own_p.tolist())]
    new_text = [f"{chars[k]} {p:.3f}" for k, p in zip(fx.new_ids.tolist(), fx.new_p.tolist())]
    spec = effects_spec(
        labels,
        own_text,
        new_text,
        fx.delta_own,
        fx.changed,
        changed_label=f"{CHANGED_MARK} {tr('attn.exp.changed_yes')}",
        same_label=tr("attn.exp.same"),
        mark=CHANGED_MARK,
        x_title=tr("attn.axis_pos"),
        y_title=tr("attn.exp.dp"),
        own_title=tr("attn.pred_own_next"),
        new_title=tr("attn.pred_new_next"),
    )
    st.vega_lite_chart(spec, width="stretch")  # the page's width, so a phone shows every position
    figure_downloads(spec, "attn_effects_figure", tr("attn.exp.header"), file_stem=f"attention_effects_layer{layer}")
    st.caption(tr("attn.exp.chart_caption", mark=CHANGED_MARK))


def heads_table(changed: np.ndarray, max_delta: np.ndarray, T: int) -> TextTable:
    """The table beside the heads heatmap: one row per (layer, head); the largest |Δp| written as
    a probability (a tiny one as 1.40e-05, never 0.0)."""
    L, h = changed.shape
    return text_table(
        {
            tr("attn.exp.col_layer"): np.repeat(np.arange(L), h).tolist(),
            tr("attn.exp.col_head"): np.tile(np.arange(h), L).tolist(),
            tr("attn.exp.col_changed", T=T): changed.reshape(-1).tolist(),
            tr("attn.exp.col_dp"): max_delta.reshape(-1).tolist(),
        },
        {tr("attn.exp.col_dp"): format_probability},
    )


def show_head_importance(tm: ModelRecord, text: str, labels: Sequence[str]) -> None:
    """Layers × heads: how many positions change their prediction when that head alone is off.

    In an expander, computed and drawn only while it is open; it starts open when the L·h walks
    are quick (:data:`HEADS_OPEN_WORK`), closed for a large model on a long text. A lesson control:
    a lesson that hides it leaves the section out.
    """
    if not visible(K_HEADS):
        return
    cfg = tm.gpt_cfg
    work = cfg.n_parameters() * len(labels) * cfg.n_layers * cfg.n_heads
    box = st.expander(
        tr("attn.exp.heads_header"),
        expanded=work <= HEADS_OPEN_WORK,
        icon=":material/group_work:",
        key=K_HEADS,
        on_change="rerun",
    )
    if not box.open:
        return
    with box:
        _draw_head_importance(tm, text, labels)


def _draw_head_importance(tm: ModelRecord, text: str, labels: Sequence[str]) -> None:
    """The sentence naming the head that matters most, the layers × heads heatmap and its table."""
    changed, max_delta = head_effects(tm, text)  # (L, h) each
    L, h = changed.shape
    T = len(labels)
    # the head that changes most positions; among equals, the one that moves p most
    layer, head = divmod(int(np.lexsort((max_delta.reshape(-1), changed.reshape(-1)))[-1]), h)
    n, dp = int(changed[layer, head]), float(max_delta[layer, head])
    st.markdown(tr("attn.exp.heads_top" if n else "attn.exp.heads_none", layer=layer, head=head, n=n, T=T, dp=dp))
    st.caption(tr("attn.exp.heads_caption"))
    rows = [tr("attn.panel_layer", l=k) for k in range(L)]
    cols = [tr("attn.panel_head", h=k) for k in range(h)]
    left, right = st.columns([1, 1])
    with left:
        spec = labelled_heatmap_spec(
            changed,
            [[str(v) for v in row] for row in changed.tolist()],
            rows,
            cols,
            domain=(0, T),
            row_title=tr("attn.layer"),
            col_title=tr("attn.head"),
            value_title=tr("attn.exp.col_changed", T=T),
            text_title=tr("attn.exp.col_changed", T=T),
            extra=max_delta,
            extra_title=tr("attn.exp.col_dp"),
            fit_width=True,
        )
        st.vega_lite_chart(spec, width="stretch")  # the column's width: on a phone the 8 heads fit the screen
        figure_downloads(
            spec, "attn_heads_figure", tr("attn.exp.heads_header"), file_stem="attention_heads_that_matter"
        )
    with right:
        show_table(heads_table(changed, max_delta, T), hide_index=True, max_height=400)


def lens_frame(probs: np.ndarray, chars: Sequence[str], labels: Sequence[str]) -> pd.DataFrame:
    """The logit lens table: a row per layer, a column per position, cells "字 0.93"."""
    top = probs.argmax(axis=-1)  # (L, T)
    L = probs.shape[0]
    return pd.DataFrame(
        [[f"{chars[k]} {probs[layer, t, k]:.2f}" for t, k in enumerate(top[layer])] for layer in range(L)],
        index=lens_rows(L),
        columns=list(labels),
    )


def lens_rows(L: int) -> list[str]:
    """Row labels of the logit lens; the last row is the model's own output."""
    return [tr("attn.exp.lens_row_last" if k == L - 1 else "attn.exp.lens_row", l=k) for k in range(L)]


def show_logit_lens(tm: ModelRecord, text: str, labels: Sequence[str]) -> None:
    """In an expander (computed and drawn only when open): the prediction read after each block,
    layers × positions, cells showing the top character coloured by its p, with its table. A lesson
    control: a lesson that hides it leaves the section out."""
    if not visible(K_LENS):
        return
    box = st.expander(tr("attn.exp.lens_header"), icon=":material/visibility:", key=K_LENS, on_change="rerun")
    if not box.open:
        return
    with box:
        st.markdown(tr("attn.exp.lens_intro"))
        probs = lens_probs(tm, text)  # (L, T, V)
        chars = list(tm.vocab.chars)
        top = probs.argmax(axis=-1)  # (L, T)
        L = probs.shape[0]
        rows = [tr("attn.exp.lens_axis_last", l=k) if k == L - 1 else str(k) for k in range(L)]  # short: phones
        spec = labelled_heatmap_spec(
            probs.max(axis=-1),
            [[chars[k] for k in row] for row in top.tolist()],
            rows,
            labels,
            row_title=tr("attn.exp.lens_axis"),
            col_title=tr("attn.axis_pos"),
            value_title="p",
            text_title=tr("attn.exp.lens_char"),
            fit_width=True,
            text_marks=len(labels) <= LENS_TEXT_MAX_T,
        )
        st.vega_lite_chart(spec, width="stretch")  # the page's width, so a phone shows every position
        figure_downloads(spec, "attn_lens_figure", tr("attn.exp.lens_header"), file_stem="attention_logit_lens")
        show_table(lens_frame(probs, chars, labels))
