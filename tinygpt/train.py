"""Training loop of the seed (full-batch Adam on cross-entropy), with the controls an app needs.

The seed trains one sequence (你好世界 → 好世界你) for 1000 epochs with Adam(lr=1e-4). Here the
same mathematics runs step by step through :class:`Trainer` so a caller can report each step,
stop, pause, stop early below a loss threshold, and stop cleanly on a non-finite loss with the
last finite weights kept. ``Adam(fused=True)`` is the same update as the seed's Adam, computed
in one fused kernel (measured ~4× faster on this host's seed config).
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from tinygpt.attention import Switches
from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.model import GPT
from tinygpt.vocab import CharVocab, training_pairs


_NO_MASK = Switches(causal_mask=False)


class NonFiniteLossError(RuntimeError):
    """The loss became NaN or ±∞ at ``step`` (1-based) with learning rate ``lr``.

    The model's weights were put back to the last ones that gave a finite loss.
    """

    def __init__(self, step: int, loss: float, lr: float) -> None:
        self.step = step
        self.loss = loss
        self.lr = lr
        super().__init__(
            f"loss became {loss} at step {step} with lr={lr:g}; the last finite weights were kept; "
            f"try a smaller learning rate such as {lr / 10:g}"
        )


@dataclass
class TrainedModel:
    """A model with everything needed to use and describe it.

    ``losses[k]`` is the loss of optimizer step k+1 (before that step's update), as the seed prints.
    ``stop_reason`` is one of "epochs", "early_stop", "stopped", "non_finite".
    ``uid`` identifies this model in caches (ids of dead objects can be reused; uids are not).
    """

    model: GPT
    vocab: CharVocab
    text: str
    gpt_cfg: GPTConfig
    train_cfg: TrainConfig
    losses: list[float] = field(default_factory=list)
    stop_reason: str = "epochs"
    seconds: float = 0.0
    uid: str = field(default_factory=lambda: uuid.uuid4().hex)
    #: α of the training text (its first window) at a few training steps: step -> (n_layers, h, T, T).
    snapshots: dict[int, torch.Tensor] = field(default_factory=dict)

    @property
    def window(self) -> int:
        """Length of the training sequences (positions 0..window-1 were trained)."""
        return self.train_cfg.window or min(len(self.text), self.gpt_cfg.max_len)


def build(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> TrainedModel:
    """An untrained model for ``text``: vocabulary from the text, weights from ``train_cfg.seed``.

    ``gpt_cfg.vocab_size`` is replaced by the text's vocabulary size. Raises ValueError (a
    ConfigError) for an empty text or bad settings.
    """
    vocab = CharVocab.from_text(text)
    if gpt_cfg.vocab_size != len(vocab):
        gpt_cfg = GPTConfig(**{**gpt_cfg.to_dict(), "vocab_size": len(vocab)})
    model = GPT(gpt_cfg, seed=train_cfg.seed)
    return TrainedModel(model=model, vocab=vocab, text=text, gpt_cfg=gpt_cfg, train_cfg=train_cfg)


class Trainer:
    """Steps the optimizer on a TrainedModel's text; one call of :meth:`step` is one epoch.

    The seed's batch is the whole text, so an epoch is one optimizer step.
    """

    def __init__(self, tm: TrainedModel) -> None:
        self.tm = tm
        cfg = tm.train_cfg
        self.inputs, self.targets = training_pairs(tm.vocab, tm.text, tm.window)  # (N, W) each
        self.optimizer = torch.optim.Adam(tm.model.parameters(), lr=cfg.lr, fused=True)
        self.switches = None if cfg.causal_mask else _NO_MASK
        self._last_good = [p.detach().clone() for p in tm.model.parameters()]
        self.steps = len(tm.losses)

    @property
    def done(self) -> bool:
        """True when the epochs are used up or the early-stop threshold was reached."""
        return self.tm.stop_reason in ("early_stop", "non_finite") or self.steps >= self.tm.train_cfg.epochs

    def step(self) -> float:
        """One optimizer step; returns the loss before the update.

        Raises NonFiniteLossError (weights restored to the last finite ones) on NaN/∞.
        """
        model = self.tm.model
        model.train()
        logits = model(self.inputs, self.switches)  # (N, W, V)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), self.targets.reshape(-1))
        value = loss.item()
        self.steps += 1
        if not math.isfinite(value):
            with torch.no_grad():
                for p, good in zip(model.parameters(), self._last_good):
                    p.copy_(good)
            self.tm.stop_reason = "non_finite"
            raise NonFiniteLossError(self.steps, value, self.tm.train_cfg.lr)
        with torch.no_grad():
            torch._foreach_copy_(self._last_good, list(model.parameters()))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.tm.losses.append(value)
        if value < self.tm.train_cfg.early_stop_loss:
            self.tm.stop_reason = "early_stop"
        elif self.steps >= self.tm.train_cfg.epochs:
            self.tm.stop_reason = "epochs"
        return value

    def run(
        self,
        on_step: Callable[[int, float], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> TrainedModel:
        """Step until done or ``should_stop()`` is true; ``on_step(step, loss)`` after each step.

        Returns the TrainedModel (its ``stop_reason`` says why it ended). Raises
        NonFiniteLossError as :meth:`step` does.
        """
        start = time.perf_counter()
        try:
            while not self.done:
                if should_stop is not None and should_stop():
                    self.tm.stop_reason = "stopped"
                    break
                loss = self.step()
                if on_step is not None:
                    on_step(self.steps, loss)
        finally:
            self.tm.seconds += time.perf_counter() - start
            self.tm.model.eval()
        return self.tm


def train(
    text: str,
    gpt_cfg: GPTConfig,
    train_cfg: TrainConfig,
    on_step: Callable[[int, float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> TrainedModel:
    """Build and train a model on ``text`` (the seed: 你好世界 with the default configs).

    Deterministic on CPU for the same arguments. Raises ValueError for bad settings or text and
    NonFiniteLossError when the loss stops being finite.
    """
    return Trainer(build(text, gpt_cfg, train_cfg)).run(on_step, should_stop)

