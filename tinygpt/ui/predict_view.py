"""The Predict page's cached computations: the next-character distributions and the generation.

Both are shared by every session (read-only results); the cache knows a model by its ``uid``.
"""

from __future__ import annotations

import streamlit as st
import torch

from tinygpt.generate import DecodeConfig, GenerationStep, generate, next_char_probs
from tinygpt.record import ModelRecord

_BY_UID = {ModelRecord: lambda tm: tm.uid}


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def cached_probs(tm: ModelRecord, text: str) -> torch.Tensor:
    """next_char_probs of ``text`` (T ≤ max_len): (T, V), cached per model and text."""
    return next_char_probs(tm.model, tm.vocab, text)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def cached_generate(tm: ModelRecord, prefix: str, n_new: int, temperature: float, top_k: int,
                    seed: int, context_len: int) -> list[GenerationStep]:
    """generate() for these settings (temperature τ, top-k, seed, context length in characters), cached."""
    return generate(tm.model, tm.vocab, prefix, n_new, DecodeConfig(temperature, top_k, seed), tm.window, context_len)
