r"""Scaled dot-product multi-head attention as nine named steps — the one source of truth.

Vaswani et al. 2017, "Attention Is All You Need", section 3.2:

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V
    MultiHead(x) = Concat(head_1, …, head_h) W_O,   head_i = Attention(x W_Q^i, x W_K^i, x W_V^i)

``STEPS`` lists the nine steps in order; each has an id, its names in Chinese and English, its
LaTeX formula, the shape it produces and the function that computes it. The model's forward pass
(:class:`tinygpt.model.MultiHeadAttention`) runs :func:`run_steps`, and so does :func:`trace`
that the attention page shows: the numbers a student sees are the numbers the model used.

Shapes (letters used in the comments of this module):
    B batch, T sequence length, h n_heads, d_head = d_model / h, D d_model.

"What-if" switches (:class:`Switches`) change the causal mask, the scaling divisor, the softmax
temperature or single scores; :func:`run_steps` can restart from any step with the earlier
tensors kept, so a change recomputes only the steps it affects.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import torch
import torch.nn.functional as F

State = dict[str, torch.Tensor]


@dataclass(frozen=True)
class Switches:
    """What-if settings of one attention layer; the defaults are the model's own computation.

    Attributes:
        causal_mask: hide future positions (j > i) before the softmax.
        scale: divisor of the scores; None means √d_head (the paper), 1.0 means no scaling.
        temperature: softmax temperature τ > 0; α = softmax(S / τ). 1.0 is the model's own.
        edits: replacement raw scores S[head, i, j] = value, applied after step 3.
    """

    causal_mask: bool = True
    scale: float | None = None
    temperature: float = 1.0
    edits: tuple[tuple[int, int, int, float], ...] = ()

    def __post_init__(self) -> None:
        if not (math.isfinite(self.temperature) and self.temperature > 0):
            raise ValueError(f"temperature={self.temperature} must be a finite number > 0")
        if self.scale is not None and not (math.isfinite(self.scale) and self.scale > 0):
            raise ValueError(f"scale={self.scale} must be a finite number > 0")

    @property
    def is_default(self) -> bool:
        """True when these switches reproduce the model's own attention."""
        return self == Switches()

    def divisor(self, d_head: int) -> float:
        """The number the scores are divided by: √d_head unless ``scale`` overrides it."""
        return math.sqrt(d_head) if self.scale is None else float(self.scale)


DEFAULT_SWITCHES = Switches()


@dataclass(frozen=True)
class Weights:
    """The four bias-free projection matrices of one layer, in nn.Linear layout (out, in).

    W_Q, W_K, W_V, W_O: (D, D). Step 1 computes x W_Qᵀ etc. as ``F.linear`` does.
    """

    W_Q: torch.Tensor
    W_K: torch.Tensor
    W_V: torch.Tensor
    W_O: torch.Tensor
    n_heads: int


# ---------------------------------------------------------------- the nine step functions
# Each takes the state so far (a dict of named tensors), the weights and the switches, and
# returns the tensors it adds. They are plain functions so the app can show their source.


def project(s: State, w: Weights, sw: Switches) -> State:
    """Step 1: Q = x W_Q, K = x W_K, V = x W_V, each (B, T, D)."""
    x = s["x"]  # (B, T, D)
    return {"Q": F.linear(x, w.W_Q), "K": F.linear(x, w.W_K), "V": F.linear(x, w.W_V)}  # (B, T, D)


def split_heads(s: State, w: Weights, sw: Switches) -> State:
    """Step 2: (B, T, D) -> (B, h, T, d_head) for Q, K and V."""
    B, T, D = s["Q"].shape
    d_head = D // w.n_heads

    def split(t: torch.Tensor) -> torch.Tensor:
        return t.view(B, T, w.n_heads, d_head).transpose(1, 2)  # (B, h, T, d_head)

    return {"Q_h": split(s["Q"]), "K_h": split(s["K"]), "V_h": split(s["V"])}


def scores(s: State, w: Weights, sw: Switches) -> State:
    """Step 3: S = Q Kᵀ per head, (B, h, T, T); S[i, j] = q_i · k_j. Applies ``sw.edits``."""
    S = s["Q_h"] @ s["K_h"].transpose(-2, -1)  # (B, h, T, T)
    if sw.edits:
        S = S.clone()
        for head, i, j, value in sw.edits:
            S[:, head, i, j] = value
    return {"S": S}


def scale(s: State, w: Weights, sw: Switches) -> State:
    """Step 4: S / √d_head (or the divisor the switches choose), (B, h, T, T)."""
    d_head = s["Q_h"].shape[-1]
    return {"S_scaled": s["S"] / sw.divisor(d_head)}  # (B, h, T, T)


def causal_mask(s: State, w: Weights, sw: Switches) -> State:
    """Step 5: entries with j > i (the future) become −∞, so softmax gives them weight 0."""
    S = s["S_scaled"]  # (B, h, T, T)
    if not sw.causal_mask:
        return {"S_masked": S}
    T = S.shape[-1]
    future = torch.ones(T, T, dtype=torch.bool, device=S.device).triu(diagonal=1)  # (T, T)
    return {"S_masked": S.masked_fill(future, float("-inf"))}  # (B, h, T, T)


def softmax(s: State, w: Weights, sw: Switches) -> State:
    """Step 6: α = softmax(S / τ) over keys j; each row is ≥ 0 and sums to 1, (B, h, T, T).

    The row maximum is subtracted before dividing by τ, so a tiny τ gives a one-hot row
    rather than ∞ − ∞ = NaN.
    """
    S = s["S_masked"]  # (B, h, T, T)
    if sw.temperature != 1.0:
        S = (S - S.amax(dim=-1, keepdim=True)) / sw.temperature
    return {"alpha": torch.softmax(S, dim=-1)}  # (B, h, T, T)


def weighted_sum(s: State, w: Weights, sw: Switches) -> State:
    """Step 7: each position's output is Σ_j α[i, j] v_j, (B, h, T, d_head)."""
    return {"heads": s["alpha"] @ s["V_h"]}  # (B, h, T, d_head)


def merge_heads(s: State, w: Weights, sw: Switches) -> State:
    """Step 8: concatenate the heads, (B, h, T, d_head) -> (B, T, D)."""
    B, h, T, d_head = s["heads"].shape
    return {"merged": s["heads"].transpose(1, 2).reshape(B, T, h * d_head)}  # (B, T, D)


def output_projection(s: State, w: Weights, sw: Switches) -> State:
    """Step 9: out = merged W_O, (B, T, D)."""
    return {"out": F.linear(s["merged"], w.W_O)}  # (B, T, D)


# ---------------------------------------------------------------- the registry


@dataclass(frozen=True)
class Step:
    """One step of attention as shown to students.

    Attributes:
        id: stable identifier (used in URLs and i18n keys ``step.<id>.*``).
        number: 1..9.
        name: {"zh": ..., "en": ...}.
        formula: LaTeX.
        shape: the produced tensor's shape, symbolic (letters of this module).
        outputs: names of the tensors the step adds to the state; the first is the one shown.
        per_head: True when the shown tensor has a head axis (B, h, …).
        fn: the function that computes it (the model runs the same function).
    """

    id: str
    number: int
    name: Mapping[str, str]
    formula: str
    shape: str
    outputs: tuple[str, ...]
    per_head: bool
    fn: Callable[[State, Weights, Switches], State]

    def source(self) -> str:
        """The Python source of the code that computes this step (inspect.getsource)."""
        return inspect.getsource(self.fn)


STEPS: tuple[Step, ...] = (
    Step("projection", 1, {"zh": "线性投影", "en": "Linear projection"},
         r"Q = XW_Q,\quad K = XW_K,\quad V = XW_V", "(B, T, d_model)",
         ("Q", "K", "V"), False, project),
    Step("split_heads", 2, {"zh": "拆分多头", "en": "Split heads"},
         r"(B, T, d_{model}) \rightarrow (B, h, T, d_{head}),\quad d_{head} = d_{model}/h",
         "(B, h, T, d_head)", ("Q_h", "K_h", "V_h"), True, split_heads),
    Step("scores", 3, {"zh": "注意力得分", "en": "Scores"},
         r"S = QK^{\top},\quad S_{ij} = q_i \cdot k_j", "(B, h, T, T)", ("S",), True, scores),
    Step("scale", 4, {"zh": "缩放", "en": "Scale"},
         r"\tilde S = \frac{S}{\sqrt{d_{head}}}", "(B, h, T, T)", ("S_scaled",), True, scale),
    Step("mask", 5, {"zh": "因果掩码", "en": "Causal mask"},
         r"\tilde S_{ij} = -\infty \quad \text{if } j > i", "(B, h, T, T)",
         ("S_masked",), True, causal_mask),
    Step("softmax", 6, {"zh": "Softmax 归一化", "en": "Softmax"},
         r"\alpha_{ij} = \frac{\exp(\tilde S_{ij}/\tau)}{\sum_{k} \exp(\tilde S_{ik}/\tau)},"
         r"\quad \sum_j \alpha_{ij} = 1", "(B, h, T, T)", ("alpha",), True, softmax),
    Step("weighted_sum", 7, {"zh": "加权求和", "en": "Weighted sum"},
         r"o_i = \sum_j \alpha_{ij} v_j,\quad O = \alpha V", "(B, h, T, d_head)",
         ("heads",), True, weighted_sum),
    Step("merge_heads", 8, {"zh": "合并多头", "en": "Merge heads"},
         r"\mathrm{Concat}(o^{(1)}, \ldots, o^{(h)}):\ (B, h, T, d_{head}) \rightarrow (B, T, d_{model})",
         "(B, T, d_model)", ("merged",), False, merge_heads),
    Step("output_projection", 9, {"zh": "输出投影", "en": "Output projection"},
         r"\mathrm{MultiHead}(X) = \mathrm{Concat}(o^{(1)}, \ldots, o^{(h)})\,W_O",
         "(B, T, d_model)", ("out",), False, output_projection),
)

STEP_IDS: tuple[str, ...] = tuple(s.id for s in STEPS)


def step_by_id(step_id: str) -> Step:
    """The registry entry for ``step_id``; raises KeyError listing the valid ids."""
    for s in STEPS:
        if s.id == step_id:
            return s
    raise KeyError(f"unknown step {step_id!r}; valid: {', '.join(STEP_IDS)}")


def first_affected_step(old: Switches, new: Switches) -> int:
    """Index into STEPS of the first step whose result differs between two switch settings.

    Edits act in step 3, scaling in 4, masking in 5, temperature in 6; equal switches give 9
    (nothing to recompute).
    """
    if old.edits != new.edits:
        return 2
    if old.scale != new.scale:
        return 3
    if old.causal_mask != new.causal_mask:
        return 4
    if old.temperature != new.temperature:
        return 5
    return len(STEPS)


def run_steps(
    state: State, weights: Weights, switches: Switches = DEFAULT_SWITCHES, start: int = 0
) -> State:
    """Run STEPS[start:] on ``state`` and return the state with every step's tensors added.

    Args:
        state: must hold ``x`` (B, T, D) for start 0, or the outputs of STEPS[:start].
        weights: the layer's projections.
        switches: what-if settings (defaults: the model's own attention).
        start: index of the first step to run (0..9); earlier tensors are reused as they are.
    Returns:
        A new dict; ``out`` (B, T, D) is the attention sub-layer's output.
    """
    state = dict(state)
    for step in STEPS[start:]:
        state.update(step.fn(state, weights, switches))
    return state


@dataclass
class AttentionTrace:
    """Every tensor of one attention layer for one input, with the switches that produced it.

    ``state`` maps tensor names (x, Q, K, V, Q_h, K_h, V_h, S, S_scaled, S_masked, alpha, heads,
    merged, out) to tensors with batch axis B = 1. ``tokens`` are the characters of the input,
    ``layer`` the block index.
    """

    state: State
    weights: Weights
    switches: Switches
    layer: int
    tokens: list[str] = field(default_factory=list)

    def step_tensor(self, step: Step | str, head: int = 0, output: int = 0) -> torch.Tensor:
        """The 2-D matrix a page shows for a step: (T, d_head), (T, T) or (T, D).

        Per-head steps are cut at ``head`` (batch 0); others at batch 0.
        """
        step = step_by_id(step) if isinstance(step, str) else step
        t = self.state[step.outputs[output]]
        return t[0, head] if step.per_head else t[0]

    def with_switches(self, switches: Switches) -> AttentionTrace:
        """A new trace under other switches, recomputing only from the first affected step."""
        start = first_affected_step(self.switches, switches)
        state = run_steps(self.state, self.weights, switches, start) if start < len(STEPS) else self.state
        return replace(self, state=state, switches=switches)


def sdpa_difference(trace: AttentionTrace) -> float:
    """max |α V − F.scaled_dot_product_attention(Q, K, V, is_causal=True)| over all heads.

    Meaningful for the default switches (PyTorch's fused kernel computes the paper's formula).
    """
    ref = F.scaled_dot_product_attention(
        trace.state["Q_h"], trace.state["K_h"], trace.state["V_h"], is_causal=True
    )  # (B, h, T, d_head)
    return float((trace.state["heads"] - ref).abs().max())


def row_sums(trace: AttentionTrace) -> torch.Tensor:
    """Σ_j α[i, j] for every head and row, (B, h, T); 1 up to rounding."""
    return trace.state["alpha"].sum(dim=-1)
