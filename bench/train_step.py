"""Training step of the seed config: the seed program's loop as written vs our Trainer.step.

Run: ``python -m bench.train_step [--rounds 9] [--block 6] [--chart-seconds 10] [--poll S] [--skip-chart]
[--alone [--steps 40]]``

1. Step time. The seed program (textbook section 22.2.2) is re-implemented minimally below —
   nn.Linear projections, the nine steps written inline, plain ``optim.Adam(lr=1e-4)``, the loop
   ``zero_grad / forward / CrossEntropyLoss / backward / step`` — and given the *same initial
   weights* as ours (identical state_dict names), so both compute the same losses (checked).
   Blocks of steps of each alternate in one process, so machine load hits both alike; the
   figure is the median ms per step. The seed runs with torch's default thread count (as the
   program would), and also with one thread for a like-for-like comparison.
2. Live chart overhead. A background TrainingJob trains while, in the main thread, AppTest re-runs
   every POLL_SECONDS (the page's interval; ``--poll`` overrides) (a) what the polling fragment
   draws (``tinygpt.ui.train.training_jobs.show_progress``: progress, chart data, Vega-Lite spec, Streamlit's
   marshalling) or (b) the whole Train page, against the same job with no polling; steps/s of
   each, alternating. AppTest's own bookkeeping makes both upper bounds of what a server does.

Targets: ours ≤ 0.5 × the seed loop; the live chart adds < 5 %.

"ours" is ``Trainer.step`` as the app runs it: one intra-op thread, and for the seed config the Adam
updates (and the feed-forward weight gradients) overlapping the backward pass in a helper thread
(``tinygpt.training.optim``'s module doc); "without the Adam overlap" is the same Trainer with ``overlap=False``,
which gives bitwise the same weights. The ratio is printed twice: of the medians, and the median of
each round's ratio (a round's blocks run back to back, so both see the same machine state).
The seed loop as written varies most (its Adam allocates two temporaries per parameter each step);
the ratio to the seed loop at one thread is the steadier comparison on a loaded machine.
Measured figures are in the README's Benchmarks section.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

from tinygpt.config import DEFAULT_GPT, SEED_TEXT, GPTConfig, TrainConfig
from tinygpt.training.train import TRAIN_THREADS, Trainer, build

DEFAULT_THREADS = torch.get_num_threads()


# ------------------------------------------------------------------ the seed program, minimally
class SeedMHA(nn.Module):
    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.W_Q = nn.Linear(d_model, d_model, bias=False)
        self.W_K = nn.Linear(d_model, d_model, bias=False)
        self.W_V = nn.Linear(d_model, d_model, bias=False)
        self.W_O = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, D = x.shape
        Q = self.W_Q(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)  # (B, h, T, d_head)
        K = self.W_K(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        V = self.W_V(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.d_head)  # (B, h, T, T)
        mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
        alpha = F.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        out = (alpha @ V).transpose(1, 2).contiguous().view(B, T, D)  # (B, T, D)
        return self.W_O(out)


class SeedBlock(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int) -> None:
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(d_model), SeedMHA(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.ffn = nn.Module()
        self.ffn.net = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.ffn.net(self.ln2(x))


class SeedGPT(nn.Module):
    def __init__(self, vocab_size: int, d_model=512, n_heads=8, n_layers=6, d_ff=2048, max_len=128) -> None:
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList([SeedBlock(d_model, n_heads, d_ff) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        B, T = idx.shape
        positions = torch.arange(T).unsqueeze(0)
        x = self.token_embedding(idx) + self.position_embedding(positions)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


class SeedLoop:
    """The seed's training loop body, one epoch per call."""

    def __init__(self, state_dict: dict, cfg: GPTConfig) -> None:
        self.model = SeedGPT(cfg.vocab_size, cfg.d_model, cfg.n_heads, cfg.n_layers, cfg.d_ff, cfg.max_len)
        self.model.load_state_dict(state_dict)
        self.optimizer = optim.Adam(self.model.parameters(), lr=1e-4)
        self.loss_fn = nn.CrossEntropyLoss()
        self.data, self.target = torch.tensor([[0, 1, 2, 3]]), torch.tensor([[1, 2, 3, 0]])
        self.vocab_size = cfg.vocab_size

    def step(self) -> float:
        self.optimizer.zero_grad()
        logits = self.model(self.data)
        loss = self.loss_fn(logits.view(-1, self.vocab_size), self.target.view(-1))
        loss.backward()
        self.optimizer.step()
        return loss.item()


# ------------------------------------------------------------------ measurements
def ms_per_step(fn, n: int, threads: int) -> float:
    torch.set_num_threads(threads)
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e3


def phases(model_step_parts, n: int, threads: int) -> tuple[float, float, float]:
    """Median ms of (forward+loss, backward, optimizer) over n steps."""
    torch.set_num_threads(threads)
    fwd, bwd, opt = [], [], []
    for _ in range(n):
        forward, backward, update = model_step_parts
        t0 = time.perf_counter()
        loss = forward()
        t1 = time.perf_counter()
        backward(loss)
        t2 = time.perf_counter()
        update()
        t3 = time.perf_counter()
        fwd.append(t1 - t0), bwd.append(t2 - t1), opt.append(t3 - t2)
    return tuple(statistics.median(v) * 1e3 for v in (fwd, bwd, opt))


def step_time(rounds: int, block: int) -> None:
    print(
        f"torch {torch.__version__}, default threads {DEFAULT_THREADS}, ours {TRAIN_THREADS}; seed config "
        f"{DEFAULT_GPT.n_parameters():,} parameters; {rounds} rounds × {block} steps each, alternating"
    )
    cfg = TrainConfig(lr=1e-4, epochs=5000, early_stop_loss=0.0)
    ours = Trainer(build(SEED_TEXT, DEFAULT_GPT, cfg))
    seed = SeedLoop({k: v.clone() for k, v in ours.record.model.state_dict().items()}, ours.record.gpt_cfg)
    # Same model, same Adam mathematics: the first losses agree.
    a = [seed.step() for _ in range(3)]
    torch.set_num_threads(DEFAULT_THREADS)
    b = [ours.step() for _ in range(3)]
    print("first losses  seed:", " ".join(f"{v:.6f}" for v in a), "  ours:", " ".join(f"{v:.6f}" for v in b))
    assert all(abs(x - y) <= 1e-4 * max(1.0, abs(x)) for x, y in zip(a, b)), (a, b)
    ours2 = Trainer(build(SEED_TEXT, DEFAULT_GPT, cfg), threads=DEFAULT_THREADS)
    plain = Trainer(build(SEED_TEXT, DEFAULT_GPT, cfg), overlap=False)
    ours_name = f"ours Trainer.step, {TRAIN_THREADS} thread(s)"
    runs: dict[str, list[float]] = {
        "seed loop, default threads": [],
        "seed loop, 1 thread": [],
        ours_name: [],
        f"ours Trainer.step, {DEFAULT_THREADS} threads": [],
        f"ours without the Adam overlap, {TRAIN_THREADS} thread(s)": [],
    }
    fns = [
        (seed.step, DEFAULT_THREADS),
        (seed.step, 1),
        (ours.step, TRAIN_THREADS),
        (ours2.step, DEFAULT_THREADS),
        (plain.step, TRAIN_THREADS),
    ]
    for fn, threads in fns:  # warm-up
        ms_per_step(fn, 2, threads)
    for _ in range(rounds):
        for (name, values), (fn, threads) in zip(runs.items(), fns):
            values.append(ms_per_step(fn, block, threads))
    med = {name: statistics.median(v) for name, v in runs.items()}
    for name, value in med.items():
        spread = f"{min(runs[name]):.1f}–{max(runs[name]):.1f}"
        print(f"  {name:38s} {value:8.1f} ms/step   (blocks {spread})")
    ours_ms = med[ours_name]
    # Each round's blocks run back to back, so a round's ratio sees the same machine state in both.
    paired = [o / s for o, s in zip(runs[ours_name], runs["seed loop, default threads"])]
    paired1 = [o / s for o, s in zip(runs[ours_name], runs["seed loop, 1 thread"])]
    print(
        f"ratio ours / seed loop as written (default threads): "
        f"{ours_ms / med['seed loop, default threads']:.2f} of the "
        f"medians, {statistics.median(paired):.2f} median of the rounds' ratios ({min(paired):.2f}–{max(paired):.2f})"
        f"  (target ≤ 0.50)"
    )
    print(
        f"ratio ours / seed loop at 1 thread:                  {ours_ms / med['seed loop, 1 thread']:.2f} of the "
        f"medians, {statistics.median(paired1):.2f} median of the rounds' ratios"
    )
    no_overlap = med[f"ours without the Adam overlap, {TRAIN_THREADS} thread(s)"]
    print(f"ratio ours / ours without the Adam overlap:          {ours_ms / no_overlap:.2f}")
    # Where the time goes (same phases, same thread count as the app).
    s_parts = (
        lambda: seed.loss_fn(seed.model(seed.data).view(-1, seed.vocab_size), seed.target.view(-1)),
        lambda loss: (seed.optimizer.zero_grad(), loss.backward()),
        seed.optimizer.step,
    )
    p_parts = (
        plain._loss,
        lambda loss: (plain.optimizer.zero_grad(set_to_none=True), loss.backward()),
        plain.optimizer.step,
    )
    o_parts = (ours._loss, ours.optimizer.backward_step, lambda: None)
    for name, parts in (("seed loop", s_parts), ("ours, no overlap", p_parts)):
        f, bw, o = phases(parts, 2 * block, TRAIN_THREADS)
        print(f"  {name:18s} at {TRAIN_THREADS} thread: forward {f:6.1f}  backward {bw:6.1f}  Adam {o:6.1f} ms")
    f, bw, _ = phases(o_parts, 2 * block, TRAIN_THREADS)
    print(f"  {'ours':18s} at {TRAIN_THREADS} thread: forward {f:6.1f}  backward with Adam overlapping {bw:6.1f} ms")


def _fragment_script() -> None:
    """What the Train page's polling fragment runs (AppTest runs this function as a script)."""
    import streamlit as st

    from tinygpt.ui.train.training_jobs import show_progress

    show_progress(st.session_state["job"], st.session_state.get("train_runs", []))


def chart_overhead(seconds: float, gpt_cfg: GPTConfig, name: str, poll: float | None = None) -> None:
    """Steps/s of a background job while the fragment's drawing (or the whole page) re-runs every ``poll`` s."""
    from streamlit.testing.v1 import AppTest

    from tinygpt.training.jobs import JobQueue, ModelShelf, start_job
    from tinygpt.ui.train.training_jobs import POLL_SECONDS

    poll = poll or POLL_SECONDS
    modes = ("no polling", "fragment", "whole page")
    rates: dict[str, list[float]] = {m: [] for m in modes}
    run_ms: dict[str, list[float]] = {m: [] for m in modes}
    seed = 100
    for _ in range(3):
        for mode in modes:
            seed += 1  # a new setting each time: nothing comes from the cache
            job = start_job(
                SEED_TEXT,
                gpt_cfg,
                TrainConfig(lr=1e-4, epochs=5000, early_stop_loss=0.0, seed=seed),
                queue=JobQueue(1),
                models=ModelShelf(),
            )
            at = None
            if mode == "fragment":
                at = AppTest.from_function(_fragment_script, default_timeout=120)
            elif mode == "whole page":
                at = AppTest.from_file("../streamlit_app.py", default_timeout=120)
                at.query_params["lang"] = "en"
            if at is not None:
                at.session_state["job"] = job
                at.run()
            while len(job.losses) < 5:
                time.sleep(0.05)
            n0, t0 = len(job.losses), time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                time.sleep(poll)
                if at is not None:
                    r0 = time.perf_counter()
                    at.run()
                    run_ms[mode].append((time.perf_counter() - r0) * 1e3)
            n1, t1 = len(job.losses), time.perf_counter()
            job.stop()
            job.join(60)
            rates[mode].append((n1 - n0) / (t1 - t0))
    base = statistics.median(rates["no polling"])
    print(f"live chart, {name} (job at {base:.2f} steps/s without polling; every {poll} s):")
    for mode in modes[1:]:
        rate = statistics.median(rates[mode])
        print(
            f"  {mode:10s}: {rate:8.2f} steps/s, overhead {(1 - rate / base) * 100:+5.1f} %  "
            f"(one run {statistics.median(run_ms[mode]):.0f} ms; "
            f"steps/s per trial {[round(r, 2) for r in rates[mode]]})"
        )
    print(f"  target: the fragment adds < 5 %; no polling per trial {[round(r, 2) for r in rates['no polling']]}")


def _alone_child(which: str, steps: int) -> None:
    """One training loop alone in this process: ms per step (median, quartiles) as JSON on stdout."""
    import json

    cfg = TrainConfig(lr=1e-4, epochs=5000, early_stop_loss=0.0)
    if which == "seed":
        fn = SeedLoop(build(SEED_TEXT, DEFAULT_GPT, cfg).model.state_dict(), DEFAULT_GPT).step
    else:
        fn = Trainer(build(SEED_TEXT, DEFAULT_GPT, cfg), overlap=(which == "ours")).step
    for _ in range(3):
        fn()
    ms = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        ms.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps([statistics.median(ms), *statistics.quantiles(ms, n=4)]))


def alone(steps: int, repeats: int) -> None:
    """Each loop trained alone in a fresh process (no other model in the caches), as a job runs in the app."""
    import json
    import subprocess
    import sys

    names = {"seed": "seed loop as written", "ours": "ours", "plain": "ours without the Adam overlap"}
    med: dict[str, list[float]] = {k: [] for k in names}
    for _ in range(repeats):
        for which in names:
            out = subprocess.run(
                [sys.executable, "-m", "bench.train_step", "--alone-child", which, "--steps", str(steps)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            med[which].append(json.loads(out.strip().splitlines()[-1])[0])
    print(f"alone in a process ({steps} steps each, {repeats} processes per loop, alternating):")
    for which, name in names.items():
        print(
            f"  {name:32s} {statistics.median(med[which]):7.1f} ms/step  "
            f"(processes {[round(v, 1) for v in med[which]]})"
        )
    print(
        f"ratio ours / seed loop alone: {statistics.median(med['ours']) / statistics.median(med['seed']):.2f};  "
        f"ours / ours without the overlap: {statistics.median(med['ours']) / statistics.median(med['plain']):.2f}"
    )


def _load() -> str:
    try:
        return "load average " + open("/proc/loadavg").read().split(" ")[0]
    except OSError:
        return "load average unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--block", type=int, default=6)
    parser.add_argument("--chart-seconds", type=float, default=10.0)
    parser.add_argument("--poll", type=float, default=None, help="seconds between redraws (default: the page's)")
    parser.add_argument("--skip-chart", action="store_true")
    parser.add_argument("--alone", action="store_true", help="also time each loop alone in a fresh process")
    parser.add_argument("--steps", type=int, default=40, help="steps per process with --alone")
    parser.add_argument("--alone-child", choices=("seed", "ours", "plain"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.alone_child:
        _alone_child(args.alone_child, args.steps)
        return
    print(f"[{_load()} on {__import__('os').cpu_count()} cores at start]")
    step_time(args.rounds, args.block)
    if args.alone:
        alone(args.steps, 3)
    if not args.skip_chart:
        chart_overhead(args.chart_seconds, DEFAULT_GPT, "seed config", args.poll)
        chart_overhead(
            args.chart_seconds,
            GPTConfig(d_model=64, n_heads=4, n_layers=2, d_ff=256),
            "small config (d_model 64)",
            args.poll,
        )
    print(f"[{_load()} at the end]")


if __name__ == "__main__":
    main()
