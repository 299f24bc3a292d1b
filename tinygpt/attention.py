r"""Scaled dot-product multi-head attention as nine named steps — the one source of truth.

Vaswani et al. 2017, "Attention Is All You Need", section 3.2:

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V
    MultiHead(x) = Concat(head_1, …, head_h) W_O,   head_i = Attention(x W_Q^i, x W_K^i, x W_V^i)

``STEPS`` lists the steps in order; each has an id, its LaTeX formula, the symbolic shape it
produces, the function that computes it, the :class:`Switches` fields that function reads and how
one cell of its matrix is computed (a :data:`CellSpec`). The model's forward pass
(:class:`tinygpt.model.MultiHeadAttention`) runs :func:`run_steps`, and so does the trace the
attention page shows: the numbers a student sees are the numbers the model used. The steps' names
in each language are i18n keys ``step.<id>.name``.

Shapes (letters used in the comments of this module):
    B batch, T sequence length, h n_heads, d_head = d_model / h, D d_model.

"What-if" switches (:class:`Switches`) change the causal mask, the divisor of the scores, the
softmax temperature, single scores, make heads attend uniformly or switch heads off;
:func:`run_steps` can restart from any step with the earlier tensors kept, so a change recomputes
only from the first step that reads it (:func:`first_affected_step`).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace

import torch
import torch.nn.functional as F

from tinygpt.config import OWN_TEMPERATURE

State = dict[str, torch.Tensor]


def future_mask(T: int, device: torch.device | str | None = None) -> torch.Tensor:
    """The causal triangle: (T, T) booleans, True where key j is in the future of query i (j > i)."""
    return torch.ones(T, T, dtype=torch.bool, device=device).triu(diagonal=1)  # (T, T)


def _head_tuple(name: str, heads: tuple[int, ...]) -> None:
    if not all(isinstance(h, int) and not isinstance(h, bool) and h >= 0 for h in heads):
        raise ValueError(f"{name}={heads!r} must hold head indices, integers ≥ 0")
    if list(heads) != sorted(set(heads)):
        raise ValueError(f"{name}={heads!r} must be sorted and without repeats, e.g. {tuple(sorted(set(heads)))}")


@dataclass(frozen=True)
class Switches:
    """What-if settings of one attention layer; the defaults are the model's own computation.

    Attributes:
        causal_mask: hide future positions (j > i) before the softmax.
        divisor: the number the scores are divided by; None means √d_head (the paper), 1.0 no scaling.
        temperature: softmax temperature τ > 0; α = softmax(S / τ). ``OWN_TEMPERATURE`` is the model's own.
        edits: replacement raw scores S[head, i, j] = value, applied after step 3.
        uniform_heads: heads whose α is replaced by the uniform distribution over the keys the
            mask allows (1/(i+1) on j ≤ i with the mask, 1/T without it); sorted, no repeats.
        heads_off: heads whose output o^(h) is zeroed, so their slice of the merged tensor is 0
            before W_O; sorted, no repeats.
    Raises:
        ValueError for a temperature or divisor that is not a finite number > 0, or head lists
        that are not sorted unique integers ≥ 0 (a head ≥ h is refused by the step that uses it).
    """

    causal_mask: bool = True
    divisor: float | None = None
    temperature: float = OWN_TEMPERATURE
    edits: tuple[tuple[int, int, int, float], ...] = ()
    uniform_heads: tuple[int, ...] = ()
    heads_off: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not (math.isfinite(self.temperature) and self.temperature > 0):
            raise ValueError(f"temperature={self.temperature} must be a finite number > 0")
        if self.divisor is not None and not (math.isfinite(self.divisor) and self.divisor > 0):
            raise ValueError(f"divisor={self.divisor} must be a finite number > 0")
        _head_tuple("uniform_heads", self.uniform_heads)
        _head_tuple("heads_off", self.heads_off)

    @property
    def is_default(self) -> bool:
        """True when these switches reproduce the model's own attention."""
        return self == Switches()

    def divisor_for(self, d_head: int) -> float:
        """The number the scores are divided by: √d_head unless ``divisor`` overrides it."""
        return math.sqrt(d_head) if self.divisor is None else float(self.divisor)


DEFAULT_SWITCHES = Switches()
SWITCH_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Switches))


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


def _check_heads(name: str, heads: tuple[int, ...], n_heads: int) -> None:
    for head in heads:
        if head >= n_heads:
            raise IndexError(f"{name}: head {head} does not exist; this layer has heads 0..{n_heads - 1}")


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
        _check_heads("edits", tuple(head for head, _, _, _ in sw.edits), w.n_heads)
        S = S.clone()
        for head, i, j, value in sw.edits:
            S[:, head, i, j] = value
    return {"S": S}


def scale_scores(s: State, w: Weights, sw: Switches) -> State:
    """Step 4: S / √d_head (or the divisor the switches choose), (B, h, T, T)."""
    d_head = s["Q_h"].shape[-1]
    return {"S_scaled": s["S"] / sw.divisor_for(d_head)}  # (B, h, T, T)


def causal_mask(s: State, w: Weights, sw: Switches) -> State:
    """Step 5: entries with j > i (the future) become −∞, so softmax gives them weight 0."""
    S = s["S_scaled"]  # (B, h, T, T)
    if not sw.causal_mask:
        return {"S_masked": S}
    return {"S_masked": S.masked_fill(future_mask(S.shape[-1], S.device), float("-inf"))}  # (B, h, T, T)


def softmax(s: State, w: Weights, sw: Switches) -> State:
    """Step 6: α = softmax(S / τ) over keys j; each row is ≥ 0 and sums to 1, (B, h, T, T).

    The row maximum is subtracted before dividing by τ, so a tiny τ gives a one-hot row
    rather than ∞ − ∞ = NaN. Heads in ``sw.uniform_heads`` weigh every key the mask allows
    (the finite scores) equally instead: 1/(i+1) with the causal mask, 1/T without it.
    """
    S = s["S_masked"]  # (B, h, T, T)
    if sw.temperature != Switches.temperature:  # the default τ: the softmax as trained
        S = (S - S.amax(dim=-1, keepdim=True)) / sw.temperature
    alpha = torch.softmax(S, dim=-1)  # (B, h, T, T)
    if sw.uniform_heads:
        _check_heads("uniform_heads", sw.uniform_heads, w.n_heads)
        heads = list(sw.uniform_heads)
        allowed = (~torch.isneginf(s["S_masked"][:, heads])).to(alpha.dtype)  # (B, u, T, T)
        alpha = alpha.clone()
        alpha[:, heads] = allowed / allowed.sum(dim=-1, keepdim=True)
    return {"alpha": alpha}


def weighted_sum(s: State, w: Weights, sw: Switches) -> State:
    """Step 7: each position's output is o_i = Σ_j α[i, j] v_j, (B, h, T, d_head).

    Heads in ``sw.heads_off`` output 0 (ablation): their slice of the merged tensor is then 0,
    so W_O adds nothing from them.
    """
    heads = s["alpha"] @ s["V_h"]  # (B, h, T, d_head)
    if sw.heads_off:
        _check_heads("heads_off", sw.heads_off, w.n_heads)
        heads = heads.clone()
        heads[:, list(sw.heads_off)] = 0.0
    return {"heads": heads}


def merge_heads(s: State, w: Weights, sw: Switches) -> State:
    """Step 8: concatenate the heads, (B, h, T, d_head) -> (B, T, D)."""
    B, h, T, d_head = s["heads"].shape
    return {"merged": s["heads"].transpose(1, 2).reshape(B, T, h * d_head)}  # (B, T, D)


def output_projection(s: State, w: Weights, sw: Switches) -> State:
    """Step 9: out = merged W_O, (B, T, D)."""
    return {"out": F.linear(s["merged"], w.W_O)}  # (B, T, D)


# ---------------------------------------------------------------- how a cell of a step is computed
# Declarations, read by ``tinygpt.explanations.explain.explain_cell``: the registry says what each number is.
# A tensor name is one of the state (x, Q, …, out) or of the weights (W_Q, W_K, W_V, W_O).


@dataclass(frozen=True)
class DotSpec:
    """cell[i, j] = a[i, :] · b[j, :] (``b_axis="row"``) or a[i, :] · b[:, j] (``b_axis="col"``).

    ``a``/``b`` name tensors; "{o}" in them stands for the shown output's name (Q, K or V).
    Per-head tensors are cut at the chosen head. ``a_label``/``b_label`` are LaTeX templates
    with the fields i, j and o, written in the formulas' convention Q = XW_Q: the weights are
    stored (out, in) as nn.Linear does, so row j of the stored W_Q (``b_axis="row"``) is
    column j of the formula's W_Q, labelled W_Q[:, j].
    """

    a: str
    b: str
    b_axis: str
    a_label: str
    b_label: str


@dataclass(frozen=True)
class CopySpec:
    """cell[i, j] is copied from the source of the shown output at ``index(i, j, head, d_head)``: nothing is
    computed."""

    source: tuple[tuple[str, str], ...]
    index: Callable[[int, int, int, int], tuple[int, ...]]

    def source_of(self, output: str) -> str:
        """The tensor that ``output``'s cells are copied from."""
        return dict(self.source)[output]


@dataclass(frozen=True)
class ScoreSpec:
    """The cell is one score of one head followed from q_i · k_j through scaling and mask to α[i, j]."""


CellSpec = DotSpec | CopySpec | ScoreSpec


# ---------------------------------------------------------------- the registry


@dataclass(frozen=True)
class Step:
    """One step of attention as shown to students.

    Attributes:
        id: stable identifier (used in URLs and i18n keys ``step.<id>.*``).
        formula: LaTeX.
        shape: the produced tensor's shape, symbolic, e.g. ("B", "h", "T", "T") (letters of
            :data:`SHAPE_SYMBOLS`).
        outputs: names of the tensors the step adds to the state; the first is the one shown.
        fn: the function that computes it (the model runs the same function).
        reads: the :class:`Switches` fields ``fn`` reads.
        cell: how one entry of the shown matrix is computed.
        number: 1-based position in :data:`STEPS` (set by the registry).
    """

    id: str
    formula: str
    shape: tuple[str, ...]
    outputs: tuple[str, ...]
    fn: Callable[[State, Weights, Switches], State]
    reads: frozenset[str]
    cell: CellSpec
    number: int = 0

    @property
    def per_head(self) -> bool:
        """True when the shown tensor has a head axis (B, h, …)."""
        return "h" in self.shape

    @property
    def square(self) -> bool:
        """True when the shown matrix is query × key, (T, T)."""
        return self.shape[-2:] == ("T", "T")

    @property
    def shape_text(self) -> str:
        """The symbolic shape as written in the lesson, e.g. "(B, h, T, d_head)"."""
        return f"({', '.join(self.shape)})"

    def sized(self, sizes: dict[str, int]) -> tuple[int, ...]:
        """The concrete shape for ``sizes`` (a size for every symbol of :data:`SHAPE_SYMBOLS`)."""
        return tuple(sizes[d] for d in self.shape)

    def source(self) -> str:
        """The Python source of the code that computes this step (inspect.getsource)."""
        return inspect.getsource(self.fn)


#: The symbols a Step's shape may use.
SHAPE_SYMBOLS: tuple[str, ...] = ("B", "T", "h", "d_head", "d_model")


def _numbered(*steps: Step) -> tuple[Step, ...]:
    """The registry: steps numbered 1.. in order, each checked (known shape symbols and switch
    fields, outputs to show, a cell declaration), every switch read by some step."""
    for step in steps:
        if not isinstance(step.cell, (DotSpec, CopySpec, ScoreSpec)):
            raise TypeError(f"step {step.id!r} does not declare how a cell is computed (got {step.cell!r})")
        if unknown := set(step.shape) - set(SHAPE_SYMBOLS):
            raise ValueError(f"step {step.id!r}: unknown shape symbols {sorted(unknown)}")
        if unknown := step.reads - set(SWITCH_FIELDS):
            raise ValueError(f"step {step.id!r} reads {sorted(unknown)}, which are not Switches fields")
        if not step.outputs:
            raise ValueError(f"step {step.id!r} has no output to show")
    if unread := set(SWITCH_FIELDS) - set().union(*(s.reads for s in steps)):
        raise ValueError(f"no step reads the switches {sorted(unread)}")
    return tuple(replace(step, number=k) for k, step in enumerate(steps, start=1))


STEPS: tuple[Step, ...] = _numbered(
    Step(
        "projection",
        r"Q = XW_Q,\quad K = XW_K,\quad V = XW_V",
        ("B", "T", "d_model"),
        ("Q", "K", "V"),
        project,
        frozenset(),
        DotSpec("x", "W_{o}", "row", "x_{{{i}}}", "W_{{{o}}}[:,{j}]"),
    ),
    Step(
        "split_heads",
        r"(B, T, d_{model}) \rightarrow (B, h, T, d_{head}),\quad d_{head} = d_{model}/h",
        ("B", "h", "T", "d_head"),
        ("Q_h", "K_h", "V_h"),
        split_heads,
        frozenset(),
        CopySpec((("Q_h", "Q"), ("K_h", "K"), ("V_h", "V")), lambda i, j, head, d_head: (i, head * d_head + j)),
    ),
    Step(
        "scores",
        r"S = QK^{\top},\quad S_{ij} = q_i \cdot k_j",
        ("B", "h", "T", "T"),
        ("S",),
        scores,
        frozenset({"edits"}),
        ScoreSpec(),
    ),
    Step(
        "scale",
        r"\tilde S = \frac{S}{\sqrt{d_{head}}}",
        ("B", "h", "T", "T"),
        ("S_scaled",),
        scale_scores,
        frozenset({"divisor"}),
        ScoreSpec(),
    ),
    Step(
        "mask",
        r"\tilde S_{ij} = -\infty \quad \text{if } j > i",
        ("B", "h", "T", "T"),
        ("S_masked",),
        causal_mask,
        frozenset({"causal_mask"}),
        ScoreSpec(),
    ),
    Step(
        "softmax",
        r"\alpha_{ij} = \frac{\exp(\tilde S_{ij}/\tau)}{\sum_{k} \exp(\tilde S_{ik}/\tau)},"
        r"\quad \sum_j \alpha_{ij} = 1",
        ("B", "h", "T", "T"),
        ("alpha",),
        softmax,
        frozenset({"temperature", "uniform_heads"}),
        ScoreSpec(),
    ),
    Step(
        "weighted_sum",
        r"o_i = \sum_j \alpha_{ij} v_j,\quad O = \alpha V",
        ("B", "h", "T", "d_head"),
        ("heads",),
        weighted_sum,
        frozenset({"heads_off"}),
        DotSpec("alpha", "V_h", "col", r"\alpha_{{{i},:}}", "v_{{:,{j}}}"),
    ),
    Step(
        "merge_heads",
        r"\mathrm{Concat}(o^{(1)}, \ldots, o^{(h)}):\ (B, h, T, d_{head}) \rightarrow (B, T, d_{model})",
        ("B", "T", "d_model"),
        ("merged",),
        merge_heads,
        frozenset(),
        CopySpec((("merged", "heads"),), lambda i, j, head, d_head: (j // d_head, i, j % d_head)),
    ),
    Step(
        "output_projection",
        r"\mathrm{MultiHead}(X) = \mathrm{Concat}(o^{(1)}, \ldots, o^{(h)})\,W_O",
        ("B", "T", "d_model"),
        ("out",),
        output_projection,
        frozenset(),
        DotSpec("merged", "W_O", "row", r"\mathrm{{merged}}_{{{i}}}", "W_O[:,{j}]"),
    ),
)

STEP_IDS: tuple[str, ...] = tuple(s.id for s in STEPS)


def step_by_id(step_id: str) -> Step:
    """The registry entry for ``step_id``; raises KeyError listing the valid ids."""
    for s in STEPS:
        if s.id == step_id:
            return s
    raise KeyError(f"unknown step {step_id!r}; valid: {', '.join(STEP_IDS)}")


def first_affected_step(old: Switches, new: Switches) -> int:
    """Index into STEPS of the first step that reads a switch differing between ``old`` and ``new``.

    Equal switches give len(STEPS) (nothing to recompute).
    """
    changed = {name for name in SWITCH_FIELDS if getattr(old, name) != getattr(new, name)}
    return next((k for k, step in enumerate(STEPS) if step.reads & changed), len(STEPS))


def run_steps(state: State, weights: Weights, switches: Switches = DEFAULT_SWITCHES, start: int = 0) -> State:
    """Run STEPS[start:] on ``state`` and return the state with every step's tensors added.

    Args:
        state: must hold ``x`` (B, T, D) for start 0, or the outputs of STEPS[:start].
        weights: the layer's projections.
        switches: what-if settings (defaults: the model's own attention).
        start: index of the first step to run (0..len(STEPS)); earlier tensors are reused as they are.
    Returns:
        A new dict; ``out`` (B, T, D) is the attention sub-layer's output.
    Raises:
        IndexError when the switches name a head the layer does not have.
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
