"""Small shared helpers for the tests (not fixtures): a quick model config and the seed model."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Coroutine
from html.parser import HTMLParser
from typing import Any, TypeVar

import pandas as pd
import pyarrow as pa

from tinygpt.config import DEFAULT_GPT, DEFAULT_TRAIN, SEED_TEXT, GPTConfig, TrainConfig
from tinygpt.examples import EXAMPLES
from tinygpt.training.jobs import ModelShelf, model_key
from tinygpt.training.record import ModelRecord
from tinygpt.training.train import train
from tinygpt.ui.frame.tables import TABLE_CLASS
from tinygpt.ui.shared.models import K_OWN
from tinygpt.ui.views.attention_table import K_TABLE

#: The Train page's whole-number settings, text boxes whose session values are the typed text.
TEXT_NUMBER_KEYS = ("train_max_len", "train_window", "train_epochs", "train_seed")

T = TypeVar("T")


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end and return its result, in a thread of its own: Playwright's sync
    API (the browser tests of the same pytest session) keeps an event loop running in the main
    thread, where ``asyncio.run`` cannot start another."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


SMALL = GPTConfig(vocab_size=4, max_len=16, d_model=32, n_heads=4, n_layers=2, d_ff=64)


@functools.cache
def seed_model() -> ModelRecord:
    """The seed configuration trained on 你好世界 with the default early stop (about 3 s, once)."""
    return train(SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN)


@functools.cache
def served_example(name: str) -> ModelRecord:
    """The model the app serves for ``EXAMPLES[name]``: the shipped checkpoint where one ships
    (``tinygpt.training.model_library``; the same weights on every machine), else trained here."""
    ex = EXAMPLES[name]
    key = model_key(ex.text, ex.gpt, ex.train)
    return ModelShelf().get(key) or train(ex.text, ex.gpt, ex.train)


@functools.cache
def small_model(text: str = SEED_TEXT, epochs: int = 300, lr: float = 3e-3) -> ModelRecord:
    """A small model trained quickly on ``text``."""
    return train(text, SMALL, TrainConfig(lr=lr, epochs=epochs, early_stop_loss=1e-4))


def open_page(page: str, lang: str = "en", own_model: ModelRecord | None = None, **params: str):
    """An AppTest session on ``pages/<page>.py`` with ?lang= and then ``params`` in the URL (as a
    link opens it); ``own_model`` is the session's own model. The Predict and Attention pages
    show the textbook model unless ``model=`` or ``own_model`` says otherwise (they open on the
    context example)."""
    if page in ("predict", "attention"):
        params.setdefault("model", "own" if own_model is not None else "textbook")
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file("../streamlit_app.py", default_timeout=300)
    at.query_params["lang"] = lang
    if own_model is not None:
        at.session_state[K_OWN] = own_model
    at.run()
    at.query_params.update(params)
    if page == "attention":  # the step's table is one click away on the page: open here, as tests read it
        at.session_state[K_TABLE] = True
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_link(page: str | None, lang: str = "en", **params: str):
    """An AppTest session that opens ``/<page>?lang=…&params`` as a link does: the URL is there from
    the first run (a lesson's or a class's parameters act on the app's entry), then the page (the
    root URL when ``page`` is None)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update({"lang": lang, **params})
    at.run()
    if page is not None:
        at.switch_page(f"pages/{page}.py")
        at.query_params.update({"lang": lang, **params})
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


class StaticTable:
    """A static table of the page (``tinygpt.ui.frame.tables.table_html``) read back from its HTML.

    ``text``: the cells as the student reads them. ``value``: the same with each number's full
    value (its tooltip) where it has one, and a column whose every cell is a number as numbers.
    ``highlighted``: the rows drawn highlighted. Row labels, when the table has them, are the index.
    """

    type = "static_table"

    def __init__(self, body: str) -> None:
        parser = _TableParser()
        parser.feed(body)
        header, rows = parser.header, parser.rows
        labelled = bool(rows) and rows[0][0][0] == "th"
        columns = header[1:] if labelled else header
        index = [row[0][1] for row in rows] if labelled else None
        cells = [row[1:] if labelled else row for row in rows]
        self.text = pd.DataFrame([[c[1] for c in row] for row in cells], columns=columns, index=index)
        values = pd.DataFrame(
            [[float(c[2].replace("−∞", "-inf")) if c[2] is not None else c[1] for c in row] for row in cells],
            columns=columns,
            index=index,
            dtype=object,
        )
        for name in values.columns:
            values[name] = _numeric_or_text(values[name])
        self.value = values
        self.highlighted = parser.highlighted
        self.body = body


def _numeric_or_text(column: pd.Series) -> pd.Series:
    """``column`` as numbers when every cell is one (ints stay ints), else as it is."""

    def number(v: object) -> float | int:
        if not isinstance(v, str):
            return v
        text = v.replace("−∞", "-inf")
        return int(text) if text.lstrip("+-").isdigit() else float(text)

    try:
        return pd.Series([number(v) for v in column], index=column.index, name=column.name)
    except ValueError:
        return column


class _TableParser(HTMLParser):
    """Header texts, and per row the cells as (tag, text, title or None), from ``table_html``."""

    def __init__(self) -> None:
        super().__init__()
        self.header: list[str] = []
        self.rows: list[list[tuple[str, str, str | None]]] = []
        self.highlighted: list[int] = []
        self._section = ""
        self._cell: list | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attrs = dict(attrs)
        if tag in ("thead", "tbody"):
            self._section = tag
        elif tag == "tr" and self._section == "tbody":
            if "hl" in (attrs.get("class") or "").split():
                self.highlighted.append(len(self.rows))
            self.rows.append([])
        elif tag in ("th", "td"):
            self._cell = [tag, "", attrs.get("title")]

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self._cell is not None:
            if self._section == "thead":
                self.header.append(self._cell[1])
            else:
                self.rows[-1].append(tuple(self._cell))
            self._cell = None


def tables(at) -> list:
    """Every table of the page's main area in page order: static ones (HTML tables, read back as
    :class:`StaticTable`) and grids (``st.dataframe``) alike, as ``tinygpt.ui.frame.tables.show_table``
    picks one kind or the other by size; not the score editor (``st.data_editor``, read through
    ``at.data_editor``). Each has ``.value``, the DataFrame of its values."""
    found = []
    for node in at.main:
        kind = getattr(node, "type", None)
        if kind == "dataframe" and node.proto.editing_mode:  # an st.data_editor
            continue
        if kind in ("dataframe", "table"):
            found.append(node)
        elif kind == "html" and f'class="{TABLE_CLASS}"' in node.value:
            found.append(StaticTable(node.value))
    return found


def inline_data(spec: object, datasets: dict | None = None) -> object:
    """A Vega-Lite dict with every named dataset written into the ``data`` that names it, as rows of
    plain values, and no ``datasets``: two specs that draw the same picture from differently named
    (or Arrow vs. JSON) datasets compare equal."""
    if datasets is None and isinstance(spec, dict):
        datasets = spec.get("datasets", {})
    if isinstance(spec, dict):
        out = {}
        for key, value in spec.items():
            if key == "datasets":
                continue
            if key == "data" and isinstance(value, dict) and value.get("name") in datasets:
                rows = datasets[value["name"]]
                if isinstance(rows, pa.Table):
                    rows = rows.to_pylist()
                elif isinstance(rows, pd.DataFrame):
                    rows = rows.to_dict("records")
                value = {
                    "values": [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()} for row in rows]
                }
            out[key] = inline_data(value, datasets)
        return out
    if isinstance(spec, list):
        return [inline_data(item, datasets) for item in spec]
    return spec
