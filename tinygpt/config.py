"""Validated configuration dataclasses for the tiny GPT and its training run.

Defaults are the seed program's (textbook section 22.2.2): d_model 512, 8 heads, 6 layers,
d_ff 2048, learned positions for up to 128 tokens, Adam with lr 1e-4 for 1000 epochs.
Config flows through the project as these frozen dataclasses (the nanoGPT ``GPTConfig`` idea),
so a pair (GPTConfig, TrainConfig) plus the training text identifies a trained model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

#: Host-sized caps (the app runs on 2 cores and under 2.7 GB on Community Cloud).
MAX_PARAMETERS = 40_000_000
MAX_EPOCHS = 5000
MAX_TEXT_LEN = 256
MAX_D_MODEL = 1024
MAX_LAYERS = 12
MAX_MAX_LEN = 512
#: Tokens in one optimizer step (training sequences × window), and parameters × those tokens:
#: bounds on the memory and time of one step (the seed: 4 tokens × 18,972,676 parameters).
MAX_TOKENS_PER_STEP = 1024
MAX_STEP_WORK = 2_500_000_000
#: Characters a number box of the Train form takes (``tinygpt.numbers.parse_int`` reads at most
#: ``tinygpt.numbers.MAX_INT_CHARS`` of them as a number; longer text is named in the message).
MAX_TYPED_DIGITS = 64
#: Generation (``tinygpt.generate``): the largest sampling temperature τ and the most characters one run generates.
MAX_TEMPERATURE = 5.0
#: Attention's own softmax temperature τ (``tinygpt.attention.Switches``: α = softmax(S / τ) as trained); the
#: Attention page's τ starts at it (kept with the configs: the page's table imports no torch).
OWN_TEMPERATURE = 1.0
MAX_NEW_CHARS = 64


class ConfigError(ValueError):
    """A configuration value is out of range.

    ``field`` names the offending setting, ``value`` is what was given and ``accepted`` says
    what would be accepted (English). ``key`` and ``params`` let a page say the same in the
    user's language through the i18n entry ``accepted.<key>``.
    """

    def __init__(self, field_name: str, value: Any, accepted: str, key: str = "", **params: Any) -> None:
        self.field = field_name
        self.value = value
        self.accepted = accepted
        self.key = key
        self.params = params
        super().__init__(f"{field_name}={value!r} is not accepted: {accepted}")


class ConfigErrors(ConfigError):
    """Several values refused at once (a link naming more than one bad setting), so one message
    names each: ``errors`` in the order given. The fields of the first one are this error's own,
    for code that names one value."""

    def __init__(self, errors: Sequence[ConfigError]) -> None:
        if not errors:
            raise ValueError("ConfigErrors needs at least one ConfigError")
        first = errors[0]
        super().__init__(first.field, first.value, first.accepted, first.key, **first.params)
        self.errors = tuple(errors)
        self.args = ("; ".join(str(e) for e in self.errors),)


def _check_int(name: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(name, value, f"an integer from {lo} to {hi}", "int_range", lo=lo, hi=hi)


@dataclass(frozen=True)
class GPTConfig:
    """Architecture of the character-level GPT.

    Attributes:
        vocab_size: number of distinct characters (the seed: 4, 你/好/世/界).
        max_len: number of learned position embeddings = longest context the model reads.
        d_model: width of the residual stream; must be divisible by ``n_heads``.
        n_heads: attention heads per layer; each head works in d_head = d_model / n_heads dims.
        n_layers: number of Transformer blocks.
        d_ff: hidden width of the position-wise feed-forward network (the seed: 4 × d_model).
        norm: "pre" (the seed: LayerNorm before each sub-layer) or "post" (Vaswani et al. 2017).
        positions: "learned" (the seed) or "sinusoidal" (Vaswani et al. 2017, section 3.5).

    Raises:
        ConfigError (a ValueError): naming the value and the accepted range, e.g. d_model=512
        with n_heads=6.
    """

    vocab_size: int = 4
    max_len: int = 128
    d_model: int = 512
    n_heads: int = 8
    n_layers: int = 6
    d_ff: int = 2048
    norm: str = "pre"
    positions: str = "learned"

    def __post_init__(self) -> None:
        _check_int("vocab_size", self.vocab_size, 1, 10_000)
        _check_int("max_len", self.max_len, 1, MAX_MAX_LEN)
        _check_int("d_model", self.d_model, 1, MAX_D_MODEL)
        _check_int("n_heads", self.n_heads, 1, self.d_model)
        _check_int("n_layers", self.n_layers, 1, MAX_LAYERS)
        _check_int("d_ff", self.d_ff, 1, 4 * MAX_D_MODEL)
        if self.d_model % self.n_heads:
            divisors = [h for h in range(1, min(self.d_model, 64) + 1) if self.d_model % h == 0]
            raise ConfigError(
                "n_heads",
                self.n_heads,
                f"a divisor of d_model={self.d_model} (e.g. {divisors[-6:]})",
                "divisor",
                d_model=self.d_model,
                examples=", ".join(map(str, divisors[-6:])),
            )
        if self.norm not in ("pre", "post"):
            raise ConfigError("norm", self.norm, "'pre' or 'post'", "choice", options="pre, post")
        if self.positions not in ("learned", "sinusoidal"):
            raise ConfigError(
                "positions", self.positions, "'learned' or 'sinusoidal'", "choice", options="learned, sinusoidal"
            )
        if self.positions == "sinusoidal" and self.d_model % 2:
            raise ConfigError("d_model", self.d_model, "an even number with sinusoidal positions", "even")
        if self.n_parameters() > MAX_PARAMETERS:
            raise ConfigError(
                "n_parameters",
                self.n_parameters(),
                f"at most {MAX_PARAMETERS:,} on this host",
                "max_params",
                limit=f"{MAX_PARAMETERS:,}",
            )

    @property
    def d_head(self) -> int:
        """Width of one attention head: d_model / n_heads (64 for the seed)."""
        return self.d_model // self.n_heads

    def n_parameters(self) -> int:
        """Number of trainable parameters (18,972,676 for the seed configuration)."""
        d, v = self.d_model, self.vocab_size
        positions = self.max_len * d if self.positions == "learned" else 0
        attention = 4 * d * d
        ffn = d * self.d_ff + self.d_ff + self.d_ff * d + d
        norms = 2 * 2 * d
        return v * d + positions + self.n_layers * (attention + ffn + norms) + 2 * d + d * v + v

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (checkpoints, query strings)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GPTConfig:
        """Build from a dict, ignoring unknown keys; raises ConfigError on bad values."""
        names = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class TrainConfig:
    """One training run (the seed: Adam, lr 1e-4, 1000 full-batch epochs, cross-entropy).

    Attributes:
        lr: Adam learning rate, in (0, 1].
        epochs: optimizer steps (the seed uses the whole sequence as one batch, so an epoch is one step).
        seed: torch seed used to initialise the weights; the same settings give the same weights.
        early_stop_loss: stop once the loss falls below this (0 disables the early stop).
        causal_mask: train with the causal mask (True, the seed). False lets every position read
            the character it must predict ("cheating"), for the masking experiment.
        window: training window in characters; None means min(len(text), max_len).

    Raises:
        ConfigError (a ValueError) naming the value and what is accepted.
    """

    lr: float = 1e-4
    epochs: int = 1000
    seed: int = 0
    early_stop_loss: float = 1e-4
    causal_mask: bool = True
    window: int | None = None

    def __post_init__(self) -> None:
        if (
            isinstance(self.lr, bool)
            or not isinstance(self.lr, (int, float))
            or not math.isfinite(self.lr)
            or not 0 < self.lr <= 1
        ):
            raise ConfigError("lr", self.lr, "a number greater than 0 and at most 1", "lr")
        _check_int("epochs", self.epochs, 1, MAX_EPOCHS)
        _check_int("seed", self.seed, 0, 2**31 - 1)
        if not isinstance(self.early_stop_loss, (int, float)) or not 0 <= self.early_stop_loss < 10:
            raise ConfigError(
                "early_stop_loss", self.early_stop_loss, "a number from 0 to 10", "float_range", lo=0, hi=10
            )
        if self.window is not None:
            _check_int("window", self.window, 1, MAX_MAX_LEN)

    def window_for(self, text_len: int, max_len: int) -> int:
        """The training window in characters: ``window``, or min(text length, max_len) when None."""
        return self.window or min(text_len, max_len)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return asdict(self)


SEED_TEXT = "你好世界"
DEFAULT_GPT = GPTConfig()
DEFAULT_TRAIN = TrainConfig()
