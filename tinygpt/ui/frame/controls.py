"""A page's table of state: each control's session key, default, lesson label and URL row.

Each page has one table (:class:`Control` rows): ``tinygpt.ui.views.predict_table``,
``tinygpt.ui.views.attention_table``, ``tinygpt.ui.views.train_table``, ``tinygpt.ui.views.theory_table``, and
:data:`MODEL` here (the model choice of Predict and Attention).

- A page's widgets keep their values in the session under these keys (``persist_state="session"``);
  the page puts each default in the session once before its widgets (:func:`put_defaults`) and
  never passes it as a widget's ``value=``.
- A control with a label is lockable: a teacher's lesson link may show or hide it
  (``tinygpt.ui.views.lesson.LESSON_CONTROLS`` is :func:`lockable` of the tables), and the lesson builder
  names it by that label.
- A control with a URL row is in the page's address (:func:`url_rows`, read and written by
  ``tinygpt.ui.frame.url.load``/``save``); the few parameters that need the model's step registry or a
  decoder beside them are added by the page's state module.
- A *view* is the URL text of a page's rows (:func:`view_text`, read back by :func:`read_view`): what a
  lesson, a class link and the teacher's led view store and every page reads.
- A control that changes the computation itself has a :class:`Switch`: how it is named when set away
  from its default (:func:`switched`), which "own attention", a lesson's note, the reasons of a flip
  and a student's status line say. A switch marked ``led`` is in the teacher's lead form too
  (:func:`led_rows`: its widget, the control a teacher may leave open, the view students follow).

The tables import nothing heavy (no torch): the lesson reads them on every page, before the page runs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, urlencode

import streamlit as st

from tinygpt.config import ConfigError
from tinygpt.ui.frame import url

if TYPE_CHECKING:
    from tinygpt.training.record import ModelRecord


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
class Switch:
    """What a control that changes the computation says about its value.

    Attributes:
        said: (value, the view's values) -> the switch as "name: value" in the user's language.
        how: value -> the clause naming this switch alone ("with the mask off"); None: the switches
            are named together ("with the switches").
        value: the view's values -> the value in effect (None: the control's own value), compared
            with the default's.
        always: a status line names it even at its default (the causal mask).
        led: the teacher's lead form sets it live for a class and may leave it open to students
            (:func:`led_rows`): a toggle, or a slider over ``options``.
        options: the values a led switch's slider offers; empty: the switch is on or off (a toggle).
    """

    said: Callable[[Any, Mapping[str, Any]], str]
    how: Callable[[Any], str] | None = None
    value: Callable[[Mapping[str, Any]], Any] | None = None
    always: bool = False
    led: bool = False
    options: tuple[Any, ...] = ()

    def of(self, key: str, values: Mapping[str, Any]) -> Any:
        """The value in effect of control ``key`` in ``values``."""
        return values.get(key) if self.value is None else self.value(values)


@dataclass(frozen=True)
class Control:
    """One control of a page.

    Attributes:
        key: the session key (and the widget's ``key=``); a lesson link names the control by it.
        default: the value the page opens with: a value, a function of the shown model
            (``ModelRecord`` -> value), :data:`UNSET` or :data:`BY_PAGE`.
        label: the i18n key of the control's label; None for a control no lesson locks.
        fields: the label's fields as the lesson builder shows them.
        url_row: the control's URL row, a function of what the page's rows depend on (the model's
            config on the Attention page) -> ``tinygpt.ui.frame.url.Param``; None when not in the URL.
        switch: for a control that changes the computation, how it is named (:class:`Switch`).
    """

    key: str
    default: Any = UNSET
    label: str | None = None
    fields: Mapping[str, object] = field(default_factory=dict)
    url_row: Callable[[Any], url.Param] | None = None
    switch: Switch | None = None


def control(
    key: str,
    default: Any = UNSET,
    label: str | None = None,
    url_row: Callable[[Any], url.Param] | None = None,
    switch: Switch | None = None,
    **fields: object,
) -> Control:
    """A :class:`Control` row (the label's fields as keyword arguments)."""
    return Control(key, default, label, fields, url_row, switch)


Table = dict[str, Control]


def table(*rows: Control) -> Table:
    """A page's table: key -> row, in the order of ``rows``."""
    return {row.key: row for row in rows}


def lockable(*tables: Table) -> dict[str, tuple[str, dict[str, object]]]:
    """The controls a lesson link may show or hide: key -> (label's i18n key, its fields)."""
    return {k: (c.label, dict(c.fields)) for t in tables for k, c in t.items() if c.label is not None}


def led_rows(tbl: Table) -> list[Control]:
    """The rows whose :class:`Switch` a teacher leads (``Switch.led``; each has a label), in the table's order."""
    return [row for row in tbl.values() if row.switch is not None and row.switch.led and row.label is not None]


def url_rows(tbl: Table, context: Any = None) -> tuple[url.Param, ...]:
    """The URL rows of ``tbl``'s controls, in the table's order (``context``: what the rows depend on)."""
    return tuple(row.url_row(context) for row in tbl.values() if row.url_row is not None)


def default_of(tbl: Table, key: str, record: ModelRecord | None = None) -> Any:
    """The default of ``key`` in ``tbl`` (a per-model default needs the model ``record``)."""
    value = tbl[key].default
    return value(record) if callable(value) else copy.copy(value)  # a list or dict of its own for each session


def put_defaults(tbl: Table, record: ModelRecord | None = None, given: Mapping[str, Any] | None = None) -> None:
    """Put every control's default in the session once (the session keeps what the student set).

    ``given`` holds the :data:`BY_PAGE` defaults (a KeyError names one that is missing); :data:`UNSET`
    controls are left out."""
    ss, given = st.session_state, given or {}
    for key, row in tbl.items():
        if row.default is UNSET or key in ss:
            continue
        ss[key] = given[key] if row.default is BY_PAGE else default_of(tbl, key, record)


def view_values(
    tbl: Table, record: ModelRecord | None = None, given: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """{key: default} of every control with one (the :data:`BY_PAGE` ones from ``given``; a
    per-model default needs the model ``record``): what a view not naming a control means."""
    given = given or {}
    return {
        key: given[key] if row.default is BY_PAGE else default_of(tbl, key, record)
        for key, row in tbl.items()
        if row.default is not UNSET
        and (row.default is not BY_PAGE or key in given)
        and (record is not None or not callable(row.default))
    }


def view_text(rows: Sequence[url.Param], values: Mapping[str, Any]) -> str:
    """The view ``values`` (session key -> value) as the URL text of ``rows``, in their order (a row
    that writes None is left out). Every key a row writes must be in ``values`` (:func:`view_values`)."""
    pairs = [(row.name, text) for row in rows if (text := row.write(values)) is not None]
    return urlencode(pairs, quote_via=quote, safe=",;:=")


def read_view(rows: Sequence[url.Param], text: str) -> tuple[dict[str, Any], list[str]]:
    """The values ``rows`` read from the view's URL ``text`` (session key -> value) and the messages
    of the values they refused or noted (a refused value is left out: the page keeps its own)."""
    query = dict(parse_qsl(text, keep_blank_values=True))
    values: dict[str, Any] = {}
    messages: list[str] = []
    for row in rows:
        if row.name not in query:
            continue
        try:
            values.update(row.read_in(query[row.name], messages, values))
        except ConfigError as exc:
            messages.append(url.refused(row, query[row.name], exc))
    return values, messages


def switched(tbl: Table, values: Mapping[str, Any], record: ModelRecord | None = None) -> list[Control]:
    """The controls with a :class:`Switch` whose value in ``values`` differs from their default's
    (their default for the model ``record``), in the table's order: none means the model's own."""
    own = view_values(tbl, record)
    return [
        row
        for key, row in tbl.items()
        if row.switch is not None and row.switch.of(key, values) != row.switch.of(key, {**values, **own})
    ]


def defaults_of(tbl: Table) -> dict[str, Any]:
    """{key: default} of the rows whose default is a plain value (no model needed)."""
    plain = [k for k, c in tbl.items() if not (callable(c.default) or isinstance(c.default, _Marker))]
    return {k: copy.copy(tbl[k].default) for k in plain}


#: The score of the exercises answered this session, (right, asked): kept by ``tinygpt.ui.classwork.exercise_view``,
#: counted by the pages' questions and the class (no widget owns it).
SCORE = "exercise_score"

#: The model choice of Predict and Attention (``tinygpt.ui.choice.model_choice``; its URL is ``MODEL_PARAMS`` there).
K_MODEL = "model_choice"
MODEL = table(control(K_MODEL, UNSET, "model.choice"))
