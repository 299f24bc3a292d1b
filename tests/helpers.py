"""Small shared helpers for the tests (not fixtures): a quick model config and the seed model."""

from __future__ import annotations

import functools
import re

import numpy as np

from tinygpt.config import DEFAULT_GPT, DEFAULT_TRAIN, SEED_TEXT, GPTConfig, TrainConfig
from tinygpt.record import ModelRecord
from tinygpt.train import train

#: The Train page's whole-number settings, text boxes whose session values are the typed text.
TEXT_NUMBER_KEYS = ("train_max_len", "train_window", "train_epochs", "train_seed")

SMALL = GPTConfig(vocab_size=4, max_len=16, d_model=32, n_heads=4, n_layers=2, d_ff=64)


@functools.cache
def seed_model() -> ModelRecord:
    """The seed configuration trained on 你好世界 with the default early stop (about 3 s, once)."""
    return train(SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN)


@functools.cache
def small_model(text: str = SEED_TEXT, epochs: int = 300, lr: float = 3e-3) -> ModelRecord:
    """A small model trained quickly on ``text``."""
    return train(text, SMALL, TrainConfig(lr=lr, epochs=epochs, early_stop_loss=1e-4))


def open_page(page: str, lang: str = "en", own_model: ModelRecord | None = None, **params: str):
    """An AppTest session on ``pages/<page>.py`` with ?lang= and then ``params`` in the URL (as a
    link opens it); ``own_model`` is the session's own model."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file("../streamlit_app.py", default_timeout=300)
    at.query_params["lang"] = lang
    if own_model is not None:
        at.session_state["own_model"] = own_model
    at.run()
    at.query_params.update(params)
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def tables(at) -> list:
    """Every table of the page's main area in page order: static ones (``st.table``) and grids
    (``st.dataframe``, ``st.data_editor``) alike, as ``tinygpt.ui.tables.show_table`` picks one
    kind or the other by size. Each has ``.value``, the DataFrame of its values."""
    return [node for node in at.main if getattr(node, "type", None) in ("dataframe", "table")]


def plain(cell: object) -> str:
    """A static table's cell as the student reads it: a highlighted cell's Markdown colour
    directive (``:orange-background[…]``) and Markdown escapes removed."""
    text = str(cell)
    match = re.fullmatch(r":[a-z-]+\[(.*)\]", text)
    if match:
        text = match.group(1)
    return re.sub(r"\\(.)", r"\1", text)


def numbers(column) -> np.ndarray:
    """A table column of numbers written as text (``0.1546``, ``7.97e-06``, ``+0.0123``) as floats."""
    return np.array([float(plain(c)) for c in column], dtype=np.float64)
