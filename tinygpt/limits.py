"""What this host accepts for a training run: the app and the command line apply the same limits.

The configs check their own ranges (``tinygpt.config``); these limits depend on the text as
well: its length, the training window, the tokens of one optimizer step and the work of one
step (parameters × tokens), which bound a step's memory and time on 2 cores.
"""

from __future__ import annotations

import unicodedata

from tinygpt.config import (
    MAX_EPOCHS,
    MAX_STEP_WORK,
    MAX_TEXT_LEN,
    MAX_TOKENS_PER_STEP,
    ConfigError,
    GPTConfig,
    TrainConfig,
)
from tinygpt.formatting import char_name, shown_text
from tinygpt.vocab import vocab_size_of


def sequences_and_tokens_per_epoch(text: str, window: int) -> tuple[int, int]:
    """(number of training sequences N, tokens per optimizer step N·W) for ``text`` and ``window``.

    Follows :func:`tinygpt.vocab.training_pairs`: one sequence when the window is the whole
    text, else one per starting character of the cyclic text.
    """
    n = 1 if window == len(text) else len(text)
    return n, n * window


def check_host_limits(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> None:
    """Refuse a run that this host (2 cores, < 2.7 GB) cannot train in reasonable time and memory.

    Checks the text length (``MAX_TEXT_LEN``), the window (1..max_len), the tokens of one
    optimizer step (N·W ≤ ``MAX_TOKENS_PER_STEP``) and the work of one step (parameters × tokens
    ≤ ``MAX_STEP_WORK``). Parameters and epochs are checked by the configs themselves.

    Raises:
        ConfigError naming the value and the limit (``key`` selects the i18n message).
    """
    if hidden := unseen_chars(text):
        names = ", ".join(char_name(c) for c in hidden)
        raise ConfigError(
            "text",
            shown_text(text),
            f"characters a reader can see (not {names})",
            "text_chars",
            names=names,
        )
    if len(text) > MAX_TEXT_LEN:
        raise ConfigError(
            "len(text)",
            len(text),
            f"at most {MAX_TEXT_LEN} characters on this host",
            "max_text_len",
            limit=MAX_TEXT_LEN,
        )  # the value is the length, so the name says so
    window = train_cfg.window_for(len(text), gpt_cfg.max_len)
    if window > gpt_cfg.max_len:
        raise ConfigError("window", window, f"from 1 to max_len={gpt_cfg.max_len}", "window", max_len=gpt_cfg.max_len)
    n, tokens = sequences_and_tokens_per_epoch(text, window)
    if tokens > MAX_TOKENS_PER_STEP:
        raise ConfigError(
            "tokens_per_step",
            tokens,
            f"at most {MAX_TOKENS_PER_STEP} ({n} sequences × window {window})",
            "max_tokens",
            limit=MAX_TOKENS_PER_STEP,
            n=n,
            window=window,
        )
    params = gpt_cfg.n_parameters()
    if params * tokens > MAX_STEP_WORK:
        raise ConfigError(
            "work_per_step",
            params * tokens,
            f"parameters × tokens per step at most {MAX_STEP_WORK:.2g} ({params:,} × {tokens})",
            "max_work",
            limit=f"{MAX_STEP_WORK:.2g}",
            params=f"{params:,}",
            tokens=tokens,
        )


def unseen_chars(text: str) -> list[str]:
    """The characters of ``text`` a training text must not hold, each once: invisible, control and
    direction-changing characters (Unicode categories Cf, Cc, Cs, Co, Cn). A model that learned
    them would show its texts reversed or with characters missing on every page."""
    return list(dict.fromkeys(c for c in text if unicodedata.category(c) in ("Cf", "Cc", "Cs", "Co", "Cn")))


def host_configs(text: str, gpt: dict, training: dict) -> tuple[GPTConfig, TrainConfig]:
    """Validated (GPTConfig, TrainConfig) for a run on ``text`` from plain settings, host limits included.

    ``gpt`` and ``training`` hold the dataclasses' fields (``vocab_size`` comes from the text).
    Raises ValueError for an empty text, ConfigError naming the value and the accepted range
    (epochs above ``MAX_EPOCHS`` get the host-limit message) or a limit of :func:`check_host_limits`.
    """
    vocab_size = vocab_size_of(text)
    epochs = training.get("epochs", 1)
    if isinstance(epochs, int) and epochs > MAX_EPOCHS:
        raise ConfigError("epochs", epochs, f"at most {MAX_EPOCHS} on this host", "max_epochs", limit=MAX_EPOCHS)
    gpt_cfg = GPTConfig(**{**gpt, "vocab_size": vocab_size})
    train_cfg = TrainConfig(**training)
    check_host_limits(text, gpt_cfg, train_cfg)
    return gpt_cfg, train_cfg
