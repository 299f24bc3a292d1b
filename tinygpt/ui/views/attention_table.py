"""The Attention page's table of state (``tinygpt.ui.frame.controls``): each control's key, default,
lesson label and URL row. The page's modules read the keys as ``state.K_*``
(``tinygpt.ui.attention.state``, which adds the URL rows that need the step registry or a decoder:
``step``, ``edits``, ``part``). ``off``, ``uniform``, ``layers`` and ``guess`` are in the URL only while set.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from tinygpt.config import OWN_TEMPERATURE
from tinygpt.formatting import number, shown_text
from tinygpt.numbers import read_choice
from tinygpt.params import (
    read_choice_of,
    read_flag,
    read_heads,
    read_index,
    read_scale,
    read_text,
    read_uniform,
    write_flag,
    write_heads,
    write_scale,
)
from tinygpt.ui.frame import url
from tinygpt.ui.frame.controls import BY_PAGE, UNSET, Switch, control, table
from tinygpt.ui.frame.language import tr

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
SCALINGS: tuple[str, ...] = ("sqrt", "one", "custom")
#: Uniform attention: every head of the chosen layer, or only the chosen head.
UNIFORM_SCOPES: tuple[str, ...] = ("layer", "head")
#: Where the first view's switches (mask, uniform attention, τ) act: the chosen layer, or every layer.
SCOPES: tuple[str, ...] = ("layer", "all")
#: ``layers=`` in a link: its words and the scope each names.
SCOPE_WORDS: dict[str, str] = {"all": "all", "every": "all", "one": "layer", "layer": "layer"}

K_TEXT, K_LAYER, K_HEAD, K_STEP = "attn_text", "attn_layer", "attn_head", "attn_step"
K_MASK, K_SCALING, K_DIVISOR, K_TAU = "attn_mask", "attn_scaling", "attn_divisor", "attn_temperature"
K_HEADS_OFF, K_UNIFORM, K_UNIFORM_SCOPE = "attn_heads_off", "attn_uniform", "attn_uniform_scope"
K_SCOPE = "attn_scope"
#: ``K_EDITS``: the session's score edits {(layer, head, i, j): score}, started by ``edits=``.
K_RESET, K_GUESS, K_EDITING, K_EDITS = "attn_reset", "attn_guess", "attn_editing", "attn_edit_scores"
K_CELL_I, K_CELL_J, K_OUTPUT, K_ALL_COLUMNS = "attn_cell_i", "attn_cell_j", "attn_output", "attn_all_columns"
K_SNAPSHOT, K_MARKS, K_CHECK = "attn_snapshot", "attn_marks", "attn_check"
# expanders whose content is drawn only while open (their open state is the session value)
K_DETAILS, K_SOURCE, K_HEADS, K_LENS = "attn_details", "attn_source", "attn_heads", "attn_lens"
K_HEADS_GRID, K_LAYERS_GRID = "attn_heads_grid", "attn_layers_grid"
#: More controls; a step's table; the checks and the code of a step; the training snapshots.
K_MORE, K_TABLE, K_CURIOUS, K_TRAINING = "attn_more", "attn_table_open", "attn_curious", "attn_training"
#: The score editor's cell pickers and the prefix of its number inputs' keys (one per layer, head and cell).
K_EDIT_I, K_EDIT_J, K_EDIT_VALUE = "attn_edit_i", "attn_edit_j", "attn_edit_value"


def _tau(raw: str, notes: list[str]) -> dict[str, Any]:
    value, snapped = read_choice_of(raw, TEMPERATURES, "tau")
    if snapped:
        notes.append(tr("attn.url_snap_tau", value=shown_text(raw), used=value))
    return {K_TAU: value}


def _scale(raw: str, notes: list[str]) -> dict[str, Any]:
    scaling, number = read_scale(raw, MIN_DIVISOR, MAX_DIVISOR)
    return {K_SCALING: scaling} | ({K_DIVISOR: number} if number is not None else {})


def _uniform(raw: str, notes: list[str]) -> dict[str, Any]:
    mode = read_uniform(raw)
    return {K_UNIFORM: False} if mode == "none" else {K_UNIFORM: True, K_UNIFORM_SCOPE: mode}


def _scope(cfg) -> url.Param:
    """``layers=all`` while the switches act in every layer (left out for the chosen layer only)."""
    read = partial(read_choice, name="layers", choices=SCOPE_WORDS)
    return url.field("layers", K_SCOPE, read, lambda v: "all" if v == "all" else None)


def _flag(name: str, key: str, write=write_flag):
    return lambda cfg: url.field(name, key, partial(read_flag, name=name), write)


def _index(name: str, key: str, count: str):
    return lambda cfg: url.field(name, key, partial(read_index, name=name, count=getattr(cfg, count)))


def _on_off(name: str):
    return lambda on, values: tr("attn.lesson_switch", name=tr(name), value=tr(f"attn.lesson_{'on' if on else 'off'}"))


def _heads(heads) -> str:
    return ", ".join(str(number(h)) for h in sorted(heads))


def _said_off(heads, values) -> str:
    name = tr("attn.heads_off", layer=number(values.get(K_LAYER, 0)))
    return tr("attn.lesson_switch", name=name, value=_heads(heads))


def _said_scale(scaling, values) -> str:
    return f"{tr('attn.scaling')} { ({'one': 1.0}.get(scaling) or values.get(K_DIVISOR, 1.0)):g}"


#: The switches: how each is named when set away from the model's own (``tinygpt.ui.frame.controls.Switch``).
#: ``led``: the teacher's lead form sets them for a class (a toggle, or a slider over ``options``).
MASK = Switch(
    _on_off("attn.mask"), lambda on: tr("why.how.mask_on" if on else "why.how.mask_off"), always=True, led=True
)
UNIFORM = Switch(_on_off("attn.uniform"), lambda on: tr("why.how.uniform"), led=True)
TAU = Switch(lambda tau, values: f"τ = {tau:g}", lambda tau: tr("why.how.tau", tau=tau), led=True, options=TEMPERATURES)
HEADS_OFF = Switch(
    _said_off, lambda heads: tr("why.how.off", heads=_heads(heads)), lambda v: sorted(v.get(K_HEADS_OFF) or [])
)
SCALING = Switch(_said_scale)
EDITING = Switch(
    lambda on, values: tr("attn.lesson_edits", n=len(values.get(K_EDITS) or {})),
    value=lambda v: bool(v.get(K_EDITING) and v.get(K_EDITS)),
)

#: The page's controls; a URL row is a function of the shown model's config (``GPTConfig``).
ATTENTION = table(
    control(K_TEXT, BY_PAGE, "attn.text", lambda cfg: url.field("text", K_TEXT, read_text)),  # state.own_text
    control(K_STEP, BY_PAGE, "attn.step"),  # the first step (tinygpt.attention.STEP_IDS); its row: state.url_params
    control(K_MASK, lambda record: record.train_cfg.causal_mask, "attn.mask", _flag("mask", K_MASK), MASK),
    control(
        K_UNIFORM,
        False,
        "attn.uniform",
        lambda cfg: url.Param("uniform", _uniform, lambda ss: ss[K_UNIFORM_SCOPE] if ss[K_UNIFORM] else None),
        UNIFORM,
    ),
    control(K_UNIFORM_SCOPE, "layer", "attn.uniform_scope"),
    control(K_SCOPE, "layer", "attn.scope", _scope),
    control(
        K_TAU, OWN_TEMPERATURE, "attn.temperature", lambda cfg: url.Param("tau", _tau, lambda ss: f"{ss[K_TAU]:g}"), TAU
    ),
    control(
        K_HEADS_OFF,
        [],
        "attn.heads_off",
        lambda cfg: url.field("off", K_HEADS_OFF, partial(read_heads, n_heads=cfg.n_heads), write_heads),
        HEADS_OFF,
        layer="ℓ",
    ),
    control(K_LAYER, 0, "attn.layer", _index("layer", K_LAYER, "n_layers")),
    control(K_HEAD, BY_PAGE, "attn.head", _index("head", K_HEAD, "n_heads")),  # state.opening_head
    control(
        K_SCALING,
        "sqrt",
        "attn.scaling",
        lambda cfg: url.Param("scale", _scale, lambda ss: write_scale(ss[K_SCALING], ss.get(K_DIVISOR, 1.0))),
        SCALING,
    ),
    control(K_DIVISOR, lambda record: math.sqrt(record.gpt_cfg.d_head), "attn.scale_value"),
    control(K_EDITING, False, "attn.edit_header", switch=EDITING, layer="ℓ", head="h"),
    control(K_EDITS, {}),
    control(K_OUTPUT, UNSET, "attn.output"),
    control(K_CELL_I, UNSET, "attn.cell_row"),
    control(K_CELL_J, UNSET, "attn.cell_col"),
    control(K_ALL_COLUMNS, False, "attn.all_columns", D="d_model"),
    control(K_HEADS_GRID, UNSET, "attn.heads_header", layer="ℓ"),
    control(K_LAYERS_GRID, UNSET, "attn.layers_header", head="h"),
    control(K_SNAPSHOT, UNSET, "attn.snap_step"),
    control(K_DETAILS, UNSET, "attn.effect.details"),
    control(K_RESET, UNSET, "attn.reset"),
    control(K_GUESS, False, "attn.guess", _flag("guess", K_GUESS, lambda on: "1" if on else None)),
    control(K_SOURCE, UNSET, "attn.source", path="tinygpt/attention.py", first="…", last="…"),
    control(K_HEADS, UNSET, "attn.exp.heads_header"),
    control(K_LENS, UNSET, "attn.exp.lens_header"),
    control(K_MARKS, UNSET, "attn.marks.label"),
    control(K_CHECK, UNSET, "check.header"),
    control(K_MORE),
    control(K_TABLE),
    control(K_CURIOUS),
    control(K_TRAINING),
    control(K_EDIT_I),
    control(K_EDIT_J),
)
#: The switches "own attention" returns to their defaults (the mask: to the one the model trained with).
#: The switches of the table, and the score edits the editing switch holds.
RESET: tuple[str, ...] = (*(k for k, row in ATTENTION.items() if row.switch is not None and k != K_MASK), K_EDITS)
