"""Autoregressive generation: feed the context, read the next-character distribution, choose, append.

The seed program (textbook section 22.2.2) trains 你好世界 → 好世界你 and then predicts "the
(t+1)-th character from the first t"; generation repeats that prediction, appending each chosen
character. Decoding strategies: greedy (argmax), temperature sampling, top-k sampling and
top-p (nucleus) sampling (Holtzman et al. 2019, "The Curious Case of Neural Text Degeneration").
Temperature 0 means greedy; top-k 0 or ≥ vocab_size keeps the whole vocabulary; top-k 1 is
greedy; top-p 1 keeps the whole vocabulary. With both, top-k is applied first, then top-p (as
Hugging Face's samplers do). Only the last ``max_len`` characters are fed (the model has max_len position
embeddings), so position ids stay in 0..max_len-1.

Shapes: T context length, V vocab_size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from tinygpt.config import MAX_NEW_CHARS, MAX_TEMPERATURE  # the limits, kept with the configs (no torch there)
from tinygpt.model import GPT
from tinygpt.vocab import CharVocab, training_pairs


@dataclass(frozen=True)
class DecodeConfig:
    """How the next character is chosen.

    Attributes:
        temperature: τ ≥ 0; logits are divided by τ before the softmax. 0 means greedy.
        top_k: sample only among the k most probable characters; 0 (or k ≥ vocab_size) keeps
            them all, 1 is greedy.
        seed: seed of the sampling generator, so sampling repeats.
        top_p: nucleus sampling, p in (0, 1]: sample only among the smallest set of most
            probable characters whose probabilities add up to at least p (:func:`top_p_keep`);
            1 keeps them all. Applied after temperature and top-k.
    Raises:
        ValueError naming the value when τ is outside [0, MAX_TEMPERATURE], top_k < 0,
        seed is negative or top_p is outside (0, 1].
    """

    temperature: float = 0.0
    top_k: int = 0
    seed: int = 0
    top_p: float = 1.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.temperature) and 0 <= self.temperature <= MAX_TEMPERATURE):
            raise ValueError(f"temperature={self.temperature} must be from 0 to {MAX_TEMPERATURE}")
        if self.top_k < 0:
            raise ValueError(f"top_k={self.top_k} must be 0 (all) or more")
        if self.seed < 0:
            raise ValueError(f"seed={self.seed} must be 0 or more")
        if not (math.isfinite(self.top_p) and 0 < self.top_p <= 1):
            raise ValueError(f"top_p={self.top_p} must be greater than 0 and at most 1")

    @property
    def greedy(self) -> bool:
        """True when the choice is the argmax (τ = 0 or top-k = 1)."""
        return self.temperature == 0 or self.top_k == 1


@dataclass(frozen=True)
class GenerationStep:
    """One step of the autoregressive loop.

    Attributes:
        context: the characters fed to the model (at most max_len; the last ones of the text).
        cropped: True when earlier characters were dropped to fit the context length.
        logits: the last position's logits, (V,).
        probs: softmax of those logits, (V,), τ = 1 — the model's own distribution.
        sampling_probs: the distribution actually sampled from after temperature, top-k and top-p, (V,);
            one-hot at the argmax for greedy settings.
        chosen: the character chosen.
        beyond_training: True when the predicting position ``len(context) - 1`` was never
            trained, i.e. position ≥ the training window (the seed trains one 4-character
            sequence, positions 0..3, so a context of 5 or more characters is beyond training).
    """

    context: str
    cropped: bool
    logits: torch.Tensor
    probs: torch.Tensor
    sampling_probs: torch.Tensor
    chosen: str
    beyond_training: bool

    @property
    def position(self) -> int:
        """Position id of the prediction read: len(context) - 1 (0-based, < max_len)."""
        return len(self.context) - 1


def crop_context(text: str, max_len: int) -> tuple[str, bool]:
    """The last ``max_len`` characters of ``text`` and whether anything was dropped."""
    return (text[-max_len:], True) if len(text) > max_len else (text, False)


@torch.no_grad()
def next_char_logits(model: GPT, vocab: CharVocab, text: str) -> torch.Tensor:
    """Logits of the next character at every position i of ``text``, shape (T, V).

    ``text`` must be 1..max_len known characters (UnknownCharError / ValueError otherwise).
    """
    if not text:
        raise ValueError("text is empty")
    ids = vocab.encode(text)[None]  # (1, T)
    return model(ids)[0].float()  # (T, V)


def next_char_probs(model: GPT, vocab: CharVocab, text: str) -> torch.Tensor:
    """P(next character | text[:i+1]) at every position i, shape (T, V); rows sum to 1.

    ``text`` must be 1..max_len known characters (UnknownCharError / ValueError otherwise).
    """
    return torch.softmax(next_char_logits(model, vocab, text), dim=-1)  # (T, V)


def top_p_keep(probs: torch.Tensor, p: float) -> torch.Tensor:
    """The nucleus of a distribution (V,): a boolean mask (V,) of the smallest set of most
    probable characters whose probabilities add up to at least ``p`` (Holtzman et al. 2019,
    "The Curious Case of Neural Text Degeneration", section 3.1: the top-p vocabulary).

    The characters are taken in descending probability (equal probabilities in vocabulary order)
    until their sum reaches p; the character that makes the sum reach p is kept, so the most
    probable character is always kept and p = 1 keeps every character. The sum is compared in
    float64 with a tolerance of 1e-12, so p = 0.75 over (0.5, 0.25, …) keeps exactly two.
    """
    if not 0 < p <= 1:
        raise ValueError(f"top_p={p} must be greater than 0 and at most 1")
    if p == 1:  # every character, however small its probability (the float sum may fall short of 1)
        return torch.ones_like(probs, dtype=torch.bool)  # (V,)
    order = torch.sort(probs.double(), descending=True, stable=True)  # (V,) values and indices
    before = torch.cumsum(order.values, dim=0) - order.values  # (V,) mass of the more probable ones
    keep_sorted = before < p - 1e-12  # (V,) still short of p before this one
    keep_sorted[0] = True
    return torch.zeros_like(keep_sorted).scatter(0, order.indices, keep_sorted)  # (V,)


def sampling_distribution(probs: torch.Tensor, decode: DecodeConfig) -> torch.Tensor:
    """Reshape a distribution (V,) by temperature, top-k and top-p; the result sums to 1.

    p_τ(c) ∝ p(c)^(1/τ), which equals softmax(logits / τ): τ < 1 sharpens, τ > 1 flattens
    toward uniform. Top-k then keeps the k most probable characters (ties at the k-th value are
    kept) and renormalises; top-p then keeps the nucleus of that distribution (:func:`top_p_keep`)
    and renormalises again: the order Hugging Face's ``generate`` applies them in. Greedy settings
    (τ = 0 or k = 1) give a one-hot at the argmax. Finite for every τ in (0, MAX_TEMPERATURE] (the
    log-probabilities are shifted so their maximum is 0 before dividing by τ).
    """
    V = probs.shape[-1]
    if decode.greedy:
        return torch.nn.functional.one_hot(probs.argmax(), V).to(probs.dtype)  # (V,)
    logp = torch.log(probs.clamp_min(1e-30))  # (V,)
    logp = (logp - logp.max()) / decode.temperature  # (V,), max 0
    if 0 < decode.top_k < V:
        kth = torch.topk(logp, decode.top_k).values[-1]
        logp = logp.masked_fill(logp < kth, float("-inf"))
    dist = torch.softmax(logp, dim=-1)  # (V,)
    if decode.top_p < 1:
        dist = dist.masked_fill(~top_p_keep(dist, decode.top_p), 0.0)  # (V,)
        dist = dist / dist.sum()
    return dist


def training_targets(text: str, window: int, context: str) -> list[str]:
    """The next characters the training text defines after ``context[:i+1]``, for each position i.

    Training pairs are the cyclic shift of ``text`` (the seed: 你好世界 → 好世界你) cut into
    sequences of ``window`` characters, as :func:`tinygpt.vocab.training_pairs` builds them.
    Position i of ``context`` has a target when some training sequence starts with
    ``context[:i+1]`` (and i < window); its target at i is the expected character. Several
    sequences may agree or disagree: all distinct targets are listed in vocabulary order.

    Returns:
        T strings, "" where the training text defines no target (never seen, or position
        ≥ window). Characters outside the text's vocabulary simply match nothing.
    """
    vocab = CharVocab.from_text(text)
    inputs, targets = training_pairs(vocab, text, window)  # (N, W) each
    pairs = [(vocab.decode(x), vocab.decode(y)) for x, y in zip(inputs, targets)]
    out = []
    for i in range(len(context)):
        found = {y[i] for x, y in pairs if i < window and x[: i + 1] == context[: i + 1]}
        out.append("".join(c for c in vocab.chars if c in found))
    return out


@torch.no_grad()
def generate(
    model: GPT,
    vocab: CharVocab,
    prefix: str,
    n_new: int,
    decode: DecodeConfig = DecodeConfig(),
    trained_len: int | None = None,
    context_len: int | None = None,
    generator: torch.Generator | None = None,
) -> list[GenerationStep]:
    """Continue ``prefix`` by ``n_new`` characters, one step at a time.

    Each step feeds the last ``context_len`` characters of the text so far (position ids
    0..len(context)-1, always < max_len), takes the last position's distribution, chooses by
    ``decode`` and appends. Sampling draws from a ``torch.Generator`` seeded with
    ``decode.seed``, so the same settings give the same text.

    Args:
        prefix: non-empty text of known characters (any length; only the last context_len are fed).
        n_new: 0..MAX_NEW_CHARS new characters.
        decode: greedy / temperature / top-k / top-p settings.
        trained_len: training window length; steps whose predicting position is ≥ it are marked
            ``beyond_training``. None means max_len (nothing is marked).
        context_len: feed at most this many characters, 1..max_len; None means max_len (the
            model's whole reach). A shorter value is a sliding window.
        generator: the sampling generator to draw from; None means a new one seeded with
            ``decode.seed``. Passing the generator an earlier call drew from (and the text it
            produced as ``prefix``) continues that run: the steps are the ones a single longer
            call would have made.
    Returns:
        One GenerationStep per new character.
    Raises:
        ValueError for an empty prefix, n_new or context_len out of range; UnknownCharError
        for unknown characters.
    """
    if not prefix:
        raise ValueError("prefix is empty")
    if not 0 <= n_new <= MAX_NEW_CHARS:
        raise ValueError(f"n_new={n_new} must be from 0 to {MAX_NEW_CHARS}")
    max_len = model.cfg.max_len
    context_len = max_len if context_len is None else context_len
    if not 1 <= context_len <= max_len:
        raise ValueError(f"context_len={context_len} must be from 1 to max_len={max_len}")
    vocab.encode(prefix)  # raises UnknownCharError before any work
    trained_len = max_len if trained_len is None else trained_len
    gen = torch.Generator().manual_seed(decode.seed) if generator is None else generator
    text, steps = prefix, []
    for _ in range(n_new):
        context, cropped = crop_context(text, context_len)
        logits = next_char_logits(model, vocab, context)[-1]  # (V,)
        probs = torch.softmax(logits, dim=-1)  # (V,)
        dist = sampling_distribution(probs, decode)  # (V,)
        if decode.greedy:
            idx = int(probs.argmax())
        else:
            idx = int(torch.multinomial(dist, 1, generator=gen))
        chosen = vocab.chars[idx]
        beyond = len(context) - 1 >= trained_len  # predicting position ≥ training window
        steps.append(GenerationStep(context, cropped, logits, probs, dist, chosen, beyond))
        text += chosen
    return steps
