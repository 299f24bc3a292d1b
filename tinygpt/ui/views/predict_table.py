"""The Predict page's table of state (``tinygpt.ui.frame.controls``): each control's key, default, lesson
label and URL row. The URL holds the prefix and how the generation decodes (``prefix``, ``n``,
``decode``, ``tau``, ``k``, ``p``, ``seed``, ``guess``); the model is ``model=``/``train=``
(``tinygpt.ui.choice.model_choice``)."""

from __future__ import annotations

import math
from functools import partial

from tinygpt.config import MAX_NEW_CHARS, MAX_TEMPERATURE
from tinygpt.formatting import shown_text
from tinygpt.numbers import read_float, read_int
from tinygpt.params import read_choice, read_flag, read_text
from tinygpt.ui.frame import url
from tinygpt.ui.frame.controls import UNSET, control, table, url_rows
from tinygpt.ui.frame.language import tr

PAGE = "predict"
#: Bar panels drawn at once; the table always has every position.
MAX_PANELS = 16
STRATEGIES = ("greedy", "temperature", "top_k")
MAX_SEED = 2**31 - 1
MAX_TOP_K = 1000
#: The τ and top-p sliders' step.
TAU_STEP = TOP_P_STEP = 0.05

P_PREFIX, P_GUESS, P_N_NEW, P_STRATEGY = "predict_prefix", "predict_guess", "predict_n_new", "predict_strategy"
P_TAU, P_TOP_K, P_TOP_P, P_SEED = "predict_temperature", "predict_top_k", "predict_top_p", "predict_seed"
P_CONTEXT_LEN, P_PANEL_START, P_STEP = "predict_context_len", "predict_panel_start", "predict_step"


def _read_tau(raw: str) -> float:
    """τ of a link, on the slider's grid."""
    return round(read_float(raw, "tau", 0.0, MAX_TEMPERATURE) / TAU_STEP) * TAU_STEP


def _tau_row(_) -> url.Param:
    """The ``tau=`` row: a τ between the slider's stops is put on the nearest one, and the page says so."""

    def read_into(raw: str, notes: list[str]) -> dict[str, float]:
        value = _read_tau(raw)
        if not math.isclose(value, read_float(raw, "tau", 0.0, MAX_TEMPERATURE), abs_tol=1e-9):
            notes.append(tr("predict.url_snap_tau", value=shown_text(raw), used=f"{value:g}", step=f"{TAU_STEP:g}"))
        return {P_TAU: value}

    return url.Param("tau", read_into, lambda ss: f"{ss[P_TAU]:g}")


def _read_top_p(raw: str) -> float:
    """Top-p of a link, on the slider's grid, from 0.05 to 1 (1: no top-p)."""
    return max(1, round(read_float(raw, "p", TOP_P_STEP, 1.0) / TOP_P_STEP)) * TOP_P_STEP


def _row(name: str, key: str, read, write=str):
    return lambda _: url.field(name, key, read, write)


def _flag(on: bool) -> str | None:
    return "1" if on else None


PREDICT = table(
    control(
        P_PREFIX,
        lambda record: record.text[: record.gpt_cfg.max_len],
        "predict.prefix",
        _row("prefix", P_PREFIX, read_text),
    ),
    control(P_GUESS, False, "predict.guess", _row("guess", P_GUESS, partial(read_flag, name="guess"), _flag)),
    control(P_N_NEW, 4, "predict.n_new", _row("n", P_N_NEW, partial(read_int, name="n", lo=0, hi=MAX_NEW_CHARS))),
    control(
        P_STRATEGY,
        "greedy",
        "predict.decoding",
        _row("decode", P_STRATEGY, partial(read_choice, name="decode", choices={s: s for s in STRATEGIES})),
    ),
    control(P_TAU, 1.0, "predict.temperature", _tau_row),
    control(
        P_TOP_K,
        lambda record: min(2, len(record.vocab)),
        "predict.top_k",
        _row("k", P_TOP_K, partial(read_int, name="k", lo=0, hi=MAX_TOP_K)),
    ),
    control(P_TOP_P, 1.0, "predict.top_p", _row("p", P_TOP_P, _read_top_p, lambda p: None if p >= 1 else f"{p:g}")),
    control(P_SEED, 0, "predict.seed", _row("seed", P_SEED, partial(read_int, name="seed", lo=0, hi=MAX_SEED))),
    control(P_CONTEXT_LEN, lambda record: record.gpt_cfg.max_len, "predict.context_len"),
    control(P_PANEL_START, UNSET, "predict.panels_range", n=MAX_PANELS),
    control(P_STEP, 1, "predict.step_slider"),
)


def url_params() -> tuple[url.Param, ...]:
    """The Predict page's query parameters (its table's URL rows)."""
    return url_rows(PREDICT)
