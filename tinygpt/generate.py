"""Autoregressive generation: feed the context, read the next-character distribution, choose, append.

Decoding strategies: greedy (argmax), temperature sampling and top-k sampling. Temperature 0
means greedy; top-k 0 or ≥ vocab_size means the whole vocabulary; top-k 1 is greedy. Only the
last ``max_len`` characters are fed (the model has max_len position embeddings).

Shapes: T context length, V vocab_size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from tinygpt.model import GPT
from tinygpt.vocab import CharVocab

MAX_TEMPERATURE = 5.0
MAX_NEW_CHARS = 64


@dataclass(frozen=True)
class DecodeConfig:
    """How the next character is chosen.

    Attributes:
        temperature: τ ≥ 0; logits are divided by τ before the softmax. 0 means greedy.
        top_k: keep the k most probable characters (0 = all).
        seed: seed of the sampling generator, so sampling repeats.
    Raises:
        ValueError naming the value when τ is outside [0, MAX_TEMPERATURE] or top_k < 0.
    """

    temperature: float = 0.0
    top_k: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.temperature) and 0 <= self.temperature <= MAX_TEMPERATURE):
            raise ValueError(f"temperature={self.temperature} must be from 0 to {MAX_TEMPERATURE}")
        if self.top_k < 0:
            raise ValueError(f"top_k={self.top_k} must be 0 (all) or more")

    @property
    def greedy(self) -> bool:
        """True when the choice is the argmax (τ = 0 or top-k = 1)."""
        return self.temperature == 0 or self.top_k == 1


@dataclass(frozen=True)
class GenerationStep:
    """One step of the autoregressive loop.

    Attributes:
        context: the characters fed to the model (at most max_len).
        cropped: True when earlier characters were dropped to fit max_len.
        probs: softmax of the last position's logits, (V,), τ = 1.
        sampling_probs: the distribution actually sampled from after temperature and top-k, (V,).
        chosen: the character chosen.
        beyond_training: True when the predicting position (len(context) - 1) was never trained.
    """

    context: str
    cropped: bool
    probs: torch.Tensor
    sampling_probs: torch.Tensor
    chosen: str
    beyond_training: bool


def crop_context(text: str, max_len: int) -> tuple[str, bool]:
    """The last ``max_len`` characters of ``text`` and whether anything was dropped."""
    return (text[-max_len:], True) if len(text) > max_len else (text, False)


@torch.no_grad()
def next_char_probs(model: GPT, vocab: CharVocab, text: str) -> torch.Tensor:
    """P(next character | text[:i+1]) at every position i, shape (T, V); rows sum to 1.

    ``text`` must be 1..max_len known characters (UnknownCharError / ValueError otherwise).
    """
    if not text:
        raise ValueError("text is empty")
    ids = vocab.encode(text)[None]  # (1, T)
    return torch.softmax(model(ids)[0].float(), dim=-1)  # (T, V)


def sampling_distribution(probs: torch.Tensor, decode: DecodeConfig) -> torch.Tensor:
    """Reshape a distribution (V,) by temperature and top-k; the result sums to 1.

    Greedy settings give a one-hot at the argmax. p_τ ∝ p^(1/τ), which equals
    softmax(logits / τ).
    """
    V = probs.shape[-1]
    if decode.greedy:
        return torch.nn.functional.one_hot(probs.argmax(), V).to(probs.dtype)  # (V,)
    logp = torch.log(probs.clamp_min(1e-30)) / decode.temperature  # (V,)
    if 0 < decode.top_k < V:
        kth = torch.topk(logp, decode.top_k).values[-1]
        logp = logp.masked_fill(logp < kth, float("-inf"))
    return torch.softmax(logp, dim=-1)  # (V,)


@torch.no_grad()
def generate(
    model: GPT,
    vocab: CharVocab,
    prefix: str,
    n_new: int,
    decode: DecodeConfig = DecodeConfig(),
    trained_len: int | None = None,
) -> list[GenerationStep]:
    """Continue ``prefix`` by ``n_new`` characters, one step at a time.

    Args:
        prefix: non-empty text of known characters (any length; only the last max_len are fed).
        n_new: 0..MAX_NEW_CHARS new characters.
        decode: greedy / temperature / top-k settings.
        trained_len: training window length; steps whose predicting position is ≥ it are marked
            ``beyond_training``. None means max_len.
    Returns:
        One GenerationStep per new character.
    Raises:
        ValueError for an empty prefix or n_new out of range; UnknownCharError for unknown chars.
    """
    if not prefix:
        raise ValueError("prefix is empty")
    if not 0 <= n_new <= MAX_NEW_CHARS:
        raise ValueError(f"n_new={n_new} must be from 0 to {MAX_NEW_CHARS}")
    vocab.encode(prefix)  # raises UnknownCharError before any work
    max_len = model.cfg.max_len
    trained_len = max_len if trained_len is None else trained_len
    gen = torch.Generator().manual_seed(decode.seed)
    text, steps = prefix, []
    for _ in range(n_new):
        context, cropped = crop_context(text, max_len)
        probs = next_char_probs(model, vocab, context)[-1]  # (V,)
        dist = sampling_distribution(probs, decode)  # (V,)
        if decode.greedy:
            idx = int(probs.argmax())
        else:
            idx = int(torch.multinomial(dist, 1, generator=gen))
        chosen = vocab.chars[idx]
        steps.append(GenerationStep(context, cropped, probs, dist, chosen, len(context) > trained_len))
        text += chosen
    return steps
