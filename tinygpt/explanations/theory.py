r"""The vector mathematics behind attention, for the Theory page's live examples (no Streamlit).

Seed section 22.2.1 builds attention from vectors; its formulas were lost from the text and are
restored here from standard linear algebra and Vaswani et al. 2017, "Attention Is All You Need",
section 3.2.1 (scaled dot-product attention):

    a + b = (a_1 + b_1, …, a_d + b_d)          c a = (c a_1, …, c a_d)          a · b = Σ_i a_i b_i
    o = Σ_i α_i v_i,   α_i ≥ 0,   Σ_i α_i = 1                                  (weighted sum)
    s_i = q · k_i,     α_i = exp(s_i / τ) / Σ_j exp(s_j / τ)                   (similarity, softmax)
    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V                                (matrix form)

τ is the softmax temperature (τ = 1 is the paper's softmax). The functions compute with torch in
float64 and return plain Python floats, so the page can print them and the tests compare them
exactly. Shapes: d the vector length, m the number of keys / values, n the number of queries.

``CONCEPTS`` lists the section's concepts in order, each with its LaTeX formula and the ids of the
attention steps (``tinygpt.attention.STEP_IDS``) where the real model does the same thing;
``STEP_CONCEPT`` goes the other way, from each step to the concept that explains it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from tinygpt.attention import future_mask

Vector = Sequence[float]


class TheoryInputError(ValueError):
    """An example's input is not accepted; ``field`` names it, ``value`` is what was given.

    ``reason`` is a stable id the page turns into a message in the user's language
    ("negative", "zero_sum", "sum", "temperature", "length", "empty"); each has a message
    ``theory.err.<reason>`` in the catalogue.
    """

    REASONS = ("negative", "zero_sum", "sum", "temperature", "length", "empty")

    def __init__(self, field: str, value: object, reason: str, message: str) -> None:
        if reason not in self.REASONS:
            raise ValueError(f"unknown reason {reason!r}; one of {self.REASONS}")
        super().__init__(message)
        self.field = field
        self.value = value
        self.reason = reason


def _vec(values: Vector, field: str) -> torch.Tensor:
    t = torch.as_tensor(list(values), dtype=torch.float64)  # (d,)
    if t.ndim != 1 or t.numel() == 0:
        raise TheoryInputError(field, list(values), "empty", f"{field} must be a non-empty vector")
    return t


def _same_length(a: torch.Tensor, b: torch.Tensor, field: str) -> None:
    if a.shape != b.shape:
        raise TheoryInputError(
            field,
            (a.numel(), b.numel()),
            "length",
            f"{field}: vectors of lengths {a.numel()} and {b.numel()} cannot be combined",
        )


def add(a: Vector, b: Vector) -> list[float]:
    """a + b, element by element; both of length d. Raises TheoryInputError if the lengths differ."""
    ta, tb = _vec(a, "a"), _vec(b, "b")
    _same_length(ta, tb, "a + b")
    return (ta + tb).tolist()  # (d,)


def scale(c: float, a: Vector) -> list[float]:
    """c · a: every component of ``a`` (length d) multiplied by the scalar ``c``."""
    return (float(c) * _vec(a, "a")).tolist()  # (d,)


def dot(a: Vector, b: Vector) -> float:
    """a · b = Σ_i a_i b_i, the similarity attention uses. Raises TheoryInputError if lengths differ."""
    ta, tb = _vec(a, "a"), _vec(b, "b")
    _same_length(ta, tb, "a · b")
    return float(ta @ tb)


def normalize_weights(raw: Vector) -> list[float]:
    """Scale non-negative numbers so they sum to 1: α_i = r_i / Σ_j r_j, length m.

    Raises:
        TheoryInputError: reason "negative" if some r_i < 0, "zero_sum" if all are 0.
    """
    t = _vec(raw, "weights")  # (m,)
    if bool((t < 0).any()):
        raise TheoryInputError("weights", t.tolist(), "negative", f"weights {t.tolist()} must be ≥ 0")
    total = float(t.sum())
    if total <= 0:
        raise TheoryInputError("weights", t.tolist(), "zero_sum", "at least one weight must be > 0")
    return (t / total).tolist()  # (m,)


def weighted_sum(weights: Vector, values: Sequence[Vector]) -> list[float]:
    """o = Σ_i α_i v_i for m weights (each ≥ 0, summing to 1 within 1e-9) and m vectors of length d.

    Seed 22.2.1.3: the basic way to gather information selectively from several vectors.
    Raises TheoryInputError for negative weights, weights not summing to 1, or m mismatched.
    """
    alpha = _vec(weights, "weights")  # (m,)
    V = torch.as_tensor([list(v) for v in values], dtype=torch.float64)  # (m, d)
    if V.ndim != 2 or V.shape[0] != alpha.numel():
        raise TheoryInputError(
            "values",
            len(values),
            "length",
            f"{alpha.numel()} weights need {alpha.numel()} value vectors, got {len(values)}",
        )
    if bool((alpha < 0).any()):
        raise TheoryInputError("weights", alpha.tolist(), "negative", "weights must be ≥ 0")
    if abs(float(alpha.sum()) - 1.0) > 1e-9:
        raise TheoryInputError("weights", float(alpha.sum()), "sum", "weights must sum to 1")
    return (alpha @ V).tolist()  # (d,)


def check_temperature(temperature: float) -> float:
    """``temperature`` as a float if it is finite and > 0, else TheoryInputError (reason "temperature")."""
    tau = float(temperature)
    if not (math.isfinite(tau) and tau > 0):
        raise TheoryInputError("temperature", temperature, "temperature", f"temperature={temperature} must be > 0")
    return tau


def softmax(scores: Vector, temperature: float = 1.0) -> list[float]:
    """α_i = exp(s_i / τ) / Σ_j exp(s_j / τ) for m scores; each α_i ≥ 0 and Σ α_i = 1.

    Uses ``torch.softmax`` (which subtracts the maximum first, so large scores do not overflow).
    −∞ scores (masked) get exactly 0. Raises TheoryInputError for τ ≤ 0 or not finite.
    """
    tau = check_temperature(temperature)
    s = _vec(scores, "scores")  # (m,)
    return torch.softmax(s / tau, dim=0).tolist()  # (m,)


@dataclass(frozen=True)
class Attended:
    """One query attending over m keys and values (seed 22.2.1.4–22.2.1.5).

    Attributes:
        scores: s_i = q · k_i (divided by √d when scaled), length m.
        weights: α = softmax(s / τ), length m, sums to 1.
        output: o = Σ_i α_i v_i, length d_v.
    """

    scores: list[float]
    weights: list[float]
    output: list[float]


def attend(
    query: Vector, keys: Sequence[Vector], values: Sequence[Vector], *, temperature: float = 1.0, scaled: bool = False
) -> Attended:
    """Score ``query`` (length d) against m ``keys`` (m × d), softmax, mix m ``values`` (m × d_v).

    ``scaled`` divides the scores by √d (Vaswani et al. 2017, eq. 1). Raises TheoryInputError on
    mismatched lengths or a bad temperature.
    """
    q = _vec(query, "query")  # (d,)
    K = torch.as_tensor([list(k) for k in keys], dtype=torch.float64)  # (m, d)
    if K.ndim != 2 or K.shape[1] != q.numel():
        raise TheoryInputError("keys", tuple(K.shape), "length", f"keys must be m × {q.numel()}")
    s = K @ q  # (m,)
    if scaled:
        s = s / math.sqrt(q.numel())
    alpha = softmax(s.tolist(), temperature)  # (m,)
    return Attended(scores=s.tolist(), weights=alpha, output=weighted_sum(alpha, values))


@dataclass(frozen=True)
class MatrixAttention:
    """softmax(Q Kᵀ / √d_k) V for n queries at once.

    Attributes:
        scores: Q Kᵀ / √d_k, (n, m).
        weights: row-wise softmax, (n, m); every row sums to 1.
        output: weights @ V, (n, d_v).
    """

    scores: list[list[float]]
    weights: list[list[float]]
    output: list[list[float]]


def attention_matrix(
    Q: Sequence[Vector],
    K: Sequence[Vector],
    V: Sequence[Vector],
    *,
    temperature: float = 1.0,
    causal_mask: bool = False,
) -> MatrixAttention:
    """Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V (Vaswani et al. 2017, eq. 1), τ = temperature.

    Q: (n, d_k), K: (m, d_k), V: (m, d_v). Row i of the result equals :func:`attend` of query i
    with ``scaled=True``; at τ = 1 it equals torch's scaled_dot_product_attention.
    ``causal_mask`` (self-attention, n = m) sets scores with j > i to −∞, so their weights are 0.
    Raises TheoryInputError on mismatched shapes or a bad temperature.
    """
    tau = check_temperature(temperature)
    q = torch.as_tensor([list(r) for r in Q], dtype=torch.float64)  # (n, d_k)
    k = torch.as_tensor([list(r) for r in K], dtype=torch.float64)  # (m, d_k)
    v = torch.as_tensor([list(r) for r in V], dtype=torch.float64)  # (m, d_v)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1] or v.ndim != 2 or v.shape[0] != k.shape[0]:
        raise TheoryInputError(
            "Q, K, V",
            (tuple(q.shape), tuple(k.shape), tuple(v.shape)),
            "length",
            "Q must be n × d_k, K m × d_k and V m × d_v",
        )
    S = q @ k.T / math.sqrt(q.shape[1])  # (n, m)
    if causal_mask:
        if q.shape[0] != k.shape[0]:
            raise TheoryInputError(
                "causal_mask", (q.shape[0], k.shape[0]), "length", "a causal mask needs as many queries as keys"
            )
        S = S.masked_fill(future_mask(S.shape[0]), float("-inf"))  # (n, n)
    alpha = torch.softmax(S / tau, dim=-1)  # (n, m)
    return MatrixAttention(S.tolist(), alpha.tolist(), (alpha @ v).tolist())  # output (n, d_v)


def format_number(x: float) -> str:
    """A short display of ``x``: up to 4 significant digits, no trailing zeros ("11", "0.09", "-∞")."""
    if math.isinf(x):
        return "−∞" if x < 0 else "∞"
    return f"{x:.4g}".replace("-", "−") if x != 0 else "0"


def format_vector(v: Vector) -> str:
    """A vector as "(1, 2.5)" using :func:`format_number` for each component."""
    return "(" + ", ".join(format_number(float(x)) for x in v) + ")"


# ---------------------------------------------------------------- the page's example data

EXAMPLE_KEYS: tuple[tuple[float, float], ...] = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))
"""Three 2-D keys k_1, k_2, k_3; the query (1, 2) scores them 1, 2 and 3."""
EXAMPLE_VALUES: tuple[tuple[float, float], ...] = ((2.0, 0.0), (0.0, 2.0), (-2.0, -1.0))
"""The values v_1, v_2, v_3 handed over by the three keys' positions."""


# ---------------------------------------------------------------- the section's concepts


@dataclass(frozen=True)
class Concept:
    """One idea of seed section 22.2.1, as the Theory page shows it.

    Attributes:
        id: stable identifier; its texts are the i18n keys ``theory.<id>.title`` / ``.body``.
        formula: LaTeX (language-neutral; words belong in the body).
        steps: ids of the attention steps (``tinygpt.attention.STEP_IDS``) where the model does it.
    """

    id: str
    formula: str
    steps: tuple[str, ...]


CONCEPTS: tuple[Concept, ...] = (
    Concept(
        "definition",
        r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)V",
        ("projection", "scale", "merge_heads", "output_projection"),
    ),
    Concept(
        "vector",
        r"\mathbf{a} = \begin{pmatrix} a_1 \\ a_2 \end{pmatrix} \in \mathbb{R}^2,"
        r"\qquad \mathbf{x} = (x_1, x_2, \ldots, x_d) \in \mathbb{R}^d",
        ("split_heads",),
    ),
    Concept(
        "operations",
        r"\mathbf{a} + \mathbf{b} = (a_1 + b_1, \ldots, a_d + b_d),\qquad "
        r"c\,\mathbf{a} = (c\,a_1, \ldots, c\,a_d),\qquad "
        r"\mathbf{a} \cdot \mathbf{b} = \sum_{i=1}^{d} a_i b_i",
        ("scores", "scale"),
    ),
    Concept(
        "weighted_sum",
        r"\mathbf{o} = \sum_{i=1}^{m} \alpha_i \mathbf{v}_i,\qquad \alpha_i \ge 0,\quad \sum_{i=1}^{m} \alpha_i = 1",
        ("weighted_sum",),
    ),
    Concept(
        "qkv",
        r"\mathbf{q} = \mathbf{x} W_Q,\qquad \mathbf{k}_i = \mathbf{x}_i W_K,\qquad \mathbf{v}_i = \mathbf{x}_i W_V",
        ("projection",),
    ),
    Concept(
        "softmax",
        r"s_i = \mathbf{q} \cdot \mathbf{k}_i,\qquad \alpha_i = \frac{\exp(s_i)}{\sum_{j=1}^{m} \exp(s_j)}",
        ("scores", "softmax"),
    ),
    Concept(
        "matrix",
        r"Q \in \mathbb{R}^{n \times d_k},\ K \in \mathbb{R}^{m \times d_k},\ V \in \mathbb{R}^{m \times d_v}:\quad"
        r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)V "
        r"\in \mathbb{R}^{n \times d_v}",
        ("scores", "mask", "softmax", "weighted_sum"),
    ),
)

CONCEPT_IDS: tuple[str, ...] = tuple(c.id for c in CONCEPTS)

#: For each attention step, the concept that explains it (the attention page links there); the
#: concept lists the step among its ``steps``, so the link back exists too.
STEP_CONCEPT: dict[str, str] = {
    "projection": "qkv",
    "split_heads": "vector",
    "scores": "softmax",
    "scale": "definition",
    "mask": "matrix",
    "softmax": "softmax",
    "weighted_sum": "weighted_sum",
    "merge_heads": "definition",
    "output_projection": "definition",
}


def concept_anchor(concept_id: str) -> str:
    """The HTML anchor of a concept's section on the Theory page, e.g. "concept-qkv"."""
    return f"concept-{concept_id}"


TEMPERATURE_FORMULA = r"\alpha_i = \frac{\exp(s_i/\tau)}{\sum_{j} \exp(s_j/\tau)}"
