"""The Train form's settings checked so that every refused value gets its own message.

The configs (``tinygpt.config``) and the host's limits (``tinygpt.limits.host_configs``) stop at
the first value they refuse. A student who typed several wrong values would then fix one, press
again and meet the next. :func:`check_form` checks again after each refusal with the refused
value set aside (replaced by a value every other setting accepts), so each refused value is named
once, with what is accepted; the limits of the settings taken together (parameters, tokens and
work of one step) are said once the values they are computed from are accepted.
This module does not import Streamlit (the page shows the errors: ``tinygpt.ui.frame.language.error_text``).
"""

from __future__ import annotations

from collections.abc import Mapping

from tinygpt.config import MAX_MAX_LEN, ConfigError, GPTConfig, TrainConfig
from tinygpt.limits import host_configs
from tinygpt.ui.views.train_table import (
    T_CAUSAL_MASK,
    T_D_FF,
    T_D_MODEL,
    T_EARLY_STOP,
    T_EPOCHS,
    T_LR,
    T_MAX_LEN,
    T_N_HEADS,
    T_N_LAYERS,
    T_NORM,
    T_POSITIONS,
    T_SEED,
    T_WINDOW,
)

#: The form's settings (the configs' field names) of each config.
GPT_FIELDS = ("d_model", "n_heads", "n_layers", "d_ff", "max_len", "norm", "positions")
TRAIN_FIELDS = ("window", "lr", "epochs", "seed", "early_stop_loss", "causal_mask")
#: The form's widget keys (``tinygpt.ui.views.train_table``) → the settings they hold.
FORM_FIELDS = {
    T_D_MODEL: "d_model",
    T_N_HEADS: "n_heads",
    T_N_LAYERS: "n_layers",
    T_D_FF: "d_ff",
    T_MAX_LEN: "max_len",
    T_NORM: "norm",
    T_POSITIONS: "positions",
    T_WINDOW: "window",
    T_LR: "lr",
    T_EPOCHS: "epochs",
    T_SEED: "seed",
    T_EARLY_STOP: "early_stop_loss",
    T_CAUSAL_MASK: "causal_mask",
}
#: What a refused value is replaced by while the others are checked: values every other setting
#: accepts (n_heads 1 divides any d_model; max_len at its largest never shortens the window's range;
#: a small model never reaches the host's limits because of the value set aside).
_SET_ASIDE: dict[str, object] = {
    "max_len": MAX_MAX_LEN,
    "d_model": 64,
    "n_heads": 1,
    "n_layers": 1,
    "d_ff": 32,
    "norm": "pre",
    "positions": "learned",
    "lr": 1e-4,
    "epochs": 1,
    "seed": 0,
    "early_stop_loss": 0.0,
    "causal_mask": True,
    "window": None,
}
#: A text the checks of the other values use while the student's text is refused.
_SET_ASIDE_TEXT = "你好"


def window_error(window: object, max_len: object) -> ConfigError | None:
    """The refusal of the typed training window (0 is the whole text), or None when accepted.

    ``window`` and ``max_len`` are the boxes' values (an int, or the text that is not a whole
    number); the window may be at most ``max_len`` when that is accepted, else at most
    :data:`~tinygpt.config.MAX_MAX_LEN` (a refused max_len is named by its own message).
    """
    longest = max_len if isinstance(max_len, int) and 1 <= max_len <= MAX_MAX_LEN else MAX_MAX_LEN
    if isinstance(window, int) and not isinstance(window, bool) and 0 <= window <= longest:
        return None
    return ConfigError("window", window, f"0 (the whole text) or 1..{longest}", "window_or_whole", hi=longest)


def check_form(
    text: str, values: Mapping[str, object]
) -> tuple[tuple[GPTConfig, TrainConfig] | None, list[ValueError]]:
    """(the configs, or None when anything is refused; every refusal, in the form's order).

    Args:
        text: the training text.
        values: every name of :data:`GPT_FIELDS` and :data:`TRAIN_FIELDS` → the form's value
            (whole-number boxes as an int, or their text when it is not a whole number; ``window``
            0 for the whole text).
    Returns:
        the configs when every value is accepted; else None and one error per refused value: a
        ConfigError (field, value as typed, what is accepted), or a plain ValueError for an empty
        text. A limit of the settings together (e.g. the parameter count) is one error, said when
        the values it is computed from are accepted.
    """
    gpt = {name: values[name] for name in GPT_FIELDS}
    training = {name: values[name] for name in TRAIN_FIELDS}
    errors: list[ValueError] = []
    if (refused := window_error(training["window"], gpt["max_len"])) is not None:
        errors.append(refused)
        training["window"] = _SET_ASIDE["window"]
    else:
        training["window"] = training["window"] or None  # 0: the whole text
    if not text:
        errors.append(ValueError("empty text"))
        text = _SET_ASIDE_TEXT
    named = {e.field for e in errors if isinstance(e, ConfigError)}
    # the training's values first, beside a small model (a model too large for the host is one
    # message that would stop the check before them), then the model's and the text with them
    _refusals(_SET_ASIDE_TEXT, {name: _SET_ASIDE[name] for name in GPT_FIELDS}, training, errors, named)
    configs = _refusals(text, gpt, training, errors, named)
    return (configs, []) if not errors else (None, _in_form_order(errors))


def _refusals(
    text: str, gpt: dict[str, object], training: dict[str, object], errors: list[ValueError], named: set[str]
) -> tuple[GPTConfig, TrainConfig] | None:
    """The configs of ``text``, ``gpt`` and ``training``; each value refused on the way is added to
    ``errors`` and ``named`` and set aside in ``gpt``, ``training`` (or the text replaced) before the
    next try. None when a limit of the settings together, or a value named before, stops it."""
    for _ in range(len(_SET_ASIDE) + 2):  # each turn sets one value aside
        try:
            return host_configs(text, gpt, training)
        except ConfigError as exc:
            if exc.field in named:  # cannot be set aside further: said once
                return None
            errors.append(exc)
            named.add(exc.field)
            if exc.field in ("text", "len(text)"):
                text = _SET_ASIDE_TEXT
            elif exc.field in gpt:
                gpt[exc.field] = _SET_ASIDE[exc.field]
                if exc.field == "d_model":  # n_heads is judged against an accepted d_model only
                    gpt["n_heads"] = _SET_ASIDE["n_heads"]
            elif exc.field in training:
                training[exc.field] = _SET_ASIDE[exc.field]
            else:  # a limit of the settings together: nothing single to set aside
                return None
    return None


def _in_form_order(errors: list[ValueError]) -> list[ValueError]:
    """``errors`` in the order the form shows its settings (the model's, the text, the training's);
    the limits of the settings together last."""
    order = (*GPT_FIELDS, "text", "len(text)", *TRAIN_FIELDS)

    def rank(e: ValueError) -> int:
        field = e.field if isinstance(e, ConfigError) else "text"
        return order.index(field) if field in order else len(order)

    return sorted(errors, key=rank)
