"""A model with its record: the text and settings it was built for, its loss curve and snapshots.

:class:`ModelRecord` is what the pages use, the checkpoint stores and the training loop fills. It
names a model whatever its state: just built (untrained), being trained, trained, or loaded from
a checkpoint; ``stop_reason`` says why its training ended (:class:`StopReason`).
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass, field

import torch

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.model import GPT
from tinygpt.vocab import CharVocab

#: Snapshots keep α of at most this many positions of the first window (memory: L·h·T²·4 bytes each).
SNAPSHOT_MAX_T = 64


class StopReason(enum.StrEnum):
    """Why a run's training ended (the values are the checkpoint's and the i18n keys' own)."""

    EPOCHS = "epochs"  # every epoch ran
    EARLY_STOP = "early_stop"  # the loss fell below TrainConfig.early_stop_loss
    STOPPED = "stopped"  # stopped by the student (or paused too long)
    NON_FINITE = "non_finite"  # the loss became NaN or ±∞; the last finite weights were kept


@dataclass
class ModelRecord:
    """A model with everything needed to use and describe it.

    ``losses[k]`` is the loss of optimizer step k+1 (before that step's update), as the seed prints.
    ``stop_reason``: why training ended (:class:`StopReason`).
    ``uid`` identifies this model in caches (ids of dead objects can be reused; uids are not).
    ``init_seed``: when set, ``model`` held the weights of ``tinygpt.training.train.new_model(gpt_cfg,
    init_seed)`` before its first training step (``build`` sets it; code that changes the
    weights otherwise clears it).
    ``frozen``: the model is shared read-only (the process-wide cache); it must not be trained.

    Shapes: L n_layers, h n_heads, T snapshot length.
    """

    model: GPT
    vocab: CharVocab
    text: str
    gpt_cfg: GPTConfig
    train_cfg: TrainConfig
    losses: list[float] = field(default_factory=list)
    stop_reason: StopReason = StopReason.EPOCHS
    seconds: float = 0.0
    uid: str = field(default_factory=lambda: uuid.uuid4().hex)
    #: α of the training text (its first window, at most SNAPSHOT_MAX_T positions) with the
    #: weights after ``step`` optimizer steps: step -> (L, h, T, T). Step 0 is before
    #: training; the last key is the final step. Computed with the training's own switches
    #: (the causal mask off for a run with ``causal_mask=False``).
    snapshots: dict[int, torch.Tensor] = field(default_factory=dict)
    init_seed: int | None = None
    frozen: bool = False

    @property
    def window(self) -> int:
        """Length of the training sequences (positions 0..window-1 were trained)."""
        return self.train_cfg.window_for(len(self.text), self.gpt_cfg.max_len)

    def freeze(self) -> ModelRecord:
        """Make the model read-only for sharing: eval mode, no gradients, ``frozen``; returns self."""
        self.model.eval()
        for p in self.model.parameters():
            p.requires_grad_(False)
        self.frozen = True
        return self
