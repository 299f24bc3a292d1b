"""Speed machinery of training: Adam by PyTorch's fused kernel, overlapping the backward pass.

Nothing here changes the mathematics of the seed's training step (zero_grad, forward,
cross-entropy, backward, Adam): the training loop installs it from outside the model, and the
weights come out bitwise those of the plain order (``tests/test_train_jobs.py``).

- :class:`FusedAdam`: the seed's Adam update computed by PyTorch's fused kernel
  (``torch.optim.adam.adam`` with ``fused=True``, what ``Adam(fused=True).step`` calls) instead
  of about ten elementwise passes with temporaries. It holds the state and calls that function
  directly: constructing ``torch.optim.Adam`` imports ``torch._dynamo`` and its ~800 modules
  (tens of MB of resident memory) on a host where memory is short.
- Overlap (``FusedAdam(overlap=True).backward_step``): backpropagation reaches the last layer's
  parameters first; as soon as a parameter's gradient is complete
  (``register_post_accumulate_grad_hook``), a helper thread applies that parameter's Adam update
  while the backward pass carries on through the earlier layers. Every Adam update is
  elementwise and uses only its own parameter's gradient and state, so the order changes no
  bit; the step ends when every update is done. Both threads are memory-bound, and the helper
  puts the second core's share of the memory bandwidth to work (``python -m bench.train_step``).
- :func:`handoff_weight_grads`: during an overlapped step the feed-forward layers' weight
  gradients dL/dW = dyᵀ x (the largest matrices) are computed by the helper too, into a reused
  buffer, and the weight is updated at once, so the training thread only propagates dL/dx. The
  model's ``nn.Linear`` layers are not changed: for the training forward pass each gets an
  instance-level ``forward`` that routes through :class:`_LinearHandingOffWeightGrad`, removed
  again when the pass is over.

Shapes: M rows of a layer's input (batch × positions), ``in``/``out`` a layer's widths.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.adam import adam as _adam

from tinygpt.model import GPT, FeedForward

#: Models with at least this many parameters overlap Adam with the backward pass. Smaller steps
#: are mostly Python overhead, and handing work between two threads that share the GIL costs
#: more than it saves (the README's Benchmarks section has the figures and their command).
OVERLAP_MIN_PARAMETERS = 5_000_000


class FusedAdam:
    """Adam (Kingma & Ba 2015) with PyTorch's defaults, betas (0.9, 0.999), eps 1e-8, no weight decay.

    The same update as ``torch.optim.Adam(params, lr, fused=True)``, bit for bit: each update
    calls the functional ``torch.optim.adam.adam`` with the arguments ``Adam.step`` passes. State
    (exp_avg, exp_avg_sq: like each parameter; step: a float32 scalar) is created at the first step.

    Args:
        params: the parameters; those without ``requires_grad`` are left out.
        lr: learning rate.
        overlap: :meth:`backward_step` updates each parameter in a helper thread as soon as the
            backward pass has finished its gradient, and computes the weight gradients that
            :func:`handoff_weight_grads` hands it there too (module doc); same result, faster.
    """

    def __init__(
        self, params, lr: float, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, overlap: bool = False
    ) -> None:
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
            [self.params[i] for i in idx],
            grads or [self.params[i].grad for i in idx],
            [self.exp_avgs[i] for i in idx],
            [self.exp_avg_sqs[i] for i in idx],
            [],
            [self.state_steps[i] for i in idx],
            foreach=None,
            capturable=False,
            differentiable=False,
            fused=True,
            grad_scale=None,
            found_inf=None,
            has_complex=False,
            decoupled_weight_decay=False,
            amsgrad=False,
            beta1=self.betas[0],
            beta2=self.betas[1],
            lr=self.lr,
            weight_decay=0.0,
            eps=self.eps,
            maximize=False,
        )

    def step(self) -> None:
        """One Adam update of every parameter that has a gradient."""
        self._ensure_state()
        idx = [i for i, p in enumerate(self.params) if p.grad is not None]
        if idx:
            self._update(idx)

    def take(self, weight: torch.Tensor, dy: torch.Tensor, x: torch.Tensor) -> bool:
        """During an overlapped backward pass, queue dL/dW = dyᵀ x of one of these parameters for
        the helper (dy (M, out), x (M, in)); True if queued, False: autograd computes it."""
        ready, i = self._ready, self._index.get(id(weight))
        if ready is None or i is None:
            return False
        ready.put((i, dy, x))
        return True

    def backward_step(self, loss: torch.Tensor) -> None:
        """zero_grad, ``loss.backward()`` and :meth:`step`, with the updates overlapping the backward pass.

        Without ``overlap`` the three run one after the other. With it, a hook on each parameter
        hands the parameter to a helper thread the moment its gradient is complete, and
        layers whose forward ran under :func:`handoff_weight_grads` with this optimizer hand
        over dy and x for their weight gradient; the helper updates each parameter while
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
        helper = threading.Thread(
            target=self._apply_ready,
            args=(ready, errors, self._grad_buffers[0], threads),
            daemon=True,
            name="adam-overlap",
        )
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

    def _apply_ready(self, ready: queue.SimpleQueue, errors: list[BaseException], buffers: dict, threads: int) -> None:
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


class _LinearHandingOffWeightGrad(torch.autograd.Function):
    """y = x Wᵀ + b, computed by ``F.linear``; the backward pass may hand dL/dW to the optimizer.

    dL/dx = dy W and dL/db = Σ dy are returned to autograd as ``F.linear``'s own backward returns
    them; dL/dW = dyᵀ x is what :meth:`FusedAdam.take` has the helper compute (the same product,
    so the same numbers). When ``take`` declines, autograd gets dL/dW as usual.
    """

    @staticmethod
    def forward(
        ctx, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, optimizer: FusedAdam
    ) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        ctx.optimizer, ctx.has_bias = optimizer, bias is not None
        return F.linear(x, weight, bias)  # (…, out)

    @staticmethod
    def backward(ctx, dy: torch.Tensor):
        x, weight = ctx.saved_tensors
        dy2 = dy.reshape(-1, dy.shape[-1])  # (M, out)
        x2 = x.reshape(-1, x.shape[-1])  # (M, in)
        dx = dy2.mm(weight).view(x.shape) if ctx.needs_input_grad[0] else None  # (…, in)
        dw = None
        if ctx.needs_input_grad[1] and not ctx.optimizer.take(weight, dy2, x2):
            dw = dy2.t().mm(x2)  # (out, in)
        db = dy2.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None  # (out,)
        return dx, dw, db, None


def _handing_off_forward(layer: nn.Linear, optimizer: FusedAdam):
    """``layer``'s forward for one training pass: y = x Wᵀ + b, x (…, in) -> (…, out), with dL/dW
    handed to ``optimizer``; plain ``F.linear`` whenever gradients are off."""

    def forward(x: torch.Tensor) -> torch.Tensor:
        if not torch.is_grad_enabled() or not layer.weight.requires_grad:
            return F.linear(x, layer.weight, layer.bias)
        return _LinearHandingOffWeightGrad.apply(x, layer.weight, layer.bias, optimizer)

    return forward


@contextlib.contextmanager
def handoff_weight_grads(model: GPT, optimizer: FusedAdam) -> Iterator[None]:
    """Within the block, the feed-forward ``nn.Linear`` layers of ``model`` hand their weight
    gradients to ``optimizer`` (module doc); afterwards they are plain ``nn.Linear`` again.

    Wrap the training forward pass only: the graph it builds keeps the hand-off for its backward
    pass. Does nothing unless ``optimizer`` is a :class:`FusedAdam` with ``overlap``. Not for a
    model another thread runs at the same time (the override is on the shared layer objects).
    """
    if not (isinstance(optimizer, FusedAdam) and optimizer.overlap):
        yield
        return
    layers = [
        m for ffn in model.modules() if isinstance(ffn, FeedForward) for m in ffn.modules() if isinstance(m, nn.Linear)
    ]
    for layer in layers:
        layer.forward = _handing_off_forward(layer, optimizer)  # instance attribute: shadows nn.Linear.forward
    try:
        yield
    finally:
        for layer in layers:
            del layer.forward
