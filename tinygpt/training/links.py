"""Links that carry a model: its training settings and the attention page's score edits as text.

Training is deterministic (``tinygpt.training.train``): the text, the two configs and the seed decide the
weights. So a link names an example (``model=textbook`` / ``model=context``) or carries the
settings of a trained model in one query parameter, ``train=``, and whoever opens it gets the
very same model, from the server's shelf or trained again. This module turns settings into that
parameter and back, and reads and writes the ``edits=`` parameter of the attention page's edited
scores. It imports neither torch nor Streamlit.

``train=`` (version 1): ``v1;key=value;…;text=<the training text>``. The keys are the field names
of :class:`~tinygpt.config.GPTConfig` and :class:`~tinygpt.config.TrainConfig` (``vocab_size``
follows from the text), taken from the dataclasses (:mod:`tinygpt.config_fields`); only values
that differ from :data:`~tinygpt.config_fields.V1_DEFAULTS` (the seed program's settings, fixed
for version 1; a field added since: its dataclass default) are written. ``causal_mask`` is
``1``/``0``; ``window=0`` means the whole text. ``text=`` comes last and takes the rest of the
parameter, so the text may hold any character, ``;`` and ``=`` included. Example:
``v1;d_model=64;n_heads=4;n_layers=2;d_ff=256;lr=0.001;epochs=500;text=你好世界``.

``edits=``: ``head:i:j:value`` separated by commas, e.g. ``0:3:1:5.5,0:2:0:-1`` (raw score
S[i, j] of ``head`` set to ``value``).

The Theory page's ``concept=`` and ``step=`` are read here too (:func:`read_theory_params`).
Every number and name is read by ``tinygpt.numbers``; a refused value is a ConfigError naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tinygpt.config import MAX_MAX_LEN, ConfigError, ConfigErrors, GPTConfig, TrainConfig
from tinygpt.config_fields import V1_DEFAULTS as V1_DEFAULTS  # the link format's defaults, read here by tests
from tinygpt.config_fields import Setting, setting_values, settings, split_settings
from tinygpt.formatting import shown_text
from tinygpt.limits import host_configs
from tinygpt.numbers import read_choice, read_float, read_int
from tinygpt.training.record import ModelRecord, StopReason

TRAIN_VERSION = "v1"


def _value_text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}" if float(f"{value:g}") == value else repr(value)
    return str(value)


def settings_dict(gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> dict[str, object]:
    """Every setting a ``train=`` link carries (:func:`tinygpt.config_fields.settings`), by its field
    name: decimals as floats, an unset optional value as 0 (``window`` 0 = whole text)."""
    kinds = {s.name: s for s in settings((type(gpt_cfg), type(train_cfg)))}
    values = setting_values(gpt_cfg, train_cfg)
    return {
        name: 0 if value is None and kinds[name].optional else float(value) if kinds[name].kind is float else value
        for name, value in values.items()
    }


def encode_train(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> str:
    """The ``train=`` value of these settings (the inverse of :func:`decode_train`)."""
    defaults = {s.name: s.link_default for s in settings((type(gpt_cfg), type(train_cfg)))}
    fields = [f"{k}={_value_text(v)}" for k, v in settings_dict(gpt_cfg, train_cfg).items() if v != defaults[k]]
    return ";".join([TRAIN_VERSION, *fields, f"text={text}"])


def decode_train(value: str, param: str = "train") -> tuple[str, GPTConfig, TrainConfig]:
    """(text, GPTConfig, TrainConfig) of a ``train=`` value, checked against this host's limits.
    ``param`` is the query parameter that carried it (``train``, the Train page's ``form`` or
    ``trained``): a refused version is named by it.

    Raises:
        ConfigError naming the setting and what is accepted (``key`` selects the i18n message;
        a :class:`tinygpt.config.ConfigErrors` naming each when several settings are refused):
        an unknown version or setting, a value that is not ASCII digits where a number is needed
        or lies outside its range (``tinygpt.numbers``: full-width or superscript digits and
        numbers of thousands of digits are refused, named in the message), a setting given twice,
        and everything :func:`tinygpt.limits.host_configs` refuses (d_model not divisible by
        n_heads, a text too long, …).
    """
    text, values = read_train(value, param)
    return (text, *host_configs(text, *split_settings(values)))


def read_train(value: str, param: str = "train") -> tuple[str, dict[str, object]]:
    """(text, every setting by field name) of a ``train=`` value, each value read as its field's
    type (:func:`tinygpt.config_fields.settings`) and a setting left out its link default; an
    optional setting given as 0 is None (``window``). The configs are not built: see
    :func:`decode_train`, which raises the same errors and more (every refused setting is named:
    one ConfigError, or a :class:`tinygpt.config.ConfigErrors` of several). ``param`` names the
    query parameter in the error of a value that is no link of this version.

    A setting given twice is refused (key ``link_repeated``), whichever value it has. When the link
    leaves n_heads or d_model out and the one it gives does not go with the other's default, the
    error names the given setting and the default it is checked against (keys
    ``indivisible_default`` and ``divisor_default``), not a value the link never wrote."""
    head, sep, text = value.partition(";text=")
    parts = head.split(";")
    if parts[0] != TRAIN_VERSION:
        raise ConfigError(
            param,
            shown_text(parts[0], 20),
            f"a link of version {TRAIN_VERSION}",
            "link_version",
            version=TRAIN_VERSION,
            param=param,
        )
    if not sep:
        raise ConfigError("text", "", "key=value settings ending with text=…", "link_text")
    known = {s.name: s for s in settings()}
    values = {name: s.link_default for name, s in known.items()}
    refused: list[ConfigError] = []  # every bad setting is named, not only the first
    given: dict[str, list[str]] = {}  # the raw values of each setting the link names
    for part in parts[1:]:
        name, eq, raw = part.partition("=")
        if name in known and eq:
            given.setdefault(name, []).append(raw.strip())
        if name not in known or not eq:
            refused.append(
                ConfigError(
                    shown_text(name or part),
                    shown_text(raw),
                    "one of " + ", ".join(known),
                    "link_field",
                    fields=", ".join(known),
                )
            )
            continue
        try:
            values[name] = _parse_value(known[name], raw.strip())
        except ConfigError as exc:
            refused.append(exc)
    for name, raws in given.items():
        if len(raws) > 1:  # which one the link means cannot be told: neither is taken
            refused.append(_repeated(name, raws))
    if not refused and (error := _default_mismatch(values, given)) is not None:
        refused.append(error)
    if not text:
        refused.append(ConfigError("text", "", "at least one character", "link_text"))
    if len(refused) == 1:
        raise refused[0]
    if refused:
        raise ConfigErrors(refused)
    return text, {name: None if known[name].optional and v == 0 else v for name, v in values.items()}


def _repeated(name: str, raws: list[str]) -> ConfigError:
    """The error of setting ``name`` given more than once (its values ``raws`` in the link's order)."""
    values = ", ".join(shown_text(r, 20) for r in raws)
    return ConfigError(
        name,
        values,
        f"each setting once: the link gives {name} {len(raws)} times",
        "link_repeated",
        name=name,
        n=len(raws),
    )


def _divisors(d_model: int) -> str:
    """Head counts that divide ``d_model`` (the last six up to 64), as text: examples for a message."""
    return ", ".join([str(h) for h in range(1, min(d_model, 64) + 1) if d_model % h == 0][-6:])


def _default_mismatch(values: dict[str, object], given: dict[str, list[str]]) -> ConfigError | None:
    """The error of a d_model and n_heads of which the link gives one, when the one given does not
    go with the other's default (None otherwise: the configs check the rest)."""
    d_model, n_heads = values["d_model"], values["n_heads"]
    if not (isinstance(d_model, int) and isinstance(n_heads, int)) or n_heads < 1 or d_model % n_heads == 0:
        return None
    if "d_model" in given and "n_heads" not in given:
        return ConfigError(
            "d_model",
            d_model,
            f"a multiple of n_heads={n_heads} (the default: the link sets no n_heads)",
            "indivisible_default",
            n_heads=n_heads,
            d_model=d_model,
            examples=_divisors(d_model),
        )
    if "n_heads" in given and "d_model" not in given:
        return ConfigError(
            "n_heads",
            n_heads,
            f"a divisor of d_model={d_model} (the default: the link sets no d_model)",
            "divisor_default",
            d_model=d_model,
            examples=_divisors(d_model),
        )
    return None


def _parse_value(setting: Setting, raw: str) -> object:
    name = setting.name
    if name == "lr":  # TrainConfig's wording: greater than 0 (1e-400 reads as 0.0), at most 1; the text as typed
        try:
            value = read_float(raw, name, *setting.range)
        except ConfigError:
            value = 0.0
        if value <= 0.0:
            raise ConfigError("lr", shown_text(raw), "a number greater than 0 and at most 1", "lr")
        return value
    if setting.kind is bool:
        if raw not in ("0", "1"):
            raise ConfigError(name, shown_text(raw), "1 (on) or 0 (off)", "bool01")
        return raw == "1"
    if setting.kind is int:
        return read_int(raw, name, *setting.range)
    if setting.kind is float:
        return read_float(raw, name, *setting.range)
    return read_choice(raw, name, {c: c for c in setting.choices}) if setting.choices else raw


def reproducible_settings(record: ModelRecord) -> tuple[str, GPTConfig, TrainConfig] | None:
    """Settings whose training gives exactly ``record``'s weights, or None when there are none.

    A finished run (all epochs or the early stop) is its own settings; a run stopped after k
    steps is the same settings with ``epochs=k`` (the steps before do not depend on the epoch
    count). None for a model whose weights did not come from ``train_cfg.seed``'s starting
    weights by training alone (``init_seed`` unset: a checkpoint file) and for a run that ended
    at a non-finite loss (its kept weights are a replay's, not the end of a run).
    """
    if record.init_seed is None or record.init_seed != record.train_cfg.seed or not record.losses:
        return None
    if record.stop_reason in (StopReason.EPOCHS, StopReason.EARLY_STOP):
        return record.text, record.gpt_cfg, record.train_cfg
    if record.stop_reason == StopReason.STOPPED:
        return record.text, record.gpt_cfg, replace(record.train_cfg, epochs=len(record.losses))
    return None


def encode_edits(edits: tuple[tuple[int, int, int, float], ...]) -> str:
    """The ``edits=`` value of score edits (head, i, j, value)."""
    return ",".join(f"{h}:{i}:{j}:{_value_text(float(v))}" for h, i, j, v in edits)


def decode_edits(value: str, n_heads: int, max_abs: float) -> tuple[tuple[int, int, int, float], ...]:
    """Score edits (head, i, j, value) of an ``edits=`` value (positions are checked where the text is known).

    Every number is read by ``tinygpt.numbers`` (ASCII digits, bounded length): ``0:²:0:1`` or a
    full-width head is refused like any other malformed entry.

    Raises:
        ConfigError naming the first entry refused: not ``head:i:j:value``, a head outside
        0..n_heads-1, a position outside 0..MAX_MAX_LEN-1 or a value that is not finite or beyond
        ±``max_abs``.
    """
    edits = []
    for part in filter(None, (p.strip() for p in value.split(","))):
        fields = part.split(":")
        try:
            if len(fields) != 4:
                raise ConfigError("edits", part, "head:i:j:value")
            edits.append(
                (
                    read_int(fields[0], "edits", 0, n_heads - 1),
                    read_int(fields[1], "edits", 0, MAX_MAX_LEN - 1),
                    read_int(fields[2], "edits", 0, MAX_MAX_LEN - 1),
                    read_float(fields[3], "edits", -max_abs, max_abs),
                )
            )
        except ConfigError:
            raise ConfigError(
                "edits",
                shown_text(part, 40),
                f"head:i:j:value with head 0..{n_heads - 1} and |value| ≤ {max_abs:g}",
                "edits",
                last=n_heads - 1,
                limit=f"{max_abs:g}",
            ) from None
    return tuple(edits)


def read_theory_params(
    concept: str | None, step: str | None, concept_ids: Sequence[str], step_ids: Sequence[str]
) -> tuple[str | None, str | None, list[ConfigError]]:
    """The Theory page's ``concept=`` (a section to open) and ``step=`` (the attention step the
    student came from), each read by ``tinygpt.numbers.read_choice`` (case and spaces ignored).

    Returns (concept id or None, step id or None, the errors of the values refused): a missing
    parameter is None without an error; a value that names no concept or step is None with a
    ConfigError (key ``choice``) naming it and listing the accepted ids. ``step=`` is read only
    beside an accepted ``concept=`` (it says which step's link led to the concept).
    """
    errors: list[ConfigError] = []
    cid = sid = None
    if concept is not None:
        try:
            cid = str(read_choice(concept, "concept", {c: c for c in concept_ids}))
        except ConfigError as exc:
            errors.append(exc)
    if cid is not None and step is not None:
        try:
            sid = str(read_choice(step, "step", {s: s for s in step_ids}))
        except ConfigError as exc:
            errors.append(exc)
    return cid, sid, errors
