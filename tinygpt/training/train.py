"""Training loop of the seed (full-batch Adam on cross-entropy), with the controls an app needs.

The seed (textbook section 22.2.2) trains one sequence (你好世界 → 好世界你) for 1000 epochs
with ``Adam(lr=1e-4)``: zero_grad, forward, cross-entropy, backward, step. Here the same
mathematics runs step by step through :class:`Trainer` so a caller can report each step, pause,
stop, stop early below a loss threshold, and stop cleanly on a non-finite loss with the last
finite weights kept. What keeps the mathematics and only changes the speed:

- The optimizer is ``tinygpt.training.optim.FusedAdam`` (the seed's Adam by PyTorch's fused kernel); for
  models of ``OVERLAP_MIN_PARAMETERS`` or more its updates overlap the backward pass, and the
  training forward pass runs under ``tinygpt.training.optim.handoff_weight_grads`` (see that module). The
  weights are bitwise those of the plain order.
- The step runs with ``TRAIN_THREADS`` intra-op threads (1): on a shared 2-core host two
  OpenMP threads per job wait on each other, and two jobs of one thread use both cores.
- No copy of the weights per step for the non-finite guard. The loss is checked *before* the
  update, so a non-finite loss never changes the weights; the weights that produced it, W_k,
  are the result of the last update, and the last weights whose loss was finite are W_{k-1}.
  Those are rebuilt exactly by replaying steps 1..k-1 from the starting weights, which
  deterministic training makes bitwise equal (the replayed losses are checked against the
  recorded ones). The replay costs time only when a run diverges, never per step.
- Initial weights come from :func:`new_model`, which seeds torch's global generator and builds
  the model under one lock, so concurrent sessions cannot disturb each other's initialisation.

Shapes: N training sequences, W window (characters per sequence), V vocab_size,
L n_layers, h n_heads, T snapshot length.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

from tinygpt.attention import Switches
from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.explanations.explain import walk
from tinygpt.model import GPT
from tinygpt.training.optim import OVERLAP_MIN_PARAMETERS, FusedAdam, handoff_weight_grads
from tinygpt.training.record import SNAPSHOT_MAX_T, ModelRecord, StopReason
from tinygpt.vocab import CharVocab, training_pairs

_NO_MASK = Switches(causal_mask=False)

#: Intra-op threads a training step uses (env TINYGPT_TRAIN_THREADS overrides). See the module doc.
TRAIN_THREADS = max(1, int(os.environ.get("TINYGPT_TRAIN_THREADS", "1") or 1))
#: Steps at which α is saved (plus the final step), roughly log-spaced: 0 is before training.
SNAPSHOT_STEPS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)
#: All snapshots of one run together stay under this many bytes (fewer steps are kept if needed).
SNAPSHOT_BUDGET_BYTES = 16 * 2**20

#: Held while a GPT is initialised (:func:`new_model`): the global generator is one per process.
_INIT_LOCK = threading.Lock()


class NonFiniteLossError(RuntimeError):
    """The loss became NaN or ±∞ at ``step`` (1-based) with learning rate ``lr``.

    The model's weights were put back to the last ones that gave a finite loss (those of step
    ``step - 1``, whose loss is the last entry of ``ModelRecord.losses``).
    """

    def __init__(self, step: int, loss: float, lr: float) -> None:
        self.step = step
        self.loss = loss
        self.lr = lr
        super().__init__(
            f"loss became {loss} at step {step} with lr={lr:g}; the last finite weights were kept; "
            f"try a smaller learning rate such as {lr / 10:g}"
        )


def new_model(cfg: GPTConfig, seed: int | None = None) -> GPT:
    """A freshly initialised GPT; with ``seed``, its weights are those of ``torch.manual_seed(seed)``.

    Built under a process-wide lock, so a concurrent initialisation (another session's, or a
    checkpoint being loaded) cannot draw from the global generator in between: the same seed
    gives the same weights in any thread. Every caller that builds a GPT while training may
    run elsewhere goes through here.
    """
    with _INIT_LOCK:
        if seed is not None:
            torch.manual_seed(seed)
        return GPT(cfg)


def build(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> ModelRecord:
    """An untrained model for ``text``: vocabulary from the text, weights from ``train_cfg.seed``.

    ``gpt_cfg.vocab_size`` is replaced by the text's vocabulary size. Raises ValueError (a
    ConfigError) for an empty text or bad settings.
    """
    vocab = CharVocab.from_text(text)
    if gpt_cfg.vocab_size != len(vocab):
        gpt_cfg = GPTConfig(**{**gpt_cfg.to_dict(), "vocab_size": len(vocab)})
    model = new_model(gpt_cfg, train_cfg.seed)
    return ModelRecord(
        model=model, vocab=vocab, text=text, gpt_cfg=gpt_cfg, train_cfg=train_cfg, init_seed=train_cfg.seed
    )


@torch.no_grad()
def attention_maps(model: GPT, idx: torch.Tensor, switches: Switches | None = None) -> torch.Tensor:
    """α of every layer for one sequence: idx (1, T) -> (n_layers, h, T, T), with ``switches``
    in every layer (None: the model's own); the α of ``tinygpt.explanations.explain.walk``."""
    return walk(model, idx, switches).alphas  # (L, h, T, T)


def snapshot_steps(epochs: int, n_layers: int, n_heads: int, T: int) -> tuple[int, ...]:
    """The steps (≤ epochs) whose α a run saves, thinned to fit ``SNAPSHOT_BUDGET_BYTES``.

    The final step is saved as well when the run ends (early stop, Stop, or the last epoch).
    """
    steps = [s for s in SNAPSHOT_STEPS if s <= epochs]
    per = n_layers * n_heads * T * T * 4
    keep = max(0, SNAPSHOT_BUDGET_BYTES // per - 1)  # one left for the final step
    if len(steps) > keep:
        picks = sorted({round(i * (len(steps) - 1) / max(keep - 1, 1)) for i in range(keep)}) if keep else []
        steps = [steps[i] for i in picks]
    return tuple(steps)


def release_free_memory() -> None:
    """Give memory that training freed back to the system (glibc ``malloc_trim``; no-op elsewhere).

    Each thread's malloc arena keeps what it freed; a finished run's gradients and Adam state
    (3 × the parameters) would otherwise stay in the resident set of a long-lived server process.
    """
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _fingerprint(model: GPT) -> list[float]:
    """Per-parameter sums: a cheap check that two weight sets are the same start (no copies made)."""
    with torch.no_grad():
        return [float(p.sum()) for p in model.parameters()]


class Trainer:
    """Steps the optimizer on a ModelRecord's text; one call of :meth:`step` is one epoch.

    The seed's batch is the whole text, so an epoch is one optimizer step. ``threads``: intra-op
    threads of the step; ``overlap``: Adam overlaps the backward pass (None: for models of
    ``OVERLAP_MIN_PARAMETERS`` or more; the weights are bitwise the same either way). Raises
    ValueError for a frozen (shared) model.
    """

    def __init__(self, record: ModelRecord, threads: int = TRAIN_THREADS, overlap: bool | None = None) -> None:
        if record.frozen:
            raise ValueError("this model is shared read-only (frozen); build a new one to train")
        self.record = record
        self.threads = threads
        cfg = record.train_cfg
        self.inputs, self.targets = training_pairs(record.vocab, record.text, record.window)  # (N, W) each
        #: Adam overlaps the backward pass (None: for models of OVERLAP_MIN_PARAMETERS or more).
        self.overlap = record.gpt_cfg.n_parameters() >= OVERLAP_MIN_PARAMETERS if overlap is None else overlap
        self.optimizer = FusedAdam(record.model.parameters(), lr=cfg.lr, overlap=self.overlap)
        self.switches = None if cfg.causal_mask else _NO_MASK
        self.steps = len(record.losses)
        self._start_steps = self.steps
        # Starting weights for the replay of the non-finite guard: rebuilt from the seed when the
        # model is build()'s untouched initialisation (checked by fingerprint), else copied once.
        self._start_fp = _fingerprint(record.model)
        fresh = self.steps == 0 and record.init_seed is not None
        self._start = None if fresh else [p.detach().clone() for p in record.model.parameters()]
        T = min(record.window, SNAPSHOT_MAX_T)
        self._snap_ids = self.inputs[:1, :T]  # (1, T)
        g = record.gpt_cfg
        self._snap_steps = set(snapshot_steps(cfg.epochs, g.n_layers, g.n_heads, T))
        self.replay_progress: tuple[int, int] | None = None
        #: the optimizer step whose weights the model holds (differs from ``steps`` after a restore)
        self.weights_step = self.steps

    @property
    def done(self) -> bool:
        """True when the epochs are used up or the early-stop threshold was reached."""
        return (
            self.record.stop_reason in (StopReason.EARLY_STOP, StopReason.NON_FINITE)
            or self.steps >= self.record.train_cfg.epochs
        )

    def _use_threads(self) -> None:
        if torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)  # this thread only (OpenMP/MKL thread-local)

    def _loss(self) -> torch.Tensor:
        with handoff_weight_grads(self.record.model, self.optimizer):  # no-op unless the optimizer overlaps
            logits = self.record.model(self.inputs, self.switches)  # (N, W, V)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), self.targets.reshape(-1))

    def _update(self, loss: torch.Tensor) -> None:
        if isinstance(self.optimizer, FusedAdam):
            self.optimizer.backward_step(loss)
        else:  # a torch.optim optimizer put in place by a test to compare against
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()

    def snapshot(self) -> None:
        """Save α of the first window with the current weights under ``record.snapshots[weights_step]``."""
        self.record.snapshots[self.weights_step] = attention_maps(self.record.model, self._snap_ids, self.switches)

    def step(self) -> float:
        """One optimizer step; returns the loss before the update (the seed's printed loss).

        Raises NonFiniteLossError when that loss is NaN/∞: the weights are then those of the
        last step whose loss was finite (see the module doc), and ``stop_reason`` is ``StopReason.NON_FINITE``.
        """
        if self.optimizer is None:
            raise RuntimeError("this run has finished; build a new Trainer to train again")
        self._use_threads()
        start = time.perf_counter()
        model = self.record.model
        model.train()
        if self.steps in self._snap_steps and self.steps not in self.record.snapshots:
            self.snapshot()
        loss = self._loss()
        value = loss.item()
        if not math.isfinite(value):
            del loss
            self.weights_step = self._restore_last_finite()
            for s in [s for s in self.record.snapshots if s > self.weights_step]:
                del self.record.snapshots[s]  # taken with weights whose loss was not finite
            self.record.stop_reason = StopReason.NON_FINITE
            self.record.seconds += time.perf_counter() - start
            raise NonFiniteLossError(self.steps + 1, value, self.record.train_cfg.lr)
        self._update(loss)
        self.steps += 1
        self.weights_step = self.steps
        self.record.losses.append(value)
        if value < self.record.train_cfg.early_stop_loss:
            self.record.stop_reason = StopReason.EARLY_STOP
        elif self.steps >= self.record.train_cfg.epochs:
            self.record.stop_reason = StopReason.EPOCHS
        self.record.seconds += time.perf_counter() - start
        return value

    def _restore_last_finite(self) -> int:
        """Put back the weights that gave ``losses[-1]`` by replaying from the starting weights.

        This Trainer made k updates (W_k produced the non-finite loss); W_{k-1} is rebuilt by k-1
        replayed steps. Returns the step whose weights the model now holds. Raises RuntimeError
        if the replay does not reproduce the recorded losses bitwise (training not deterministic).
        """
        model = self.record.model
        k = self.steps - self._start_steps
        if k == 0:
            return self.steps  # no update happened: the weights are the starting ones
        self.optimizer = None  # free the old Adam state before the replay allocates a new one
        with torch.no_grad():
            if self._start is None:
                fresh = new_model(self.record.gpt_cfg, self.record.init_seed)
                for p, q in zip(model.parameters(), fresh.parameters()):
                    p.copy_(q)
                del fresh
                if _fingerprint(model) != self._start_fp:
                    raise RuntimeError("the starting weights were changed after build(); clear init_seed to copy them")
            else:
                for p, q in zip(model.parameters(), self._start):
                    p.copy_(q)
        self.optimizer = FusedAdam(model.parameters(), lr=self.record.train_cfg.lr, overlap=self.overlap)
        recorded = self.record.losses[self._start_steps :]
        for i in range(k - 1):
            self.replay_progress = (i + 1, k - 1)
            loss = self._loss()
            if loss.item() != recorded[i]:
                raise RuntimeError(f"replay of step {self._start_steps + i + 1} gave {loss.item()} not {recorded[i]}")
            self._update(loss)
        self.optimizer.zero_grad(set_to_none=True)
        self.replay_progress = None
        return self.steps - 1

    def finish(self) -> ModelRecord:
        """End the run: save the final snapshot, switch to eval mode; returns the ModelRecord."""
        if self.weights_step not in self.record.snapshots:
            self._use_threads()
            self.snapshot()
        if self.optimizer is not None:
            self.optimizer.zero_grad(set_to_none=True)
        self.optimizer = None  # the Adam state (2 × the parameters) is no longer needed
        self._start = None
        self.record.model.eval()
        return self.record

    def run(
        self,
        on_step: Callable[[int, float], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> ModelRecord:
        """Step until done or ``should_stop()`` is true; ``on_step(step, loss)`` after each step.

        Returns the ModelRecord (its ``stop_reason`` says why it ended). Raises
        NonFiniteLossError as :meth:`step` does.
        """
        try:
            while not self.done:
                if should_stop is not None and should_stop():
                    self.record.stop_reason = StopReason.STOPPED
                    break
                loss = self.step()
                if on_step is not None:
                    on_step(self.steps, loss)
        finally:
            self.finish()
        return self.record


def train(
    text: str,
    gpt_cfg: GPTConfig,
    train_cfg: TrainConfig,
    on_step: Callable[[int, float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> ModelRecord:
    """Build and train a model on ``text`` (the seed: 你好世界 with the default configs).

    Deterministic on CPU for the same arguments. Raises ValueError for bad settings or text and
    NonFiniteLossError when the loss stops being finite.
    """
    try:
        return Trainer(build(text, gpt_cfg, train_cfg)).run(on_step, should_stop)
    finally:
        release_free_memory()
