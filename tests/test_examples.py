"""The named examples: the context example needs attention, the textbook example does not."""

from __future__ import annotations

import ast
import re

import pytest
import torch
from helpers import seed_model, served_example

from bench.experiments import accuracy, changes
from tinygpt.__main__ import BANNER, main
from tinygpt.attention import Switches
from tinygpt.config import DEFAULT_GPT, DEFAULT_TRAIN, SEED_TEXT
from tinygpt.examples import EXAMPLES
from tinygpt.training.train import train

CONTEXT = EXAMPLES["context"]
UNIFORM = Switches(temperature=1000.0)  # α ≈ uniform over the positions the mask leaves
#: Positions of the context example's display text whose prediction changes with τ = 1000 in layer 0,
#: in the shipped model (tinygpt/weights/context.safetensors), which every machine serves.
UNIFORM_LAYER0_CHANGES = [3, 5, 6, 7, 10, 12, 13, 14]


def parse_sections(text: str) -> dict[str, str]:
    """{title: printed body} of every "=====\\ntitle\\n=====" block of the CLI's output."""
    parts = re.split(rf"\n{BANNER}\n(.+)\n{BANNER}\n", text)
    return {title: body.strip() for title, body in zip(parts[1::2], parts[2::2])}


@pytest.fixture(scope="module")
def context_model():
    """The context example as the app serves it: the shipped weights, the same on every machine."""
    return served_example("context")


@pytest.fixture(scope="module")
def trained_here():
    """The context example trained on this machine (its kernels decide the last bits of every weight)."""
    return train(CONTEXT.text, CONTEXT.gpt, CONTEXT.train)


def display_ids(record, example=CONTEXT) -> torch.Tensor:
    return record.vocab.encode(example.display)[None]  # (1, T)


def test_examples_are_the_textbook_run_and_a_small_context_run():
    textbook = EXAMPLES["textbook"]
    assert (textbook.text, textbook.gpt, textbook.train) == (SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN)
    assert list(EXAMPLES) == ["textbook", "context"] and all(name == ex.name for name, ex in EXAMPLES.items())
    assert len(CONTEXT.text) <= 32 and CONTEXT.gpt.vocab_size == len(set(CONTEXT.text))
    assert CONTEXT.display == CONTEXT.text[:15] and len(CONTEXT.display) == CONTEXT.gpt.max_len


def test_context_example_trains_deterministically_to_the_best_accuracy_its_windows_allow(trained_here):
    again = train(CONTEXT.text, CONTEXT.gpt, CONTEXT.train)
    assert again.losses == trained_here.losses and len(trained_here.losses) == CONTEXT.train.epochs
    # 16 windows × 15 positions; the first position of a window has no context, so 9 of them
    # (我, 你, 她, ，, 。, 他 have two successors, 爱 four) cannot be told apart: at most 231 are right.
    assert accuracy(trained_here) == (231, 240)


def test_the_shipped_context_model_is_a_training_of_the_examples_settings(context_model, trained_here):
    """The shipped checkpoint holds the example's settings, its 150 losses and the best accuracy; a
    training on this machine ends at the same loss to 4 digits (its kernels round otherwise, so not
    to the last bit) and reaches the same accuracy."""
    assert (context_model.text, context_model.gpt_cfg, context_model.train_cfg) == (
        CONTEXT.text,
        CONTEXT.gpt,
        CONTEXT.train,
    )
    assert context_model.frozen and len(context_model.losses) == CONTEXT.train.epochs
    assert accuracy(context_model) == (231, 240)
    assert context_model.losses[0] == pytest.approx(trained_here.losses[0], rel=1e-6)  # the same initial weights
    assert context_model.losses[-1] == pytest.approx(trained_here.losses[-1], abs=1e-3)


def test_context_example_predicts_its_display_text_and_needs_attention_in_layer_0(context_model):
    text = CONTEXT.display
    with torch.no_grad():
        own = context_model.model.eval()(display_ids(context_model)).argmax(-1)[0]  # (T,)
    assert context_model.vocab.decode(own) == CONTEXT.text[1:16]
    changed, dp = changes(context_model, text, {0: UNIFORM})
    assert changed == UNIFORM_LAYER0_CHANGES and dp > 0.9
    assert len(changes(context_model, text, {0: Switches(causal_mask=False)})[0]) >= 3
    uniform_layer = Switches(uniform_heads=tuple(range(CONTEXT.gpt.n_heads)))
    assert len(changes(context_model, text, {0: uniform_layer})[0]) >= 3
    changed, _ = changes(context_model, text, {0: Switches(heads_off=(1,))})
    assert {5, 7, 10, 13} <= set(changed)  # head 1 of layer 0 reads the previous character


def test_textbook_example_predicts_the_same_with_any_attention():
    record = seed_model()  # the textbook example's configs (tests/helpers.py), trained once per session
    assert (record.text, record.gpt_cfg, record.train_cfg) == (SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN)
    text = EXAMPLES["textbook"].display
    for layer in range(record.gpt_cfg.n_layers):
        assert changes(record, text, {layer: UNIFORM})[0] == []
    assert changes(record, text, UNIFORM)[0] == []
    assert changes(record, text, Switches(causal_mask=False))[0] == []


def test_cli_runs_the_context_example_and_flags_given_as_well_override_it(capsys):
    assert main(["--example", "context", "--log-every", "50"]) == 0
    text = capsys.readouterr().out
    assert re.findall(r"^Epoch (\d+),", text, flags=re.M) == ["0", "50", "100"]  # 150 epochs, no early stop
    sections = parse_sections(text)
    assert sections["输入"] == str(list(CONTEXT.display))
    # The first position has nothing before it: 我 is followed by 爱 or by 。 (both in the text), and
    # which one a training on this machine's kernels favours is a coin toss; every later position is decided.
    predicted = ast.literal_eval(sections["预测"])  # the printed list of characters
    assert predicted[0] in {"爱", "。"} and predicted[1:] == list(CONTEXT.text[2:16])
    assert sections["softmax alpha"].count("\n") >= 14  # (15, 15) α of head 0, layer 0

    assert main(["--example", "context", "--epochs", "2", "--log-every", "1", "--d-model", "16"]) == 0
    text = capsys.readouterr().out
    assert re.findall(r"^Epoch (\d+),", text, flags=re.M) == ["0", "1"]
    assert parse_sections(text)["输入"] == str(list(CONTEXT.display))  # the example's text and window stay


def test_cli_rejects_an_unknown_example_naming_the_accepted_ones(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--example", "poem"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--example" in err and "'poem'" in err and "textbook" in err and "context" in err
