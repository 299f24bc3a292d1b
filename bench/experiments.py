"""What each attention switch does to the trained examples' predictions.

Run: ``python -m bench.experiments [NAME ...]`` (default: every example of ``tinygpt.examples``).

Takes the model the app serves for each example (the shipped checkpoint, the same on every
machine; an example without one is trained here, one intra-op thread) and prints where it comes
from, its weights hash, final loss and accuracy (greedy argmax = target over every training
position), then a table for its display text (the first training window, T characters): one row
per switch, one column per layer plus one with the switch in every layer. A cell ``k/T Δp`` says
that the switch changes the predicted character (argmax) at k of the T positions, and that the
largest change of any character's probability at any position is Δp = max |p_switched − p_own|.

Rows: the causal mask off; τ = 1000 (α ≈ uniform over the positions the mask leaves); τ = 0.01
(α ≈ one-hot on the highest score); no scaling (scores divided by 1 instead of √d_head); head h
off (``Switches(heads_off=(h,))``: its part of the merged heads is zero before W_O, so the
layer's output is the other heads' alone); uniform attention (every head of the layer). Every
pass is :func:`tinygpt.explanations.explain.position_effects`, the code the Attention page runs.

The figures of this machine are in the README ("The context example").
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping

import torch

from tinygpt.attention import Switches
from tinygpt.examples import EXAMPLES, Example
from tinygpt.explanations.explain import position_effects
from tinygpt.training.jobs import model_key
from tinygpt.training.model_library import shipped_model, weights_hash
from tinygpt.training.train import ModelRecord, train
from tinygpt.vocab import training_pairs


def accuracy(record: ModelRecord) -> tuple[int, int]:
    """(positions whose argmax is the target, all positions) over every training window."""
    inputs, targets = training_pairs(record.vocab, record.text, record.window)  # (N, W) each
    with torch.no_grad():
        pred = record.model.eval()(inputs).argmax(dim=-1)  # (N, W)
    return int((pred == targets).sum()), targets.numel()


def changes(record: ModelRecord, text: str, switches: Mapping[int, Switches] | Switches) -> tuple[list[int], float]:
    """Positions of ``text`` whose argmax the switches change, and max |Δp| over positions and characters."""
    fx = position_effects(record.model.eval(), record.vocab.encode(text)[None], switches)
    return fx.changed.nonzero().flatten().tolist(), float(fx.max_delta.max())


def switch_rows(n_heads: int) -> list[tuple[str, Switches]]:
    """(label, switches) of every row of the table."""
    rows = [
        ("causal mask off", Switches(causal_mask=False)),
        ("τ = 1000 (α ≈ uniform)", Switches(temperature=1000.0)),
        ("τ = 0.01 (α ≈ one-hot)", Switches(temperature=0.01)),
        ("no scaling (divisor 1)", Switches(divisor=1.0)),
        ("uniform attention", Switches(uniform_heads=tuple(range(n_heads)))),
    ]
    return rows + [(f"head {h} off", Switches(heads_off=(h,))) for h in range(n_heads)]


def effect_table(record: ModelRecord, text: str) -> list[tuple[str, list[tuple[list[int], float]]]]:
    """For each row of :func:`switch_rows`: (label, [(changed positions, max |Δp|) per layer, then all layers])."""
    layers = list(range(record.gpt_cfg.n_layers))
    return [
        (
            label,
            [
                changes(record, text, {layer: sw for layer in where})
                for where in [[layer] for layer in layers] + [layers]
            ],
        )
        for label, sw in switch_rows(record.gpt_cfg.n_heads)
    ]


def served(example: Example) -> tuple[ModelRecord, str]:
    """The model the app serves for ``example`` and where it comes from: the shipped checkpoint
    (the same weights on every machine), else a training on this machine."""
    shipped = shipped_model(model_key(example.text, example.gpt, example.train))
    if shipped is not None:
        return shipped, f"shipped: tinygpt/weights/{example.name}.safetensors"
    start = time.perf_counter()
    record = train(example.text, example.gpt, example.train)
    return record, f"trained on this machine in {time.perf_counter() - start:.2f} s"


def report(example: Example) -> None:
    """Print the figures and the table of the model the app serves for ``example``."""
    record, source = served(example)
    correct, total = accuracy(record)
    text = example.display
    with torch.no_grad():
        pred = record.vocab.decode(record.model.eval()(record.vocab.encode(text)[None]).argmax(dim=-1)[0])
    g, t = record.gpt_cfg, record.train_cfg
    print(f"\n## {example.name}: {example.text}")
    print(
        f"d_model {g.d_model}, {g.n_heads} heads, {g.n_layers} layers, d_ff {g.d_ff}, max_len {g.max_len}; "
        f"lr {t.lr:g}, {t.epochs} epochs, seed {t.seed}, window {record.window}, early stop {t.early_stop_loss:g}"
    )
    print(f"model: {source}; weights sha256 {weights_hash(record)[:16]}")
    print(
        f"{len(record.losses)} steps (stop: {record.stop_reason}); "
        f"final loss {record.losses[-1]:.4f}; accuracy {correct}/{total} = {correct / total:.1%}"
    )
    print(f"display (T = {len(text)}): {text} → {pred}")
    cols = [f"layer {i}" for i in range(g.n_layers)] + ["all layers"]
    table = effect_table(record, text)
    width = max(len(label) for label, _ in table)
    print(f"{'':{width}}  " + "  ".join(f"{c:>13}" for c in cols))
    for label, cells in table:
        print(f"{label:{width}}  " + "  ".join(f"{f'{len(ch)}/{len(text)} {dp:.3f}':>13}" for ch, dp in cells))
    print("cell: positions whose predicted character changes / T, then max |Δp|")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.experiments", description=__doc__.split("\n")[0])
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"examples to run: {', '.join(EXAMPLES)} (default: all)"
    )
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in EXAMPLES]
    if unknown:
        parser.error(f"unknown example {', '.join(unknown)}; accepted: {', '.join(EXAMPLES)}")
    torch.set_num_threads(1)
    for name in args.names or list(EXAMPLES):
        report(EXAMPLES[name])


if __name__ == "__main__":
    main()
