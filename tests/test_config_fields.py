"""Every field of the config dataclasses reaches the command line, a job's run record and a ``train=``
link, taken from the dataclasses (tinygpt.config_fields), never from a list kept by hand."""

from __future__ import annotations

import dataclasses

import pytest

from tinygpt import config_fields
from tinygpt.__main__ import FLAG_OF, build_parser, example_defaults
from tinygpt.config import MAX_LAYERS, ConfigError, GPTConfig, TrainConfig
from tinygpt.config_fields import V1_DEFAULTS, settings, split_settings
from tinygpt.examples import EXAMPLES
from tinygpt.training.jobs import settings_of
from tinygpt.training.links import decode_train, encode_train, read_train, settings_dict

SMALL = GPTConfig(vocab_size=2, max_len=16, d_model=32, n_heads=4, n_layers=2, d_ff=64)

#: The fields that are settings: every field of both dataclasses but the vocabulary's size.
FIELDS = {f.name for cls in (GPTConfig, TrainConfig) for f in dataclasses.fields(cls)} - {"vocab_size"}


def test_the_cli_the_run_record_and_the_link_write_every_field_of_the_dataclasses():
    assert {s.name for s in settings()} == FIELDS
    assert FIELDS <= set(vars(build_parser().parse_args([]))) and FIELDS <= set(FLAG_OF)
    assert set(settings_of("ab", SMALL, TrainConfig())) == FIELDS | {"text"}
    assert set(settings_dict(SMALL, TrainConfig())) == FIELDS
    assert set(read_train("v1;text=ab")[1]) == FIELDS
    assert set(example_defaults(EXAMPLES["context"])) == FIELDS | {"text"}
    assert set(V1_DEFAULTS) == FIELDS  # every field of version 1 has the meaning a link gives it when left out


def test_the_flags_and_the_link_keep_their_names_and_their_order():
    flags = [s.flag for s in settings()]
    assert flags[:7] == ["--d-model", "--n-heads", "--n-layers", "--d-ff", "--max-len", "--norm", "--positions"]
    assert flags[7:] == ["--lr", "--epochs", "--seed", "--early-stop", "--causal-mask", "--window"]
    # a link already shared reads as it did and is written again to the letter (its short link stays)
    old = "v1;d_model=32;n_heads=4;n_layers=2;d_ff=64;max_len=16;lr=0.003;epochs=300;seed=7;causal_mask=0;window=4;"
    old += "text=ab"
    text, gpt, train = decode_train(old)
    assert encode_train(text, gpt, train) == old
    assert encode_train("ab", SMALL, TrainConfig()) == "v1;d_model=32;n_heads=4;n_layers=2;d_ff=64;max_len=16;text=ab"


def test_every_setting_on_the_command_line_reaches_the_configs():
    parser = build_parser()
    args = parser.parse_args(["--text", "abcab", "--d-model", "32", "--n-heads", "4", "--early-stop", "0.5"])
    args = parser.parse_args(["--no-causal-mask", "--window", "3", "--norm", "post", "--lr", "0.01"], args)
    gpt, train = split_settings(vars(args))
    assert (gpt["d_model"], gpt["n_heads"], gpt["norm"]) == (32, 4, "post")
    assert (train["early_stop_loss"], train["causal_mask"], train["window"], train["lr"]) == (0.5, False, 3, 0.01)
    assert set(gpt) | set(train) == FIELDS and "log_every" not in gpt | train


@dataclasses.dataclass(frozen=True)
class WiderTrainConfig(TrainConfig):
    """TrainConfig with one field more, as a developer would add it."""

    warmup_steps: int = 0


def test_a_field_added_to_a_dataclass_appears_in_the_cli_the_run_record_and_the_link(monkeypatch):
    monkeypatch.setattr(config_fields, "CONFIGS", (GPTConfig, WiderTrainConfig))
    train = WiderTrainConfig(epochs=30, warmup_steps=5)
    args = build_parser().parse_args(["--warmup-steps", "7"])
    assert args.warmup_steps == 7
    assert split_settings(vars(args))[1]["warmup_steps"] == 7
    assert settings_of("ab", SMALL, train)["warmup_steps"] == 5
    link = encode_train("ab", SMALL, train)
    assert ";warmup_steps=5;" in link
    assert read_train(link)[1]["warmup_steps"] == 5
    assert read_train("v1;text=ab")[1]["warmup_steps"] == 0  # left out: the dataclass default
    assert "warmup_steps" not in encode_train("ab", SMALL, WiderTrainConfig())  # only what differs


def test_a_number_in_a_link_is_read_as_its_fields_type_and_range():
    with pytest.raises(ConfigError) as info:
        read_train("v1;n_layers=99;text=ab")
    assert (info.value.field, info.value.params) == ("n_layers", {"lo": 1, "hi": MAX_LAYERS})
    with pytest.raises(ConfigError) as info:
        read_train("v1;norm=middle;text=ab")
    assert info.value.field == "norm" and "pre" in info.value.accepted
    read = read_train("v1;window=0;lr=0.5;causal_mask=0;norm=post;text=ab")[1]
    assert {"window": None, "lr": 0.5, "causal_mask": False, "norm": "post"}.items() <= read.items()
