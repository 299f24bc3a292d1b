"""What the pages' query parameters mean: pure reading and writing of each value a URL carries.

The pages' tables (``tinygpt.ui.frame.url.Param`` rows in ``tinygpt.ui.attention.state`` and
``tinygpt.ui.predict.predict_view``) connect these to widget keys. Every reader takes the raw text of the
URL and returns the value, or raises :class:`~tinygpt.config.ConfigError` naming the value and
what is accepted (numbers through :mod:`tinygpt.numbers`); every writer returns the text that
reads back to the same value. This module imports neither torch nor Streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tinygpt.config import ConfigError
from tinygpt.formatting import shown_text
from tinygpt.numbers import read_choice, read_float, read_int, read_int_list

#: The longest text a link may carry (the pages crop to the model's max_len anyway).
MAX_TEXT_CHARS = 1024

_YES = {"1": True, "true": True, "on": True, "yes": True, "0": False, "false": False, "off": False, "no": False}


def read_text(raw: str) -> str:
    """A text from a link, at most :data:`MAX_TEXT_CHARS` characters (the rest is dropped)."""
    return raw[:MAX_TEXT_CHARS]


def read_flag(raw: str, name: str) -> bool:
    """1/0 (also true/false, on/off, yes/no). Raises ConfigError (key ``choice``)."""
    return bool(read_choice(raw, name, _YES))


def write_flag(value: bool) -> str:
    """The text of a flag: "1" or "0"."""
    return "1" if value else "0"


def read_index(raw: str, name: str, count: int) -> int:
    """A layer or head number from 0 to count − 1 (ASCII digits; ``name`` is ``layer`` or ``head``).

    Raises ConfigError (key ``index_<name>``) saying the range in the link's numbering (from 0)
    and in the page's (from 1): ``layer=1`` is the page's layer 2."""
    try:
        return read_int(raw, name, 0, count - 1)
    except ConfigError as exc:
        raise ConfigError(
            name,
            exc.value,
            f"an integer from 0 to {count - 1} ({name} 1 to {count} on the page)",
            f"index_{name}",
            hi=count - 1,
            last=count,
        ) from None


def read_step(raw: str, ids: Sequence[str], first_numbered: int) -> str:
    """A step of the Attention page: one of ``ids`` by name, or its number counted from
    ``first_numbered`` (the steps 1–9 after the input X, which has no number).
    Raises ConfigError (key ``step``) listing the names and the numbers."""
    word = raw.strip().lower()
    if word in ids:
        return word
    numbered = ids[first_numbered:]
    if word.isascii() and word.isdigit() and len(word) <= 2 and 1 <= int(word) <= len(numbered):
        return numbered[int(word) - 1]
    options = ", ".join(ids)
    raise ConfigError(
        "step",
        shown_text(raw),
        f"one of: {options}, or a step number from 1 to {len(numbered)}",
        "step",
        options=options,
        last=len(numbered),
    )


def read_scale(raw: str, lo: float, hi: float) -> tuple[str, float | None]:
    """Step 4's divisor: "sqrt" (√d_head, the paper), "1" (no scaling) or a number in [lo, hi].

    Returns (scaling, divisor): ("sqrt", None), ("one", None) or ("custom", number).
    Raises ConfigError (key ``scale``).
    """
    word = raw.strip().lower()
    if word in ("sqrt", "√", "sqrt(d_head)"):
        return "sqrt", None
    try:
        number = read_float(word, "scale", lo, hi)
    except ConfigError:
        raise ConfigError(
            "scale", shown_text(raw), f"sqrt, 1 or a number from {lo:g} to {hi:g}", "scale", lo=f"{lo:g}", hi=f"{hi:g}"
        ) from None
    return ("one", None) if number == 1.0 else ("custom", number)


def write_scale(scaling: str, divisor: float) -> str:
    """The text of step 4's divisor (inverse of :func:`read_scale`)."""
    return {"sqrt": "sqrt", "one": "1"}.get(scaling, f"{divisor:g}")


def read_choice_of(raw: str, stops: Sequence[float], name: str) -> tuple[float, bool]:
    """The stop of a log-spaced slider nearest to the number ``raw`` (in log scale), and whether
    it moved by more than 1 % (a number between two stops). Raises ConfigError for a number
    outside [stops[0], stops[-1]] or not a number."""
    number = read_float(raw, name, stops[0], stops[-1])
    nearest = min(stops, key=lambda s: abs(math.log(s) - math.log(number)))
    return nearest, abs(nearest - number) > 0.01 * number


def read_heads(raw: str, n_heads: int) -> list[int]:
    """Heads switched off: "0,2" (sorted, without repeats; "" or "none" is no head). Raises
    ConfigError (key ``heads_list``) saying the heads in the link's numbering and the page's."""
    try:
        return read_int_list(raw, "off", 0, n_heads - 1, n_heads)
    except ConfigError as exc:
        raise ConfigError(
            "off",
            exc.value,
            f"head numbers from 0 to {n_heads - 1} separated by commas (heads 1 to {n_heads} on the page)",
            "heads_list",
            hi=n_heads - 1,
            last=n_heads,
        ) from None


def write_heads(heads: Sequence[int]) -> str | None:
    """The text of a set of heads ("0,2"), or None for none."""
    return ",".join(str(h) for h in sorted(heads)) or None


#: Uniform attention: the words a link may use for none, the chosen head, every head of the layer.
UNIFORM_WORDS = {
    "none": "none",
    "0": "none",
    "off": "none",
    "head": "head",
    "1": "head",
    "layer": "layer",
    "all": "layer",
}


def read_uniform(raw: str) -> str:
    """Uniform attention in a link: none, head or layer. Raises ConfigError (key ``choice``)."""
    return str(read_choice(raw, "uniform", UNIFORM_WORDS))
