"""Every page's controls in one table each: the session key, the default and the lesson label.

A page's widgets keep their values in the session under these keys (``persist_state="session"``);
the page puts each default in the session once before its widgets (:func:`put_defaults`) and never
passes it as a widget's ``value=``. A control with a label is lockable: a teacher's lesson link may
show or hide it (``tinygpt.ui.lesson.LESSON_CONTROLS`` is :func:`lockable` of these tables), and
the lesson builder names it by that label.

The URL rows that read and write these keys are in each page's state module, beside the code that
checks them: ``tinygpt.ui.predict_view``, ``tinygpt.ui.attention.state``, ``tinygpt.ui.train_url``,
``tinygpt.ui.theory_state`` (rows of ``tinygpt.ui.url``).

This module imports nothing heavy (no torch): the lesson and the navigation read it before a page runs.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import streamlit as st

if TYPE_CHECKING:
    from tinygpt.record import ModelRecord


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: The default of a control whose value the session does not keep before the widget sets it (a
#: button, a picker the page clamps itself, a section the student opens).
UNSET = _Marker("UNSET")
#: The default the page's state module computes from the model (it needs more than this module imports).
BY_PAGE = _Marker("BY_PAGE")


@dataclass(frozen=True)
class Control:
    """One control of a page.

    Attributes:
        key: the session key (and the widget's ``key=``); a lesson link names the control by it.
        default: the value the page opens with: a value, a function of the shown model
            (``ModelRecord`` -> value), :data:`UNSET` or :data:`BY_PAGE`.
        label: the i18n key of the control's label; None for a control no lesson locks.
        fields: the label's fields as the lesson builder shows them.
    """

    key: str
    default: Any = UNSET
    label: str | None = None
    fields: Mapping[str, object] = field(default_factory=dict)


def control(key: str, default: Any = UNSET, label: str | None = None, **fields: object) -> Control:
    """A :class:`Control` row (the label's fields as keyword arguments)."""
    return Control(key, default, label, fields)


Table = dict[str, Control]


def table(*rows: Control) -> Table:
    """A page's table: key -> row, in the order of ``rows``."""
    return {row.key: row for row in rows}


def lockable(*tables: Table) -> dict[str, tuple[str, dict[str, object]]]:
    """The controls a lesson link may show or hide: key -> (label's i18n key, its fields)."""
    return {k: (c.label, dict(c.fields)) for t in tables for k, c in t.items() if c.label is not None}


def default_of(tbl: Table, key: str, tm: ModelRecord | None = None) -> Any:
    """The default of ``key`` in ``tbl`` (a per-model default needs the model ``tm``)."""
    value = tbl[key].default
    return value(tm) if callable(value) else copy.copy(value)  # a list or dict of its own for each session


def put_defaults(tbl: Table, tm: ModelRecord | None = None, given: Mapping[str, Any] | None = None) -> None:
    """Put every control's default in the session once (the session keeps what the student set).

    ``given`` holds the :data:`BY_PAGE` defaults (a KeyError names one that is missing); :data:`UNSET`
    controls are left out."""
    ss, given = st.session_state, given or {}
    for key, row in tbl.items():
        if row.default is UNSET or key in ss:
            continue
        ss[key] = given[key] if row.default is BY_PAGE else default_of(tbl, key, tm)


def defaults_of(tbl: Table, keys: Sequence[str] | None = None) -> dict[str, Any]:
    """{key: default} of the rows with a plain value (no model needed), or of ``keys``."""
    return {
        k: c.default
        for k, c in tbl.items()
        if (keys is None or k in keys) and not callable(c.default) and not isinstance(c.default, _Marker)
    }


# ---------------------------------------------------------------- the model choice (Predict and Attention)
K_MODEL = "model_choice"
MODEL = table(control(K_MODEL, UNSET, "model.choice"))

# ---------------------------------------------------------------- Predict
P_PREFIX, P_GUESS, P_N_NEW, P_STRATEGY = "predict_prefix", "predict_guess", "predict_n_new", "predict_strategy"
P_TAU, P_TOP_K, P_TOP_P, P_SEED = "predict_temperature", "predict_top_k", "predict_top_p", "predict_seed"
P_CONTEXT_LEN, P_PANEL_START, P_STEP = "predict_context_len", "predict_panel_start", "predict_step"
#: Bar panels drawn at once; the table always has every position.
MAX_PANELS = 16
PREDICT = table(
    control(P_PREFIX, lambda tm: tm.text[: tm.gpt_cfg.max_len], "predict.prefix"),
    control(P_GUESS, False, "predict.guess"),
    control(P_N_NEW, 4, "predict.n_new"),
    control(P_STRATEGY, "greedy", "predict.decoding"),
    control(P_TAU, 1.0, "predict.temperature"),
    control(P_TOP_K, lambda tm: min(2, len(tm.vocab)), "predict.top_k"),
    control(P_TOP_P, 1.0, "predict.top_p"),
    control(P_SEED, 0, "predict.seed"),
    control(P_CONTEXT_LEN, lambda tm: tm.gpt_cfg.max_len, "predict.context_len"),
    control(P_PANEL_START, UNSET, "predict.panels_range", n=MAX_PANELS),
    control(P_STEP, 1, "predict.step_slider"),
)

# ---------------------------------------------------------------- Attention (its modules read the keys as state.K_*)
K_TEXT, K_LAYER, K_HEAD, K_STEP = "attn_text", "attn_layer", "attn_head", "attn_step"
K_MASK, K_SCALING, K_DIVISOR, K_TAU = "attn_mask", "attn_scaling", "attn_divisor", "attn_temperature"
K_HEADS_OFF, K_UNIFORM, K_UNIFORM_SCOPE = "attn_heads_off", "attn_uniform", "attn_uniform_scope"
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
ATTENTION = table(
    control(K_TEXT, BY_PAGE, "attn.text"),  # the model's first training window (state.own_text)
    control(K_STEP, BY_PAGE, "attn.step"),  # the first step (tinygpt.attention.STEP_IDS)
    control(K_MASK, lambda tm: tm.train_cfg.causal_mask, "attn.mask"),
    control(K_UNIFORM, False, "attn.uniform"),
    control(K_UNIFORM_SCOPE, "layer", "attn.uniform_scope"),
    control(K_TAU, 1.0, "attn.temperature"),
    control(K_HEADS_OFF, [], "attn.heads_off", layer="ℓ"),
    control(K_LAYER, 0, "attn.layer"),
    control(K_HEAD, BY_PAGE, "attn.head"),  # the head that looks at the previous character (state.opening_head)
    control(K_SCALING, "sqrt", "attn.scaling"),
    control(K_DIVISOR, lambda tm: math.sqrt(tm.gpt_cfg.d_head), "attn.scale_value"),
    control(K_EDITING, False, "attn.edit_header", layer="ℓ", head="h"),
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
    control(K_GUESS, False, "attn.guess"),
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

# ---------------------------------------------------------------- Train (the form's defaults: the seed program's model)
T_TEXT, T_WINDOW, T_D_MODEL, T_N_HEADS = "train_text", "train_window", "train_d_model", "train_n_heads"
T_N_LAYERS, T_D_FF, T_MAX_LEN, T_NORM = "train_n_layers", "train_d_ff", "train_max_len", "train_norm"
T_POSITIONS, T_LR, T_EPOCHS, T_SEED = "train_positions", "train_lr", "train_epochs", "train_seed"
T_EARLY_STOP, T_CAUSAL_MASK = "train_early_stop", "train_causal_mask"
T_PRESETS, T_UPLOAD = "train_presets", "train_upload"
TRAIN = table(
    control(T_PRESETS, UNSET, "train.presets"),
    control(T_D_MODEL, 512, "train.d_model"),
    control(T_N_HEADS, 8, "train.n_heads"),
    control(T_N_LAYERS, 6, "train.n_layers"),
    control(T_D_FF, 2048, "train.d_ff"),
    control(T_MAX_LEN, 128, "train.max_len"),
    control(T_NORM, "pre", "train.norm"),
    control(T_POSITIONS, "learned", "train.positions"),
    control(T_TEXT, "你好世界", "train.text"),
    control(T_WINDOW, 0, "train.window"),
    control(T_LR, 1e-4, "train.lr"),
    control(T_EPOCHS, 1000, "train.epochs"),
    control(T_SEED, 0, "train.seed"),
    control(T_EARLY_STOP, 1e-4, "train.early_stop"),
    control(T_CAUSAL_MASK, True, "train.causal_mask"),
    control(T_UPLOAD, UNSET, "train.upload"),
)

# ---------------------------------------------------------------- Theory
#: The quiz's questions: id -> the right answer.
QUIZ = {"mask_positions": "b", "mask_weight": "c", "shift": "d", "temperature": "b"}
TH_SECTION, TH_TAU, TH_ANSWER, TH_SHOW_ANSWER = "theory_section", "theory_tau", "theory_answer", "theory_show_answer"
THEORY = table(
    control(TH_SECTION, BY_PAGE),  # the section a lesson's controls are in, else the first (theory_state)
    control("theory_a1", 3.0, "theory.ops.x", name="a"),
    control("theory_a2", 1.0, "theory.ops.y", name="a"),
    control("theory_b1", 1.0, "theory.ops.x", name="b"),
    control("theory_b2", 2.0, "theory.ops.y", name="b"),
    control("theory_c", -1.0, "theory.ops.c"),
    control("theory_r1", 3.0, "theory.ws.raw", i=1),
    control("theory_r2", 2.0, "theory.ws.raw", i=2),
    control("theory_r3", 1.0, "theory.ws.raw", i=3),
    control("theory_q1", 1.0, "theory.sm.query", i=1),
    control("theory_q2", 2.0, "theory.sm.query", i=2),
    control(TH_TAU, 1.0, "theory.sm.temperature"),
    control("theory_scaled", False, "theory.sm.scaled"),
    control("theory_mask", True, "theory.mx.mask"),
    control(TH_ANSWER, "", "theory.exercise.yours"),
    control(TH_SHOW_ANSWER, False, "theory.exercise.show"),
    *(control(f"theory_quiz_{q}", None, f"theory.quiz.{q}.q") for q in QUIZ),
)

#: Every page's table, in the order of the app's pages.
PAGES: dict[str, Table] = {"model": MODEL, "predict": PREDICT, "attention": ATTENTION, "train": TRAIN, "theory": THEORY}
