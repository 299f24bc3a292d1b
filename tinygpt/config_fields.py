"""The settings of a training run, field by field, derived from the config dataclasses.

A run is decided by its text, a :class:`~tinygpt.config.GPTConfig` and a
:class:`~tinygpt.config.TrainConfig`. The command line (``python -m tinygpt``), a job's run record
(:func:`tinygpt.training.run_records.settings_of`) and a link's ``train=`` parameter (:mod:`tinygpt.training.links`)
each write every field of the two dataclasses, and take the fields from :func:`settings`: a field
added to a dataclass appears in all three. Its name, type and default come from the dataclass;
what they cannot say (a flag's help, the words a text field takes, the range a link reads a number
in, a flag named otherwise than the field) is in :data:`EXTRAS`. ``vocab_size`` is nobody's
setting: it follows from the text.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass

from tinygpt.config import MAX_D_MODEL, MAX_EPOCHS, MAX_LAYERS, MAX_MAX_LEN, GPTConfig, TrainConfig

#: The two dataclasses whose fields are a run's settings (model, then training).
CONFIGS: tuple[type, type] = (GPTConfig, TrainConfig)
#: Fields that are not settings: the vocabulary's size follows from the text.
FROM_TEXT = frozenset({"vocab_size"})

#: What a ``train=`` link of version 1 means by a setting it leaves out (the seed program's
#: settings, fixed for version 1; ``window`` 0 is the whole text), in the order links, the command
#: line and run records write the settings. A field added later follows them, with its dataclass
#: default as what a link that leaves it out means.
V1_DEFAULTS: dict[str, object] = {
    "d_model": 512,
    "n_heads": 8,
    "n_layers": 6,
    "d_ff": 2048,
    "max_len": 128,
    "norm": "pre",
    "positions": "learned",
    "lr": 1e-4,
    "epochs": 1000,
    "seed": 0,
    "early_stop_loss": 1e-4,
    "causal_mask": True,
    "window": 0,
}

#: What a field's type and default do not say. ``help``: the command line's help; ``flag``: its
#: flag when not ``--`` and the name with dashes; ``metavar``; ``cli_default``: the command line's
#: default when not the dataclass's; ``choices``: the words a text field takes; ``range``: the
#: (lowest, highest) number a link reads (the dataclass checks what depends on other fields).
EXTRAS: dict[str, dict[str, object]] = {
    "max_len": {"help": "position embeddings = longest context", "range": (1, MAX_MAX_LEN)},
    "d_model": {"help": "width of the residual stream, d_model", "range": (1, MAX_D_MODEL)},
    "n_heads": {"help": "attention heads per layer; must divide d_model", "range": (1, MAX_D_MODEL)},
    "n_layers": {"help": "Transformer blocks", "range": (1, MAX_LAYERS)},
    "d_ff": {"help": "hidden width of the feed-forward network", "range": (1, 4 * MAX_D_MODEL)},
    "norm": {"help": "LayerNorm before (seed) or after each sub-layer", "choices": ("pre", "post")},
    "positions": {"help": "position embeddings", "choices": ("learned", "sinusoidal")},
    "lr": {"help": "Adam learning rate", "range": (0.0, 1.0)},
    "epochs": {"help": "optimizer steps (the whole text is one batch)", "range": (1, MAX_EPOCHS)},
    "seed": {"help": "seed of the initial weights; same flags, same output", "range": (0, 2**31 - 1)},
    "early_stop_loss": {
        "flag": "--early-stop",
        "metavar": "LOSS",
        "cli_default": 0.0,
        "help": "stop once the loss is below LOSS; 0 runs every epoch like the seed",
        "range": (0.0, 10.0),
    },
    "causal_mask": {
        "help": "train with the causal mask (the seed); --no-causal-mask lets every position read "
        "the character it must predict"
    },
    "window": {
        "metavar": "N",
        "help": "train on every N-character window of the text read as a cycle; "
        "default: the whole text (up to --max-len) as one sequence",
        "range": (0, MAX_MAX_LEN),
    },
}
#: The range a link reads a number in when :data:`EXTRAS` gives none (the dataclass checks it).
WIDE_RANGE = (-(2**31), 2**31 - 1)


@dataclass(frozen=True)
class Setting:
    """One field of a config dataclass as the command line, run records and links write it.

    ``of_model``: a field of the model's dataclass (the first of :data:`CONFIGS`), not of
    training's. ``kind`` is the field's type (int, float, str or bool); ``optional``: None is a value (the
    ``window`` unset: the whole text; a link writes it 0). ``link_default`` is what a ``train=``
    link that leaves the setting out means; ``cli_default`` the command line's default.
    """

    name: str
    config: type
    of_model: bool
    kind: type
    optional: bool
    default: object
    link_default: object
    cli_default: object
    flag: str
    help: str
    metavar: str | None
    choices: tuple[str, ...]
    range: tuple[float, float]


def _kind(annotation: object) -> tuple[type, bool]:
    """(type, optional) of a field's annotation: ``int | None`` is (int, True)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return args[0], True
    return annotation, False


def _setting(config: type, of_model: bool, field: dataclasses.Field, hints: dict[str, object]) -> Setting:
    extra = EXTRAS.get(field.name, {})
    kind, optional = _kind(hints[field.name])
    default = field.default if field.default is not dataclasses.MISSING else field.default_factory()
    link_default = V1_DEFAULTS.get(field.name, 0 if optional and default is None else default)
    return Setting(
        name=field.name,
        config=config,
        of_model=of_model,
        kind=kind,
        optional=optional,
        default=default,
        link_default=link_default,
        cli_default=extra.get("cli_default", default),
        flag=str(extra.get("flag", "--" + field.name.replace("_", "-"))),
        help=str(extra.get("help", f"{field.name} ({config.__name__})")),
        metavar=extra.get("metavar"),
        choices=tuple(extra.get("choices", ())),
        range=tuple(extra.get("range", WIDE_RANGE)),
    )


@functools.lru_cache(maxsize=8)
def _settings_of(configs: tuple[type, ...]) -> tuple[Setting, ...]:
    found = [
        _setting(config, index == 0, field, typing.get_type_hints(config))
        for index, config in enumerate(configs)
        for field in dataclasses.fields(config)
        if field.name not in FROM_TEXT
    ]
    order = {name: i for i, name in enumerate(V1_DEFAULTS)}
    return tuple(sorted(found, key=lambda s: order.get(s.name, len(order))))  # stable: new fields in field order


def settings(configs: tuple[type, type] | None = None) -> tuple[Setting, ...]:
    """Every setting of a run: the fields of the model's and the training's dataclass
    (:data:`CONFIGS` unless given) but ``vocab_size``, in the order of :data:`V1_DEFAULTS`, fields
    not in it after them in their dataclass's order."""
    return _settings_of(tuple(configs or CONFIGS))


def setting_values(gpt_cfg: object, train_cfg: object) -> dict[str, object]:
    """Every setting of these configs by its field name, as the configs hold it (``window`` may be None)."""
    return {
        s.name: getattr(gpt_cfg if s.of_model else train_cfg, s.name)
        for s in settings((type(gpt_cfg), type(train_cfg)))
    }


def split_settings(values: dict[str, object]) -> tuple[dict[str, object], dict[str, object]]:
    """(the model's fields, the training's fields) of settings by field name, e.g. for
    :func:`tinygpt.limits.host_configs`; names that are no setting are left out."""
    model, training = {}, {}
    for s in settings():
        if s.name in values:
            (model if s.of_model else training)[s.name] = values[s.name]
    return model, training
