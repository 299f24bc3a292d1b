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
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

if TYPE_CHECKING:  # the model imports this module; the page helpers below only need its type
    from tinygpt.model import GPT

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


# ---------------------------------------------------------------- what the attention page shows
# Read-only views of a trace: checks, the arithmetic of one cell, the code that ran. They never
# change the state; the numbers they print are taken from (or re-derived next to) the trace.


def step_source_location(step: Step | str) -> tuple[str, int, int]:
    """Where the code of a step lives: (path relative to the project, first line, last line).

    The lines are those of ``step.fn`` as ``inspect.getsourcelines`` finds them, so the page can
    say "tinygpt/attention.py, lines 95–101" above the code it shows with :meth:`Step.source`.
    """
    step = step_by_id(step) if isinstance(step, str) else step
    lines, first = inspect.getsourcelines(step.fn)
    path = inspect.getsourcefile(step.fn) or ""
    parts = path.replace("\\", "/").split("/")
    rel = "/".join(parts[parts.index("tinygpt"):]) if "tinygpt" in parts else parts[-1]
    return rel, first, first + len(lines) - 1


def sdpa_switch_difference(trace: AttentionTrace) -> float | None:
    """max |α V − F.scaled_dot_product_attention(Q, K, V, …)| under the trace's own switches.

    PyTorch's SDPA takes the causal mask (``is_causal``) and the factor the scores are multiplied
    by (``scale``); softmax(S / (divisor · τ)) is softmax(S / divisor / τ), so scale =
    1 / (divisor · τ) reproduces every switch except edited scores. Returns None when the trace
    has edits (SDPA cannot take them). Over all heads; (B, h, T, d_head) compared.
    """
    sw = trace.switches
    if sw.edits:
        return None
    Q_h = trace.state["Q_h"]  # (B, h, T, d_head)
    factor = 1.0 / (sw.divisor(Q_h.shape[-1]) * sw.temperature)
    ref = F.scaled_dot_product_attention(
        Q_h, trace.state["K_h"], trace.state["V_h"], is_causal=sw.causal_mask, scale=factor
    )  # (B, h, T, d_head)
    return float((trace.state["heads"] - ref).abs().max())


def masked_weights(trace: AttentionTrace) -> tuple[int, float]:
    """(number of masked entries over all heads, largest α among them).

    With the causal mask on, every α[i, j] with j > i must be exactly 0.0; with it off there are
    no masked entries and the answer is (0, 0.0).
    """
    alpha = trace.state["alpha"]  # (B, h, T, T)
    if not trace.switches.causal_mask:
        return 0, 0.0
    T = alpha.shape[-1]
    future = torch.ones(T, T, dtype=torch.bool, device=alpha.device).triu(diagonal=1)  # (T, T)
    picked = alpha[..., future]  # (B, h, n_masked)
    return int(picked.numel()), float(picked.abs().max()) if picked.numel() else 0.0


def non_finite(trace: AttentionTrace) -> list[str]:
    """Names of the trace's tensors holding NaN or ±∞ (the −∞ of masked scores excepted).

    Empty for a healthy trace; the page shows it as the "no NaN" check at extreme temperatures.
    """
    bad = []
    for name, t in trace.state.items():
        if name == "S_masked":
            if torch.isnan(t).any() or torch.isposinf(t).any():
                bad.append(name)
        elif not torch.isfinite(t).all():
            bad.append(name)
    return bad


@dataclass(frozen=True)
class DotProduct:
    """value = Σ_m a[m] · b[m]: one cell of a matrix product with its factors.

    ``a_name``/``b_name`` name the two vectors (e.g. "q_2", "k_0"); ``a``, ``b`` are their
    entries (length d_head or d_model); ``total`` is the sum computed here in float64 and
    ``value`` the entry the trace holds (they agree to float32 rounding).
    """

    a_name: str
    b_name: str
    a: tuple[float, ...]
    b: tuple[float, ...]
    total: float
    value: float


@dataclass(frozen=True)
class Copy:
    """A cell that is copied, not computed: ``value`` = ``source``[``index``] (split and merge)."""

    source: str
    index: tuple[int, ...]
    value: float


@dataclass(frozen=True)
class ScoreCell:
    """Everything that happens to one score S[i, j] of one head, from q_i · k_j to α[i, j].

    Attributes:
        head, i, j: where the cell is (query i, key j).
        dot: q_i · k_j written as a DotProduct (its ``value`` is S[i, j] before any edit).
        raw: S[i, j] as the trace holds it after step 3 (the edited value if ``edited``).
        edited: True when a what-if edit replaced the score.
        divisor: √d_head or the switches' divisor; ``scaled`` = raw / divisor.
        masked: True when the causal mask hides the cell (j > i, mask on); it becomes −∞.
        temperature: τ of the softmax.
        row: the masked, scaled scores of row i (−∞ where masked), (T,).
        row_max: max of ``row``; subtracted before exp (softmax is unchanged by it).
        exps: exp((row − row_max) / τ), 0 where masked, (T,).
        exp_sum: Σ exps.
        alpha: α[i, :] from the trace, (T,); alpha[j] = exps[j] / exp_sum.
    """

    head: int
    i: int
    j: int
    dot: DotProduct
    raw: float
    edited: bool
    divisor: float
    scaled: float
    masked: bool
    temperature: float
    row: tuple[float, ...]
    row_max: float
    exps: tuple[float, ...]
    exp_sum: float
    alpha: tuple[float, ...]


def _floats(t: torch.Tensor) -> tuple[float, ...]:
    return tuple(float(v) for v in t.detach().double().reshape(-1).tolist())


def _dot(a_name: str, a: torch.Tensor, b_name: str, b: torch.Tensor, value: torch.Tensor) -> DotProduct:
    a, b = a.detach(), b.detach()  # weights are parameters; nothing here is differentiated
    total = float((a.double() * b.double()).sum())
    return DotProduct(a_name, b_name, _floats(a), _floats(b), total, float(value.detach()))


def explain_cell(trace: AttentionTrace, step: Step | str, head: int, i: int, j: int, output: int = 0
                 ) -> ScoreCell | DotProduct | Copy:
    """The arithmetic behind one entry of the matrix a step shows (batch 0).

    Args:
        step: which step's matrix; ``output`` picks Q/K/V for steps 1–2.
        head: the head for per-head steps (ignored otherwise).
        i: row (query position); j: column (key position, or dimension for T × d matrices).
    Returns:
        steps 3–6: a :class:`ScoreCell` (q_i · k_j, ÷ divisor, mask, softmax of row i);
        step 1: Q[i, j] = x_i · W_Q[j, :] (likewise K, V); step 7: o_i[j] = Σ_k α[i, k] v_k[j];
        step 9: out[i, j] = merged_i · W_O[j, :] — each a :class:`DotProduct`;
        steps 2 and 8: a :class:`Copy` naming where the number came from.
    Raises:
        IndexError for a head, row or column outside the matrix.
    """
    step = step_by_id(step) if isinstance(step, str) else step
    s = trace.state
    matrix = trace.step_tensor(step, head, output)  # (T, T), (T, d_head) or (T, D)
    if not (0 <= i < matrix.shape[0] and 0 <= j < matrix.shape[1]):
        raise IndexError(f"cell ({i}, {j}) is outside the {tuple(matrix.shape)} matrix of step {step.id}")
    if step.per_head and not 0 <= head < s["Q_h"].shape[1]:
        raise IndexError(f"head={head} does not exist; there are {s['Q_h'].shape[1]} heads")
    x = s["x"][0]  # (T, D)
    name = step.outputs[output]
    if step.id == "projection":
        W = {"Q": trace.weights.W_Q, "K": trace.weights.W_K, "V": trace.weights.W_V}[name]  # (D, D)
        return _dot(f"x_{{{i}}}", x[i], f"W_{{{name}}}[{j},:]", W[j], matrix[i, j])
    if step.id == "split_heads":
        d_head = s["Q_h"].shape[-1]
        return Copy(name[0], (i, head * d_head + j), float(matrix[i, j]))
    if step.id == "merge_heads":
        d_head = s["heads"].shape[-1]
        return Copy("heads", (j // d_head, i, j % d_head), float(matrix[i, j]))
    if step.id == "output_projection":
        return _dot(f"\\mathrm{{merged}}_{{{i}}}", s["merged"][0, i], f"W_O[{j},:]", trace.weights.W_O[j], matrix[i, j])
    if step.id == "weighted_sum":
        alpha, V_h = s["alpha"][0, head], s["V_h"][0, head]  # (T, T), (T, d_head)
        return _dot(f"\\alpha_{{{i},:}}", alpha[i], f"v_{{:,{j}}}", V_h[:, j], matrix[i, j])
    # steps 3–6: one score and its row's softmax
    sw = trace.switches
    q, k = s["Q_h"][0, head, i], s["K_h"][0, head, j]  # (d_head,)
    dot = _dot(f"q_{{{i}}}", q, f"k_{{{j}}}", k, q @ k)
    edited = any(h == head and r == i and c == j for h, r, c, _ in sw.edits)
    row = s["S_masked"][0, head, i].double()  # (T,)
    row_max = row.max()
    exps = torch.exp((row - row_max) / sw.temperature)  # (T,), exp(−∞) = 0
    return ScoreCell(
        head=head, i=i, j=j, dot=dot, raw=float(s["S"][0, head, i, j]), edited=edited,
        divisor=sw.divisor(q.shape[-1]), scaled=float(s["S_scaled"][0, head, i, j]),
        masked=bool(torch.isneginf(s["S_masked"][0, head, i, j])), temperature=sw.temperature,
        row=_floats(row), row_max=float(row_max), exps=_floats(exps), exp_sum=float(exps.sum()),
        alpha=_floats(s["alpha"][0, head, i]),
    )


@dataclass(frozen=True)
class ModelRun:
    """The model's own forward pass of one text, kept layer by layer (default switches).

    Attributes:
        block_inputs: the residual stream entering each block, n_layers × (1, T, D).
        alphas: α of every layer and head, (n_layers, h, T, T).
        logits: the model's own next-character logits, (1, T, V).
    """

    block_inputs: list[torch.Tensor]
    alphas: torch.Tensor
    logits: torch.Tensor


@torch.no_grad()
def run_model(model: GPT, idx: torch.Tensor) -> ModelRun:
    """Run ``model`` on ``idx`` (1, T) with its own attention, keeping α of every layer.

    Each block's attention input goes through :func:`run_steps` (the code the block itself runs)
    to read α; the block then runs as in ``GPT.forward``; the logits are ``model(idx)``.
    Raises ValueError if T > max_len.
    """
    x = model.embed(idx)  # (1, T, D)
    inputs, alphas = [], []
    for block in model.blocks:
        inputs.append(x)
        state = run_steps({"x": block.attention_input(x)}, block.attn.weights())
        alphas.append(state["alpha"][0])  # (h, T, T)
        x = block(x)  # (1, T, D)
    return ModelRun(block_inputs=inputs, alphas=torch.stack(alphas), logits=model(idx))


@torch.no_grad()
def module_difference(model: GPT, run: ModelRun, trace: AttentionTrace) -> float:
    """max |trace ``out`` − what block ``trace.layer``'s attention module returns| on the same input.

    The module is called as ``GPT.forward`` calls it (``block.attn(block.attention_input(x))``),
    so with the default switches the difference shows the trace is the model's own computation.
    """
    block = model.blocks[trace.layer]
    own = block.attn(block.attention_input(run.block_inputs[trace.layer]))  # (1, T, D)
    return float((trace.state["out"] - own).abs().max())
