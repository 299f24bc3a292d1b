"""Streamlit helpers of the attention page: the URL, cached runs, fast tables, drawing a step.

The page (``pages/attention.py``) reads widgets and calls these; the numbers come from
``tinygpt.attention`` (the steps the model runs) through ``tinygpt.explain`` (the walk over the
blocks, the checks, the arithmetic of a cell) and the charts from ``tinygpt.charts``.

URL query parameters (DEVELOPERS.md, "Links between pages"): ``text``, ``layer``, ``head``,
``step`` (a step id), ``mask`` (1/0), ``scale`` (``sqrt``, ``1`` or a number) and ``tau``, and
the ablation switches ``off`` (heads switched off, e.g. ``0,1``) and ``uniform`` (``head`` or
``layer``), written only when set. They are read into the widgets when the page opens (or the
link changes) and written back on every run, so the address bar always reproduces the view.

Shapes: T sequence length, h n_heads, d_head, D d_model, V vocab_size.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st
import torch

from tinygpt.arrays import to_numpy
from tinygpt.attention import STEP_IDS, STEPS, AttentionTrace, Step, Switches, future_mask, step_by_id
from tinygpt.charts import heatmap_spec
from tinygpt.config import GPTConfig
from tinygpt.explain import (
    Copy, DotProduct, PositionEffects, ScoreCell, Walk, explain_cell, masked_weights, module_difference, non_finite,
    position_effects, row_sums, sdpa_switch_difference, step_source_location, walk,
)
from tinygpt.train import TrainedModel
from tinygpt.ui.common import keep_radio_choice
from tinygpt.ui.i18n import tr
from tinygpt.ui.models import attention_trace

#: Softmax temperatures offered by the slider (log-spaced: τ spans orders of magnitude).
TEMPERATURES: tuple[float, ...] = (
    1e-4, 1e-3, 0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 100.0, 1000.0,
)
MIN_DIVISOR, MAX_DIVISOR = 0.01, 1000.0
#: Largest |score| the editor accepts (raw scores of the seed model are within about ±20).
MAX_EDIT = 10_000.0
SCALINGS: tuple[str, ...] = ("sqrt", "one", "custom")
URL_KEYS: tuple[str, ...] = ("text", "layer", "head", "step", "mask", "scale", "tau")
#: Parameters of the ablation switches: in the URL only while the switch is set.
ABLATION_URL_KEYS: tuple[str, ...] = ("off", "uniform")
#: Uniform attention: none, the chosen head, or every head of the chosen layer.
UNIFORM_MODES: tuple[str, ...] = ("none", "head", "layer")
_UNIFORM_WORDS = {"none": "none", "0": "none", "off": "none", "head": "head", "1": "head", "layer": "layer",
                  "all": "layer"}
_WRITTEN = "_attn_url_written"

K_TEXT, K_LAYER, K_HEAD, K_STEP = "attn_text", "attn_layer", "attn_head", "attn_step"
K_MASK, K_SCALING, K_DIVISOR, K_TAU = "attn_mask", "attn_scaling", "attn_divisor", "attn_temperature"
K_CELL_I, K_CELL_J, K_OUTPUT, K_EDITING = "attn_cell_i", "attn_cell_j", "attn_output", "attn_editing"
K_SNAPSHOT = "attn_snapshot"
K_HEADS_OFF, K_UNIFORM = "attn_heads_off", "attn_uniform"
K_ALL_COLUMNS = "attn_all_columns"
#: Steps whose (T, D) output splits by head: the heatmap shows the selected head's d_head columns
#: unless the student asks for all D (a T × 512 heatmap is ~2,000 SVG cells, about 0.4 s of drawing).
HEAD_COLUMN_STEPS = ("projection", "merge_heads")


# ---------------------------------------------------------------- URL <-> widgets


def parse_url(params: Mapping[str, str], n_layers: int, n_heads: int) -> tuple[dict[str, object], list[tuple[str, str]]]:
    """Widget values from the URL's query parameters, and the problems found.

    Args:
        params: the attention parameters present in the URL (strings).
        n_layers, n_heads: of the current model (a layer or head outside them falls back to 0).
    Returns:
        (values keyed by widget key, [(parameter, given value)] of every value refused; a refused
        value falls back to the default: layer/head 0, the first step, mask on, √d_head, τ = 1).
        ``tau`` between two slider values is moved to the nearest (in log scale) without a problem
        when it is within 1 %, with one otherwise.
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
        if raw in STEP_IDS:
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
                problems.append(("tau", params["tau"]))
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


def url_values(text: str, layer: int, head: int, step: str, mask: bool, scaling: str, divisor: float,
               temperature: float, heads_off: Sequence[int] = (), uniform: str = "none") -> dict[str, str]:
    """The query parameters that reproduce a view (the inverse of :func:`parse_url`); ``off`` and
    ``uniform`` only when they are set."""
    scale = {"sqrt": "sqrt", "one": "1"}.get(scaling, f"{divisor:g}")
    values = {"text": text, "layer": str(layer), "head": str(head), "step": step, "mask": "1" if mask else "0",
              "scale": scale, "tau": f"{temperature:g}"}
    if heads_off:
        values["off"] = ",".join(str(h) for h in sorted(heads_off))
    if uniform != "none":
        values["uniform"] = uniform
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
    params = {k: st.query_params[k] for k in URL_KEYS + ABLATION_URL_KEYS if k in st.query_params}
    fresh = K_TEXT not in st.session_state  # the page was just opened: its widgets have no state
    messages: list[str] = []
    if params and (fresh or params != st.session_state.get(_WRITTEN)):
        values, problems = parse_url(params, n_layers, n_heads)
        for key, value in values.items():
            st.session_state[key] = value
        for name, given in problems:
            last = {"layer": n_layers - 1, "head": n_heads - 1, "off": n_heads - 1}.get(name, 0)
            messages.append(tr(f"attn.url_bad_{name}", value=given, last=last,
                               steps=", ".join(STEP_IDS), lo=TEMPERATURES[0], hi=TEMPERATURES[-1],
                               used=st.session_state.get(K_TAU, 1.0)))
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


def write_url(values: Mapping[str, str]) -> None:
    """Keep the address bar equal to the view (only changed parameters are written)."""
    for key, value in values.items():
        if st.query_params.get(key) != value:
            st.query_params[key] = value
    for key in ABLATION_URL_KEYS:  # a switch set back to off leaves the URL
        if key not in values and key in st.query_params:
            del st.query_params[key]
    st.session_state[_WRITTEN] = dict(values)


def drop_invalid_choice(key: str, options: Sequence[object]) -> None:
    """Forget a widget's remembered value when it is no longer among its options."""
    if key in st.session_state and st.session_state[key] not in options:
        del st.session_state[key]


def move_step(delta: int) -> None:
    """Button callback: go ``delta`` steps forward or back (clamped to the first and last step)."""
    current = st.session_state.get(K_STEP, STEP_IDS[0])
    index = STEP_IDS.index(current) if current in STEP_IDS else 0
    st.session_state[K_STEP] = STEP_IDS[min(max(index + delta, 0), len(STEP_IDS) - 1)]


def reset_switches() -> None:
    """Button callback: the model's own attention again (mask on, √d_head, τ = 1, no edits, every
    head on, no uniform attention)."""
    st.session_state[K_MASK] = True
    st.session_state[K_SCALING] = "sqrt"
    st.session_state[K_TAU] = 1.0
    st.session_state[K_HEADS_OFF] = []
    st.session_state[K_UNIFORM] = "none"
    st.session_state[K_EDITING] = False
    for key in [k for k in st.session_state if str(k).startswith("attn_edit_")]:
        del st.session_state[key]


# ---------------------------------------------------------------- cached walks
# Each takes the model once: Streamlit hashes a TrainedModel by its uid.

_BY_UID = {TrainedModel: lambda tm: tm.uid}


@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=_BY_UID)
def cached_walk(tm: TrainedModel, text: str) -> Walk:
    """The model's own walk over ``text`` (α of every layer, logits), cached per model and text."""
    return walk(tm.model, tm.vocab.encode(text)[None])


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def whatif_effects(tm: TrainedModel, text: str, layer: int, switches: Switches) -> PositionEffects:
    """The prediction at every position with ``switches`` in ``layer`` only, against the model's own.

    The whole model runs (later layers see the changed layer's output). Cached per model, text,
    layer and switches.
    """
    return position_effects(tm.model, tm.vocab.encode(text)[None], {layer: switches}, cached_walk(tm, text))


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def own_module_difference(tm: TrainedModel, text: str, layer: int) -> float:
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
    pandas frame costs ~50 ms to convert on every rerun, this ~5 ms. Values are float32.
    """
    arr = to_numpy(values, floats=True).astype(np.float32, copy=False)
    schema = _schema(tuple(col_labels))
    cols = np.ascontiguousarray(arr.T)  # (C, R)
    arrays = [pa.array(c) for c in cols] + [pa.array(list(row_labels), type=schema.field(len(col_labels)).type)]
    return pa.Table.from_arrays(arrays, schema=schema)


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


def cell_latex(expl: ScoreCell | DotProduct | Copy, name: str, i: int, j: int, shown: int = 3,
               row_shown: int = 6) -> list[tuple[str, dict[str, object], str]]:
    """The arithmetic of one cell as (caption i18n key, caption fields, LaTeX) lines.

    A :class:`ScoreCell` gives q_i·k_j (the first ``shown`` products, "⋯", the sum over d_head),
    the division by the divisor, the mask, and the softmax of row i (the row maximum, exp of up to
    ``row_shown`` entries, their sum, the division) — or, for a head made uniform, 1/(number of
    keys the mask allows); a :class:`DotProduct` its products and sum, then 0 when the step set
    the entry to 0 (a head switched off); a :class:`Copy` where the number was copied from.
    """
    if isinstance(expl, Copy):
        index = ", ".join(str(k) for k in expl.index)
        return [("attn.cell_copy", {}, rf"\mathrm{{{name}}}[{i}, {j}] = \mathrm{{{expl.source}}}[{index}] = {_num(expl.value)}")]
    if isinstance(expl, DotProduct):
        lines = [("attn.cell_dot", {"shown": min(shown, len(expl.a)), "n": len(expl.a)},
                  rf"\mathrm{{{name}}}[{i}, {j}] = {expl.a_name} \cdot {expl.b_name} = "
                  rf"{_terms(expl.a, expl.b, shown)} = {_num(expl.total)}")]
        # The entry the trace holds is 0 although the product is not: the step zeroed it
        # afterwards (weighted_sum with the head in Switches.heads_off).
        if expl.value == 0.0 and not math.isclose(expl.total, 0.0, abs_tol=1e-12):
            lines.append(("attn.cell_head_off", {}, rf"\mathrm{{{name}}}[{i}, {j}] := 0"))
        return lines
    c = expl
    d = len(c.dot.a)
    lines = [("attn.cell_dot", {"shown": min(shown, d), "n": d},
              rf"S_{{{i},{j}}} = q_{{{i}}} \cdot k_{{{j}}} = {_terms(c.dot.a, c.dot.b, shown)} = {_num(c.dot.total)}")]
    if c.edited:
        lines.append(("attn.cell_edited", {}, rf"S_{{{i},{j}}} := {_num(c.raw)}"))
    divisor = rf"\sqrt{{{d}}}" if math.isclose(c.divisor, math.sqrt(d)) else _num(c.divisor)
    lines.append(("attn.cell_scale", {}, rf"\tilde S_{{{i},{j}}} = \dfrac{{{_num(c.raw)}}}{{{divisor}}} = {_num(c.scaled)}"))
    if c.masked:
        lines.append(("attn.cell_masked", {}, rf"{j} > {i} \Rightarrow \tilde S_{{{i},{j}}} = -\infty"))
    T = len(c.row)
    if c.uniform:  # Switches.uniform_heads: α ignores the scores, 1/n over the n keys the mask allows
        n = sum(1 for v in c.row if not (math.isinf(v) and v < 0))
        value = rf"\dfrac{{1}}{{{n}}} = {_num(c.alpha[j])}" if not c.masked else _num(c.alpha[j])
        lines.append(("attn.cell_uniform_masked" if c.masked else "attn.cell_uniform", {"n": n},
                      rf"\alpha_{{{i},{j}}} = {value}"))
        return lines
    tau = "" if c.temperature == 1.0 else rf"/{_num(c.temperature)}"
    ks = list(range(min(T, row_shown)))
    if j not in ks:
        ks[-1] = j
    exps = r",\ ".join(rf"e_{{{k}}} = {_num(c.exps[k])}" for k in ks) + (r",\ \ldots" if T > len(ks) else "")
    lines.append(("attn.cell_max", {}, rf"m = \max_k \tilde S_{{{i},k}} = {_num(c.row_max)}"))
    row_masked = any(math.isinf(v) and v < 0 for v in c.row)  # no −∞ in the row: the mask is off (or i is last)
    lines.append(("attn.cell_exp" if row_masked else "attn.cell_exp_unmasked", {"tau": c.temperature},
                  rf"e_k = \exp\big((\tilde S_{{{i},k}} - m){tau}\big):\ {exps}"))
    lines.append(("attn.cell_sum", {"n": T}, rf"\sum_k e_k = {_num(c.exp_sum)}"))
    lines.append(("attn.cell_alpha", {}, rf"\alpha_{{{i},{j}}} = \dfrac{{e_{{{j}}}}}{{\sum_k e_k}} = "
                  rf"\dfrac{{{_num(c.exps[j])}}}{{{_num(c.exp_sum)}}} = {_num(c.alpha[j])}"))
    return lines


def edits_from_editor(original: pd.DataFrame, edited: pd.DataFrame, head: int) -> tuple[tuple[tuple[int, int, int, float], ...], list[str]]:
    """Score edits (head, i, j, value) where the data editor differs from the scores it was given.

    Returns (edits, labels of cells left empty, not finite or beyond ±MAX_EDIT, which are ignored).
    """
    before = original.to_numpy(dtype=np.float64)
    after = edited.to_numpy(dtype=np.float64, na_value=np.nan)
    edits, bad = [], []
    for i, j in zip(*np.nonzero(~(after == before))):
        value = after[i, j]
        if math.isfinite(value) and abs(value) <= MAX_EDIT:
            edits.append((head, int(i), int(j), float(value)))
        else:
            bad.append(f"({original.index[i]}, {original.columns[j]})")
    return tuple(edits), bad


def snapshot_text(text: str, T: int) -> str:
    """The training window a snapshot's α belongs to: the training text read as a cycle, T long."""
    return (text * (T // max(len(text), 1) + 1))[:T]


# ---------------------------------------------------------------- drawing


def set_defaults(text: str, sqrt_d_head: float) -> None:
    """Default widget values (set in session state, so widgets never get a second default)."""
    for key, value in ((K_TEXT, text), (K_LAYER, 0), (K_HEAD, 0), (K_STEP, STEP_IDS[0]), (K_MASK, True),
                       (K_SCALING, "sqrt"), (K_DIVISOR, float(sqrt_d_head)), (K_TAU, 1.0), (K_HEADS_OFF, []),
                       (K_UNIFORM, "none")):
        st.session_state.setdefault(key, value)


def step_nav(step_labels: Mapping[str, str]) -> Step:
    """Previous / next buttons around a direct choice of the steps; returns the chosen step."""
    drop_invalid_choice(K_STEP, STEP_IDS)
    index = STEP_IDS.index(st.session_state.get(K_STEP, STEP_IDS[0]))
    keep_radio_choice(K_STEP)
    chosen = st.radio(tr("attn.step"), STEP_IDS, format_func=step_labels.get, horizontal=True, key=K_STEP)
    left, right, _ = st.columns([1, 1, 5])
    left.button(tr("attn.prev"), icon=":material/arrow_back:", on_click=move_step, args=(-1,), disabled=index == 0,
                key="attn_prev", width="stretch")
    right.button(tr("attn.next"), icon=":material/arrow_forward:", on_click=move_step, args=(1,),
                 disabled=index == len(STEP_IDS) - 1, key="attn_next", width="stretch")
    return step_by_id(chosen)


def score_editor(base: AttentionTrace, layer: int, head: int, labels: Sequence[str]) -> tuple[tuple[int, int, int, float], ...]:
    """A toggle, and when it is on a data editor over the raw scores S of one head (the model's
    own, layer ``layer``); returns the edits (none while the toggle is off)."""
    if not st.toggle(tr("attn.edit_header", layer=layer, head=head), help=tr("attn.edit_help"), key=K_EDITING):
        return ()
    st.caption(tr("attn.edit_help"))
    frame = pd.DataFrame(to_numpy(base.state["S"][0, head]), index=list(labels), columns=list(labels))
    number = st.column_config.NumberColumn(min_value=-MAX_EDIT, max_value=MAX_EDIT, format="%.4f")
    edited = st.data_editor(frame, key=f"attn_edit_l{layer}_h{head}", num_rows="fixed",
                            column_config={c: number for c in frame.columns})
    edits, bad = edits_from_editor(frame, edited, head)
    if edits:
        cells = ", ".join(f"S[{i}, {j}] = {v:.4g}" for _, i, j, v in edits)
        st.caption(tr("attn.edit_count", n=len(edits), cells=cells))
    if bad:
        st.warning(tr("attn.edit_bad", cells=", ".join(bad), limit=f"{MAX_EDIT:g}"))
    return edits


def show_step(trace: AttentionTrace, step: Step, head: int, labels: Sequence[str], cfg: GPTConfig,
              future: torch.Tensor | None) -> None:
    """One step: formula, shapes, table + heatmap + CSV, the arithmetic of a picked cell, its code.

    ``future``: the (T, T) causal triangle drawn as masked on the softmax step, or None.
    """
    T = len(labels)
    st.subheader(tr("attn.step_header", number=step.number, n=len(STEPS), name=tr(f"step.{step.id}.name")))
    st.latex(step.formula)
    if step.id == "mask" and not trace.switches.causal_mask:
        st.info(tr("attn.mask_off_note"))
    sizes = {"B": 1, "T": T, "h": cfg.n_heads, "d_head": cfg.d_head, "d_model": cfg.d_model}
    concrete = f"({', '.join(str(n) for n in step.sized(sizes))})"
    st.markdown(tr("attn.shape", symbolic=step.shape_text, concrete=concrete))
    output = 0
    if len(step.outputs) > 1:
        drop_invalid_choice(K_OUTPUT, step.outputs)
        name = st.segmented_control(tr("attn.output"), step.outputs, key=K_OUTPUT, default=step.outputs[0])
        output = step.outputs.index(name) if name in step.outputs else 0
    name = step.outputs[output]
    m = trace.step_tensor(step, head, output)  # (T, T), (T, d_head) or (T, D)
    head_part = tr("attn.head_part", head=head) if step.per_head else ""
    st.caption(tr("attn.d_head", d_model=cfg.d_model, h=cfg.n_heads, d_head=cfg.d_head, head_part=head_part,
                  rows=m.shape[0], cols=m.shape[1]))
    if step.id == "scale":
        sw = trace.switches
        st.caption(tr("attn.divisor_now", divisor=f"√{cfg.d_head} = {math.sqrt(cfg.d_head):g}" if sw.divisor is None else f"{sw.divisor:g}"))
    if step.id == "softmax":
        st.caption(tr("attn.tau_now", tau=trace.switches.temperature))
    cols = list(labels) if step.square else [str(j) for j in range(m.shape[1])]
    title = f"{name} · {tr('attn.panel_head', h=head)}" if step.per_head else name
    wide = m.shape[1] > 16  # up to 640 px of heatmap: the table above it, each the page width (beside it, it ran off the page)
    left, right = (st.container(), st.container()) if wide else st.columns([1, 1])
    with left:
        st.markdown(f"**{tr('attn.table', name=title)}**")
        st.dataframe(matrix_table(m, labels, cols), width="stretch", height=min(400, 38 + 35 * T))
        st.download_button(tr("attn.download"), lambda: matrix_csv(m, labels, cols), icon=":material/download:",
                           file_name=f"attention_{step.number}_{step.id}_{name}_layer{trace.layer}_head{head}.csv",
                           mime="text/csv", on_click="ignore", key="attn_download")
    with right:
        masked = future if step.id == "softmax" else None
        heat, heat_cols, heat_title = m, cols, title
        if wide and step.id in HEAD_COLUMN_STEPS and cfg.n_heads > 1:
            if not st.toggle(tr("attn.all_columns", D=m.shape[1]), help=tr("attn.all_columns_help", h=head), key=K_ALL_COLUMNS):
                first = head * cfg.d_head
                heat, heat_cols = m[:, first:first + cfg.d_head], cols[first:first + cfg.d_head]
                heat_title = f"{name}[:, {first}:{first + cfg.d_head}] · {tr('attn.panel_head', h=head)}"
        st.vega_lite_chart(heatmap_spec(
            heat, labels, heat_cols, kind="prob" if name == "alpha" else "signed", title=heat_title, masked=masked,
            row_title=tr("attn.axis_query") if step.square else tr("attn.axis_pos"),
            col_title=tr("attn.axis_key") if step.square else tr("attn.axis_dim"),
            value_title="α" if name == "alpha" else tr("attn.value"), masked_label=tr("attn.masked"),
        ), width="content")
    show_cell(trace, step, head, output, labels, cols)
    path, first, last = step_source_location(step)
    source = st.expander(tr("attn.source", path=path, first=first, last=last), key="attn_source", on_change="rerun")
    if source.open:  # drawn only when opened: highlighting the code is a large part of the page's drawing
        with source:
            st.code(step.source(), language="python")


def show_cell(trace: AttentionTrace, step: Step, head: int, output: int, labels: Sequence[str],
              cols: Sequence[str]) -> None:
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
    a, b, _ = st.columns([1, 1, 4])
    i = a.selectbox(tr("attn.cell_row"), rows, format_func=row_names.get, key=K_CELL_I)
    j = b.selectbox(tr("attn.cell_col"), columns, format_func=col_names.get, key=K_CELL_J)
    expl = explain_cell(trace, step, head, i, j, output)
    st.markdown("  \n".join(f"{tr(key, **fields)} ${latex}$" for key, fields, latex in cell_latex(expl, step.outputs[output], i, j)))


def show_checks(tm: TrainedModel, text: str, base: AttentionTrace, trace: AttentionTrace, head: int) -> None:
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
        st.markdown(":material/info: " + tr("attn.check_sdpa_edits" if trace.switches.edits else "attn.check_sdpa_uniform"))
    else:
        sw = trace.switches
        scale = 1.0 / (sw.divisor_for(trace.state["Q_h"].shape[-1]) * sw.temperature)
        st.markdown(f"{ok if sdpa < 1e-4 else warn} " + tr("attn.check_sdpa", causal=sw.causal_mask, scale=scale, diff=sdpa))
    bad = non_finite(trace)
    st.markdown(f"{warn} " + tr("attn.check_not_finite", names=", ".join(bad)) if bad else f"{ok} " + tr("attn.check_finite"))


def show_prediction(tm: TrainedModel, text: str, layer: int, switches: Switches) -> None:
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
        st.markdown(tr("attn.pred_changed", text=shown, own=chars[a], p=float(own[-1, a]), new=chars[b],
                       q=float(new[-1, b]), layer=layer))
    st.dataframe(pd.DataFrame({
        tr("attn.pred_char"): chars, tr("attn.pred_own"): to_numpy(own[-1]), tr("attn.pred_new"): to_numpy(new[-1]),
        tr("attn.pred_diff"): to_numpy(new[-1] - own[-1]),
    }), hide_index=True, width="stretch")


def zero_future(alpha: torch.Tensor) -> np.ndarray:
    """(T, T) booleans: future entries (j > i) that are exactly 0, i.e. hidden by a causal mask."""
    return to_numpy(future_mask(alpha.shape[-1])) & (to_numpy(alpha) == 0)


def what_if(base: AttentionTrace, switches: Switches) -> AttentionTrace:
    """``base`` under ``switches``, recomputed from the first step they change (no autograd)."""
    with torch.no_grad():
        return base.with_switches(switches)


def grid_columns(panels: int, panel_size: int, width: int = 1000) -> int:
    """Columns of small multiples: as many as fit ``width`` pixels (each panel plus ~40 px of
    axis), balanced so the rows are equally full (8 panels that fit 7 a row give 2 rows of 4)."""
    fit = max(1, min(panels, width // (panel_size + 40)))
    rows = math.ceil(panels / fit)
    return math.ceil(panels / rows)


def show_snapshots(tm: TrainedModel, layer: int, head: int) -> None:
    """"How attention formed during training": α of the training text at the saved training steps
    (``TrainedModel.snapshots``: step -> (n_layers, h, T, T)), one step at a time over a slider.
    Draws nothing when the model has no snapshots."""
    if not tm.snapshots:
        return
    st.subheader(tr("attn.snap_header"))
    steps = sorted(tm.snapshots)
    drop_invalid_choice(K_SNAPSHOT, steps)
    st.session_state.setdefault(K_SNAPSHOT, steps[-1])
    chosen = st.select_slider(tr("attn.snap_step"), steps, key=K_SNAPSHOT) if len(steps) > 1 else steps[0]
    alpha = tm.snapshots[chosen][layer, head]  # (T, T)
    text = snapshot_text(tm.text, alpha.shape[-1])
    labels = [f"{i} {c}" for i, c in enumerate(text)]
    st.caption(tr("attn.snap_caption", text=text, step=chosen, layer=layer, head=head))
    st.vega_lite_chart(heatmap_spec(
        alpha, labels, labels, kind="prob", masked=zero_future(alpha), row_title=tr("attn.axis_query"),
        col_title=tr("attn.axis_key"), value_title="α", masked_label=tr("attn.masked"),
    ), width="content")
