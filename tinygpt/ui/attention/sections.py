"""Below the steps: the whole model, one expander each, computed and drawn only while open.

- "Which heads matter": each head switched off alone, the positions it changes, and what each
  head does in words (``tinygpt.explanations.why.head_roles``: "looks at the previous character: α on i − 1
  is 0.72 on average").
- The logit lens: what the model would predict if it stopped after each layer.
- α of every head of the chosen layer (with the switches), and the chosen head in every layer.
- How attention formed during training (the training snapshots).

Shapes: T sequence length, V vocab_size, L n_layers, h n_heads.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st
import torch

from tinygpt.arrays import to_numpy
from tinygpt.attention import future_mask
from tinygpt.explanations.charts import alpha_grid_spec, heatmap_spec, labelled_heatmap_spec
from tinygpt.formatting import format_probability, number
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention import state as s
from tinygpt.ui.attention.effect import role_sentence
from tinygpt.ui.frame.figure_view import chart_data, figure_downloads, fitted_chart, heatmap_text
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.tables import TextTable, matrix_text, show_table, text_table
from tinygpt.ui.shared import attention_data as data
from tinygpt.ui.views.lesson import control, visible
from tinygpt.vocab import cyclic

#: Up to this many positions the logit lens writes the character in each cell.
LENS_TEXT_MAX_T = 32


def _lazy(label: str, key: str, icon: str, control: str | None = None):
    """An expander keyed ``key`` whose content is drawn only while it is open (None when closed,
    or when a lesson hides ``control``, the section's lesson control, by default ``key``).

    Streamlit knows an expander by its label as well as its key, so one whose label changes ("All
    heads of layer 1" after layer 0) would come back closed: its open state is kept beside it and
    handed to the expander under its new label."""
    if not visible(control or key):
        return None
    ss, opened, shown = st.session_state, f"_{key}_open", f"_{key}_label"
    if ss.get(shown, label) != label:
        ss[key] = ss.get(opened, False)
    box = st.expander(label, key=key, on_change="rerun", icon=icon)
    ss[opened], ss[shown] = box.open, label
    return box if box.open else None


def heads_table(changed: np.ndarray, max_delta: np.ndarray, T: int) -> TextTable:
    """One row per (layer, head): positions changed and the largest |Δp| (a probability)."""
    L, h = changed.shape
    return text_table(
        {
            tr("attn.exp.col_layer"): np.repeat(np.arange(1, L + 1), h).tolist(),
            tr("attn.exp.col_head"): np.tile(np.arange(1, h + 1), L).tolist(),
            tr("attn.exp.col_changed", T=T): changed.reshape(-1).tolist(),
            tr("attn.exp.col_dp"): max_delta.reshape(-1).tolist(),
        },
        {tr("attn.exp.col_dp"): format_probability},
    )


def heads_that_matter(record: ModelRecord, text: str, labels: Sequence[str]) -> None:
    """Layers × heads: how many positions change their prediction when that head alone is off,
    and what each head does, in words."""
    box = _lazy(tr("attn.exp.heads_header"), s.K_HEADS, ":material/group_work:")
    if box is None:
        return
    with box:
        changed, max_delta = data.head_effects(record, text)  # (L, h) each
        L, h = changed.shape
        T = len(labels)
        layer, head = divmod(int(np.lexsort((max_delta.reshape(-1), changed.reshape(-1)))[-1]), h)
        n, dp = int(changed[layer, head]), float(max_delta[layer, head])
        shown = dict(layer=number(layer), head=number(head), n=n, T=T, dp=dp)
        st.markdown(tr("attn.exp.heads_top" if n else "attn.exp.heads_none", **shown))
        roles = {(r.layer, r.head): r for r in data.roles(record, text)}
        st.markdown(tr("attn.exp.heads_does", sentence=role_sentence(roles[(layer, head)])))
        st.caption(tr("attn.exp.heads_caption"))
        rows = [tr("attn.panel_layer", l=number(k)) for k in range(L)]
        cols = [tr("attn.panel_head", h=number(k)) for k in range(h)]
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
                description=tr("attn.exp.heads_text", L=L, h=h, T=T),
            )
            st.vega_lite_chart(spec, width="stretch")
            figure_downloads(
                spec, "attn_heads_figure", tr("attn.exp.heads_header"), file_stem="attention_heads_that_matter"
            )
        with right:
            show_table(heads_table(changed, max_delta, T), hide_index=True, max_height=400)
        st.markdown(f"**{tr('attn.exp.roles_header')}**")
        st.markdown("\n".join(f"- {role_sentence(r)}" for r in roles.values()))


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
    return [tr("attn.exp.lens_row_last" if k == L - 1 else "attn.exp.lens_row", l=number(k)) for k in range(L)]


def logit_lens(record: ModelRecord, text: str, labels: Sequence[str]) -> None:
    """The prediction read after each block, layers × positions, with its table."""
    box = _lazy(tr("attn.exp.lens_header"), s.K_LENS, ":material/visibility:")
    if box is None:
        return
    with box:
        st.markdown(tr("attn.exp.lens_intro"))
        probs = data.lens_probs(record, text)  # (L, T, V)
        chars = list(record.vocab.chars)
        top = probs.argmax(axis=-1)  # (L, T)
        L = probs.shape[0]
        rows = [  # short (phones), the layers counted from 1 as in the table below
            tr("attn.exp.lens_axis_last", l=number(k)) if k == L - 1 else str(number(k)) for k in range(L)
        ]
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
            description=tr("attn.exp.lens_text", L=L, T=len(labels)),
        )
        st.vega_lite_chart(spec, width="stretch")
        figure_downloads(spec, "attn_lens_figure", tr("attn.exp.lens_header"), file_stem="attention_logit_lens")
        show_table(lens_frame(probs, chars, labels))


def alpha_grid(
    alphas: torch.Tensor,
    panel_labels: Sequence[str],
    labels: Sequence[str],
    masked: torch.Tensor | None,
    *,
    header: str,
    key: str,
    caption: str = "",
) -> None:
    """Small multiples of α, (P, T, T): one chart per panel in a row that wraps (a phone shows two,
    a desktop a whole layer's heads); the legend once, with the last panel."""
    box = _lazy(header, key, ":material/grid_view:")
    if box is None:
        return
    with box:
        if caption:
            st.caption(caption)
        panel = min(160, max(72, 24 * len(labels)))  # pixels per panel
        with st.container(horizontal=True, gap="small"):
            for p, label in enumerate(panel_labels):
                st.vega_lite_chart(
                    alpha_grid_spec(
                        alphas[p : p + 1],
                        [label],
                        labels,
                        labels,
                        masked=masked,
                        row_title=tr("attn.axis_query"),
                        col_title=tr("attn.axis_key"),
                        masked_label=tr("attn.masked"),
                        columns=1,
                        panel_size=panel,
                        legend=p == len(panel_labels) - 1,
                        description=heatmap_text(
                            f"{header} · {label}",
                            len(labels),
                            len(labels),
                            tr("attn.axis_query"),
                            tr("attn.axis_key"),
                            "α",
                            masked is not None,
                        ),
                    ),
                    width="content",
                )
        figure_downloads(
            alpha_grid_spec(
                alphas,
                list(panel_labels),
                labels,
                labels,
                masked=masked,
                row_title=tr("attn.axis_query"),
                col_title=tr("attn.axis_key"),
                masked_label=tr("attn.masked"),
                columns=min(4, len(panel_labels)),
                panel_size=panel,
            ),
            f"{key}_figure",
            header,
            file_stem=key.removeprefix("attn_"),
        )
        if (data_box := chart_data(f"{key}_data")) is not None:
            with data_box:
                for p, label in enumerate(panel_labels):
                    st.markdown(f"**{label}**")
                    show_table(matrix_text(to_numpy(alphas[p], floats=True), labels, labels, 2), max_height=400)


def zero_future(alpha: torch.Tensor) -> np.ndarray:
    """(T, T) booleans: future entries (j > i) that are exactly 0, i.e. hidden by a causal mask."""
    return to_numpy(future_mask(alpha.shape[-1])) & (to_numpy(alpha) == 0)


def snapshots(record: ModelRecord, layer: int, head: int) -> None:
    """How attention formed during training: α of the training text at the saved training steps
    (``ModelRecord.snapshots``: step -> (L, h, T, T)), one step at a time over a slider."""
    box = _lazy(tr("attn.snap_header"), s.K_TRAINING, ":material/history:", control=s.K_SNAPSHOT)
    if box is None:
        return
    with box:
        if not record.snapshots:
            st.info(tr("attn.snap_none"))
            return
        steps = sorted(record.snapshots)
        if st.session_state.get(s.K_SNAPSHOT) not in steps:
            st.session_state[s.K_SNAPSHOT] = steps[-1]
        chosen = steps[0]
        if len(steps) > 1:
            chosen = control(
                s.K_SNAPSHOT,
                lambda: st.select_slider(tr("attn.snap_step"), steps, key=s.K_SNAPSHOT, persist_state="session"),
                None,
            )
        alpha = record.snapshots[chosen][layer, head]  # (T, T)
        text = cyclic(record.text, alpha.shape[-1])  # the training window the snapshot is of
        labels = [f"{i} {c}" for i, c in enumerate(text)]
        caption = tr("attn.snap_caption", text=text, step=chosen, layer=number(layer), head=number(head))
        st.caption(caption)
        spec = heatmap_spec(
            alpha,
            labels,
            labels,
            kind="prob",
            masked=zero_future(alpha),
            row_title=tr("attn.axis_query"),
            col_title=tr("attn.axis_key"),
            value_title="α",
            masked_label=tr("attn.masked"),
            description=heatmap_text(
                caption, len(labels), len(labels), tr("attn.axis_query"), tr("attn.axis_key"), "α", True
            ),
        )
        fitted_chart(spec)
        figure_downloads(
            spec, "attn_snapshot_figure", caption, file_stem=f"attention_training_step{chosen}_layer{layer}_head{head}"
        )
        if (data_box := chart_data("attn_snapshot_data")) is not None:
            with data_box:
                show_table(matrix_text(to_numpy(alpha, floats=True), labels, labels, 2), max_height=400)


#: The anchor of "The whole model" (which heads matter, the logit lens, the grids), linked from the top.
WHOLE_ANCHOR = "attn-whole"


def jump_link() -> None:
    """A line linking to "The whole model" further down (a phone's page runs thousands of pixels
    before it): which heads matter and the logit lens, one tap away. Not drawn when a lesson hides
    both."""
    if visible(s.K_HEADS) or visible(s.K_LENS):
        st.markdown(tr("attn.jump_whole", anchor=WHOLE_ANCHOR))


def whole_model(
    record: ModelRecord,
    text: str,
    labels: Sequence[str],
    heads_alpha: torch.Tensor | None,
    causal: torch.Tensor,
    mask_on: bool,
) -> None:
    """The sections below the steps (each an expander drawn only while open). ``heads_alpha``: α of
    every head of the chosen layer with the switches, (h, T, T), or None while the exercise is on
    (the grids would give the answers away)."""
    ss = st.session_state
    layer, head, cfg = ss[s.K_LAYER], ss[s.K_HEAD], record.gpt_cfg
    sections = (s.K_HEADS, s.K_LENS, s.K_HEADS_GRID, s.K_LAYERS_GRID, s.K_SNAPSHOT)
    if any(visible(k) for k in sections):  # a lesson may hide them all
        st.subheader(tr("attn.whole_header"), anchor=WHOLE_ANCHOR)
    heads_that_matter(record, text, labels)
    logit_lens(record, text, labels)
    if heads_alpha is not None:
        alpha_grid(
            heads_alpha,
            [tr("attn.panel_head", h=number(h)) for h in range(cfg.n_heads)],
            labels,
            causal if mask_on else None,
            header=tr("attn.heads_header", layer=number(layer)),
            key=s.K_HEADS_GRID,
        )
        alpha_grid(
            data.own_walk(record, text).alphas[:, head],
            [tr("attn.panel_layer", l=number(k)) for k in range(cfg.n_layers)],
            labels,
            causal if record.train_cfg.causal_mask else None,
            header=tr("attn.layers_header", head=number(head)),
            key=s.K_LAYERS_GRID,
            caption=tr("attn.layers_caption"),
        )
    snapshots(record, layer, head)
