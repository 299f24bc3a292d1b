"""What the pages explain about the model: one walk over the blocks, cell arithmetic, checks,
ablation effects and the logit lens.

This module sits above the lesson (``tinygpt.attention``) and the model (``tinygpt.model``) and
only reads them; neither imports it. Everything here is computed from :func:`walk`, the one
pass over the blocks that keeps what the pages show: the residual stream entering and leaving
each block, α of every layer, optionally every tensor of one layer's attention, and the logits —
computed by the blocks as ``GPT.forward`` computes them, so with the default switches the logits
are ``model(idx)`` bit for bit.

Shapes: T sequence length, h n_heads, d_head, D d_model, V vocab_size, L n_layers.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F

from tinygpt.attention import (
    AttentionTrace,
    CopySpec,
    DotSpec,
    ScoreSpec,
    Step,
    Switches,
    future_mask,
    run_steps,
    step_by_id,
)
from tinygpt.model import GPT, switches_for

LayerSwitches = Mapping[int, Switches] | Switches | None


# ---------------------------------------------------------------- the one walk over the blocks


@dataclass(frozen=True)
class Walk:
    """One pass of a text through the model, kept block by block.

    Attributes:
        block_inputs: the residual stream entering each block, L × (1, T, D).
        block_outputs: the residual stream leaving each block, L × (1, T, D).
        alphas: α of every layer and head, (L, h, T, T).
        logits: next-character logits, (1, T, V).
        switches: the switches each layer ran with (L entries).
        trace: every tensor of the attention of one layer (``trace_layer``), or None.
    """

    block_inputs: list[torch.Tensor]
    block_outputs: list[torch.Tensor]
    alphas: torch.Tensor
    logits: torch.Tensor
    switches: tuple[Switches, ...]
    trace: AttentionTrace | None = None


@torch.no_grad()
def walk(model: GPT, idx: torch.Tensor, switches: LayerSwitches = None, trace_layer: int | None = None) -> Walk:
    """Run ``model`` on ``idx`` (1, T) block by block, keeping what the pages explain.

    Each block's attention runs the registry's steps (:func:`tinygpt.attention.run_steps`) under
    its switches, and the block finishes with ``TransformerBlock.add_attention`` — the same
    computation as ``GPT.forward``, attention not run twice.

    Args:
        switches: one Switches for every layer, a mapping layer -> Switches, or None (the
            model's own attention everywhere).
        trace_layer: the layer whose every attention tensor is kept as ``Walk.trace``.
    Raises:
        IndexError for a ``trace_layer`` or a switched layer outside 0..L-1, or a head the layer
        does not have; ValueError if T > max_len.
    """
    L = len(model.blocks)
    if trace_layer is not None and not 0 <= trace_layer < L:
        raise IndexError(f"layer={trace_layer} does not exist; the model has layers 0..{L - 1}")
    if isinstance(switches, Mapping) and (bad := [k for k in switches if not 0 <= k < L]):
        raise IndexError(f"switches for layer {bad[0]}, which does not exist; the model has layers 0..{L - 1}")
    x = model.embed(idx)  # (1, T, D)
    inputs, outputs, alphas, used = [], [], [], []
    trace = None
    for layer, block in enumerate(model.blocks):
        sw = switches_for(switches, layer)
        weights = block.attn.weights()
        state = run_steps({"x": block.attention_input(x)}, weights, sw)
        if layer == trace_layer:
            trace = AttentionTrace(state=state, weights=weights, switches=sw, layer=layer)
        inputs.append(x)
        alphas.append(state["alpha"][0])  # (h, T, T)
        used.append(sw)
        x = block.add_attention(x, state["out"])  # (1, T, D)
        outputs.append(x)
    return Walk(
        block_inputs=inputs,
        block_outputs=outputs,
        alphas=torch.stack(alphas),
        logits=model.unembed(x),
        switches=tuple(used),
        trace=trace,
    )


def trace_of(
    model: GPT, idx: torch.Tensor, layer: int = 0, switches: Switches | None = None, earlier: Switches | None = None
) -> AttentionTrace:
    """Every tensor of the attention in block ``layer`` for ``idx`` (1, T): the traced layer runs
    ``switches`` (None: its own attention), the blocks before it ``earlier`` (None: their own), so the
    traced layer reads the residual stream those blocks leave. Raises IndexError for a layer outside 0..L-1."""
    by_layer = {} if earlier is None else dict.fromkeys(range(layer), earlier)
    if switches is not None:
        by_layer[layer] = switches
    trace = walk(model, idx, by_layer or None, trace_layer=layer).trace
    assert trace is not None
    return trace


# ---------------------------------------------------------------- ablation effects, logit lens


@dataclass(frozen=True)
class PositionEffects:
    """What switches change in the model's next-character prediction, at every position.

    Attributes:
        own_probs, new_probs: P(next character) without and with the switches, (T, V) float64.
        own_ids, new_ids: the argmax character id of each, (T,).
        own_p, new_p: its probability, (T,).
        changed: True where the argmax differs, (T,) bool.
        delta_own: |Δp| of the character the model itself predicts, (T,).
        max_delta: max over the vocabulary of |Δp|, (T,).
    """

    own_probs: torch.Tensor
    new_probs: torch.Tensor
    own_ids: torch.Tensor
    own_p: torch.Tensor
    new_ids: torch.Tensor
    new_p: torch.Tensor
    changed: torch.Tensor
    delta_own: torch.Tensor
    max_delta: torch.Tensor

    @property
    def n_changed(self) -> int:
        """How many positions predict another character."""
        return int(self.changed.sum())


def _probs(w: Walk) -> torch.Tensor:
    return torch.softmax(w.logits[0].double(), dim=-1)  # (T, V)


def _all_default(switches: LayerSwitches) -> bool:
    """True when ``switches`` (as :func:`walk` takes them) leave every layer's attention as it is."""
    if switches is None or isinstance(switches, Switches):
        return switches is None or switches.is_default
    return all(sw.is_default for sw in switches.values())


def effects_of(own: Walk, new: Walk) -> PositionEffects:
    """The prediction at every position of two walks of the same text: ``own`` (the model's own
    attention) against ``new`` (with switches)."""
    own_probs = _probs(own)  # (T, V)
    new_probs = own_probs if new is own else _probs(new)  # (T, V)
    own_p, own_ids = own_probs.max(dim=-1)  # (T,)
    new_p, new_ids = new_probs.max(dim=-1)  # (T,)
    delta = (new_probs - own_probs).abs()  # (T, V)
    return PositionEffects(
        own_probs=own_probs,
        new_probs=new_probs,
        own_ids=own_ids,
        own_p=own_p,
        new_ids=new_ids,
        new_p=new_p,
        changed=own_ids != new_ids,
        delta_own=delta.gather(-1, own_ids[:, None])[:, 0],
        max_delta=delta.amax(dim=-1),
    )


def position_effects(
    model: GPT, idx: torch.Tensor, switches_by_layer: LayerSwitches, own: Walk | None = None
) -> PositionEffects:
    """The switches' effect on the prediction at every position of ``idx`` (1, T).

    Both passes are :func:`walk`; ``own`` (the model's own walk of ``idx``) is reused when given,
    and is the second pass too when every switch is the default (the model's own attention).
    Raises what :func:`walk` raises.
    """
    own = own if own is not None else walk(model, idx)
    new = own if _all_default(switches_by_layer) else walk(model, idx, switches_by_layer)
    return effects_of(own, new)


class HeadImportance(NamedTuple):
    """Each head switched off alone: ``changed`` (L, h) positions whose argmax changes, and
    ``max_delta`` (L, h) the largest |Δp| of the character the model itself predicts."""

    changed: torch.Tensor
    max_delta: torch.Tensor


def head_importance(model: GPT, idx: torch.Tensor) -> HeadImportance:
    """For every layer × head, the prediction of ``idx`` (1, T) with that head's output zeroed
    (``Switches(heads_off=(head,))`` in that layer) compared with the model's own; L·h walks."""
    own = walk(model, idx)
    L, h = len(model.blocks), model.cfg.n_heads
    changed = torch.zeros(L, h, dtype=torch.long)
    max_delta = torch.zeros(L, h, dtype=torch.float64)
    for layer in range(L):
        for head in range(h):
            fx = position_effects(model, idx, {layer: Switches(heads_off=(head,))}, own)
            changed[layer, head] = fx.n_changed
            max_delta[layer, head] = fx.delta_own.max()
    return HeadImportance(changed, max_delta)


@torch.no_grad()
def logit_lens(model: GPT, idx: torch.Tensor, switches: LayerSwitches = None) -> torch.Tensor:
    """P(next character) read from the residual stream after each block: (L, T, V) float64.

    The model's own final LayerNorm and head are applied to each block's output (nostalgebraist
    2020, "interpreting GPT: the logit lens"); the last layer is softmax of the model's logits.
    """
    w = walk(model, idx, switches)
    return torch.stack([torch.softmax(model.unembed(x)[0].double(), dim=-1) for x in w.block_outputs])


# ---------------------------------------------------------------- checks shown beside a trace


def sdpa_difference(trace: AttentionTrace) -> float:
    """max |α V − F.scaled_dot_product_attention(Q, K, V, is_causal=True)| over all heads.

    Meaningful for the default switches (PyTorch's fused kernel computes the paper's formula).
    """
    ref = F.scaled_dot_product_attention(
        trace.state["Q_h"], trace.state["K_h"], trace.state["V_h"], is_causal=True
    )  # (B, h, T, d_head)
    return float((trace.state["heads"] - ref).abs().max())


def sdpa_switch_difference(trace: AttentionTrace) -> float | None:
    """max |α V − F.scaled_dot_product_attention(Q, K, V, …)| under the trace's own switches.

    PyTorch's SDPA takes the causal mask (``is_causal``) and the factor the scores are multiplied
    by (``scale``); softmax(S / (divisor · τ)) is softmax(S / divisor / τ), so scale =
    1 / (divisor · τ) reproduces the mask, divisor and temperature; heads switched off are zeroed
    in the reference too. Returns None when the trace has edited scores or uniform heads (SDPA
    cannot take them). Over all heads; (B, h, T, d_head) compared.
    """
    sw = trace.switches
    if sw.edits or sw.uniform_heads:
        return None
    Q_h = trace.state["Q_h"]  # (B, h, T, d_head)
    factor = 1.0 / (sw.divisor_for(Q_h.shape[-1]) * sw.temperature)
    ref = F.scaled_dot_product_attention(
        Q_h, trace.state["K_h"], trace.state["V_h"], is_causal=sw.causal_mask, scale=factor
    )  # (B, h, T, d_head)
    ref[:, list(sw.heads_off)] = 0.0
    return float((trace.state["heads"] - ref).abs().max())


def row_sums(trace: AttentionTrace) -> torch.Tensor:
    """Σ_j α[i, j] for every head and row, (B, h, T); 1 up to rounding."""
    return trace.state["alpha"].sum(dim=-1)


def masked_weights(trace: AttentionTrace) -> tuple[int, float]:
    """(number of masked entries over all heads, largest α among them).

    With the causal mask on, every α[i, j] with j > i must be exactly 0.0; with it off there are
    no masked entries and the answer is (0, 0.0).
    """
    alpha = trace.state["alpha"]  # (B, h, T, T)
    if not trace.switches.causal_mask:
        return 0, 0.0
    picked = alpha[..., future_mask(alpha.shape[-1], alpha.device)]  # (B, h, n_masked)
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


def step_source_location(step: Step | str) -> tuple[str, int, int]:
    """Where the code of a step lives: (path relative to the project, first line, last line).

    The lines are those of ``step.fn`` as ``inspect.getsourcelines`` finds them, so the page can
    say "tinygpt/attention.py, lines 95–101" above the code it shows with ``Step.source``.
    """
    step = step_by_id(step) if isinstance(step, str) else step
    lines, first = inspect.getsourcelines(step.fn)
    path = inspect.getsourcefile(step.fn) or ""
    parts = path.replace("\\", "/").split("/")
    rel = "/".join(parts[parts.index("tinygpt") :]) if "tinygpt" in parts else parts[-1]
    return rel, first, first + len(lines) - 1


@torch.no_grad()
def module_difference(model: GPT, own: Walk, trace: AttentionTrace) -> float:
    """max |trace ``out`` − what block ``trace.layer``'s attention module returns| on the same input.

    ``own`` is a walk of the same text (its ``block_inputs`` feed the module). The module is
    called as ``GPT.forward`` calls it (``block.attn(block.attention_input(x))``), so with the
    default switches the difference shows the trace is the model's own computation.
    """
    block = model.blocks[trace.layer]
    module_out = block.attn(block.attention_input(own.block_inputs[trace.layer]))  # (1, T, D)
    return float((trace.state["out"] - module_out).abs().max())


# ---------------------------------------------------------------- the arithmetic of one cell


@dataclass(frozen=True)
class DotProduct:
    """value = Σ_m a[m] · b[m]: one cell of a matrix product with its factors.

    ``a_name``/``b_name`` name the two vectors (LaTeX, e.g. "q_{2}", "k_{0}"); ``a``, ``b`` are
    their entries (length d_head, T or d_model); ``total`` is the sum computed here in float64 and
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
        alpha: α[i, :] from the trace, (T,); alpha[j] = exps[j] / exp_sum unless the head is uniform.
        uniform: True when the head's α is the uniform distribution (``Switches.uniform_heads``).
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
    uniform: bool = False


def _floats(t: torch.Tensor) -> tuple[float, ...]:
    return tuple(float(v) for v in t.detach().double().reshape(-1).tolist())


def _dot(a_name: str, a: torch.Tensor, b_name: str, b: torch.Tensor, value: torch.Tensor) -> DotProduct:
    a, b = a.detach(), b.detach()  # weights are parameters; nothing here is differentiated
    total = float((a.double() * b.double()).sum())
    return DotProduct(a_name, b_name, _floats(a), _floats(b), total, float(value.detach()))


def _tensor(trace: AttentionTrace, name: str, head: int) -> torch.Tensor:
    """A named tensor of the trace as a matrix: weights as they are, state at batch 0 (and ``head``)."""
    if name.startswith("W_"):
        return getattr(trace.weights, name)  # (D, D)
    t = trace.state[name]
    return t[0, head] if t.dim() == 4 else t[0]


def _explain_dot(
    spec: DotSpec, trace: AttentionTrace, name: str, head: int, i: int, j: int, value: torch.Tensor
) -> DotProduct:
    a = _tensor(trace, spec.a.format(o=name), head)[i]
    b_matrix = _tensor(trace, spec.b.format(o=name), head)
    b = b_matrix[j] if spec.b_axis == "row" else b_matrix[:, j]
    fields = {"i": i, "j": j, "o": name}
    return _dot(spec.a_label.format(**fields), a, spec.b_label.format(**fields), b, value)


def _explain_copy(spec: CopySpec, trace: AttentionTrace, name: str, head: int, i: int, j: int) -> Copy:
    source = spec.source_of(name)
    index = spec.index(i, j, head, trace.state["Q_h"].shape[-1])
    return Copy(source, index, float(trace.state[source][0][index]))


def _explain_score(trace: AttentionTrace, head: int, i: int, j: int) -> ScoreCell:
    s, sw = trace.state, trace.switches
    q, k = s["Q_h"][0, head, i], s["K_h"][0, head, j]  # (d_head,)
    dot = _dot(f"q_{{{i}}}", q, f"k_{{{j}}}", k, q @ k)
    edited = any(h == head and r == i and c == j for h, r, c, _ in sw.edits)
    row = s["S_masked"][0, head, i].double()  # (T,)
    row_max = row.max()
    exps = torch.exp((row - row_max) / sw.temperature)  # (T,), exp(−∞) = 0
    return ScoreCell(
        head=head,
        i=i,
        j=j,
        dot=dot,
        raw=float(s["S"][0, head, i, j]),
        edited=edited,
        divisor=sw.divisor_for(q.shape[-1]),
        scaled=float(s["S_scaled"][0, head, i, j]),
        masked=bool(torch.isneginf(s["S_masked"][0, head, i, j])),
        temperature=sw.temperature,
        row=_floats(row),
        row_max=float(row_max),
        exps=_floats(exps),
        exp_sum=float(exps.sum()),
        alpha=_floats(s["alpha"][0, head, i]),
        uniform=head in sw.uniform_heads,
    )


def explain_cell(
    trace: AttentionTrace, step: Step | str, head: int, i: int, j: int, output: int = 0
) -> ScoreCell | DotProduct | Copy:
    """The arithmetic behind one entry of the matrix a step shows (batch 0), as the step's
    ``cell`` declaration says it is computed.

    Args:
        step: which step's matrix; ``output`` picks Q/K/V for steps 1–2.
        head: the head for per-head steps (ignored otherwise).
        i: row (query position); j: column (key position, or dimension for T × d matrices).
    Returns:
        a :class:`ScoreCell` for a ``ScoreSpec`` step (q_i · k_j, ÷ divisor, mask, softmax of row i),
        a :class:`DotProduct` for a ``DotSpec`` step (e.g. Q[i, j] = x_i · W_Q[j, :]),
        a :class:`Copy` for a ``CopySpec`` step, naming where the number came from.
    Raises:
        IndexError for a head, row or column outside the matrix; TypeError for a step whose
        ``cell`` is none of the three declarations.
    """
    step = step_by_id(step) if isinstance(step, str) else step
    n_heads = trace.state["Q_h"].shape[1]
    if step.per_head and not 0 <= head < n_heads:
        raise IndexError(f"head={head} does not exist; there are {n_heads} heads")
    matrix = trace.step_tensor(step, head, output)  # (T, T), (T, d_head) or (T, D)
    if not (0 <= i < matrix.shape[0] and 0 <= j < matrix.shape[1]):
        raise IndexError(f"cell ({i}, {j}) is outside the {tuple(matrix.shape)} matrix of step {step.id}")
    name = step.outputs[output]
    spec = step.cell
    if isinstance(spec, ScoreSpec):
        return _explain_score(trace, head, i, j)
    if isinstance(spec, DotSpec):
        return _explain_dot(spec, trace, name, head, i, j, matrix[i, j])
    if isinstance(spec, CopySpec):
        return _explain_copy(spec, trace, name, head, i, j)
    raise TypeError(f"step {step.id!r} declares no known cell arithmetic: {spec!r}")
