"""The Train page's settings in the form's own words, in the session's language (run labels, "this run")."""

from __future__ import annotations

from tinygpt.ui.frame.language import tr

#: Longest value a label shows in full (a long training text is cut with …).
LABEL_VALUE_CHARS = 8
#: Settings the form labels by the field's own name in every language ("d_model（隐藏维度）").
NAMED_BY_FIELD = ("d_model", "n_heads", "n_layers", "d_ff", "max_len")


def setting_value(key: str, value: object) -> str:
    """A setting's value as the form shows it: on/off, Pre-LN, learned, 1e-04, a short text."""
    if isinstance(value, bool):
        return tr("train.setting.on" if value else "train.setting.off")
    if key in ("norm", "positions"):
        return tr(f"train.setting.{key}.{value}")
    if isinstance(value, float):
        return f"{value:g}"
    text = str(value)
    return text if len(text) <= LABEL_VALUE_CHARS else text[: LABEL_VALUE_CHARS - 1] + "…"


def setting_text(key: str, value: object) -> str:
    """One setting as a label names it, e.g. "causal mask off" / "因果掩码 关" / "d_model 64"."""
    if key in NAMED_BY_FIELD:
        return f"{key} {setting_value(key, value)}"
    return tr(f"train.setting.{key}", value=setting_value(key, value))
