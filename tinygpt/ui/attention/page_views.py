"""The views of the pages a class leads, read and written through the pages' own URL rows.

A view is a page's URL text (``step=softmax&mask=1&tau=1&layer=0&head=1&text=…``): the rows of the
page's table (``tinygpt.ui.frame.controls``) write it and read it back. A *complete* view names every
row the page writes, the model's own defaults included (the layer, the head the page opens on, the
text), so it opens the same after an update that changes a default. The teacher's led view
(``tinygpt.ui.teacher.lead_view``), a student following it (``tinygpt.ui.follow``) and the lesson
builder use these functions; no other list of a view's settings exists.
"""

from __future__ import annotations

from typing import Any

from tinygpt.attention import STEP_IDS
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention import state as attn
from tinygpt.ui.frame import url
from tinygpt.ui.frame.controls import Control, read_view, switched, url_rows, view_text, view_values
from tinygpt.ui.views.predict_table import P_PREFIX, PREDICT
from tinygpt.ui.views.predict_table import url_params as predict_rows
from tinygpt.ui.views.theory_table import THEORY


def rows(page: str, record: ModelRecord) -> tuple[url.Param, ...]:
    """The URL rows of ``page`` ("attention", "predict" or "theory") for the model ``record``.
    Raises KeyError for another page."""
    if page == "attention":
        return tuple(row for row in attn.url_params(record.gpt_cfg) if row.name != "part")
    return {"predict": predict_rows, "theory": lambda: url_rows(THEORY)}[page]()


def defaults(page: str, record: ModelRecord) -> dict[str, Any]:
    """What a view of ``page`` that names nothing means for ``record``: {session key: value}."""
    if page == "attention":
        given = {attn.K_TEXT: attn.own_text(record), attn.K_HEAD: attn.opening_head(record), attn.K_STEP: STEP_IDS[0]}
        return view_values(attn.ATTENTION, record, given)
    if page == "predict":
        return view_values(PREDICT, record, {P_PREFIX: attn.own_text(record)})
    return view_values(THEORY, record)


def named(page: str, record: ModelRecord, text: str) -> dict[str, Any]:
    """The values the view ``text`` of ``page`` names (refused values left out), {session key: value}."""
    return read_view(rows(page, record), text)[0]


#: The Attention view's place: where the page is (its text, step, layer and head).
PLACE: tuple[str, ...] = (attn.K_TEXT, attn.K_STEP, attn.K_LAYER, attn.K_HEAD)


def led(page: str, record: ModelRecord, text: str) -> dict[str, Any]:
    """What a student following the view ``text`` of ``page`` takes: on the Attention page its place
    and switches at the model's defaults where the view names nothing (no mix of the teacher's view
    and an earlier one), over which what it names; on another page what it names."""
    named_values = named(page, record, text)
    if page != "attention":
        return named_values
    base = defaults(page, record)
    kept = {k for k, row in attn.ATTENTION.items() if row.switch is not None} | set(PLACE)
    return {**{k: v for k, v in base.items() if k in kept}, **named_values}


def values(page: str, record: ModelRecord, text: str) -> dict[str, Any]:
    """The values of the view ``text`` of ``page``: what it names over the model's defaults."""
    return {**defaults(page, record), **named(page, record, text)}


def complete(page: str, record: ModelRecord, text: str = "", **changes: Any) -> str:
    """The complete view of ``page`` for ``record``: ``text``'s values with ``changes`` (session key ->
    value) over the model's defaults, every row written."""
    return view_text(rows(page, record), {**values(page, record, text), **changes})


def switches_said(record: ModelRecord, view: dict[str, Any]) -> list[str]:
    """The Attention switches of the values ``view`` in words ("name: value"): those away from the
    model's own, and those a status line always names."""
    away = {row.key for row in switched(attn.ATTENTION, view, record)}
    shown: list[Control] = [
        row for key, row in attn.ATTENTION.items() if row.switch is not None and (key in away or row.switch.always)
    ]
    return [row.switch.said(row.switch.of(row.key, view), view) for row in shown if row.switch is not None]
