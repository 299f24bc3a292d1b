"""The seed's character-level GPT: embeddings, Pre-LN Transformer blocks, final LayerNorm, head.

Architecture as in the textbook section 22.2.2: token embedding + learned position embedding,
``n_layers`` blocks of causal multi-head self-attention (four bias-free projections) and a ReLU
feed-forward network (Vaswani et al. 2017, section 3.3), each sub-layer wrapped as
x + Sublayer(LayerNorm(x)) (Pre-LN), then a final LayerNorm and a linear head to logits.
Options beyond the seed: Post-LN blocks, LayerNorm(x + Sublayer(x)), and sinusoidal positions
(both from Vaswani et al. 2017).

Shapes: B batch, T sequence length, D d_model, V vocab_size.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import torch
import torch.nn as nn

from tinygpt.attention import DEFAULT_SWITCHES, Switches, Weights, run_steps
from tinygpt.config import GPTConfig


class MultiHeadAttention(nn.Module):
    """Causal multi-head self-attention computed by the nine steps of ``tinygpt.attention``."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.W_Q = nn.Linear(d_model, d_model, bias=False)
        self.W_K = nn.Linear(d_model, d_model, bias=False)
        self.W_V = nn.Linear(d_model, d_model, bias=False)
        self.W_O = nn.Linear(d_model, d_model, bias=False)

    def weights(self) -> Weights:
        """The layer's projection matrices, shared (not copied) with the module."""
        return Weights(self.W_Q.weight, self.W_K.weight, self.W_V.weight, self.W_O.weight, self.n_heads)

    def forward(self, x: torch.Tensor, switches: Switches = DEFAULT_SWITCHES) -> torch.Tensor:
        """x (B, T, D) -> attention output (B, T, D)."""
        return run_steps({"x": x}, self.weights(), switches)["out"]  # (B, T, D)


class FeedForward(nn.Module):
    """Position-wise FFN(x) = ReLU(x W₁ + b₁) W₂ + b₂ (Vaswani et al. 2017, eq. 2)."""

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, T, D) -> (B, T, D)."""
        return self.net(x)


class TransformerBlock(nn.Module):
    """One block: attention then FFN, each with a residual connection and a LayerNorm."""

    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        self.pre_ln = cfg.norm == "pre"
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = MultiHeadAttention(cfg.d_model, cfg.n_heads)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.ffn = FeedForward(cfg.d_model, cfg.d_ff)

    def attention_input(self, x: torch.Tensor) -> torch.Tensor:
        """What the attention sub-layer reads: LayerNorm(x) for Pre-LN, x itself for Post-LN."""
        return self.ln1(x) if self.pre_ln else x

    def forward(self, x: torch.Tensor, switches: Switches = DEFAULT_SWITCHES) -> torch.Tensor:
        """x (B, T, D) -> (B, T, D)."""
        return self.add_attention(x, self.attn(self.attention_input(x), switches))

    def add_attention(self, x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        """The rest of the block once attention has read ``x``: residual, LayerNorm and FFN.

        x: the block's input (B, T, D); a: the attention sub-layer's output on it (B, T, D).
        """
        if self.pre_ln:
            x = x + a
            return x + self.ffn(self.ln2(x))
        x = self.ln1(x + a)
        return self.ln2(x + self.ffn(x))


def sinusoidal_positions(max_len: int, d_model: int) -> torch.Tensor:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(…) — Vaswani et al. 2017, §3.5.

    Returns (max_len, d_model) float32.
    """
    pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)  # (max_len, 1)
    freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)
    return pe


class GPT(nn.Module):
    """The tiny GPT of the seed: idx (B, T) -> logits (B, T, V).

    Args:
        cfg: architecture (validated).

    The weights are drawn from torch's global random generator; to seed them, see
    ``tinygpt.training.train.new_model``.
    """

    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.token_embedding = nn.Embedding(cfg.vocab_size, cfg.d_model)
        if cfg.positions == "learned":
            self.position_embedding: nn.Embedding | None = nn.Embedding(cfg.max_len, cfg.d_model)
        else:
            self.position_embedding = None
            self.register_buffer("sinusoid", sinusoidal_positions(cfg.max_len, cfg.d_model), persistent=False)
        self.blocks = nn.ModuleList(TransformerBlock(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size)

    def embed(self, idx: torch.Tensor) -> torch.Tensor:
        """Token + position embeddings, (B, T) -> (B, T, D). Raises ValueError if T > max_len."""
        T = idx.shape[1]
        if T > self.cfg.max_len:
            raise ValueError(f"sequence length {T} exceeds max_len={self.cfg.max_len}")
        positions = torch.arange(T, device=idx.device)  # (T,)
        if self.position_embedding is not None:
            pos = self.position_embedding(positions)  # (T, D)
        else:
            pos = self.sinusoid[:T]  # (T, D)
        return self.token_embedding(idx) + pos  # (B, T, D)

    def forward(self, idx: torch.Tensor, switches: Mapping[int, Switches] | Switches | None = None) -> torch.Tensor:
        """Logits of the next token at every position.

        Args:
            idx: token ids (B, T), T ≤ max_len.
            switches: what-if attention settings, either one Switches for every layer or a
                mapping layer -> Switches; None is the model's own computation.
        Returns:
            logits (B, T, V).
        """
        x = self.embed(idx)  # (B, T, D)
        for i, block in enumerate(self.blocks):
            x = block(x, switches_for(switches, i))  # (B, T, D)
        return self.unembed(x)  # (B, T, V)

    def unembed(self, x: torch.Tensor) -> torch.Tensor:
        """Final LayerNorm and head: residual stream (B, T, D) -> logits (B, T, V)."""
        return self.head(self.ln_f(x))  # (B, T, V)


def switches_for(switches: Mapping[int, Switches] | Switches | None, layer: int) -> Switches:
    """The switches of block ``layer``: one Switches for every layer, a mapping layer -> Switches
    (layers not in it run the model's own attention) or None (the model's own everywhere)."""
    if switches is None:
        return DEFAULT_SWITCHES
    if isinstance(switches, Switches):
        return switches
    return switches.get(layer, DEFAULT_SWITCHES)
