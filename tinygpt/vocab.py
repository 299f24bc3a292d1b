"""Character vocabulary: the seed maps 你/好/世/界 to 0..3 and back."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


class UnknownCharError(ValueError):
    """The text holds characters the vocabulary does not know.

    ``unknown`` lists them in order of first appearance; ``known`` is the vocabulary.
    """

    def __init__(self, unknown: list[str], known: tuple[str, ...]) -> None:
        self.unknown = unknown
        self.known = known
        super().__init__(f"unknown characters {''.join(unknown)!r}; the vocabulary is {''.join(known)!r}")


@dataclass(frozen=True)
class CharVocab:
    """An ordered set of characters; index i stands for ``chars[i]``."""

    chars: tuple[str, ...]

    @classmethod
    def from_text(cls, text: str) -> CharVocab:
        """Vocabulary of the distinct characters of ``text`` in order of first appearance.

        The seed's 你好世界 gives 你=0, 好=1, 世=2, 界=3. Raises ValueError on empty text.
        """
        if not text:
            raise ValueError("text is empty: at least one character is needed")
        return cls(tuple(dict.fromkeys(text)))

    def __len__(self) -> int:
        return len(self.chars)

    def unknown(self, text: str) -> list[str]:
        """Characters of ``text`` outside the vocabulary, each once, in order."""
        known = set(self.chars)
        return list(dict.fromkeys(c for c in text if c not in known))

    def encode(self, text: str) -> torch.Tensor:
        """Token ids of ``text``, shape (T,), dtype long. Raises UnknownCharError listing strangers."""
        missing = self.unknown(text)
        if missing:
            raise UnknownCharError(missing, self.chars)
        index = {c: i for i, c in enumerate(self.chars)}
        return torch.tensor([index[c] for c in text], dtype=torch.long)

    def decode(self, ids: torch.Tensor | list[int]) -> str:
        """Characters of token ids (any 1-D sequence of ints)."""
        return "".join(self.chars[int(i)] for i in ids)


def cyclic(text: str, length: int) -> str:
    """``text`` read as a cycle, ``length`` characters long: cyclic("你好世界", 6) == "你好世界你好"."""
    if not text:
        raise ValueError("the text is empty")
    return (text * (length // len(text) + 1))[:length]


def vocab_size_of(text: str) -> int:
    """The number of distinct characters of ``text``: the vocabulary a model trained on it has.

    Raises ValueError on empty text (as :meth:`CharVocab.from_text`).
    """
    return len(CharVocab.from_text(text))


def training_pairs(vocab: CharVocab, text: str, window: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Next-character pairs of the text, read as a cycle (the seed: 你好世界 → 好世界你).

    Every window of ``window`` characters starting at each position of the cyclic text is one
    sequence; its target is the same window shifted by one character. With ``window == len(text)``
    and a text of 4 characters this is exactly the seed's single pair.

    Returns:
        (inputs, targets), each (N, window) long, N = 1 if window == len(text) else len(text).
    Raises:
        ValueError if window < 1; UnknownCharError for characters outside ``vocab``.
    """
    if window < 1:
        raise ValueError(f"window={window} must be at least 1")
    n = len(text)
    starts = [0] if window == n else list(range(n))
    cyc = vocab.encode(cyclic(text, n + window + 1))  # (L + window + 1,)
    inputs = torch.stack([cyc[s : s + window] for s in starts])  # (N, window)
    targets = torch.stack([cyc[s + 1 : s + window + 1] for s in starts])  # (N, window)
    return inputs, targets


def pair_texts(text: str, window: int) -> tuple[list[str], list[str]]:
    """The training pairs of :func:`training_pairs` as strings: (inputs, targets), N each.

    The seed: ``pair_texts("你好世界", 4) == (["你好世界"], ["好世界你"])``. Raises ValueError if
    window < 1 or the text is empty.
    """
    if not text:
        raise ValueError("the text is empty")
    vocab = CharVocab.from_text(text)
    inputs, targets = training_pairs(vocab, text, window)  # (N, window) each
    return [vocab.decode(row) for row in inputs], [vocab.decode(row) for row in targets]


def causal_loss_floor(text: str, window: int) -> float:
    """The lowest mean cross-entropy (nats) a model with the causal mask can reach on these pairs.

    With the mask, the prediction at position t reads only the input's first t+1 characters. When
    the same context is followed by different characters in different pairs (after 你 in
    你好你世你界: 好, 世 or 界), no model can be sure: the best it can do is the pairs' own
    frequencies, and the entropy of those is the floor. ``causal_loss_floor("你好你世你界", 4)``
    is (3/24)·ln 3 ≈ 0.137: 3 of the 24 predictions see only 你. 0 when every context decides its
    next character (the seed). Raises ValueError as :func:`pair_texts`.
    """
    inputs, targets = pair_texts(text, window)
    counts: dict[str, dict[str, int]] = {}
    for seq, nxt in zip(inputs, targets):
        for t in range(len(seq)):
            follow = counts.setdefault(seq[: t + 1], {})
            follow[nxt[t]] = follow.get(nxt[t], 0) + 1
    total = sum(sum(f.values()) for f in counts.values())
    entropy = -sum(n * math.log(n / sum(f.values())) for f in counts.values() for n in f.values()) / total
    return max(entropy, 0.0)  # 0.0, not -0.0, when every context decides its next character
