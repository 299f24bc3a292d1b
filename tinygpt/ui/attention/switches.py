"""The switches a student flips on the Attention page, and "more controls".

In view at first: the causal mask, uniform attention and the softmax temperature τ (and a way
back to the model's own attention once something is changed): the switches that teach. One click
away, in "More controls": the layer and head the switches and the steps use, switching single
heads off, which heads uniform attention takes, the scaling of step 4 and editing a raw score.
Every control is a lesson control (``tinygpt.ui.views.lesson.control``): a teacher's link may hide it,
and a hidden one keeps the value the link set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import streamlit as st

from tinygpt.attention import AttentionTrace
from tinygpt.config import GPTConfig
from tinygpt.formatting import number
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention import state as s
from tinygpt.ui.attention.session import attention_session
from tinygpt.ui.frame.controls import switched
from tinygpt.ui.frame.help import help_button, help_toggle
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.number_input import ranged_number_input
from tinygpt.ui.shared.common import resend
from tinygpt.ui.views.lesson import control, visible

#: The first view's switches, in their order on the page.
PRIMARY = (s.K_MASK, s.K_UNIFORM, s.K_SCOPE, s.K_TAU, s.K_RESET)
#: "More controls": everything else that changes the attention shown.
MORE = (s.K_LAYER, s.K_HEAD, s.K_HEADS_OFF, s.K_UNIFORM_SCOPE, s.K_SCALING, s.K_DIVISOR, s.K_EDITING)


def primary(record: ModelRecord) -> None:
    """The switches in view at first: the causal mask and uniform attention side by side (also on
    a phone), then where they act (the chosen layer or all layers, one tap; a model with one layer
    has no choice), τ below them with "reset" (back to the model's own; disabled until anything changed)."""
    layer = st.session_state[s.K_LAYER]  # said beside the count (effect.panel)
    every = s.every_layer()
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        control(
            s.K_MASK,
            lambda: help_toggle(tr("attn.mask"), tr("attn.mask_help"), key=s.K_MASK, persist_state="session"),
            None,
        )
        control(
            s.K_UNIFORM,
            lambda: help_toggle(
                tr("attn.uniform"),
                tr("attn.uniform_help_all") if every else tr("attn.uniform_help_layer", layer=number(layer)),
                key=s.K_UNIFORM,
                persist_state="session",
            ),
            None,
        )
        if record.gpt_cfg.n_layers > 1:
            control(s.K_SCOPE, lambda: _scope(layer), None)
    with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
        control(
            s.K_TAU,
            lambda: st.select_slider(
                tr("attn.temperature"),
                s.TEMPERATURES,
                format_func="{:g}".format,
                help=tr("attn.temperature_help", lo=s.TEMPERATURES[0], hi=s.TEMPERATURES[-1]),
                key=s.K_TAU,
                persist_state="session",
                width="stretch",
            ),
            None,
        )
        if visible(s.K_RESET):  # always drawn, so τ's slider keeps its width; usable once something changed
            st.button(
                tr("attn.reset"),
                help=tr("attn.reset_help"),
                on_click=s.reset_switches,
                key=s.K_RESET,
                icon=":material/undo:",
                disabled=not switched(s.ATTENTION, st.session_state, record),
            )


def _scope(layer: int) -> str:
    """Where the switches act, one tap: "layer ℓ" or "all layers" (its name is said by the help beside it)."""
    scopes = {"layer": tr("attn.scope.layer", layer=number(layer)), "all": tr("attn.scope.all")}
    with st.container(horizontal=True, gap=None, vertical_alignment="center", width="content"):
        value = st.segmented_control(
            tr("attn.scope"),
            s.SCOPES,
            format_func=scopes.get,
            required=True,
            key=s.K_SCOPE,
            persist_state="session",
            label_visibility="collapsed",
        )
        help_button(f"**{tr('attn.scope')}**: {tr('attn.scope_help')}", s.K_SCOPE)
    return value


def more(cfg: GPTConfig, base: AttentionTrace | None, labels: Sequence[str]) -> None:
    """ "More controls": an expander drawn only while open (its controls keep their values closed).

    ``base``: the model's own trace of the chosen layer (for the score editor), None while the
    text cannot be read.
    """
    if not any(visible(k) for k in MORE):
        return
    box = st.expander(tr("attn.more"), key=s.K_MORE, on_change="rerun", icon=":material/tune:")
    if not box.open:
        return
    with box:
        _layer_and_head(cfg)
        ss = st.session_state
        left, right = st.columns(2)
        with left:
            control(
                s.K_HEADS_OFF,
                lambda: st.pills(
                    tr("attn.heads_off", layer=number(ss[s.K_LAYER])),
                    range(cfg.n_heads),
                    selection_mode="multi",
                    format_func=_counted,
                    help=tr("attn.heads_off_help"),
                    key=s.K_HEADS_OFF,
                    persist_state="session",
                ),
                None,
            )
            scopes = {
                "layer": tr("attn.uniform_layer", layer=number(ss[s.K_LAYER])),
                "head": tr("attn.uniform_head", head=number(ss[s.K_HEAD])),
            }
            control(
                s.K_UNIFORM_SCOPE,
                lambda: st.segmented_control(
                    tr("attn.uniform_scope"),
                    s.UNIFORM_SCOPES,
                    format_func=scopes.get,
                    required=True,
                    help=tr("attn.uniform_scope_help"),
                    key=s.K_UNIFORM_SCOPE,
                    persist_state="session",
                ),
                None,
            )
        with right:
            labels_of = {
                "sqrt": tr("attn.scale_sqrt", value=math.sqrt(cfg.d_head)),
                "one": tr("attn.scale_one"),
                "custom": tr("attn.scale_custom"),
            }
            if visible(s.K_SCALING):
                resend(s.K_SCALING)
            scaling = control(
                s.K_SCALING,
                lambda: st.radio(
                    tr("attn.scaling"),
                    s.SCALINGS,
                    format_func=labels_of.get,
                    key=s.K_SCALING,
                    horizontal=True,
                    persist_state="session",
                ),
                None,
            )
            if scaling == "custom":
                control(
                    s.K_DIVISOR,
                    lambda: ranged_number_input(
                        st,
                        tr("attn.scale_value"),
                        s.K_DIVISOR,
                        s.MIN_DIVISOR,
                        s.MAX_DIVISOR,
                        help=tr("attn.divisor_range", lo=f"{s.MIN_DIVISOR:g}", hi=f"{s.MAX_DIVISOR:g}"),
                        persist_state="session",
                    ),
                    None,
                )
        if base is not None and visible(s.K_EDITING):
            score_editor(base, labels)


def _counted(index: int) -> str:
    """A layer's or head's button label: its number counted from 1 (the widget's value stays the index)."""
    return str(number(index))


def _layer_and_head(cfg: GPTConfig) -> None:
    """The layer and the head the switches, the effects and the steps use: a button each."""
    left, right = st.columns([cfg.n_layers + 2, cfg.n_heads + 2])
    if cfg.n_layers > 1:
        control(
            s.K_LAYER,
            lambda: left.segmented_control(
                tr("attn.layer"),
                range(cfg.n_layers),
                format_func=_counted,
                key=s.K_LAYER,
                required=True,
                persist_state="session",
            ),
            None,
        )
    control(
        s.K_HEAD,
        lambda: right.segmented_control(
            tr("attn.head"),
            range(cfg.n_heads),
            format_func=_counted,
            key=s.K_HEAD,
            required=True,
            persist_state="session",
        ),
        None,
    )


def index_slider(box, label: str, options: Sequence[int], names: Mapping[int, str], key: str) -> int:
    """A select slider over ``options`` (indices, shown by ``names``) in ``box``; with a single
    option there is nothing to choose: its caption and that option."""
    if len(options) == 1:
        box.caption(f"{label}: {names[options[0]]}")
        return options[0]
    return box.select_slider(label, options, format_func=names.get, key=key, persist_state="session")


def score_editor(base: AttentionTrace, labels: Sequence[str]) -> None:
    """ "What if a score were different?": a toggle, and when on, a picker of one raw score S[i, j]
    of the chosen head and a number input of its new value (sent on Enter). The edits are the
    session's {(layer, head, i, j): value}; typing the model's own value removes an edit."""
    ss = st.session_state
    layer, head = ss[s.K_LAYER], ss[s.K_HEAD]
    with st.container(border=True):
        if not help_toggle(
            tr("attn.edit_header", layer=number(layer), head=number(head)),
            tr("attn.edit_help"),
            key=s.K_EDITING,
            persist_state="session",
        ):
            return
        S = base.state["S"][0, head].numpy()  # (T, T)
        T = len(labels)
        positions, names = list(range(T)), dict(enumerate(labels))
        a, b, c = st.columns(3)
        i = index_slider(a, tr("attn.edit_row"), positions, names, s.K_EDIT_I)
        j = index_slider(b, tr("attn.edit_col"), positions, names, s.K_EDIT_J)
        own = float(S[i, j])
        cell = (layer, head, i, j)
        key = f"{s.K_EDIT_VALUE}_l{layer}_h{head}_i{i}_j{j}"
        ss.setdefault(key, ss[s.K_EDITS].get(cell, own))
        c.number_input(  # no min/max: Streamlit would refuse out of range in English; _store_edit says it
            f"S[{i}, {j}]",
            step=1.0,
            format="%.4f",
            key=key,
            help=tr("attn.edit_own", value=own, limit=f"{s.MAX_EDIT:g}"),
            on_change=_store_edit,
            args=(cell, own, key),
        )
        if (refused := attention_session().take_edit_refused()) is not None:
            st.warning(refused)
        edits = s.edits_of(layer, head, T)
        if edits:
            cells = ", ".join(f"S[{i}, {j}] = {v:.4g}" for _, i, j, v in edits)
            st.caption(tr("attn.edit_count", n=len(edits), cells=cells))
        outside = [(i, j) for (ell, h, i, j) in ss[s.K_EDITS] if (ell, h) == (layer, head) and max(i, j) >= T]
        for i, j in outside:
            st.warning(tr("link.edit_outside", i=i, j=j, T=T))


def _store_edit(cell: tuple[int, int, int, int], own: float, key: str) -> None:
    """Number input callback: keep the typed score of ``cell``; its own value again removes the edit."""
    value = st.session_state.get(key)
    edits = dict(st.session_state.get(s.K_EDITS, {}))
    if value is None or abs(value - own) < s.EDIT_SAME:  # the own value as shown (4 decimals): no edit
        edits.pop(cell, None)
    elif math.isfinite(value) and abs(value) <= s.MAX_EDIT:
        edits[cell] = float(value)
    else:  # refused, said under the editor; the input shows the score in use again
        attention_session().edit_refused = tr("attn.edit_refused", value=f"{value:g}", limit=f"{s.MAX_EDIT:g}")
        st.session_state[key] = edits.get(cell, own)
    st.session_state[s.K_EDITS] = edits
