"""The Attention page's numbers, cached per model (its ``uid``), text, layer and switches.

Every function takes the model once (Streamlit hashes a :class:`ModelRecord` by its uid) and is
shared by all sessions: the results are read-only. The numbers come from ``tinygpt.explanations.explain`` (one
walk over the blocks) and ``tinygpt.explanations.why`` (the reasons); nothing here computes on its own.

Shapes: T sequence length, V vocab_size, L n_layers, h n_heads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
import torch

from tinygpt.arrays import to_numpy
from tinygpt.attention import AttentionTrace, Switches
from tinygpt.explanations.explain import (
    PositionEffects,
    Walk,
    effects_of,
    head_importance,
    logit_lens,
    module_difference,
    walk,
)
from tinygpt.explanations.why import (
    ROLE_SHARE,
    Flip,
    HeadRole,
    Reliance,
    attention_reliance,
    flips,
    head_roles,
    looks_back,
    previous_shares,
    steady,
    what_attention_decides,
)
from tinygpt.training.record import ModelRecord
from tinygpt.ui.shared.models import attention_trace

_BY_UID = {ModelRecord: lambda record: record.uid}


def _own_by_layer(record: ModelRecord) -> dict[int, Switches]:
    """The model's own attention in every layer (the causal mask as it trained)."""
    own = Switches(causal_mask=record.train_cfg.causal_mask)
    return {k: own for k in range(record.gpt_cfg.n_layers)}


@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=_BY_UID)
def own_walk(record: ModelRecord, text: str) -> Walk:
    """The model's own walk over ``text`` (α of every layer, logits)."""
    return walk(record.model, record.vocab.encode(text)[None], _own_by_layer(record))


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def switched_walk(
    record: ModelRecord, text: str, layer: int, switches: Switches, others: Switches | None = None
) -> Walk:
    """The walk with ``switches`` in ``layer`` and ``others`` in every other layer (None: the model's own)."""
    own = Switches(causal_mask=record.train_cfg.causal_mask)
    if switches == own and others in (None, own):
        return own_walk(record, text)
    rest = _own_by_layer(record) if others is None else dict.fromkeys(range(record.gpt_cfg.n_layers), others)
    return walk(record.model, record.vocab.encode(text)[None], rest | {layer: switches})


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def effects(
    record: ModelRecord, text: str, layer: int, switches: Switches, others: Switches | None = None
) -> PositionEffects:
    """The prediction at every position with ``switches`` in ``layer`` (``others`` elsewhere), against the
    model's own."""
    return effects_of(own_walk(record, text), switched_walk(record, text, layer, switches, others))


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def flip_reasons(
    record: ModelRecord, text: str, layer: int, switches: Switches, others: Switches | None = None
) -> list[Flip]:
    """Why each changed position changed (``tinygpt.explanations.why.flips``)."""
    ids = record.vocab.encode(text)
    new = switched_walk(record, text, layer, switches, others)
    return flips(own_walk(record, text), new, ids, layer, switches)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def steady_reasons(
    record: ModelRecord,
    text: str,
    layer: int,
    switches: Switches,
    positions: tuple[int, ...],
    others: Switches | None = None,
) -> list[Flip]:
    """Why each of ``positions`` whose prediction did not change stayed (``tinygpt.explanations.why.steady``)."""
    ids = record.vocab.encode(text)
    new = switched_walk(record, text, layer, switches, others)
    return steady(own_walk(record, text), new, ids, layer, switches, positions)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_BY_UID)
def roles(record: ModelRecord, text: str) -> list[HeadRole]:
    """What each head of the model looks at in ``text`` (``tinygpt.explanations.why.head_roles``)."""
    return head_roles(own_walk(record, text).alphas)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_BY_UID)
def steps_head(record: ModelRecord, text: str, layer: int) -> tuple[int, float]:
    """The head of ``layer`` the steps open on: of the heads that look at the previous character in
    ``text``, the one the prediction needs most (``tinygpt.explanations.why.looks_back``), with its average
    weight there."""
    alphas = own_walk(record, text).alphas  # (L, h, T, T)
    several = sum(share >= ROLE_SHARE for share in previous_shares(alphas, layer)) > 1
    if several and what_attention_decides(record.text):  # which of them the prediction needs (L·h walks)
        return looks_back(alphas, layer, head_effects(record, text)[0][layer].tolist())
    return looks_back(alphas, layer)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_BY_UID)
def reliance(record: ModelRecord) -> Reliance:
    """How many training predictions uniform attention in every layer changes."""
    return attention_reliance(record.model, record.vocab, record.text, record.window, record.train_cfg.causal_mask)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_BY_UID)
def one_char_ids(record: ModelRecord, text: str) -> np.ndarray:
    """The character the model predicts after each character of ``text`` read alone (nothing
    before it to attend to), (T,)."""
    # A text of one character sits at position 0, so its prediction depends on the character
    # only: one walk over the distinct characters, (U, 1), read back for each position.
    distinct, position_of = torch.unique(record.vocab.encode(text), return_inverse=True)  # (U,), (T,)
    return to_numpy(walk(record.model, distinct[:, None]).logits[:, 0].argmax(dim=-1)[position_of])


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_BY_UID)
def head_effects(record: ModelRecord, text: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tinygpt.explanations.explain.head_importance`: (positions changed (L, h) int, largest |Δp| of the
    model's own choice (L, h) float), L·h walks."""
    hi = head_importance(record.model, record.vocab.encode(text)[None])
    return to_numpy(hi.changed), to_numpy(hi.max_delta)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_BY_UID)
def lens_probs(record: ModelRecord, text: str) -> np.ndarray:
    """:func:`tinygpt.explanations.explain.logit_lens`: P(next character) after each block, (L, T, V)."""
    return to_numpy(logit_lens(record.model, record.vocab.encode(text)[None]))


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def own_module_difference(record: ModelRecord, text: str, layer: int) -> float:
    """:func:`tinygpt.explanations.explain.module_difference` of the page's trace of ``text`` at ``layer`` (the
    default switches there, the model's own attention before it) and the model's attention module."""
    return module_difference(record.model, own_walk(record, text), attention_trace(record, text, layer))


def what_if(base: AttentionTrace, switches: Switches) -> AttentionTrace:
    """``base`` under ``switches``, recomputed from the first step they change (no autograd)."""
    with torch.no_grad():
        return base.with_switches(switches)


def matrix_csv(values: torch.Tensor, row_labels: list[str], col_labels: list[str]) -> bytes:
    """CSV of a matrix with its labels, UTF-8 with a byte-order mark (spreadsheets then read 你好)."""
    frame = pd.DataFrame(to_numpy(values).astype(np.float64), index=list(row_labels), columns=list(col_labels))
    return frame.to_csv(float_format="%.8g").encode("utf-8-sig")
