"""How numbers are written on the pages (Streamlit-free, so tables, charts and messages share it)."""

from __future__ import annotations

import math

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
