"""The Train page's form, drawn from its table: :data:`FORM` lists each setting's widget in the
order the two columns show them, and :func:`draw_form` draws every row a lesson does not hide
(``tinygpt.ui.views.lesson``: a hidden setting keeps its value).

The table of state (keys, defaults, lesson labels) is ``tinygpt.ui.views.train_table``; a
setting's label is ``train.<name>`` and its help ``train.<name>_help``. Whole-number settings are
text boxes read by :func:`tinygpt.numbers.parse_int`: the box shows exactly what is checked and
used (Streamlit's number box keeps its last accepted value when the typed one is out of its range,
e.g. more digits than 64 bits hold or 1e30, while still showing what was typed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from tinygpt.config import MAX_EPOCHS, MAX_TEXT_LEN
from tinygpt.numbers import parse_int
from tinygpt.ui.frame.controls import put_defaults
from tinygpt.ui.frame.help import help_toggle
from tinygpt.ui.frame.language import tr
from tinygpt.ui.shared.common import resend
from tinygpt.ui.train import train_url
from tinygpt.ui.train.train_form import FORM_FIELDS
from tinygpt.ui.train.train_session import train_session
from tinygpt.ui.train.train_view import options_with
from tinygpt.ui.views.lesson import visible
from tinygpt.ui.views.train_table import (
    PRESETS,
    T_CAUSAL_MASK,
    T_D_FF,
    T_D_MODEL,
    T_EARLY_STOP,
    T_EPOCHS,
    T_LR,
    T_MAX_LEN,
    T_N_HEADS,
    T_N_LAYERS,
    T_NORM,
    T_POSITIONS,
    T_PRESET,
    T_PRESETS,
    T_SEED,
    T_TEXT,
    T_WINDOW,
    TRAIN,
)

#: The settings typed as whole numbers (text boxes, read by ``parse_int``).
INT_KEYS = (T_MAX_LEN, T_WINDOW, T_EPOCHS, T_SEED)
#: The "small" preset on 你好世界 trains smoothly at 1e-2; from 3e-2 its loss jumps back up.
LARGE_LR = 0.03


@dataclass(frozen=True)
class Setting:
    """One setting's widget.

    Attributes:
        key: its key in the table of state (``train_<name>``; its label is ``train.<name>``).
        kind: ``"select"`` (a select slider of ``options``), ``"layers"`` (a slider 1..8 or more),
            ``"text"``, ``"radio"`` (``options`` labelled ``train.<name>.<option>``) or ``"toggle"``.
        options: the choices of a select slider or a radio.
        help: the fields of its help text ``train.<name>_help``; None: it has none.
        fits: of a select slider, which options the other settings allow (e.g. heads dividing d_model).
        note: a caption under it for its value, or None.
    """

    key: str
    kind: str
    options: tuple = ()
    help: Callable[[], dict[str, Any]] | None = None
    fits: Callable[[Any], bool] | None = None
    note: Callable[[Any], str | None] | None = field(default=None)


def _no_fields() -> dict[str, Any]:
    return {}


def _lr_note(lr: float) -> str | None:
    return tr("train.lr_large", lr=lr) if lr >= LARGE_LR else None


#: The form: (column header, its settings), left to right, each column top to bottom.
FORM: tuple[tuple[str, tuple[Setting, ...]], ...] = (
    (
        "train.model_header",
        (
            Setting(T_D_MODEL, "select", (16, 32, 64, 128, 256, 512)),
            Setting(
                T_N_HEADS,
                "select",
                (1, 2, 4, 8, 16),
                help=_no_fields,
                fits=lambda h: st.session_state[T_D_MODEL] % h == 0,
            ),
            Setting(T_N_LAYERS, "layers"),
            Setting(T_D_FF, "select", (32, 64, 128, 256, 512, 1024, 2048), help=_no_fields),
            Setting(T_MAX_LEN, "text"),
            Setting(T_NORM, "radio", ("pre", "post"), help=_no_fields),
            Setting(T_POSITIONS, "radio", ("learned", "sinusoidal")),
        ),
    ),
    (
        "train.optim_header",
        (
            Setting(T_TEXT, "text", help=lambda: {"max": MAX_TEXT_LEN}),
            Setting(T_WINDOW, "text", help=_no_fields),
            Setting(T_LR, "select", (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0), note=_lr_note),
            Setting(T_EPOCHS, "text", help=lambda: {"max": MAX_EPOCHS}),
            Setting(T_SEED, "text"),
            Setting(T_EARLY_STOP, "select", (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2), help=_no_fields),
            Setting(T_CAUSAL_MASK, "toggle", help=_no_fields),
        ),
    ),
)


def _label(key: str) -> str:
    """The i18n key of a setting's label: ``train_d_model`` -> ``train.d_model``."""
    return key.replace("_", ".", 1)


def prepare_form() -> None:
    """Fill the form before its widgets are drawn: a loaded checkpoint's settings, then a reload's
    URL (``form=``, ``trained=``), then the table's defaults once; whole numbers as text."""
    ss = st.session_state
    ss.update(train_session().take_loaded_form())
    train_url.restore()  # the student's model comes back from the shelf, or is trained again
    put_defaults(TRAIN)  # once: the widgets keep what the student set (persist_state)
    for key in INT_KEYS:
        if not isinstance(ss[key], str):
            ss[key] = str(ss[key])


def typed_values() -> dict[str, object]:
    """The form's values by key, the whole numbers read from their text (a refused text reads as itself)."""
    ss = st.session_state
    return {key: parse_int(ss[key]) if key in INT_KEYS else ss[key] for key in FORM_FIELDS}


def apply_preset(name: str) -> None:
    """Put preset ``name``'s settings in the form (a button's callback)."""
    st.session_state.update(PRESETS[name])
    st.session_state[T_PRESET] = name


def draw_presets() -> None:
    """The presets' buttons in one row (unless a lesson hides them), and what the "cheat" one is for."""
    cols = st.columns([2, 2, 2, 3], vertical_alignment="center") if visible(T_PRESETS) else []
    if cols:
        cols[0].markdown(tr("train.presets"))
    for col, name in zip(cols[1:], PRESETS):
        col.button(
            tr(f"train.preset.{name}"),
            help=tr(f"train.preset.{name}_help"),
            on_click=apply_preset,
            args=(name,),
            key=f"train_preset_{name}",
            width="stretch",
        )
    if cheating():  # the experiment's one switch right under its steps, and the model the next Train trains
        st.info(tr("train.cheat_steps"), icon=":material/science:")
        mask = next(s for _, settings in FORM for s in settings if s.key == T_CAUSAL_MASK)
        draw_setting(mask)
        if visible(T_CAUSAL_MASK):
            st.caption(tr("train.cheat_next_on" if st.session_state[T_CAUSAL_MASK] else "train.cheat_next_off"))


def cheating() -> bool:
    """Whether the "cheat" preset is on: its causal-mask switch is then drawn under its steps, not in the form."""
    return st.session_state.get(T_PRESET) == "cheat"


def draw_setting(setting: Setting) -> None:
    """One setting's widget (when a lesson does not hide it), then its note."""
    ss, key = st.session_state, setting.key
    label = _label(key)
    help_text = tr(f"{label}_help", **setting.help()) if setting.help is not None else None
    common = {"help": help_text, "key": key, "persist_state": "session"}
    if visible(key):
        if setting.kind == "select":
            # The list also holds a loaded checkpoint's own value, so the form can show it.
            options = [
                v for v in options_with(list(setting.options), ss[key]) if setting.fits is None or setting.fits(v)
            ]
            shown = {v: f"{v:g}" for v in options}  # format_func must not call tr()
            st.select_slider(tr(label), options, format_func=shown.get, **common)
        elif setting.kind == "layers":
            st.slider(tr(label), 1, max(8, ss[key]), **common)
        elif setting.kind == "text":
            st.text_input(tr(label), **common)
        elif setting.kind == "toggle":  # its help beside it: a tap on the help leaves the switch alone
            help_toggle(tr(label), help_text or "", key=key, persist_state="session")
        else:  # a radio, kept across a language switch
            labels = {v: tr(f"{label}.{v}") for v in setting.options}  # format_func must not call tr()
            resend(key)
            st.radio(tr(label), setting.options, format_func=labels.get, horizontal=True, **common)
    if setting.note is not None and (note := setting.note(ss[key])):
        st.caption(note)


def draw_form(locked: bool) -> None:
    """The form's two columns, each under its header unless the whole form is locked by a lesson."""
    for column, (header, settings) in zip(st.columns(len(FORM)), FORM):
        with column:
            if not locked:  # a header over no setting says nothing
                st.subheader(tr(header))
            for setting in settings:
                if not (setting.key == T_CAUSAL_MASK and cheating()):  # drawn under the experiment's steps
                    draw_setting(setting)
