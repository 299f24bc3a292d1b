"""The Attention page's state: its defaults, its URL, and what a change of model or text does to them.

Every widget of the page has a key in the page's table (``tinygpt.ui.views.attention_table``: key,
default, lesson label, URL row; read here as ``state.K_*``) and ``persist_state="session"``:
Streamlit keeps its value while it is not drawn (a closed expander, another page). Defaults are put
in the session before the widgets (:func:`defaults`), never passed as a widget's ``value=``.
Callbacks change the session only.

When the page shows another model (:func:`follow_model`) the switches return to that model's own
attention (the causal mask as it trained) and the text stays only if the new model can read it.
Pickers that index into the text are reset when the text changes and clamped to the model on every
run (:func:`clamp`), so a question is never asked about a row the text does not have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from typing import Any

import streamlit as st

from tinygpt.attention import STEP_IDS, Switches
from tinygpt.config import ConfigError, GPTConfig
from tinygpt.formatting import char_name, number, shown_text
from tinygpt.params import (
    read_step,
)
from tinygpt.training.links import decode_edits, encode_edits
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention.session import attention_session
from tinygpt.ui.frame import url
from tinygpt.ui.frame.controls import default_of, put_defaults, url_rows
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.shared import attention_data as data
from tinygpt.ui.views.attention_table import (  # noqa: F401  (the page's table; its modules read the keys as state.K_*)
    ATTENTION,
    K_ALL_COLUMNS,
    K_CELL_I,
    K_CELL_J,
    K_CHECK,
    K_CURIOUS,
    K_DETAILS,
    K_DIVISOR,
    K_EDIT_I,
    K_EDIT_J,
    K_EDIT_VALUE,
    K_EDITING,
    K_EDITS,
    K_GUESS,
    K_HEAD,
    K_HEADS,
    K_HEADS_GRID,
    K_HEADS_OFF,
    K_LAYER,
    K_LAYERS_GRID,
    K_LENS,
    K_MARKS,
    K_MASK,
    K_MORE,
    K_OUTPUT,
    K_RESET,
    K_SCALING,
    K_SCOPE,
    K_SNAPSHOT,
    K_SOURCE,
    K_STEP,
    K_TABLE,
    K_TAU,
    K_TEXT,
    K_TRAINING,
    K_UNIFORM,
    K_UNIFORM_SCOPE,
    MAX_DIVISOR,
    MIN_DIVISOR,
    RESET,
    SCALINGS,
    SCOPES,
    TEMPERATURES,
    UNIFORM_SCOPES,
)
from tinygpt.ui.views.lesson import lesson

PAGE = "attention"

#: Largest |score| the editor accepts (raw scores of the seed model are within about ±20).
MAX_EDIT = 10_000.0
#: A typed score this close to the model's own (half the last of the 4 decimals shown) is no edit.
EDIT_SAME = 5e-5
#: The step navigation's choices: the input X (what step 1 reads, not a step itself), then the steps.
INPUT = "input"
NAV_IDS: tuple[str, ...] = (INPUT, *STEP_IDS)

#: ``part=`` of older links: the part of the page they opened, now the expander it names.
PART_EXPANDERS: dict[str, str | None] = {
    "steps": None,
    "prediction": K_DETAILS,
    "model": K_HEADS,
    "training": K_TRAINING,
}

#: A lesson showing one of these controls opens its section: {control: the section's expander}.
LESSON_SECTIONS: dict[str, str] = {
    K_SNAPSHOT: K_TRAINING, K_HEADS: K_HEADS, K_LENS: K_LENS, K_HEADS_GRID: K_HEADS_GRID,
    K_LAYERS_GRID: K_LAYERS_GRID, K_DETAILS: K_DETAILS,
}  # fmt: skip


def own_switches(record: ModelRecord) -> Switches:
    """The model's own attention: the causal mask as it was trained, nothing else changed."""
    return Switches(causal_mask=record.train_cfg.causal_mask)


def readable(record: ModelRecord, text: str) -> bool:
    """True when ``record`` knows every character of ``text``."""
    return not record.vocab.unknown(text)


def own_text(record: ModelRecord) -> str:
    """The text the page opens on for ``record``: its first training window (what its snapshots show)."""
    return record.text[: record.window][: record.gpt_cfg.max_len]


def opening_head(record: ModelRecord) -> int:
    """The head the page opens on in layer 0: the one that looks at the previous character in the
    model's own text (the head the page's sentence about it names), so the steps show it first."""
    return data.steps_head(record, own_text(record), 0)[0]


def defaults(record: ModelRecord) -> None:
    """Give every widget of the page its default once (the session keeps what the student set)."""
    put_defaults(ATTENTION, record, {K_TEXT: own_text(record), K_HEAD: opening_head(record), K_STEP: STEP_IDS[0]})
    current = lesson()
    if current is not None:  # a lesson about one section opens it (the snapshots' slider: training)
        for shown, section in LESSON_SECTIONS.items():
            if shown in current.show:
                st.session_state.setdefault(section, True)


def reset_switches() -> None:
    """The model's own attention again: the mask as it trained, √d_head, τ = 1, every head on, no
    uniform attention, no edited score (a button callback, and what a new model starts with)."""
    ss = st.session_state
    ss[K_MASK] = attention_session().trained_mask
    for key in RESET:  # their defaults in the page's table
        ss[key] = default_of(ATTENTION, key)
    for key in [k for k in ss if str(k).startswith(K_EDIT_VALUE)]:
        del ss[key]


def follow_model(record: ModelRecord) -> None:
    """Before the URL and the widgets: a model the page did not show on its last run starts with
    its own attention, and keeps the text only if it can read it (else its own text)."""
    ss, mine = st.session_state, attention_session()
    mine.trained_mask = record.train_cfg.causal_mask
    last, mine.model_uid = mine.model_uid, record.uid
    if last is not None and last != record.uid:
        reset_switches()
        ss[K_LAYER], ss[K_HEAD] = 0, opening_head(record)
        if not readable(record, ss.get(K_TEXT, "")) or not ss.get(K_TEXT):
            ss[K_TEXT] = own_text(record)
    defaults(record)


def clamp(cfg: GPTConfig, text: str) -> list[str]:
    """After the URL is read: every picker within the model and the text. Returns a message for a
    layer, head or switched-off head the model does not have (kept from another model)."""
    ss, messages = st.session_state, []
    for key, count, name in ((K_LAYER, cfg.n_layers, "layer"), (K_HEAD, cfg.n_heads, "head")):
        value = ss.get(key, 0)
        if not (isinstance(value, int) and 0 <= value < count):
            ss[key] = 0
            shown = number(value) if isinstance(value, int) else value
            messages.append(tr(f"attn.stale_{name}", value=shown, last=count))
    if stale := [h for h in ss.get(K_HEADS_OFF, []) if not 0 <= h < cfg.n_heads]:
        ss[K_HEADS_OFF] = [h for h in ss[K_HEADS_OFF] if h not in stale]
        messages.append(tr("attn.stale_off", value=", ".join(str(number(h)) for h in stale), last=cfg.n_heads))
    if ss.get(K_STEP) not in NAV_IDS:
        ss[K_STEP] = STEP_IDS[0]
    T = max(len(text), 1)
    if attention_session().picker_text != text:  # another text: the cell pickers start again at its last row
        attention_session().picker_text = text
        ss[K_CELL_I], ss[K_EDIT_I], ss[K_CELL_J], ss[K_EDIT_J] = T - 1, T - 1, 0, 0
    for key in (K_CELL_I, K_EDIT_I, K_EDIT_J):
        if not (isinstance(ss.get(key), int) and 0 <= ss[key] < T):
            ss[key] = T - 1 if key != K_EDIT_J else 0
    return messages


def uniform_heads(n_heads: int, ss: Mapping[str, Any] | None = None) -> tuple[int, ...]:
    """The heads made uniform: none, the chosen head, or every head of the chosen layer (of the
    view ``ss``: the session's when not given)."""
    ss = st.session_state if ss is None else ss
    if not ss.get(K_UNIFORM):
        return ()
    return (ss[K_HEAD],) if ss.get(K_UNIFORM_SCOPE) == "head" else tuple(range(n_heads))


def divisor(cfg: GPTConfig, ss: Mapping[str, Any] | None = None) -> float | None:
    """Step 4's divisor as the switches set it: None for √d_head."""
    ss = st.session_state if ss is None else ss
    return {"sqrt": None, "one": 1.0}.get(ss[K_SCALING], ss.get(K_DIVISOR, math.sqrt(cfg.d_head)))


def edits_of(
    layer: int, head: int, T: int, ss: Mapping[str, Any] | None = None
) -> tuple[tuple[int, int, int, float], ...]:
    """The score edits (head, i, j, value) of ``layer`` and ``head`` within a text of T characters."""
    ss = st.session_state if ss is None else ss
    edits = ss.get(K_EDITS, {}) if ss.get(K_EDITING) else {}
    return tuple(
        (h, i, j, v) for (ell, h, i, j), v in sorted(edits.items()) if ell == layer and h == head and i < T and j < T
    )


def switches(cfg: GPTConfig, T: int, ss: Mapping[str, Any] | None = None) -> Switches:
    """The switches of the chosen layer as the student set them (as the view ``ss`` sets them when given)."""
    ss = st.session_state if ss is None else ss
    return Switches(
        causal_mask=bool(ss[K_MASK]),
        divisor=divisor(cfg, ss),
        temperature=float(ss[K_TAU]),
        edits=edits_of(ss[K_LAYER], ss[K_HEAD], T, ss),
        uniform_heads=uniform_heads(cfg.n_heads, ss),
        heads_off=tuple(sorted(ss.get(K_HEADS_OFF, []))),
    )


def every_layer(ss: Mapping[str, Any] | None = None) -> bool:
    """True when the first view's switches act in every layer (the scope "all layers")."""
    ss = st.session_state if ss is None else ss
    return ss.get(K_SCOPE) == "all"


def other_layers(cfg: GPTConfig, ss: Mapping[str, Any] | None = None) -> Switches | None:
    """The switches of the layers other than the chosen one: None (the model's own attention) while
    the switches act in the chosen layer only; with "all layers", the mask, uniform attention and τ
    as set (heads switched off, score edits and the scaling stay in the chosen layer: they name its heads)."""
    ss = st.session_state if ss is None else ss
    if not every_layer(ss):
        return None
    return Switches(
        causal_mask=bool(ss[K_MASK]), temperature=float(ss[K_TAU]), uniform_heads=uniform_heads(cfg.n_heads, ss)
    )


# ---------------------------------------------------------------- the URL


def _edits(cfg: GPTConfig):
    def read(raw: str, notes: list[str], view: Mapping[str, Any]) -> dict[str, Any]:
        layer = view.get(K_LAYER, 0)  # the link's layer: read before edits=
        edits = decode_edits(raw, cfg.n_heads, MAX_EDIT)
        return {K_EDITS: {(layer, h, i, j): v for h, i, j, v in edits}, K_EDITING: bool(edits)}

    def write(ss: Mapping[str, Any]) -> str | None:
        edits = edits_of(ss[K_LAYER], ss[K_HEAD], len(ss.get(K_TEXT, "")), ss) if ss.get(K_EDITING) else ()
        return encode_edits(edits) or None

    return url.Param("edits", read, write, after=True)


def _part(raw: str, notes: list[str]) -> dict[str, Any]:
    word = raw.strip().lower()
    if word and word not in PART_EXPANDERS:
        parts = ", ".join(PART_EXPANDERS)
        raise ConfigError("part", shown_text(raw), f"one of: {parts}", "choice", options=parts)
    expander = PART_EXPANDERS.get(word)
    return {expander: True} if expander else {}


def _known_text(row: url.Param, known: tuple[str, ...]) -> url.Param:
    """``row`` (the ``text=`` row) refusing a text with a character outside ``known`` (the shown
    model's vocabulary), as any other refused value: named with the characters the model knows,
    and the page keeps its text."""

    def read(raw: str, notes: list[str]) -> Mapping[str, Any]:
        values = row.read(raw, notes)
        if unknown := [c for c in dict.fromkeys(values[K_TEXT]) if c not in known]:
            raise ConfigError(
                "text",
                shown_text(raw, 40),
                f"a text of the characters the model knows: {''.join(known)}",
                "known_chars",
                unknown=" ".join(md_escape(char_name(c)) for c in unknown),
                known=" ".join(md_escape(char_name(c)) for c in known),
            )
        return values

    return url.Param(row.name, read, row.write, row.message)


def url_params(cfg: GPTConfig, known: tuple[str, ...] | None = None) -> tuple[url.Param, ...]:
    """The Attention page's query parameters: its table's rows (the text, layer, head and switches;
    ``tinygpt.ui.views.attention_table``), then the step, the score edits and ``part`` (older links: it
    opens the expander it names). The model is ``model=``/``train=`` (``tinygpt.ui.choice.model_choice``).
    ``known``: the shown model's characters, for reading a link (a ``text=`` with others is refused)."""
    rows = url_rows(ATTENTION, cfg)
    if known is not None:
        rows = tuple(_known_text(row, known) if row.name == "text" else row for row in rows)
    return (
        *rows,
        url.field("step", K_STEP, partial(read_step, ids=NAV_IDS, first_numbered=1)),
        _edits(cfg),  # after layer=: it reads the link's layer
        url.Param("part", _part, lambda ss: None),
    )
