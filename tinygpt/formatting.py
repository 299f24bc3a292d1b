"""How numbers and characters are written on the pages (Streamlit-free and torch-free, so tables,
charts and messages share it)."""

from __future__ import annotations

import math
import unicodedata

#: Probabilities below this are written in scientific notation: with four decimals they would read 0.0000.
SCIENTIFIC_BELOW = 1e-3


def format_probability(p: float) -> str:
    """``p`` with four decimals, or as ``1.23e-05`` when 0 < p < 1e-3 (so a small chance never reads as 0).

    Exactly 0 is written ``0``; NaN and infinities as Python writes them.
    """
    p = float(p)
    if not math.isfinite(p):
        return str(p)
    if p == 0:
        return "0"
    if abs(p) < SCIENTIFIC_BELOW:
        return f"{p:.2e}"
    return f"{p:.4f}"


def format_change(d: float) -> str:
    """A change of probability ``d`` with its sign: ``+0.1234``, or ``-1.86e-06`` when
    0 < |d| < 1e-3 (so a small but real change never reads as ±0.0000). Exactly 0 is ``0``."""
    d = float(d)
    if not math.isfinite(d) or d == 0:
        return format_probability(d)
    return f"{d:+.2e}" if abs(d) < SCIENTIFIC_BELOW else f"{d:+.4f}"


#: Unicode categories of characters a reader cannot see or that change how the text around them
#: is drawn: format characters (zero-width joiners, bidirectional controls), controls, separators
#: other than the plain space, private-use, surrogate and unassigned code points, and combining
#: marks (drawn on the character before them).
_NAMED_CATEGORIES = frozenset({"Cf", "Cc", "Co", "Cn", "Cs", "Zs", "Zl", "Zp", "Mn", "Mc", "Me"})


def char_name(c: str) -> str:
    """One character as a reader can see it in a message, the same on every page.

    A visible character is itself; a space is "␣ (U+0020)"; a combining mark is drawn on a dotted
    circle with its code point ("◌́ (U+0301)"); every other invisible, control or bidirectional
    character is its code point alone ("U+200C", "U+202E"), so it can neither vanish nor reverse
    the rest of the message.
    """
    category = unicodedata.category(c)
    if c == " ":
        return "␣ (U+0020)"
    if category in ("Mn", "Mc", "Me"):
        return f"◌{c} (U+{ord(c):04X})"
    if category in _NAMED_CATEGORIES:
        return f"U+{ord(c):04X}"
    return c


def char_mark(c: str) -> str:
    """One character in a label that already gives its position ("3 ␣"): a space as ␣, any other
    invisible, combining or bidirectional character as :func:`char_name` names it."""
    return "␣" if c == " " else char_name(c)


def shown_text(text: str, limit: int = 30) -> str:
    """``text`` for a message: at most ``limit`` characters (then "…"), every invisible, control,
    combining or bidirectional character but the plain space written ⟨U+XXXX⟩ (:func:`char_name`)."""
    shown = "".join(c if c == " " or char_name(c) == c else f"⟨U+{ord(c):04X}⟩" for c in text[:limit])
    return shown + "…" if len(text) > limit else shown


def number(index: int) -> int:
    """The number a person reads for a layer or head of index ``index``: people count from 1
    ("head 1" is index 0); code, tensors and links keep the index."""
    return index + 1
