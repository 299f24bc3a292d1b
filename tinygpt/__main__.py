"""``python -m tinygpt``: the seed program's session in the terminal, run with this project's model.

Textbook section 22.2.2 trains its tiny GPT on 你好世界 for 1000 epochs, printing the loss every
100 epochs ("Epoch 0, loss=2.033882"), then prints, each under a "=====" banner, the input and
the predicted characters and, for head 0 of layer 0, Q, K, V, the scores QKᵀ, the scaled scores
(after the causal mask: −inf above the diagonal) and the softmax weights α, rounded to 3
decimals as numpy prints them. This module does the same with :func:`tinygpt.training.train.Trainer` and
:func:`tinygpt.explanations.explain.trace_of`; flags set every hyperparameter. The seed program has no seed:
here ``--seed`` fixes the initial weights, and the same flags print the same numbers.

``--example NAME`` takes every setting from ``tinygpt.examples.EXAMPLES[NAME]`` (text, model,
learning rate, epochs, seed, early stop, window); flags given as well override it.

Epoch numbering is the seed's: epoch k is optimizer step k + 1, and ``losses[k]`` is its loss
(computed before that step's update).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import torch

from tinygpt.arrays import to_numpy
from tinygpt.config import MAX_TEXT_LEN, SEED_TEXT, ConfigError, GPTConfig, TrainConfig
from tinygpt.config_fields import Setting, setting_values, settings, split_settings
from tinygpt.examples import EXAMPLES, Example
from tinygpt.explanations.explain import trace_of
from tinygpt.limits import host_configs
from tinygpt.numbers import MAX_INT_CHARS, read_float, read_int
from tinygpt.training.checkpoint import to_bytes
from tinygpt.training.record import StopReason
from tinygpt.training.train import NonFiniteLossError, Trainer, build

#: The seed's section banner (30 "=").
BANNER = "=" * 30
#: Section titles in the seed's order (the first two are the seed's own Chinese titles).
SECTIONS = ("输入", "预测", "Q", "K", "V", "scores = QK^T", "scores_scaled", "softmax alpha")
#: AttentionTrace state entry printed under each matrix section (scores_scaled is the masked S).
TRACE_KEYS = {
    "Q": "Q_h",
    "K": "K_h",
    "V": "V_h",
    "scores = QK^T": "S",
    "scores_scaled": "S_masked",
    "softmax alpha": "alpha",
}
#: The flag behind each config field, for error messages (the text decides the vocabulary's size).
FLAG_OF = {s.name: s.flag for s in settings()} | {"vocab_size": "--text", "text": "--text"}


def whole_number(raw: str) -> int:
    """An integer flag's value, read by ``tinygpt.numbers`` (ASCII digits and an optional sign, at
    most ``MAX_INT_CHARS`` characters); the configs check its range. Anything else ("１０", "²",
    "1e3", 4,400 digits) is an ``argparse.ArgumentTypeError`` naming the value: exit 2."""
    bound = 10**MAX_INT_CHARS
    try:
        return read_int(raw, "", -bound, bound)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(f"{exc.value} is not accepted: an integer in ASCII digits") from None


def decimal_number(raw: str) -> float:
    """A decimal flag's value, read by ``tinygpt.numbers`` (ASCII digits, optional point and exponent,
    finite); the configs check its range. Anything else ("nan", "１e-3") exits 2 naming the value."""
    try:
        return read_float(raw, "", -1e300, 1e300)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(f"{exc.value} is not accepted: a finite number in ASCII digits") from None


def add_setting_flag(group: argparse._ArgumentGroup, setting: Setting) -> None:
    """The flag of one config field (:func:`tinygpt.config_fields.settings`): its value read as the
    field's type (a word among its choices, a yes/no ``--x``/``--no-x``), stored under the field's
    name, its default the seed program's."""
    options: dict[str, object] = {"dest": setting.name, "default": setting.cli_default, "help": setting.help}
    if setting.metavar:
        options["metavar"] = setting.metavar
    if setting.kind is bool:
        options["action"] = argparse.BooleanOptionalAction
    elif setting.choices:
        options["choices"] = setting.choices
    elif setting.kind in (int, float):
        options["type"] = whole_number if setting.kind is int else decimal_number
    group.add_argument(setting.flag, **options)


def build_parser() -> argparse.ArgumentParser:
    """The command line: one flag per hyperparameter, defaults from the seed program."""
    p = argparse.ArgumentParser(
        prog="python -m tinygpt",
        description="Train the tiny GPT of textbook section 22.2 and print what the seed program prints: "
        "the loss every --log-every epochs, the input and predicted characters, then Q, K, V, "
        "the scores, the scaled (masked) scores and the softmax weights of one attention head. "
        "训练 22.2 节的微型 GPT，按示例程序的格式打印损失与注意力的每一步。",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    m = p.add_argument_group("model (模型)")
    t = p.add_argument_group("training (训练)")
    t.add_argument(
        "--example",
        choices=tuple(EXAMPLES),
        default=None,
        help="take every setting from a named example (textbook: 你好世界; context: a text whose "
        "predictions need attention); flags given as well override it",
    )
    t.add_argument(
        "--text",
        default=SEED_TEXT,
        help=f"training text, 1 to {MAX_TEXT_LEN} characters; its characters are the vocabulary",
    )
    for setting in settings():
        add_setting_flag(m if setting.of_model else t, setting)
    o = p.add_argument_group("output (输出)")
    o.add_argument("--log-every", type=whole_number, default=100, metavar="N", help="print the loss every N epochs")
    o.add_argument("--layer", type=whole_number, default=0, help="layer whose attention is printed")
    o.add_argument("--head", type=whole_number, default=0, help="head whose attention is printed")
    o.add_argument(
        "--save",
        metavar="PATH",
        default=None,
        help="write the trained model to PATH as a safetensors checkpoint (the app loads it with Load a model; "
        "tinygpt/weights/NAME.safetensors is the model the app ships for example NAME)",
    )
    return p


def configs_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple[GPTConfig, TrainConfig]:
    """Validated configs from parsed flags, with the host limits the app applies
    (``tinygpt.limits.host_configs``); a bad value ends the program via ``parser.error`` (exit 2)."""
    if not args.text:
        parser.error("argument --text: the text is empty; give at least one character")
    if len(args.text) > MAX_TEXT_LEN:
        parser.error(f"argument --text: {len(args.text)} characters; at most {MAX_TEXT_LEN} are accepted")
    if args.log_every < 1:
        parser.error(f"argument --log-every: {args.log_every} is not accepted: an integer of at least 1")
    try:
        gpt_cfg, train_cfg = host_configs(args.text, *split_settings(vars(args)))
    except ConfigError as exc:  # a config's range or a host limit (tokens or work per step, epochs)
        config_error(parser, exc)
    if not 0 <= args.layer < gpt_cfg.n_layers:
        parser.error(
            f"argument --layer: {args.layer} is not accepted: 0 to {gpt_cfg.n_layers - 1} (n_layers={gpt_cfg.n_layers})"
        )
    if not 0 <= args.head < gpt_cfg.n_heads:
        parser.error(
            f"argument --head: {args.head} is not accepted: 0 to {gpt_cfg.n_heads - 1} (n_heads={gpt_cfg.n_heads})"
        )
    return gpt_cfg, train_cfg


def example_defaults(example: Example) -> dict[str, object]:
    """The flag values (argparse dests: the field names) that run ``example``: its text and every config field."""
    return {"text": example.text, **setting_values(example.gpt, example.train)}


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse ``argv``; with ``--example NAME`` the example's settings become the defaults, so flags
    given as well still win. A name outside ``EXAMPLES`` exits 2 listing the accepted names."""
    args = parser.parse_args(argv)
    if args.example is not None:
        parser.set_defaults(**example_defaults(EXAMPLES[args.example]))
        args = parser.parse_args(argv)
    return args


def config_error(parser: argparse.ArgumentParser, exc: ConfigError) -> None:
    """Report a ConfigError as argparse does (usage, message naming the flag, exit 2)."""
    flag = FLAG_OF.get(exc.field)
    parser.error(f"argument {flag}: {exc}" if flag else str(exc))


def print_section(title: str, body: object, out: TextIO) -> None:
    """One block of the seed's output: blank line, banner, title, banner, then ``body`` printed."""
    print(f"\n{BANNER}\n{title}\n{BANNER}", file=out)
    print(body, file=out)


def run(
    text: str,
    gpt_cfg: GPTConfig,
    train_cfg: TrainConfig,
    out: TextIO,
    log_every: int = 100,
    layer: int = 0,
    head: int = 0,
):
    """Train on ``text`` and print the seed's session to ``out``; returns the ModelRecord.

    Prints "Epoch k, loss=…" for every k (0-based) divisible by ``log_every`` while training,
    then the sections of :data:`SECTIONS`: the input (the first training window of ``text``),
    the argmax prediction at each position, and Q, K, V (T, d_head), S, S_masked, α (T, T) of
    ``head`` in ``layer``, each ``.numpy().round(3)`` as the seed prints them.

    Raises:
        tinygpt.training.train.NonFiniteLossError: the loss became NaN or ±∞ (the learning rate is too big).
    """
    record = build(text, gpt_cfg, train_cfg)

    def on_step(step: int, loss: float) -> None:
        epoch = step - 1  # the seed's epoch numbering: step 1 is epoch 0
        if epoch % log_every == 0:
            print(f"\nEpoch {epoch}, loss={loss:.6f}", file=out, flush=True)

    Trainer(record).run(on_step)
    if record.stop_reason == StopReason.EARLY_STOP and (len(record.losses) - 1) % log_every:
        print(
            f"\nEpoch {len(record.losses) - 1}, loss={record.losses[-1]:.6f}  "
            f"(early stop: loss < {train_cfg.early_stop_loss:g})",
            file=out,
        )

    model = record.model.eval()
    window = text[: record.window]
    ids = record.vocab.encode(window)[None]  # (1, T)
    with torch.no_grad():
        pred = model(ids).argmax(dim=-1)  # (1, T)
    trace = trace_of(model, ids, layer)
    print_section(SECTIONS[0], list(window), out)
    print_section(SECTIONS[1], list(record.vocab.decode(pred[0])), out)
    for title in SECTIONS[2:]:
        matrix = trace.state[TRACE_KEYS[title]][0, head]  # (T, d_head) or (T, T)
        print_section(title, to_numpy(matrix).round(3), out)
    out.flush()
    return record


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m tinygpt``; returns the exit code (2 for bad flags, 1 for a diverged run)."""
    parser = build_parser()
    args = parse_args(parser, argv)
    gpt_cfg, train_cfg = configs_from_args(args, parser)
    try:
        record = run(args.text, gpt_cfg, train_cfg, sys.stdout, args.log_every, args.layer, args.head)
    except NonFiniteLossError as exc:
        print(f"python -m tinygpt: error: {exc}", file=sys.stderr)
        return 1
    if args.save:
        from tinygpt.training.model_library import weights_hash  # heavy: the class store (SQLAlchemy), only when saving

        try:
            Path(args.save).write_bytes(to_bytes(record))
        except OSError as exc:
            print(f"python -m tinygpt: error: --save {args.save}: {exc.strerror}", file=sys.stderr)
            return 1
        print(f"\nsaved {args.save} (weights sha256 {weights_hash(record)[:16]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
