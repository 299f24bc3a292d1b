"""One strict reader for every number that comes from outside: a URL, a link's ``train=`` or
``edits=``, a form's text box, a checkpoint's metadata.

Python's own readers accept more than a person means: ``int("²")`` fails although ``"²".isdigit()``
is True, ``int("３")`` reads a full-width digit, ``int()`` refuses more than 4,300 digits, and
``float("nan")``, ``float("1_0")`` or ``float(" 1e400 ")`` are accepted. Here a whole number is
ASCII digits with an optional sign, a decimal number is ASCII digits with an optional point and
exponent, both of bounded length, and everything else is refused with a
:class:`~tinygpt.config.ConfigError` that names the value (shortened, with invisible characters
named) and what is accepted. The app turns that error into a message in the user's language
(``tinygpt.ui.frame.language.error_text``). This module imports neither torch nor Streamlit.
"""

from __future__ import annotations

import math
import re

from tinygpt.config import ConfigError
from tinygpt.formatting import shown_text

#: The longest whole number read, in characters (sign included): far beyond every limit of the
#: app, far below Python's 4,300-digit cap.
MAX_INT_CHARS = 20
#: The longest decimal number read, in characters ("-1.2345678901234567e-308" is 24).
MAX_FLOAT_CHARS = 32

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _refuse(name: str, raw: str, accepted: str, key: str, **params: object) -> ConfigError:
    return ConfigError(name, shown_text(raw), accepted, key, **params)


def read_int(raw: str, name: str, lo: int, hi: int) -> int:
    """The whole number ``raw`` spells, checked against [lo, hi].

    Args:
        raw: text from outside; spaces around it are ignored.
        name: the setting or parameter it is for (named in the error).
        lo, hi: the accepted range, inclusive.
    Returns:
        the integer.
    Raises:
        ConfigError (key ``int_range``) when ``raw`` is not ASCII digits with an optional sign, is
        longer than :data:`MAX_INT_CHARS`, or lies outside [lo, hi].
    """
    text = raw.strip()
    if len(text) > MAX_INT_CHARS or not _INT.fullmatch(text) or not lo <= int(text) <= hi:
        raise _refuse(name, raw, f"an integer from {lo} to {hi}", "int_range", lo=lo, hi=hi)
    return int(text)


def parse_int(typed: str) -> int | str:
    """The integer a student typed (ASCII digits, an optional sign, spaces around), else the text
    as a message shows it.

    Read by :func:`read_int`: "1e30", "1.5", "abc", a full-width "１０", a superscript "²" or more
    than :data:`MAX_INT_CHARS` characters come back as text (shortened, invisible characters named:
    ``tinygpt.formatting.shown_text``), which the configuration checks refuse as not an integer,
    naming that text. Nothing is rounded or replaced.
    """
    bound = 10**MAX_INT_CHARS
    try:
        return read_int(typed, "", -bound, bound)
    except ConfigError:
        return shown_text(typed.strip())


def read_float(raw: str, name: str, lo: float, hi: float) -> float:
    """The finite decimal number ``raw`` spells, checked against [lo, hi].

    Accepts ASCII digits with an optional sign, point and exponent ("0.5", "-2", "1e-3", ".5").
    Raises ConfigError (key ``float_range``) for anything else (``nan``, ``inf``, full-width or
    superscript digits, underscores, more than :data:`MAX_FLOAT_CHARS` characters) and for a
    number outside [lo, hi].
    """
    text = raw.strip()
    if len(text) > MAX_FLOAT_CHARS or not _FLOAT.fullmatch(text):
        raise _refuse(name, raw, f"a number from {lo:g} to {hi:g}", "float_range", lo=f"{lo:g}", hi=f"{hi:g}")
    value = float(text)
    if not (math.isfinite(value) and lo <= value <= hi):
        raise _refuse(name, raw, f"a number from {lo:g} to {hi:g}", "float_range", lo=f"{lo:g}", hi=f"{hi:g}")
    return value


def read_choice(raw: str, name: str, choices: dict[str, object]) -> object:
    """The value of the word ``raw`` names among ``choices`` (word -> value; case and spaces
    around it ignored). Raises ConfigError (key ``choice``) listing the accepted words."""
    word = raw.strip().lower()
    if len(word) <= 40 and word in choices:
        return choices[word]
    words = ", ".join(dict.fromkeys(choices))
    raise _refuse(name, raw, f"one of: {words}", "choice", options=words)


def read_int_list(raw: str, name: str, lo: int, hi: int, max_items: int) -> list[int]:
    """Whole numbers separated by commas ("0,2"; "" and "none" are the empty list), each in
    [lo, hi], sorted and without repeats. Raises ConfigError (key ``int_list``) naming the list."""
    text = raw.strip().lower()
    if text in ("", "none"):
        return []
    parts = [p.strip() for p in text.split(",")]
    if len(parts) > max_items or not all(
        len(p) <= MAX_INT_CHARS and _INT.fullmatch(p) and lo <= int(p) <= hi for p in parts
    ):
        raise _refuse(name, raw, f"integers from {lo} to {hi} separated by commas", "int_list", lo=lo, hi=hi)
    return sorted({int(p) for p in parts})
