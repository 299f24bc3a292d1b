"""Streamlit helpers of the attention page: the URL, cached runs, fast tables, drawing a step.

The page (``pages/attention.py``) reads widgets and calls these; the numbers come from
``tinygpt.attention`` (the steps the model runs) through ``tinygpt.explain`` (the walk over the
blocks, the checks, the arithmetic of a cell) and the charts from ``tinygpt.charts``.

URL query parameters (DEVELOPERS.md, "Links between pages"): ``text``, ``layer``, ``head``,
``step`` (a step id, or ``input`` for the input X before step 1), ``mask`` (1/0), ``scale``
(``sqrt``, ``1`` or a number), ``tau``, ``edits`` (the edited scores, ``head:i:j:value,…``,
``tinygpt.links``) and the ablation switches ``off`` (heads switched off, e.g. ``0,1``) and
``uniform`` (``head`` or ``layer``), written only when set. They are read into the widgets when
the page opens (or the link changes) and written back on every run, so the address bar always
reproduces the view; the model is in ``model=``/``train=`` (``tinygpt.ui.model_choice``).

Shapes: T sequence length, h n_heads, d_head, D d_model, V vocab_size.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st
import torch

from tinygpt.arrays import to_numpy
from tinygpt.attention import STEP_IDS, STEPS, AttentionTrace, DotSpec, Step, Switches, future_mask
from tinygpt.charts import alpha_grid_spec, heatmap_spec
from tinygpt.config import ConfigError, GPTConfig
from tinygpt.exercises import STEP_QUESTIONS
from tinygpt.explain import (
    Copy,
    DotProduct,
    PositionEffects,
    ScoreCell,
    Walk,
    explain_cell,
    masked_weights,
    module_difference,
    non_finite,
    position_effects,
    row_sums,
    sdpa_switch_difference,
    step_source_location,
    walk,
)
from tinygpt.formatting import format_change, format_probability
from tinygpt.links import decode_edits, encode_edits
from tinygpt.record import ModelRecord
from tinygpt.theory import STEP_CONCEPT
from tinygpt.ui import exercise_view
from tinygpt.ui.common import keep_radio_choice, remember_value, scroll_to, set_kept_value
from tinygpt.ui.figures import figure_downloads
from tinygpt.ui.i18n import error_text, tr
from tinygpt.ui.lesson import control, lesson, page_shown, visible
from tinygpt.ui.models import attention_trace
from tinygpt.ui.tables import is_static, matrix_text, show_table, text_table
from tinygpt.vocab import cyclic

#: Softmax temperatures offered by the slider (log-spaced: τ spans orders of magnitude).
TEMPERATURES: tuple[float, ...] = (
    1e-4,
    1e-3,
    0.01,
    0.03,
    0.1,
    0.2,
    0.3,
    0.5,
    0.7,
    1.0,
    1.5,
    2.0,
    3.0,
    5.0,
    10.0,
    100.0,
    1000.0,
)
MIN_DIVISOR, MAX_DIVISOR = 0.01, 1000.0
#: Largest |score| the editor accepts (raw scores of the seed model are within about ±20).
MAX_EDIT = 10_000.0
#: A typed score this close to the model's own (half the last of the 4 decimals shown) is no edit.
EDIT_SAME = 5e-5
SCALINGS: tuple[str, ...] = ("sqrt", "one", "custom")
URL_KEYS: tuple[str, ...] = ("text", "layer", "head", "step", "mask", "scale", "tau")
#: Parameters in the URL only while set: the ablation switches and the exercise mode.
OPTIONAL_URL_KEYS: tuple[str, ...] = ("off", "uniform", "guess", "part")
#: Uniform attention: none, the chosen head, or every head of the chosen layer.
UNIFORM_MODES: tuple[str, ...] = ("none", "head", "layer")
_UNIFORM_WORDS = {
    "none": "none",
    "0": "none",
    "off": "none",
    "head": "head",
    "1": "head",
    "layer": "layer",
    "all": "layer",
}
_WRITTEN = "_attn_url_written"

K_TEXT, K_LAYER, K_HEAD, K_STEP = "attn_text", "attn_layer", "attn_head", "attn_step"
K_MASK, K_SCALING, K_DIVISOR, K_TAU = "attn_mask", "attn_scaling", "attn_divisor", "attn_temperature"
K_CELL_I, K_CELL_J, K_OUTPUT, K_EDITING = "attn_cell_i", "attn_cell_j", "attn_output", "attn_editing"
K_SNAPSHOT = "attn_snapshot"
K_HEADS_OFF, K_UNIFORM = "attn_heads_off", "attn_uniform"
K_ALL_COLUMNS = "attn_all_columns"
#: The expander of a step's table when it is a grid (a long text): drawn only while open.
K_TABLE_OPEN = "attn_table_open"
K_RESET, K_GUESS, K_SOURCE = "attn_reset", "attn_guess", "attn_source"
#: The switch panel's controls, in rows of columns (a column per group with a control drawn).
SWITCH_ROWS: tuple[tuple[tuple[str, ...], ...], ...] = (
    ((K_MASK, K_RESET), (K_SCALING, K_DIVISOR), (K_TAU,)),
    ((K_HEADS_OFF,), (K_UNIFORM,)),
)
#: The expanders of the α grids (all heads of the layer, the head in every layer).
K_HEADS_GRID, K_LAYERS_GRID = "attn_heads_grid", "attn_layers_grid"
#: The part chooser below the switches: its value is the id of the one part of the page drawn.
K_PART = "attn_part"
#: The page's parts, one drawn at a time, and the widgets each holds (their keys): the steps of
#: one layer and head; the whole model's prediction under the switches; what each head and layer
#: does (which heads matter, the logit lens, α of the head in every layer); how attention formed
#: in training. Drawing only the open part keeps a first visit and every switch quick: the four
#: together are several charts, tables and formulas a switch would redraw.
PARTS: dict[str, tuple[str, ...]] = {
    "steps": (K_STEP, K_OUTPUT, K_CELL_I, K_CELL_J, K_ALL_COLUMNS, K_TABLE_OPEN, K_SOURCE),
    "prediction": ("attn_effects_table", K_HEADS_GRID),
    "model": ("attn_heads", "attn_lens", K_LAYERS_GRID),
    "training": (K_SNAPSHOT,),
}
#: The expanders among :data:`PARTS`' widgets: their open state is kept by Streamlit itself.
PART_EXPANDERS = frozenset(
    {K_TABLE_OPEN, K_SOURCE, "attn_effects_table", K_HEADS_GRID, "attn_heads", "attn_lens", K_LAYERS_GRID}
)
#: The score editor: the cell's pickers, the prefix of its number inputs' keys (one per layer,
#: head and cell) and the session's edits, {(layer, head, i, j): score}, which the URL's
#: ``edits=`` starts (every name starts with "attn_edit_", so reset_switches forgets them).
K_EDIT_I, K_EDIT_J, K_EDIT_VALUE, K_EDITS = "attn_edit_i", "attn_edit_j", "attn_edit_value", "attn_edit_scores"
#: The causal mask the shown model was trained with: its own attention (follow_model sets it).
K_TRAINED_MASK = "_attn_trained_mask"
_MODEL_UID = "_attn_model_uid"
_EDITS_WRITTEN = "_attn_edits_written"
#: Steps whose (T, D) output splits by head: the heatmap shows the selected head's d_head columns
#: unless the student asks for all D (a T × 512 heatmap is ~2,000 SVG cells, about 0.4 s of drawing).
HEAD_COLUMN_STEPS = ("projection", "merge_heads")
#: The step navigation's choices: the input X (what step 1 reads, not a step itself), then the steps.
INPUT = "input"
NAV_IDS: tuple[str, ...] = (INPUT, *STEP_IDS)
#: Steps drawn on one shared colour scale, so the division of step 4 shows as paler colours.
SHARED_SCALE_STEPS = ("scores", "scale")
#: Width in pixels of a number column of a T × T table (2 decimals): 16 of them and the pinned
#: index fit the page at 1400 px without sideways scrolling.
TABLE_COLUMN_PX = 52
#: A table this wide or less sits beside its heatmap; a wider one goes above it, the page's width.
BESIDE_PX = 440


# ---------------------------------------------------------------- URL <-> widgets


def parse_url(
    params: Mapping[str, str], n_layers: int, n_heads: int
) -> tuple[dict[str, object], list[tuple[str, str]]]:
    """Widget values from the URL's query parameters, and the problems found.

    Args:
        params: the attention parameters present in the URL (strings).
        n_layers, n_heads: of the current model (a layer or head outside them falls back to 0).
    Returns:
        (values keyed by widget key, [(parameter, given value)] of every value refused; a refused
        value falls back to the default: layer/head 0, the first step, mask on, √d_head, τ = 1).
        ``tau`` between two slider values is moved to the nearest (in log scale): silently when it
        is within 1 %, otherwise with the problem ("snap_tau", value).
    """
    values: dict[str, object] = {}
    problems: list[tuple[str, str]] = []
    if "text" in params:
        values[K_TEXT] = params["text"]
    for name, key, count in (("layer", K_LAYER, n_layers), ("head", K_HEAD, n_heads)):
        if name in params:
            raw = params[name].strip()
            ok = raw.lstrip("-").isdigit() and 0 <= int(raw) < count
            values[key] = int(raw) if ok else 0
            if not ok:
                problems.append((name, params[name]))
    if "step" in params:
        raw = params["step"].strip()
        if raw in NAV_IDS:
            values[K_STEP] = raw
        elif raw.isdigit() and 1 <= int(raw) <= len(STEP_IDS):
            values[K_STEP] = STEP_IDS[int(raw) - 1]
        else:
            values[K_STEP] = STEP_IDS[0]
            problems.append(("step", params["step"]))
    if "mask" in params:
        raw = params["mask"].strip().lower()
        values[K_MASK] = raw not in ("0", "false", "off", "no")
        if raw not in ("0", "1", "true", "false", "on", "off", "yes", "no"):
            values[K_MASK] = True
            problems.append(("mask", params["mask"]))
    if "scale" in params:
        raw = params["scale"].strip().lower()
        number = _number(raw)
        if raw in ("sqrt", "√", "sqrt(d_head)"):
            values[K_SCALING] = "sqrt"
        elif number == 1.0:
            values[K_SCALING] = "one"
        elif number is not None and MIN_DIVISOR <= number <= MAX_DIVISOR:
            values[K_SCALING], values[K_DIVISOR] = "custom", number
        else:
            values[K_SCALING] = "sqrt"
            problems.append(("scale", params["scale"]))
    if "tau" in params:
        number = _number(params["tau"].strip())
        if number is None or not TEMPERATURES[0] <= number <= TEMPERATURES[-1]:
            values[K_TAU] = 1.0
            problems.append(("tau", params["tau"]))
        else:
            nearest = min(TEMPERATURES, key=lambda t: abs(math.log(t) - math.log(number)))
            values[K_TAU] = nearest
            if abs(nearest - number) > 0.01 * number:
                problems.append(("snap_tau", params["tau"]))
    if "off" in params:
        heads = _heads(params["off"], n_heads)
        values[K_HEADS_OFF] = [] if heads is None else heads
        if heads is None:
            problems.append(("off", params["off"]))
    if "uniform" in params:
        mode = _UNIFORM_WORDS.get(params["uniform"].strip().lower())
        values[K_UNIFORM] = mode or "none"
        if mode is None:
            problems.append(("uniform", params["uniform"]))
    if "part" in params:
        raw = params["part"].strip().lower()
        values[K_PART] = raw if raw in PARTS else next(iter(PARTS))
        if raw and raw not in PARTS:  # an empty part= is the steps
            problems.append(("part", params["part"]))
    if "guess" in params:  # a teacher's link may open the exercise mode (and a lesson may hide its toggle)
        raw = params["guess"].strip().lower()
        values[K_GUESS] = raw in ("1", "true", "on", "yes")
        if raw not in ("0", "1", "true", "false", "on", "off", "yes", "no"):
            problems.append(("guess", params["guess"]))
    return values, problems


def _heads(raw: str, n_heads: int) -> list[int] | None:
    """Head numbers from "0,1" (sorted, without repeats; "" or "none" is no head), or None when a
    part is not a head of the layer (0..n_heads-1)."""
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    if parts == ["none"]:
        return []
    if not all(p.isdigit() and int(p) < n_heads for p in parts):
        return None
    return sorted({int(p) for p in parts})


def _number(raw: str) -> float | None:
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def url_values(
    text: str,
    layer: int,
    head: int,
    step: str,
    mask: bool,
    scaling: str,
    divisor: float,
    temperature: float,
    heads_off: Sequence[int] = (),
    uniform: str = "none",
    guess: bool = False,
    part: str = "steps",
) -> dict[str, str]:
    """The query parameters that reproduce a view (the inverse of :func:`parse_url`); ``off``,
    ``uniform``, ``guess`` and ``part`` only when they are set (``part`` other than the steps)."""
    scale = {"sqrt": "sqrt", "one": "1"}.get(scaling, f"{divisor:g}")
    values = {
        "text": text,
        "layer": str(layer),
        "head": str(head),
        "step": step,
        "mask": "1" if mask else "0",
        "scale": scale,
        "tau": f"{temperature:g}",
    }
    if heads_off:
        values["off"] = ",".join(str(h) for h in sorted(heads_off))
    if uniform != "none":
        values["uniform"] = uniform
    if guess:
        values["guess"] = "1"
    if part != next(iter(PARTS)):
        values["part"] = part
    return values


def uniform_heads(mode: str, head: int, n_heads: int) -> tuple[int, ...]:
    """The heads whose attention is made uniform: none, the chosen ``head`` or all ``n_heads``."""
    return {"none": (), "head": (head,), "layer": tuple(range(n_heads))}[mode]


def load_url(n_layers: int, n_heads: int) -> list[str]:
    """Before the widgets: put the URL's view into their state when the page opens or the link
    changed; return the messages (user's language) for refused values.

    Also repairs a remembered layer or head that the current model does not have (e.g. after
    training a smaller model), with a message.
    """
    params = {k: st.query_params[k] for k in URL_KEYS + OPTIONAL_URL_KEYS if k in st.query_params}
    fresh = K_TEXT not in st.session_state  # the page was just opened: its widgets have no state
    # Back from another page (Streamlit cleared the widgets): the view as this session last had
    # it, with a link's own parameters (a Theory page's step) on top.
    returning = K_LAYER not in st.session_state and bool(st.session_state.get(_WRITTEN))
    if returning:
        params = {**st.session_state[_WRITTEN], **params}
        if st.session_state.get(_EDITS_WRITTEN):
            st.session_state[K_EDITING] = True
    messages: list[str] = load_edits(n_heads, fresh)
    if params and (fresh or returning or params != st.session_state.get(_WRITTEN)):
        values, problems = parse_url(params, n_layers, n_heads)
        for key, value in values.items():
            st.session_state[key] = value
        if K_PART in values:
            set_kept_value(K_PART, values[K_PART])
        for name, given in problems:
            last = {"layer": n_layers - 1, "head": n_heads - 1, "off": n_heads - 1}.get(name, 0)
            key = "attn.url_snap_tau" if name == "snap_tau" else f"attn.url_bad_{name}"
            messages.append(
                tr(
                    key,
                    value=given,
                    last=last,
                    steps=", ".join(NAV_IDS),
                    parts=", ".join(PARTS),
                    lo=TEMPERATURES[0],
                    hi=TEMPERATURES[-1],
                    used=st.session_state.get(K_TAU, 1.0),
                )
            )
    for key, count, name in ((K_LAYER, n_layers, "layer"), (K_HEAD, n_heads, "head")):
        value = st.session_state.get(key)
        if value is not None and not (isinstance(value, int) and 0 <= value < count):
            st.session_state[key] = 0
            messages.append(tr(f"attn.stale_{name}", value=value, last=count - 1))
    off = st.session_state.get(K_HEADS_OFF) or []
    if stale := [h for h in off if not (isinstance(h, int) and 0 <= h < n_heads)]:
        st.session_state[K_HEADS_OFF] = [h for h in off if h not in stale]
        messages.append(tr("attn.stale_off", value=", ".join(map(str, stale)), last=n_heads - 1))
    return messages


def load_edits(n_heads: int, fresh: bool) -> list[str]:
    """Put the URL's ``edits=`` into the score editors' starting values (when the page opens or
    the link changed) and turn the editor on; return the message for a value refused."""
    raw = st.query_params.get("edits")
    if raw is None or (not fresh and raw == st.session_state.get(_EDITS_WRITTEN)):
        return []
    st.session_state[_EDITS_WRITTEN] = raw
    try:
        edits = decode_edits(raw, n_heads, MAX_EDIT)
    except ConfigError as exc:
        return [tr("link.bad_edits", error=error_text(exc))]
    for key in [k for k in st.session_state if str(k).startswith(K_EDIT_VALUE)]:
        del st.session_state[key]  # the inputs' values were typed on top of other scores
    layer = st.query_params.get("layer", "0")
    link_layer = int(layer) if layer.isdigit() else 0
    st.session_state[K_EDITS] = {(link_layer, h, i, j): value for h, i, j, value in edits}
    st.session_state[K_EDITING] = bool(edits)
    return []


def write_edits(edits: tuple[tuple[int, int, int, float], ...]) -> None:
    """Keep ``edits=`` in the address bar equal to the score edits in use (absent when none)."""
    value = encode_edits(edits)
    if value:
        if st.query_params.get("edits") != value:
            st.query_params["edits"] = value
    elif "edits" in st.query_params:
        del st.query_params["edits"]
    st.session_state[_EDITS_WRITTEN] = value or None


def follow_model(tm: ModelRecord) -> None:
    """Before :func:`load_url`: the model's own attention is the one it was trained with.

    The mask switch starts as the model's training had it (``TrainConfig.causal_mask``) and
    :func:`reset_switches` returns to it. When the page shows another model than on its last
    run, the switches are reset and the text becomes the new model's own (the old text may hold
    characters it does not know); a link's view, read by :func:`load_url` next, still wins.
    """
    ss = st.session_state
    ss[K_TRAINED_MASK] = tm.train_cfg.causal_mask
    last, ss[_MODEL_UID] = ss.get(_MODEL_UID), tm.uid
    if last is not None and last != tm.uid:
        reset_switches()
        ss[K_TEXT] = tm.text[: tm.gpt_cfg.max_len]
    ss.setdefault(K_MASK, tm.train_cfg.causal_mask)


def write_url(values: Mapping[str, str]) -> None:
    """Keep the address bar equal to the view (only changed parameters are written)."""
    for key, value in values.items():
        if st.query_params.get(key) != value:
            st.query_params[key] = value
    for key in OPTIONAL_URL_KEYS:  # a switch set back to off leaves the URL
        if key not in values and key in st.query_params:
            del st.query_params[key]
    st.session_state[_WRITTEN] = dict(values)


def drop_invalid_choice(key: str, options: Sequence[object]) -> None:
    """Forget a widget's remembered value when it is no longer among its options."""
    if key in st.session_state and st.session_state[key] not in options:
        del st.session_state[key]


def move_step(delta: int) -> None:
    """Button callback: go ``delta`` places forward or back in :data:`NAV_IDS` (the input X, then
    the steps; clamped to the first and last)."""
    current = st.session_state.get(K_STEP, STEP_IDS[0])
    index = NAV_IDS.index(current) if current in NAV_IDS else NAV_IDS.index(STEP_IDS[0])
    st.session_state[K_STEP] = NAV_IDS[min(max(index + delta, 0), len(NAV_IDS) - 1)]


def reset_switches() -> None:
    """Button callback: the model's own attention again (the mask as in its training, √d_head,
    τ = 1, no edits, every head on, no uniform attention)."""
    st.session_state[K_MASK] = st.session_state.get(K_TRAINED_MASK, True)
    st.session_state[K_SCALING] = "sqrt"
    st.session_state[K_TAU] = 1.0
    st.session_state[K_HEADS_OFF] = []
    st.session_state[K_UNIFORM] = "none"
    st.session_state[K_EDITING] = False
    for key in [k for k in st.session_state if str(k).startswith("attn_edit_")]:
        del st.session_state[key]


# ---------------------------------------------------------------- cached walks
# Each takes the model once: Streamlit hashes a ModelRecord by its uid.

_BY_UID = {ModelRecord: lambda tm: tm.uid}


@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=_BY_UID)
def cached_walk(tm: ModelRecord, text: str) -> Walk:
    """The model's own walk over ``text`` (α of every layer, logits), cached per model and text."""
    return walk(tm.model, tm.vocab.encode(text)[None])


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def whatif_effects(tm: ModelRecord, text: str, layer: int, switches: Switches) -> PositionEffects:
    """The prediction at every position with ``switches`` in ``layer`` only, against the model's own.

    The whole model runs (later layers see the changed layer's output). Cached per model, text,
    layer and switches.
    """
    return position_effects(tm.model, tm.vocab.encode(text)[None], {layer: switches}, cached_walk(tm, text))


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def own_module_difference(tm: ModelRecord, text: str, layer: int) -> float:
    """:func:`tinygpt.explain.module_difference` of the model's own trace of ``text`` at ``layer``,
    cached per model, text and layer."""
    return module_difference(tm.model, cached_walk(tm, text), attention_trace(tm, text, layer))


# ---------------------------------------------------------------- tables


@functools.lru_cache(maxsize=64)
def _schema(col_labels: tuple[str, ...]) -> pa.Schema:
    sample = pd.DataFrame(np.zeros((1, len(col_labels)), dtype=np.float32), index=["0"], columns=list(col_labels))
    return pa.Schema.from_pandas(sample)


def matrix_table(values: torch.Tensor | np.ndarray, row_labels: Sequence[str], col_labels: Sequence[str]) -> pa.Table:
    """A (R, C) matrix as an Arrow table with the row labels as its (pandas) index.

    Same content as ``charts.matrix_frame`` but built column by column in Arrow: a 512-column
    pandas frame is slow to convert on every rerun, Arrow columns are not. Values are float32.
    """
    arr = to_numpy(values, floats=True).astype(np.float32, copy=False)
    schema = _schema(tuple(col_labels))
    cols = np.ascontiguousarray(arr.T)  # (C, R)
    arrays = [pa.array(c) for c in cols] + [pa.array(list(row_labels), type=schema.field(len(col_labels)).type)]
    return pa.Table.from_arrays(arrays, schema=schema)


def matrix_text_table(
    values: torch.Tensor | np.ndarray, row_labels: Sequence[str], col_labels: Sequence[str], decimals: int
) -> pa.Table:
    """:func:`tinygpt.ui.tables.matrix_text` as an Arrow table with the row labels as its index:
    what a long text's T × T grid draws, in narrow columns."""
    return matrix_text(to_numpy(values, floats=True), row_labels, col_labels, decimals).to_arrow()


def matrix_csv(values: torch.Tensor, row_labels: Sequence[str], col_labels: Sequence[str]) -> bytes:
    """CSV of a matrix with its labels, UTF-8 with a byte-order mark (spreadsheets then read 你好)."""
    frame = pd.DataFrame(to_numpy(values).astype(np.float64), index=list(row_labels), columns=list(col_labels))
    return frame.to_csv(float_format="%.8g").encode("utf-8-sig")


# ---------------------------------------------------------------- the arithmetic of one cell


def _num(v: float) -> str:
    if math.isinf(v):
        return r"-\infty" if v < 0 else r"\infty"
    text = f"{v:.4g}".replace("e-0", "e-").replace("e+0", "e+")
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = rf"{mantissa}\times 10^{{{int(exponent)}}}"
    return text


def _terms(a: Sequence[float], b: Sequence[float], shown: int) -> str:
    parts = [rf"({_num(x)})({_num(y)})" for x, y in zip(a[:shown], b[:shown])]
    if len(a) > shown:
        parts.append(r"\cdots")
    return " + ".join(parts)


def cell_latex(
    expl: ScoreCell | DotProduct | Copy, name: str, i: int, j: int, shown: int = 3, row_shown: int = 6
) -> list[tuple[str, dict[str, object], str]]:
    """The arithmetic of one cell as (caption i18n key, caption fields, LaTeX) lines.

    A :class:`ScoreCell` gives q_i·k_j (the first ``shown`` products, "⋯", the sum over d_head),
    the division by the divisor, the mask, and the softmax of row i (the row maximum, exp of up to
    ``row_shown`` entries, their sum, the division) — or, for a head made uniform, 1/(number of
    keys the mask allows); a :class:`DotProduct` its products and sum, then 0 when the step set
    the entry to 0 (a head switched off); a :class:`Copy` where the number was copied from.
    """
    if isinstance(expl, Copy):
        index = ", ".join(str(k) for k in expl.index)
        return [
            (
                "attn.cell_copy",
                {},
                rf"\mathrm{{{name}}}[{i}, {j}] = \mathrm{{{expl.source}}}[{index}] = {_num(expl.value)}",
            )
        ]
    if isinstance(expl, DotProduct):
        lines = [
            (
                "attn.cell_dot",
                {"shown": min(shown, len(expl.a)), "n": len(expl.a)},
                rf"\mathrm{{{name}}}[{i}, {j}] = {expl.a_name} \cdot {expl.b_name} = "
                rf"{_terms(expl.a, expl.b, shown)} = {_num(expl.total)}",
            )
        ]
        # The entry the trace holds is 0 although the product is not: the step zeroed it
        # afterwards (weighted_sum with the head in Switches.heads_off).
        if expl.value == 0.0 and not math.isclose(expl.total, 0.0, abs_tol=1e-12):
            lines.append(("attn.cell_head_off", {}, rf"\mathrm{{{name}}}[{i}, {j}] := 0"))
        return lines
    c = expl
    d = len(c.dot.a)
    lines = [
        (
            "attn.cell_dot",
            {"shown": min(shown, d), "n": d},
            rf"S_{{{i},{j}}} = q_{{{i}}} \cdot k_{{{j}}} = {_terms(c.dot.a, c.dot.b, shown)} = {_num(c.dot.total)}",
        )
    ]
    if c.edited:
        lines.append(("attn.cell_edited", {}, rf"S_{{{i},{j}}} := {_num(c.raw)}"))
    divisor = rf"\sqrt{{{d}}}" if math.isclose(c.divisor, math.sqrt(d)) else _num(c.divisor)
    lines.append(
        ("attn.cell_scale", {}, rf"\tilde S_{{{i},{j}}} = \dfrac{{{_num(c.raw)}}}{{{divisor}}} = {_num(c.scaled)}")
    )
    if c.masked:
        lines.append(("attn.cell_masked", {}, rf"{j} > {i} \Rightarrow \tilde S_{{{i},{j}}} = -\infty"))
    T = len(c.row)
    if c.uniform:  # Switches.uniform_heads: α ignores the scores, 1/n over the n keys the mask allows
        n = sum(1 for v in c.row if not (math.isinf(v) and v < 0))
        value = rf"\dfrac{{1}}{{{n}}} = {_num(c.alpha[j])}" if not c.masked else _num(c.alpha[j])
        lines.append(
            (
                "attn.cell_uniform_masked" if c.masked else "attn.cell_uniform",
                {"n": n},
                rf"\alpha_{{{i},{j}}} = {value}",
            )
        )
        return lines
    tau = "" if c.temperature == 1.0 else rf"/{_num(c.temperature)}"
    ks = list(range(min(T, row_shown)))
    if j not in ks:
        ks[-1] = j
    exps = r",\ ".join(rf"e_{{{k}}} = {_num(c.exps[k])}" for k in ks) + (r",\ \ldots" if T > len(ks) else "")
    lines.append(("attn.cell_max", {}, rf"m = \max_k \tilde S_{{{i},k}} = {_num(c.row_max)}"))
    row_masked = any(math.isinf(v) and v < 0 for v in c.row)  # no −∞ in the row: the mask is off (or i is last)
    lines.append(
        (
            "attn.cell_exp" if row_masked else "attn.cell_exp_unmasked",
            {"tau": c.temperature},
            rf"e_k = \exp\big((\tilde S_{{{i},k}} - m){tau}\big):\ {exps}",
        )
    )
    lines.append(("attn.cell_sum", {"n": T}, rf"\sum_k e_k = {_num(c.exp_sum)}"))
    lines.append(
        (
            "attn.cell_alpha",
            {},
            rf"\alpha_{{{i},{j}}} = \dfrac{{e_{{{j}}}}}{{\sum_k e_k}} = "
            rf"\dfrac{{{_num(c.exps[j])}}}{{{_num(c.exp_sum)}}} = {_num(c.alpha[j])}",
        )
    )
    return lines


def snapshot_text(text: str, T: int) -> str:
    """The training window a snapshot's α belongs to: the training text read as a cycle, T long."""
    return cyclic(text, T)


# ---------------------------------------------------------------- drawing


def set_defaults(text: str, sqrt_d_head: float) -> None:
    """Default widget values (set in session state, so widgets never get a second default)."""
    for key, value in (
        (K_TEXT, text),
        (K_LAYER, 0),
        (K_HEAD, 0),
        (K_STEP, STEP_IDS[0]),
        (K_MASK, True),
        (K_SCALING, "sqrt"),
        (K_DIVISOR, float(sqrt_d_head)),
        (K_TAU, 1.0),
        (K_HEADS_OFF, []),
        (K_UNIFORM, "none"),
    ):
        st.session_state.setdefault(key, value)


def step_nav(step_labels: Mapping[str, str]) -> str:
    """Previous / next buttons around a direct choice of the input X and the steps; returns the
    chosen id (:data:`INPUT` or a step id). ``step_labels`` labels every id of :data:`NAV_IDS`."""
    drop_invalid_choice(K_STEP, NAV_IDS)
    if not visible(K_STEP):  # the radio and its Previous/Next buttons are one lesson control
        return st.session_state.get(K_STEP, STEP_IDS[0])
    index = NAV_IDS.index(st.session_state.get(K_STEP, STEP_IDS[0]))
    keep_radio_choice(K_STEP)
    chosen = st.radio(tr("attn.step"), NAV_IDS, format_func=step_labels.get, horizontal=True, key=K_STEP)
    left, right, _ = st.columns([1, 1, 5])
    left.button(
        tr("attn.prev"),
        icon=":material/arrow_back:",
        on_click=move_step,
        args=(-1,),
        disabled=index == 0,
        key="attn_prev",
        width="stretch",
    )
    right.button(
        tr("attn.next"),
        icon=":material/arrow_forward:",
        on_click=move_step,
        args=(1,),
        disabled=index == len(NAV_IDS) - 1,
        key="attn_next",
        width="stretch",
    )
    return chosen


def first_part() -> str:
    """The part a session opens with: the first holding a control a teacher's lesson link shows
    (``show=attn_snapshot`` opens the training part), else the steps."""
    shown = lesson().show if lesson() is not None else frozenset()
    return next((part for part, keys in PARTS.items() if shown & set(keys)), next(iter(PARTS)))


#: The element above the part chooser that "See the predictions" scrolls to.
PARTS_ANCHOR = "attn-parts"


def open_part(part: str) -> None:
    """Button callback: draw ``part`` on the next run (the chooser shows it) and scroll up to the
    chooser, so the student lands on the part's beginning."""
    set_kept_value(K_PART, part)
    st.session_state["_attn_scroll"] = True


def part_chooser() -> str:
    """The segmented control over :data:`PARTS` (its value the part's id, kept across page
    switches by :func:`tinygpt.ui.common.restore_widget_values`); returns the open part.

    Every part's widget values (not its expanders') are written back into the session on each
    run (:func:`keep_values`), so a student who comes back to the steps finds the step and cell
    they left, and the browser shows them.
    """
    labels = {part: tr(f"attn.part.{part}") for part in PARTS}  # format_func must not read the session
    st.html(f'<div id="{PARTS_ANCHOR}"></div>', width="content")
    if st.session_state.pop("_attn_scroll", False):
        scroll_to(PARTS_ANCHOR)
    part = st.segmented_control(
        tr("attn.parts"),
        list(PARTS),
        format_func=labels.get,
        key=K_PART,
        on_change=remember_value,
        args=(K_PART,),
        required=True,
        width="stretch",
    )
    part = part if part in PARTS else first_part()
    keep_values(key for keys in PARTS.values() for key in keys if key not in PART_EXPANDERS)
    return part


def keep_values(keys: Iterable[str]) -> None:
    """Write each widget value of ``keys`` back into the session on this run, before its widget.

    A value written back is a plain session value, which Streamlit keeps while its widget is not
    drawn (a closed part, a text the model cannot read); and a widget drawn later in the same run
    sends it to the browser, which would otherwise show the widget's default (after a widget is
    not drawn for a run, the browser forgets its choice).
    """
    for key in keys:
        keep_radio_choice(key)  # the same write-back, which radios need after a language switch


def effects_note(n_changed: int, T: int, layer: int, is_default: bool) -> None:
    """Below the steps: how many of the ``T`` predictions the switches change (in ``layer``),
    with a button to the prediction part that shows them."""
    left, right = st.columns([3, 1], vertical_alignment="center")
    key = "attn.effects_note_default" if is_default else "attn.effects_note" if n_changed else "attn.effects_note_none"
    left.markdown(tr(key, n=n_changed, T=T, layer=layer))
    right.button(
        tr("attn.see_prediction"),
        key="attn_see_prediction",
        icon=":material/arrow_forward:",
        on_click=open_part,
        args=("prediction",),
        width="stretch",
    )


class SwitchPanel(NamedTuple):
    """The what-if switches as the student set them (read by :func:`switch_panel`)."""

    mask_on: bool
    scaling: str  # one of SCALINGS
    divisor: float | None  # None: √d_head
    temperature: float
    heads_off: list[int]  # heads of the chosen layer whose output is zero before W_O
    uniform: str  # one of UNIFORM_MODES: none, head (the chosen head), layer (every head)


def _columns(groups: Sequence[Sequence[str]]) -> dict[str, object]:
    """One column per group of controls with a control drawn: {control key: its column}; the
    groups a lesson hides entirely get no column, so the drawn ones share the row."""
    shown = [g for g in groups if any(visible(k) for k in g)]
    return {k: col for g, col in zip(shown, st.columns(len(shown))) for k in g} if shown else {}


def switch_panel(cfg: GPTConfig, layer: int, head: int) -> SwitchPanel:
    """All what-if switches in one block of the main area, above the step they change.

    An expander (open at first) whose columns stack on a narrow screen, so on a phone the switches
    sit just above the heatmap instead of in the sidebar, which would cover most of the screen.
    Each switch is a lesson control: a hidden one is not drawn and keeps its session value (the
    URL's, read by :func:`load_url`); when a lesson hides them all, the expander is not drawn.
    """
    ss = st.session_state
    if not any(visible(k) for row in SWITCH_ROWS for group in row for k in group):
        scaling = ss.get(K_SCALING, "sqrt")
        divisor = {"sqrt": None, "one": 1.0}.get(scaling, ss.get(K_DIVISOR, math.sqrt(cfg.d_head)))
        return SwitchPanel(
            ss.get(K_MASK, True),
            scaling,
            divisor,
            ss.get(K_TAU, 1.0),
            list(ss.get(K_HEADS_OFF, [])),
            ss.get(K_UNIFORM, "none"),
        )
    with st.expander(tr("attn.switches"), expanded=True, icon=":material/tune:"):
        st.caption(tr("attn.switches_help"))
        col = _columns(SWITCH_ROWS[0])
        mask_on = control(
            K_MASK,
            lambda: col[K_MASK].toggle(tr("attn.mask"), help=tr("attn.mask_help"), key=K_MASK),
            ss.get(K_MASK, True),
        )
        if visible(K_RESET):
            col[K_RESET].button(tr("attn.reset"), on_click=reset_switches, key=K_RESET)
        scale_labels = {
            "sqrt": tr("attn.scale_sqrt", value=math.sqrt(cfg.d_head)),
            "one": tr("attn.scale_one"),
            "custom": tr("attn.scale_custom"),
        }  # format_func must not read the session
        if visible(K_SCALING):
            keep_radio_choice(K_SCALING)
        scaling = control(
            K_SCALING,
            lambda: col[K_SCALING].radio(tr("attn.scaling"), SCALINGS, format_func=scale_labels.get, key=K_SCALING),
            ss.get(K_SCALING, "sqrt"),
        )
        divisor = {"sqrt": None, "one": 1.0}.get(scaling)
        if scaling == "custom":
            divisor = control(
                K_DIVISOR,
                lambda: col[K_DIVISOR].number_input(tr("attn.scale_value"), MIN_DIVISOR, MAX_DIVISOR, key=K_DIVISOR),
                ss.get(K_DIVISOR, math.sqrt(cfg.d_head)),
            )
        temperature = control(
            K_TAU,
            lambda: col[K_TAU].select_slider(
                tr("attn.temperature"),
                TEMPERATURES,
                format_func="{:g}".format,
                help=tr("attn.temperature_help"),
                key=K_TAU,
            ),
            ss.get(K_TAU, 1.0),
        )
        col = _columns(SWITCH_ROWS[1])  # ablation: applies to the chosen layer, like the others
        if visible(K_HEADS_OFF):
            keep_radio_choice(K_HEADS_OFF)  # the browser keeps the pills' choices by their labels too
        heads_off = control(
            K_HEADS_OFF,
            lambda: col[K_HEADS_OFF].pills(
                tr("attn.heads_off", layer=layer),
                range(cfg.n_heads),
                selection_mode="multi",
                format_func=str,
                help=tr("attn.heads_off_help"),
                key=K_HEADS_OFF,
            ),
            ss.get(K_HEADS_OFF, []),
        )
        uniform_labels = {
            "none": tr("attn.uniform_none"),
            "head": tr("attn.uniform_head", head=head),
            "layer": tr("attn.uniform_layer", layer=layer),
        }
        if visible(K_UNIFORM):
            keep_radio_choice(K_UNIFORM)
        uniform = control(
            K_UNIFORM,
            lambda: col[K_UNIFORM].radio(
                tr("attn.uniform"),
                UNIFORM_MODES,
                format_func=uniform_labels.get,
                help=tr("attn.uniform_help"),
                key=K_UNIFORM,
                horizontal=True,
            ),
            ss.get(K_UNIFORM, "none"),
        )
    return SwitchPanel(mask_on, scaling, divisor, temperature, list(heads_off), uniform)


def score_editor(
    base: AttentionTrace, layer: int, head: int, labels: Sequence[str]
) -> tuple[tuple[int, int, int, float], ...]:
    """In a bordered box, a toggle, and when it is on a picker of one raw score S[i, j] of one head
    (the model's own, layer ``layer``) and a number input of its new value; returns the edits of
    this layer and head (none while the toggle is off).

    When a lesson hides the editor nothing is drawn, and the link's edits of this head (``edits=``,
    which turned the toggle's value on) still apply: the student sees the teacher's scores.
    """
    S = to_numpy(base.state["S"][0, head])  # (T, T)
    if not visible(K_EDITING):
        edits = current_edits(S, layer, head) if st.session_state.get(K_EDITING, False) else ()
        write_edits(edits)
        return edits
    with st.container(border=True):
        return _draw_score_editor(S, layer, head, labels)


def _draw_score_editor(
    S: np.ndarray, layer: int, head: int, labels: Sequence[str]
) -> tuple[tuple[int, int, int, float], ...]:
    """The editor's toggle and, when on, the cell pickers (query i, key j) and the score's number
    input. A number input sends its value on Enter at once (a data editor waits 150 ms first)."""
    if not st.toggle(tr("attn.edit_header", layer=layer, head=head), help=tr("attn.edit_help"), key=K_EDITING):
        write_edits(())
        return ()
    st.caption(tr("attn.edit_help"))
    T = len(labels)
    positions = list(range(T))
    names = dict(enumerate(labels))
    drop_invalid_choice(K_EDIT_I, positions)
    drop_invalid_choice(K_EDIT_J, positions)
    st.session_state.setdefault(K_EDIT_I, T - 1)
    st.session_state.setdefault(K_EDIT_J, 0)
    a, b, c = st.columns(3)
    i = index_slider(a, tr("attn.edit_row"), positions, names, K_EDIT_I)
    j = index_slider(b, tr("attn.edit_col"), positions, names, K_EDIT_J)
    own = float(S[i, j])
    cell = (layer, head, i, j)
    c.number_input(
        f"S[{i}, {j}]",
        min_value=-MAX_EDIT,
        max_value=MAX_EDIT,
        value=_edits().get(cell, own),
        step=1.0,
        format="%.4f",
        key=f"{K_EDIT_VALUE}_l{layer}_h{head}_i{i}_j{j}",
        help=tr("attn.edit_own", value=own, limit=f"{MAX_EDIT:g}"),
        on_change=_store_edit,
        args=(cell, own),
    )
    edits = current_edits(S, layer, head)
    write_edits(edits)
    if edits:
        cells = ", ".join(f"S[{i}, {j}] = {v:.4g}" for _, i, j, v in edits)
        st.caption(tr("attn.edit_count", n=len(edits), cells=cells))
    return edits


def _edits() -> dict[tuple[int, int, int, int], float]:
    """The session's score edits: (layer, head, i, j) -> the new raw score."""
    return st.session_state.setdefault(K_EDITS, {})


def _store_edit(cell: tuple[int, int, int, int], own: float) -> None:
    """Number input callback: keep the typed score of ``cell``; its own value again removes the edit."""
    layer, head, i, j = cell
    value = st.session_state.get(f"{K_EDIT_VALUE}_l{layer}_h{head}_i{i}_j{j}")
    edits = _edits()
    if value is None or abs(value - own) < EDIT_SAME:  # the own value as shown (4 decimals): no edit
        edits.pop(cell, None)
    elif math.isfinite(value) and abs(value) <= MAX_EDIT:
        edits[cell] = float(value)


def current_edits(S: np.ndarray, layer: int, head: int) -> tuple[tuple[int, int, int, float], ...]:
    """The edits (head, i, j, value) of ``layer`` and ``head`` that the scores ``S`` (T, T) hold,
    sorted; an edit outside the text gets a message and is left out."""
    T = len(S)
    edits = []
    for (ell, h, i, j), value in sorted(_edits().items()):
        if ell != layer or h != head:
            continue
        if i < T and j < T:
            edits.append((h, i, j, value))
        else:
            st.warning(tr("link.edit_outside", i=i, j=j, T=T))
    return tuple(edits)


def show_step(
    trace: AttentionTrace,
    step: Step,
    head: int,
    labels: Sequence[str],
    cfg: GPTConfig,
    future: torch.Tensor | None,
    exercise: Callable[[], bool] | None = None,
) -> bool:
    """One step: what it does and why (with a link to the Theory page), formula, shapes, table +
    heatmap + CSV, the arithmetic of a picked cell, its code.

    ``future``: the (T, T) causal triangle while the mask is on (drawn as masked on the softmax
    step, left out of the shared colour scale of steps 3 and 4), or None.
    ``exercise``: drawn after the step's formula and shape (e.g. :func:`guess_step`); the step's
    numbers follow only when it returns True. Returns whether the numbers were drawn.
    """
    T = len(labels)
    st.subheader(tr("attn.step_header", number=step.number, n=len(STEPS), name=tr(f"step.{step.id}.name")))
    st.markdown(tr(f"step.{step.id}.meaning"))
    concept = STEP_CONCEPT[step.id]
    if page_shown("theory"):  # a lesson without the Theory page has no link to it
        st.page_link(
            "pages/theory.py",
            label=tr("attn.theory_link", title=tr(f"theory.{concept}.title")),
            icon=":material/menu_book:",
            query_params={"concept": concept, "step": step.id},
        )
    st.latex(step.formula)
    if step.id == "mask" and not trace.switches.causal_mask:
        st.info(tr("attn.mask_off_note"))
    sizes = {"B": 1, "T": T, "h": cfg.n_heads, "d_head": cfg.d_head, "d_model": cfg.d_model}
    concrete = f"({', '.join(str(n) for n in step.sized(sizes))})"
    st.markdown(tr("attn.shape", symbolic=step.shape_text, concrete=concrete))
    if exercise is not None and not exercise():
        return False
    output = 0
    if len(step.outputs) > 1:
        drop_invalid_choice(K_OUTPUT, step.outputs)
        st.session_state.setdefault(K_OUTPUT, step.outputs[0])
        name = control(
            K_OUTPUT,
            lambda: st.segmented_control(tr("attn.output"), step.outputs, key=K_OUTPUT),
            st.session_state.get(K_OUTPUT, step.outputs[0]),
        )
        output = step.outputs.index(name) if name in step.outputs else 0
    name = step.outputs[output]
    m = trace.step_tensor(step, head, output)  # (T, T), (T, d_head) or (T, D)
    head_part = tr("attn.head_part", head=head) if step.per_head else ""
    st.caption(
        tr(
            "attn.d_head",
            d_model=cfg.d_model,
            h=cfg.n_heads,
            d_head=cfg.d_head,
            head_part=head_part,
            rows=m.shape[0],
            cols=m.shape[1],
        )
    )
    divisor = divisor_text(trace.switches, cfg.d_head)
    if step.id == "scale":
        st.caption(tr("attn.divisor_now", divisor=divisor))
    if step.id == "softmax":
        st.caption(tr("attn.tau_now", tau=trace.switches.temperature))
        if head in trace.switches.uniform_heads:  # the softmax of this head is replaced, scores unused
            st.info(tr("attn.uniform_ignores_scores", head=head))
    bound = None
    if step.id in SHARED_SCALE_STEPS:
        bound = shared_score_bound(trace, head, future)
        st.caption(
            tr(
                "attn.shared_scale",
                bound=bound,
                divisor=divisor,
                future=tr("attn.shared_scale_future") if future is not None else "",
            )
        )
    cols = list(labels) if step.square else [str(j) for j in range(m.shape[1])]
    title = f"{name} · {tr('attn.panel_head', h=head)}" if step.per_head else name
    columns = None
    if step.id in HEAD_COLUMN_STEPS and cfg.n_heads > 1:
        first = head * cfg.d_head
        columns = (
            first,
            cfg.d_head,
            tr("attn.all_columns_help", h=head),
            f"{name}[:, {first}:{first + cfg.d_head}] · {tr('attn.panel_head', h=head)}",
        )
    elif not step.square and m.shape[1] > cfg.d_head:  # the output projection's d_model columns
        columns = (0, cfg.d_head, tr("attn.all_columns_help_x", n=cfg.d_head), f"{name}[:, 0:{cfg.d_head}]")
    matrix_view(
        m,
        labels,
        cols,
        name=name,
        title=title,
        square=step.square,
        kind="prob" if name == "alpha" else "signed",
        masked=future if step.id == "softmax" else None,
        bound=bound,
        columns=columns,
        file_name=f"attention_{step.number}_{step.id}_{name}_layer{trace.layer}_head{head}.csv",
    )
    show_cell(trace, step, head, output, labels, cols)
    if not visible(K_SOURCE):
        return True
    path, first, last = step_source_location(step)
    source = st.expander(tr("attn.source", path=path, first=first, last=last), key=K_SOURCE, on_change="rerun")
    if source.open:  # drawn only when opened: highlighting the code is a large part of the page's drawing
        with source:
            st.code(step.source(), language="python")
    return True


def guess_step(tm: ModelRecord, text: str, trace: AttentionTrace, step: Step, head: int) -> bool:
    """Guess, then reveal: the questions of ``step`` (``exercise_view.attention_exercise``) about
    the query row of the cell picker (the last position until one is picked) and the score; True
    once answered, and for a step that asks nothing (said in a caption)."""
    if not STEP_QUESTIONS[step.id]:
        st.caption(tr("attn.guess_no_question"))
        exercise_view.show_score()
        return True
    T = len(text)
    query = st.session_state.get(K_CELL_I, T - 1)
    if not (isinstance(query, int) and 0 <= query < T):  # a row of a longer text picked before
        query = T - 1
    revealed = exercise_view.attention_exercise(
        trace, step, head, trace.layer, query=query, model=tm.model, idx=tm.vocab.encode(text)[None]
    )
    if not revealed:
        st.caption(tr("attn.guess_hidden"))
    return revealed


def show_input(trace: AttentionTrace, labels: Sequence[str], cfg: GPTConfig) -> None:
    """The input X of the traced layer (``trace.state["x"]``, (T, D)): what it is, table + heatmap + CSV."""
    st.subheader(tr("attn.input_header"))
    layer = trace.layer
    norm = "pre" if cfg.norm == "pre" else "post"
    where = "first" if layer == 0 else "later"
    blocks = "0" if layer == 1 else f"0–{layer - 1}"
    st.markdown(
        tr(f"attn.input_{norm}_{where}", layer=layer, blocks=blocks, positions=tr(f"attn.positions_{cfg.positions}"))
    )
    st.caption(tr("attn.input_next"))
    x = trace.state["x"][0]  # (T, D)
    st.markdown(tr("attn.shape", symbolic="(B, T, d_model)", concrete=f"(1, {x.shape[0]}, {x.shape[1]})"))
    cols = [str(j) for j in range(x.shape[1])]
    matrix_view(
        x,
        labels,
        cols,
        name="X",
        title="X",
        square=False,
        kind="signed",
        masked=None,
        bound=None,
        columns=(0, cfg.d_head, tr("attn.all_columns_help_x", n=cfg.d_head), f"X[:, 0:{cfg.d_head}]"),
        file_name=f"attention_0_input_X_layer{layer}.csv",
    )


def matrix_view(
    m: torch.Tensor,
    labels: Sequence[str],
    cols: Sequence[str],
    *,
    name: str,
    title: str,
    square: bool,
    kind: str,
    masked: torch.Tensor | None,
    bound: float | None,
    columns: tuple[int, int, str, str] | None,
    file_name: str,
) -> None:
    """A matrix as a table (with a CSV download of every value) and a heatmap: beside each other
    when the table is narrow, the table above the heatmap otherwise.

    Args:
        m: (R, C) values; −∞ entries are written −∞ in the table and drawn as masked.
        square: a query × key matrix (T, T): its table shows 2 decimals in narrow columns, so a
            whole 16 × 16 table fits the page; the CSV and the heatmap's tooltip keep every digit.
        masked: (R, C) booleans drawn grey on the heatmap, or None.
        bound: the signed colour scale's [-bound, bound], or None for the matrix's own max |value|.
        columns: (first, n, help, title) for a wide matrix: unless the student asks for all C
            columns, the table and the heatmap show columns first..first+n-1 under ``title``,
            ``help`` saying which (a T × 512 table and heatmap are most of a step's drawing).
    """
    C = m.shape[1]
    shown, shown_cols, shown_title = m, cols, title
    if columns is not None and C > 16:
        first, n, help_text, part_title = columns
        if not control(
            K_ALL_COLUMNS, lambda: st.toggle(tr("attn.all_columns", D=C), help=help_text, key=K_ALL_COLUMNS), False
        ):
            shown, shown_cols, shown_title = m[:, first : first + n], cols[first : first + n], part_title
    beside = C <= 16 and (not square or 80 + TABLE_COLUMN_PX * C <= BESIDE_PX)
    left, right = st.columns([1, 1]) if beside else (st.container(), st.container())
    with left:
        st.markdown(f"**{tr('attn.table', name=shown_title)}**")
        config = None
        decimals = 2 if square else 4
        if is_static(shown.shape[0], len(shown_cols)):  # the text as shown, each value in its tooltip
            table: object = matrix_text(to_numpy(shown, floats=True), labels, shown_cols, decimals)
        elif square:  # a long text's T × T grid: the text, in narrow columns
            table = matrix_text_table(shown, labels, shown_cols, decimals)
            config = {c: st.column_config.TextColumn(width=TABLE_COLUMN_PX, alignment="right") for c in cols}
        else:
            table = matrix_table(shown, labels, shown_cols)
        # a grid (a long text) is drawn on demand, unless the student asked for every column
        on_demand = (
            None
            if shown is m and columns is not None and C > 16
            else (tr("attn.table_on_demand", rows=shown.shape[0], cols=len(shown_cols)), K_TABLE_OPEN)
        )
        show_table(table, column_config=config, max_height=600, on_demand=on_demand)
        if square:
            st.caption(tr("attn.table_rounded"))
        st.download_button(
            tr("attn.download"),
            lambda: matrix_csv(m, labels, cols),
            icon=":material/download:",
            file_name=file_name,
            mime="text/csv",
            on_click="ignore",
            key="attn_download",
        )
    with right:
        st.vega_lite_chart(
            heat_spec := heatmap_spec(
                shown,
                labels,
                shown_cols,
                kind=kind,
                title=shown_title,
                masked=masked,
                bound=bound,
                row_title=tr("attn.axis_query") if square else tr("attn.axis_pos"),
                col_title=tr("attn.axis_key") if square else tr("attn.axis_dim"),
                value_title="α" if kind == "prob" else tr("attn.value"),
                masked_label=tr("attn.masked"),
            ),
            width="content",
        )
    with left:  # beside the CSV: the heatmap as drawn, for slides
        figure_downloads(heat_spec, "attn_figure", shown_title, file_stem=file_name.removesuffix(".csv"))


def divisor_text(switches: Switches, d_head: int) -> str:
    """The divisor of step 4 as written on the page: "√64 = 8" for √d_head, else the number."""
    return f"√{d_head} = {math.sqrt(d_head):g}" if switches.divisor is None else f"{switches.divisor:g}"


def shared_score_bound(trace: AttentionTrace, head: int, future: torch.Tensor | None) -> float:
    """The colour bound steps 3 and 4 share: the larger max |value| of S and of S / divisor of
    ``head``, over the finite entries not in ``future`` (the (T, T) entries the mask will hide)."""
    S, scaled = trace.state["S"][0, head], trace.state["S_scaled"][0, head]  # (T, T) each
    keep = torch.isfinite(S) & torch.isfinite(scaled)
    if future is not None:
        keep &= ~future
    bound = max(float(S[keep].abs().max()), float(scaled[keep].abs().max())) if bool(keep.any()) else 1.0
    return bound or 1.0


def show_cell(
    trace: AttentionTrace, step: Step, head: int, output: int, labels: Sequence[str], cols: Sequence[str]
) -> None:
    """Two pickers (row, column) and the arithmetic of that cell with the trace's numbers."""
    st.markdown(f"**{tr('attn.cell_header')}**")
    rows = list(range(len(labels)))
    columns = list(range(len(cols)))
    drop_invalid_choice(K_CELL_I, rows)
    drop_invalid_choice(K_CELL_J, columns)
    st.session_state.setdefault(K_CELL_I, rows[-1])
    st.session_state.setdefault(K_CELL_J, 0)
    row_names = dict(enumerate(labels))
    col_names = dict(enumerate(cols))
    a, b = st.columns(2) if visible(K_CELL_I) or visible(K_CELL_J) else (None, None)
    # The column labels change with the step ("0 你" on a T × T step, "0" on a d_head one), so the
    # choice is sent again with this step's labels.
    for key in (K_CELL_I, K_CELL_J):
        if visible(key):
            keep_radio_choice(key)
    i = control(K_CELL_I, lambda: index_slider(a, tr("attn.cell_row"), rows, row_names, K_CELL_I), rows[-1])
    j = control(K_CELL_J, lambda: index_slider(b, tr("attn.cell_col"), columns, col_names, K_CELL_J), 0)
    expl = explain_cell(trace, step, head, i, j, output)
    name = step.outputs[output]
    st.markdown("  \n".join(f"{tr(key, **fields)} ${latex}$" for key, fields, latex in cell_latex(expl, name, i, j)))
    if isinstance(step.cell, DotSpec) and step.cell.b.startswith("W_"):
        st.caption(tr("attn.weights_layout", w=step.cell.b.format(o=name)))


def index_slider(box, label: str, options: Sequence[int], names: Mapping[int, str], key: str) -> int:
    """A select slider over ``options`` (indices, shown by ``names``) in ``box``; with a single
    option there is nothing to choose: its caption and that option."""
    if len(options) == 1:
        box.caption(f"{label}: {names[options[0]]}")
        return options[0]
    return box.select_slider(label, options, format_func=names.get, key=key)


def show_checks(tm: ModelRecord, text: str, base: AttentionTrace, trace: AttentionTrace, head: int) -> None:
    """The on-screen checks: row sums, exact zeros under the mask, the model's own output, SDPA, NaN."""
    st.markdown(f"**{tr('attn.checks')}**")
    ok, warn = ":material/check_circle:", ":material/warning:"
    sums = row_sums(trace)[0, head]  # (T,)
    dev = float((sums.double() - 1).abs().max())
    st.markdown(f"{ok if dev < 1e-5 else warn} " + tr("attn.check_rows", n=sums.numel(), dev=dev, head=head))
    n_masked, worst = masked_weights(trace)
    if trace.switches.causal_mask:
        value = tr("attn.check_masked_value") if worst == 0.0 else f"{worst:.3g}"
        st.markdown(f"{ok if worst == 0.0 else warn} " + tr("attn.check_masked", n=n_masked, value=value))
    else:
        st.markdown(f"{ok} " + tr("attn.check_no_mask"))
    diff = own_module_difference(tm, text, base.layer)
    st.markdown(f"{ok if diff < 1e-6 else warn} " + tr("attn.check_module", diff=diff))
    if not trace.switches.is_default:
        change = float((trace.state["out"] - base.state["out"]).abs().max())
        st.markdown(":material/info: " + tr("attn.check_changed", diff=change))
    sdpa = sdpa_switch_difference(trace)
    if sdpa is None:
        st.markdown(
            ":material/info: " + tr("attn.check_sdpa_edits" if trace.switches.edits else "attn.check_sdpa_uniform")
        )
    else:
        sw = trace.switches
        scale = 1.0 / (sw.divisor_for(trace.state["Q_h"].shape[-1]) * sw.temperature)
        st.markdown(
            f"{ok if sdpa < 1e-4 else warn} " + tr("attn.check_sdpa", causal=sw.causal_mask, scale=scale, diff=sdpa)
        )
    bad = non_finite(trace)
    st.markdown(
        f"{warn} " + tr("attn.check_not_finite", names=", ".join(bad)) if bad else f"{ok} " + tr("attn.check_finite")
    )


def show_prediction(tm: ModelRecord, text: str, layer: int, switches: Switches) -> None:
    """The whole model's next character after ``text``, its own and under the switches (in
    ``layer``), with the distribution over every character; the other positions are
    ``experiments_view.show_effects``'s."""
    effects = whatif_effects(tm, text, layer, switches)
    own, new = effects.own_probs, effects.new_probs  # (T, V)
    chars = list(tm.vocab.chars)
    a, b = int(effects.own_ids[-1]), int(effects.new_ids[-1])
    shown = text if len(text) <= 12 else "…" + text[-12:]
    if switches.is_default:
        st.markdown(tr("attn.pred_same", text=shown, own=chars[a], p=float(own[-1, a])))
    else:
        st.markdown(
            tr(
                "attn.pred_changed",
                text=shown,
                own=chars[a],
                p=float(own[-1, a]),
                new=chars[b],
                q=float(new[-1, b]),
                layer=layer,
            )
        )
    show_table(
        text_table(
            {
                tr("attn.pred_char"): chars,
                tr("attn.pred_own"): own[-1].tolist(),
                tr("attn.pred_new"): new[-1].tolist(),
                tr("attn.pred_diff"): (new[-1] - own[-1]).tolist(),
            },
            {
                tr("attn.pred_own"): format_probability,
                tr("attn.pred_new"): format_probability,
                tr("attn.pred_diff"): format_change,
            },
        ),
        hide_index=True,
    )


def zero_future(alpha: torch.Tensor) -> np.ndarray:
    """(T, T) booleans: future entries (j > i) that are exactly 0, i.e. hidden by a causal mask."""
    return to_numpy(future_mask(alpha.shape[-1])) & (to_numpy(alpha) == 0)


def what_if(base: AttentionTrace, switches: Switches) -> AttentionTrace:
    """``base`` under ``switches``, recomputed from the first step they change (no autograd)."""
    with torch.no_grad():
        return base.with_switches(switches)


def show_alpha_grid(
    alphas: torch.Tensor,
    panel_labels: Sequence[str],
    labels: Sequence[str],
    masked: torch.Tensor | None,
    *,
    header: str,
    key: str,
    caption: str = "",
) -> None:
    """Small multiples of α, (P, T, T), in an expander titled ``header`` (widget key ``key``),
    drawn only while it is open: one chart per panel in a row that wraps, so a row holds as many
    panels as the screen is wide (a phone shows two, a desktop a whole layer's heads). The colour
    legend is drawn once, with the last panel.

    Closed, the grid costs nothing: its P charts (P·T² cells: 131,072 for 8 heads of a
    128-character text) are most of what the page would draw, and the head grid would be redrawn
    on every move of a switch.
    """
    if not visible(key):  # a lesson link may leave the grid out
        return
    box = st.expander(header, key=key, on_change="rerun", icon=":material/grid_view:")
    if not box.open:
        return
    with box:
        if caption:
            st.caption(caption)
        panel = min(160, max(72, 24 * len(labels)))  # pixels per panel
        with st.container(horizontal=True, gap="small"):
            for p, label in enumerate(panel_labels):
                st.vega_lite_chart(
                    alpha_grid_spec(
                        alphas[p : p + 1],
                        [label],
                        labels,
                        labels,
                        masked=masked,
                        row_title=tr("attn.axis_query"),
                        col_title=tr("attn.axis_key"),
                        masked_label=tr("attn.masked"),
                        columns=1,
                        panel_size=panel,
                        legend=p == len(panel_labels) - 1,
                    ),
                    width="content",
                )
        # for slides: the whole grid as one figure (four panels a row)
        figure_downloads(
            alpha_grid_spec(
                alphas,
                list(panel_labels),
                labels,
                labels,
                masked=masked,
                row_title=tr("attn.axis_query"),
                col_title=tr("attn.axis_key"),
                masked_label=tr("attn.masked"),
                columns=min(4, len(panel_labels)),
                panel_size=panel,
            ),
            f"{key}_figure",
            header,
            file_stem=key.removeprefix("attn_"),
        )


def show_snapshots(tm: ModelRecord, layer: int, head: int) -> None:
    """ "How attention formed during training": α of the training text at the saved training steps
    (``ModelRecord.snapshots``: step -> (n_layers, h, T, T)), one step at a time over a slider;
    a note when the model has no snapshots."""
    st.subheader(tr("attn.snap_header"))
    if not tm.snapshots:
        st.info(tr("attn.snap_none"))
        return
    steps = sorted(tm.snapshots)
    drop_invalid_choice(K_SNAPSHOT, steps)
    st.session_state.setdefault(K_SNAPSHOT, steps[-1])
    chosen = (
        control(K_SNAPSHOT, lambda: st.select_slider(tr("attn.snap_step"), steps, key=K_SNAPSHOT), steps[-1])
        if len(steps) > 1
        else steps[0]
    )
    alpha = tm.snapshots[chosen][layer, head]  # (T, T)
    text = snapshot_text(tm.text, alpha.shape[-1])
    labels = [f"{i} {c}" for i, c in enumerate(text)]
    st.caption(tr("attn.snap_caption", text=text, step=chosen, layer=layer, head=head))
    spec = heatmap_spec(
        alpha,
        labels,
        labels,
        kind="prob",
        masked=zero_future(alpha),
        row_title=tr("attn.axis_query"),
        col_title=tr("attn.axis_key"),
        value_title="α",
        masked_label=tr("attn.masked"),
    )
    st.vega_lite_chart(spec, width="content")
    figure_downloads(
        spec,
        "attn_snapshot_figure",
        tr("attn.snap_caption", text=text, step=chosen, layer=layer, head=head),
        file_stem=f"attention_training_step{chosen}_layer{layer}_head{head}",
    )
