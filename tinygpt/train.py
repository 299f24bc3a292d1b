"""Training loop of the seed (full-batch Adam on cross-entropy), with the controls an app needs.

The seed (textbook section 22.2.2) trains one sequence (你好世界 → 好世界你) for 1000 epochs
with ``Adam(lr=1e-4)``: zero_grad, forward, cross-entropy, backward, step. Here the same
mathematics runs step by step through :class:`Trainer` so a caller can report each step, pause,
stop, stop early below a loss threshold, and stop cleanly on a non-finite loss with the last
finite weights kept. Differences that keep the mathematics and only change the speed:

- Fused Adam: the seed's Adam update computed by PyTorch's fused kernel (``torch.optim.adam.adam``
  with ``fused=True``, what ``Adam(fused=True).step`` calls) instead of about ten elementwise
  passes with temporaries (~4× faster on this host). :class:`FusedAdam` holds the state and calls
  that function directly: constructing ``torch.optim.Adam`` imports ``torch._dynamo`` and its
  ~800 modules (+70 MB of RSS) on a host with 690 MB at the low end.
- The step runs with ``TRAIN_THREADS`` intra-op threads (1): on a shared 2-core host two
  OpenMP threads per job wait on each other, and two jobs of one thread use both cores.
- Adam overlaps the backward pass (models of ``OVERLAP_MIN_PARAMETERS`` or more). Backpropagation
  reaches the last layer's parameters first; as soon as a parameter's gradient is complete
  (``register_post_accumulate_grad_hook``), a helper thread applies that parameter's Adam update
  while the backward pass carries on through the earlier layers. The feed-forward layers'
  weight gradients dL/dW = dyᵀ x (the largest matrices) are handed to the helper as well
  (``tinygpt.model.WEIGHT_GRAD_SINK``): it computes each into a reused buffer and updates the
  weight at once, so the training thread only propagates dL/dx. Every Adam update is
  elementwise and uses only its own parameter's gradient and state, and the helper computes the
  same products autograd would, so the weights are bitwise those of the plain order (tested);
  the step ends when every update is done. Both threads are memory-bound (the seed config's
  step reads and writes about 0.8 GB); the helper puts the second core's share of the memory
  bandwidth to work (``python -m bench.train_step``).
- No copy of the weights per step for the non-finite guard. The loss is checked *before* the
  update, so a non-finite loss never changes the weights; the weights that produced it, W_k,
  are the result of the last update, and the last weights whose loss was finite are W_{k-1}.
  Those are rebuilt exactly by replaying steps 1..k-1 from the starting weights, which
  deterministic training makes bitwise equal (the replayed losses are checked against the
  recorded ones). The replay costs time only when a run diverges, never per step.

Shapes: N training sequences, W window (characters per sequence), V vocab_size,
L n_layers, h n_heads, T snapshot length.
"""

from __future__ import annotations

import math
import os
import queue
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch.optim.adam import adam as _adam

from tinygpt.attention import Switches
from tinygpt.config import (
    MAX_EPOCHS, MAX_STEP_WORK, MAX_TEXT_LEN, MAX_TOKENS_PER_STEP, ConfigError, GPTConfig, TrainConfig,
)
from tinygpt.explain import walk
from tinygpt.model import GPT, WEIGHT_GRAD_SINK
from tinygpt.vocab import CharVocab, training_pairs

_NO_MASK = Switches(causal_mask=False)

#: Intra-op threads a training step uses (env TINYGPT_TRAIN_THREADS overrides). See the module doc.
TRAIN_THREADS = max(1, int(os.environ.get("TINYGPT_TRAIN_THREADS", "1") or 1))
#: Models with at least this many parameters run Adam in a helper thread during the backward pass
#: (module doc). Smaller steps are mostly Python overhead, and handing work between two threads
#: that share the GIL costs more than it saves: measured here, a step with the overlap takes
#: 3.1× as long at 0.1 M parameters, 1.6× at 0.8 M, 1.1× at 3.2 M, 0.9× at 6.4 M, 0.8× at 19 M.
OVERLAP_MIN_PARAMETERS = 5_000_000
#: Snapshots keep α of at most this many positions of the first window (memory: L·h·T²·4 bytes each).
SNAPSHOT_MAX_T = 64
#: Steps at which α is saved (plus the final step), roughly log-spaced: 0 is before training.
SNAPSHOT_STEPS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)
#: All snapshots of one run together stay under this many bytes (fewer steps are kept if needed).
SNAPSHOT_BUDGET_BYTES = 16 * 2**20


class NonFiniteLossError(RuntimeError):
    """The loss became NaN or ±∞ at ``step`` (1-based) with learning rate ``lr``.

    The model's weights were put back to the last ones that gave a finite loss (those of step
    ``step - 1``, whose loss is the last entry of ``TrainedModel.losses``).
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
    ``init_seed``: when set, ``model`` held the weights of ``GPT(gpt_cfg, seed=init_seed)`` before
    its first training step (``build`` sets it; code that changes the weights otherwise clears it).
    ``frozen``: the model is shared read-only (the process-wide cache); it must not be trained.
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
    #: α of the training text (its first window, at most SNAPSHOT_MAX_T positions) with the
    #: weights after ``step`` optimizer steps: step -> (n_layers, h, T, T). Step 0 is before
    #: training; the last key is the final step. Computed with the training's own switches
    #: (the causal mask off for a run with ``causal_mask=False``).
    snapshots: dict[int, torch.Tensor] = field(default_factory=dict)
    init_seed: int | None = None
    frozen: bool = False

    @property
    def window(self) -> int:
        """Length of the training sequences (positions 0..window-1 were trained)."""
        return self.train_cfg.window or min(len(self.text), self.gpt_cfg.max_len)

    def freeze(self) -> TrainedModel:
        """Make the model read-only for sharing: eval mode, no gradients, ``frozen``; returns self."""
        self.model.eval()
        for p in self.model.parameters():
            p.requires_grad_(False)
        self.frozen = True
        return self


def steps_per_epoch_tokens(text: str, window: int) -> tuple[int, int]:
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
    if len(text) > MAX_TEXT_LEN:
        raise ConfigError("len(text)", len(text), f"at most {MAX_TEXT_LEN} characters on this host",
                          "max_text_len", limit=MAX_TEXT_LEN)  # the value is the length, so the name says so
    window = train_cfg.window or min(len(text), gpt_cfg.max_len)
    if window > gpt_cfg.max_len:
        raise ConfigError("window", window, f"from 1 to max_len={gpt_cfg.max_len}", "window", max_len=gpt_cfg.max_len)
    n, tokens = steps_per_epoch_tokens(text, window)
    if tokens > MAX_TOKENS_PER_STEP:
        raise ConfigError("tokens_per_step", tokens, f"at most {MAX_TOKENS_PER_STEP} ({n} sequences × window {window})",
                          "max_tokens", limit=MAX_TOKENS_PER_STEP, n=n, window=window)
    params = gpt_cfg.n_parameters()
    if params * tokens > MAX_STEP_WORK:
        raise ConfigError("work_per_step", params * tokens,
                          f"parameters × tokens per step at most {MAX_STEP_WORK:.2g} ({params:,} × {tokens})",
                          "max_work", limit=f"{MAX_STEP_WORK:.2g}", params=f"{params:,}", tokens=tokens)


def host_configs(text: str, gpt: dict, training: dict) -> tuple[GPTConfig, TrainConfig]:
    """Validated (GPTConfig, TrainConfig) for a run on ``text`` from plain settings, host limits included.

    ``gpt`` and ``training`` hold the dataclasses' fields (``vocab_size`` comes from the text).
    Raises ValueError for an empty text, ConfigError naming the value and the accepted range
    (epochs above ``MAX_EPOCHS`` get the host-limit message) or a limit of :func:`check_host_limits`.
    """
    vocab = CharVocab.from_text(text)
    epochs = training.get("epochs", 1)
    if isinstance(epochs, int) and epochs > MAX_EPOCHS:
        raise ConfigError("epochs", epochs, f"at most {MAX_EPOCHS} on this host", "max_epochs", limit=MAX_EPOCHS)
    gpt_cfg = GPTConfig(**{**gpt, "vocab_size": len(vocab)})
    train_cfg = TrainConfig(**training)
    check_host_limits(text, gpt_cfg, train_cfg)
    return gpt_cfg, train_cfg


def build(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> TrainedModel:
    """An untrained model for ``text``: vocabulary from the text, weights from ``train_cfg.seed``.

    ``gpt_cfg.vocab_size`` is replaced by the text's vocabulary size. Raises ValueError (a
    ConfigError) for an empty text or bad settings.
    """
    vocab = CharVocab.from_text(text)
    if gpt_cfg.vocab_size != len(vocab):
        gpt_cfg = GPTConfig(**{**gpt_cfg.to_dict(), "vocab_size": len(vocab)})
    model = GPT(gpt_cfg, seed=train_cfg.seed)
    return TrainedModel(model=model, vocab=vocab, text=text, gpt_cfg=gpt_cfg, train_cfg=train_cfg,
                        init_seed=train_cfg.seed)


@torch.no_grad()
def attention_maps(model: GPT, idx: torch.Tensor, switches: Switches | None = None) -> torch.Tensor:
    """α of every layer for one sequence: idx (1, T) -> (n_layers, h, T, T), with ``switches``
    in every layer (None: the model's own); the α of ``tinygpt.explain.walk``."""
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


class FusedAdam:
    """Adam (Kingma & Ba 2015) with PyTorch's defaults, betas (0.9, 0.999), eps 1e-8, no weight decay.

    The same update as ``torch.optim.Adam(params, lr, fused=True)``, bit for bit: each update
    calls the functional ``torch.optim.adam.adam`` with the arguments ``Adam.step`` passes. State
    (exp_avg, exp_avg_sq: like each parameter; step: a float32 scalar) is created at the first step.

    Args:
        params: the parameters; those without ``requires_grad`` are left out.
        lr: learning rate.
        overlap: :meth:`backward_step` updates each parameter in a helper thread as soon as the
            backward pass has finished its gradient, and computes the weight gradients of
            ``tinygpt.model.Linear`` layers there too (see the module doc); same result, faster.
    """

    def __init__(self, params, lr: float, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 overlap: bool = False) -> None:
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps = lr, betas, eps
        self.overlap = overlap
        self.exp_avgs: list[torch.Tensor] = []
        self.exp_avg_sqs: list[torch.Tensor] = []
        self.state_steps: list[torch.Tensor] = []
        self._index = {id(p): i for i, p in enumerate(self.params)}
        self._ready: queue.SimpleQueue | None = None  # set while an overlapped backward pass runs
        #: reused dL/dW buffers of the helper thread [0] and of the training thread [1], by shape
        self._grad_buffers: tuple[dict, dict] = ({}, {})

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop the gradients (the seed's ``optimizer.zero_grad()``, which sets them to None)."""
        for p in self.params:
            p.grad = None

    def _ensure_state(self) -> None:
        if not self.state_steps:
            self.exp_avgs = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params]
            self.exp_avg_sqs = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params]
            self.state_steps = [torch.zeros((), dtype=torch.float32) for _ in self.params]

    @torch.no_grad()
    def _update(self, idx: list[int], grads: list[torch.Tensor] | None = None) -> None:
        """Adam update of ``self.params[i]`` for i in ``idx`` with ``grads`` (default: their ``.grad``)."""
        _adam(
            [self.params[i] for i in idx], grads or [self.params[i].grad for i in idx],
            [self.exp_avgs[i] for i in idx], [self.exp_avg_sqs[i] for i in idx], [],
            [self.state_steps[i] for i in idx],
            foreach=None, capturable=False, differentiable=False, fused=True, grad_scale=None, found_inf=None,
            has_complex=False, decoupled_weight_decay=False, amsgrad=False, beta1=self.betas[0],
            beta2=self.betas[1], lr=self.lr, weight_decay=0.0, eps=self.eps, maximize=False,
        )

    def step(self) -> None:
        """One Adam update of every parameter that has a gradient."""
        self._ensure_state()
        idx = [i for i, p in enumerate(self.params) if p.grad is not None]
        if idx:
            self._update(idx)

    def take(self, weight: torch.Tensor, dy: torch.Tensor, x: torch.Tensor) -> bool:
        """``tinygpt.model.WeightGradSink``: during an overlapped backward pass, queue dL/dW = dyᵀ x
        of one of these parameters for the helper (dy (M, out), x (M, in)); True if queued."""
        ready, i = self._ready, self._index.get(id(weight))
        if ready is None or i is None:
            return False
        ready.put((i, dy, x))
        return True

    def backward_step(self, loss: torch.Tensor) -> None:
        """zero_grad, ``loss.backward()`` and :meth:`step`, with the updates overlapping the backward pass.

        Without ``overlap`` the three run one after the other. With it, a hook on each parameter
        hands the parameter to a helper thread the moment its gradient is complete, and
        ``Linear`` layers whose forward ran with this optimizer as ``WEIGHT_GRAD_SINK`` hand over
        dy and x for their weight gradient; the helper updates each parameter while
        backpropagation goes on, and this call returns when every update is done. A parameter's
        gradient is complete only after every backward node that reads the parameter has run, so
        updating it in place then changes nothing the backward pass still needs. Re-raises an
        error of the helper thread.
        """
        self.zero_grad()
        if not self.overlap:
            loss.backward()
            self.step()
            return
        self._ensure_state()
        ready: queue.SimpleQueue = queue.SimpleQueue()
        errors: list[BaseException] = []
        threads = torch.get_num_threads()
        helper = threading.Thread(target=self._apply_ready, args=(ready, errors, self._grad_buffers[0], threads),
                                  daemon=True, name="adam-overlap")
        hooks = [p.register_post_accumulate_grad_hook(lambda p, i=i: ready.put(i)) for i, p in enumerate(self.params)]
        helper.start()
        self._ready = ready
        backward_done = False
        try:
            loss.backward()
            backward_done = True
        finally:
            self._ready = None
            for hook in hooks:
                hook.remove()
            ready.put(None)  # one end mark for each of the two threads that take work
            ready.put(None)
            if backward_done:  # the training thread takes a share of what is still queued
                self._apply_ready(ready, errors, self._grad_buffers[1], threads)
            helper.join()
        if errors:
            raise errors[0]

    def _apply_ready(self, ready: queue.SimpleQueue, errors: list[BaseException], buffers: dict,
                     threads: int) -> None:
        """Take updates from ``ready`` until an end mark (None); run by the helper thread, and by
        the training thread once its backward pass is done.

        An int i: parameter i's gradient is complete (skipped when it has none, as a weight
        whose gradient was handed over); ints queued one after another are updated in one call.
        A tuple (i, dy, x): compute dL/dW = dyᵀ x of parameter i into a reused buffer of
        ``buffers`` and update it. After an error the rest is only taken off the queue.
        """
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)  # the helper thread's own OpenMP setting, as the caller's
        while True:
            batch = [ready.get()]
            while isinstance(batch[-1], int):
                try:
                    batch.append(ready.get_nowait())
                except queue.Empty:
                    break
            if not errors:
                try:
                    self._apply_batch(batch, buffers)
                except BaseException as exc:  # re-raised by backward_step in the training thread
                    errors.append(exc)
            if batch[-1] is None:
                return

    @torch.no_grad()
    def _apply_batch(self, batch: list, buffers: dict) -> None:
        """The updates of one batch of queue items (see :meth:`_apply_ready`)."""
        idx = [i for i in batch if isinstance(i, int) and self.params[i].grad is not None]
        if idx:
            self._update(idx)
        for item in batch:
            if isinstance(item, tuple):
                i, dy, x = item
                p = self.params[i]
                buf = buffers.get(p.shape)
                if buf is None:
                    buf = buffers[p.shape] = torch.empty_like(p)
                torch.mm(dy.t(), x, out=buf)  # (out, in): the product autograd would compute
                self._update([i], [buf])


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
    """Steps the optimizer on a TrainedModel's text; one call of :meth:`step` is one epoch.

    The seed's batch is the whole text, so an epoch is one optimizer step. ``threads``: intra-op
    threads of the step; ``overlap``: Adam overlaps the backward pass (None: for models of
    ``OVERLAP_MIN_PARAMETERS`` or more; the weights are bitwise the same either way). Raises
    ValueError for a frozen (shared) model.
    """

    def __init__(self, tm: TrainedModel, threads: int = TRAIN_THREADS, overlap: bool | None = None) -> None:
        if tm.frozen:
            raise ValueError("this model is shared read-only (frozen); build a new one to train")
        self.tm = tm
        self.threads = threads
        cfg = tm.train_cfg
        self.inputs, self.targets = training_pairs(tm.vocab, tm.text, tm.window)  # (N, W) each
        #: Adam overlaps the backward pass (None: for models of OVERLAP_MIN_PARAMETERS or more).
        self.overlap = tm.gpt_cfg.n_parameters() >= OVERLAP_MIN_PARAMETERS if overlap is None else overlap
        self.optimizer = FusedAdam(tm.model.parameters(), lr=cfg.lr, overlap=self.overlap)
        self.switches = None if cfg.causal_mask else _NO_MASK
        self.steps = len(tm.losses)
        self._start_steps = self.steps
        # Starting weights for the replay of the non-finite guard: rebuilt from the seed when the
        # model is build()'s untouched initialisation (checked by fingerprint), else copied once.
        self._start_fp = _fingerprint(tm.model)
        fresh = self.steps == 0 and tm.init_seed is not None
        self._start = None if fresh else [p.detach().clone() for p in tm.model.parameters()]
        T = min(tm.window, SNAPSHOT_MAX_T)
        self._snap_ids = self.inputs[:1, :T]  # (1, T)
        g = tm.gpt_cfg
        self._snap_steps = set(snapshot_steps(cfg.epochs, g.n_layers, g.n_heads, T))
        self.replay_progress: tuple[int, int] | None = None
        #: the optimizer step whose weights the model holds (differs from ``steps`` after a restore)
        self.weights_step = self.steps

    @property
    def done(self) -> bool:
        """True when the epochs are used up or the early-stop threshold was reached."""
        return self.tm.stop_reason in ("early_stop", "non_finite") or self.steps >= self.tm.train_cfg.epochs

    def _use_threads(self) -> None:
        if torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)  # this thread only (OpenMP/MKL thread-local)

    def _loss(self) -> torch.Tensor:
        sink = self.optimizer if isinstance(self.optimizer, FusedAdam) and self.optimizer.overlap else None
        token = WEIGHT_GRAD_SINK.set(sink)  # an overlapping optimizer takes the FFN weight gradients
        try:
            logits = self.tm.model(self.inputs, self.switches)  # (N, W, V)
        finally:
            WEIGHT_GRAD_SINK.reset(token)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), self.targets.reshape(-1))

    def _update(self, loss: torch.Tensor) -> None:
        if isinstance(self.optimizer, FusedAdam):
            self.optimizer.backward_step(loss)
        else:  # a torch.optim optimizer put in place by a test to compare against
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()

    def snapshot(self) -> None:
        """Save α of the first window with the current weights under ``tm.snapshots[weights_step]``."""
        self.tm.snapshots[self.weights_step] = attention_maps(self.tm.model, self._snap_ids, self.switches)

    def step(self) -> float:
        """One optimizer step; returns the loss before the update (the seed's printed loss).

        Raises NonFiniteLossError when that loss is NaN/∞: the weights are then those of the
        last step whose loss was finite (see the module doc), and ``stop_reason`` is "non_finite".
        """
        if self.optimizer is None:
            raise RuntimeError("this run has finished; build a new Trainer to train again")
        self._use_threads()
        start = time.perf_counter()
        model = self.tm.model
        model.train()
        if self.steps in self._snap_steps and self.steps not in self.tm.snapshots:
            self.snapshot()
        loss = self._loss()
        value = loss.item()
        if not math.isfinite(value):
            del loss
            self.weights_step = self._restore_last_finite()
            for s in [s for s in self.tm.snapshots if s > self.weights_step]:
                del self.tm.snapshots[s]  # taken with weights whose loss was not finite
            self.tm.stop_reason = "non_finite"
            self.tm.seconds += time.perf_counter() - start
            raise NonFiniteLossError(self.steps + 1, value, self.tm.train_cfg.lr)
        self._update(loss)
        self.steps += 1
        self.weights_step = self.steps
        self.tm.losses.append(value)
        if value < self.tm.train_cfg.early_stop_loss:
            self.tm.stop_reason = "early_stop"
        elif self.steps >= self.tm.train_cfg.epochs:
            self.tm.stop_reason = "epochs"
        self.tm.seconds += time.perf_counter() - start
        return value

    def _restore_last_finite(self) -> int:
        """Put back the weights that gave ``losses[-1]`` by replaying from the starting weights.

        This Trainer made k updates (W_k produced the non-finite loss); W_{k-1} is rebuilt by k-1
        replayed steps. Returns the step whose weights the model now holds. Raises RuntimeError
        if the replay does not reproduce the recorded losses bitwise (training not deterministic).
        """
        model = self.tm.model
        k = self.steps - self._start_steps
        if k == 0:
            return self.steps  # no update happened: the weights are the starting ones
        self.optimizer = None  # free the old Adam state before the replay allocates a new one
        with torch.no_grad():
            if self._start is None:
                fresh = GPT(self.tm.gpt_cfg, seed=self.tm.init_seed)
                for p, q in zip(model.parameters(), fresh.parameters()):
                    p.copy_(q)
                del fresh
                if _fingerprint(model) != self._start_fp:
                    raise RuntimeError("the starting weights were changed after build(); clear init_seed to copy them")
            else:
                for p, q in zip(model.parameters(), self._start):
                    p.copy_(q)
        self.optimizer = FusedAdam(model.parameters(), lr=self.tm.train_cfg.lr, overlap=self.overlap)
        recorded = self.tm.losses[self._start_steps:]
        for i in range(k - 1):
            self.replay_progress = (i + 1, k - 1)
            loss = self._loss()
            if loss.item() != recorded[i]:
                raise RuntimeError(f"replay of step {self._start_steps + i + 1} gave {loss.item()} not {recorded[i]}")
            self._update(loss)
        self.optimizer.zero_grad(set_to_none=True)
        self.replay_progress = None
        return self.steps - 1

    def finish(self) -> TrainedModel:
        """End the run: save the final snapshot, switch to eval mode; returns the TrainedModel."""
        if self.weights_step not in self.tm.snapshots:
            self._use_threads()
            self.snapshot()
        if self.optimizer is not None:
            self.optimizer.zero_grad(set_to_none=True)
        self.optimizer = None  # the Adam state (2 × the parameters) is no longer needed
        self._start = None
        self.tm.model.eval()
        return self.tm

    def run(
        self,
        on_step: Callable[[int, float], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> TrainedModel:
        """Step until done or ``should_stop()`` is true; ``on_step(step, loss)`` after each step.

        Returns the TrainedModel (its ``stop_reason`` says why it ended). Raises
        NonFiniteLossError as :meth:`step` does.
        """
        try:
            while not self.done:
                if should_stop is not None and should_stop():
                    self.tm.stop_reason = "stopped"
                    break
                loss = self.step()
                if on_step is not None:
                    on_step(self.steps, loss)
        finally:
            self.finish()
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
    try:
        return Trainer(build(text, gpt_cfg, train_cfg)).run(on_step, should_stop)
    finally:
        release_free_memory()
