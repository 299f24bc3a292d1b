"""Tensor to NumPy, in one place: what the tables, charts and the terminal print receive.

Every caller that shows a tensor's numbers goes through :func:`to_numpy`, so a tensor that needs
gradients, lives on another device or is a plain nested list is handled the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

ArrayLike = torch.Tensor | np.ndarray | Sequence


def to_numpy(values: ArrayLike, floats: bool = False) -> np.ndarray:
    """``values`` as a NumPy array (detached, on the CPU).

    With ``floats``, numbers to draw: a tensor becomes float32 (the model's precision, half the
    bytes sent to the browser), anything else float64.
    """
    if isinstance(values, torch.Tensor):
        t = values.detach().cpu()
        return (t.float() if floats else t).numpy()
    return np.asarray(values, dtype=float) if floats else np.asarray(values)
