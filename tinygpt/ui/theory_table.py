"""The Theory page's table of state (``tinygpt.ui.controls``): each control's key, default, lesson
label and URL row. A slider or switch is in the URL only while it differs from its default, so a
reload shows the same example; the open section, and a link from an Attention step, are the URL
rows of ``tinygpt.ui.theory_state`` (they need the lesson and the step registry)."""

from __future__ import annotations

from functools import partial

from tinygpt.numbers import read_float
from tinygpt.params import read_flag, write_flag
from tinygpt.ui import url
from tinygpt.ui.controls import BY_PAGE, control, table

PAGE = "theory"
#: The quiz's questions: id -> the right answer.
QUIZ = {"mask_positions": "b", "mask_weight": "c", "shift": "d", "temperature": "b"}
TH_SECTION, TH_TAU, TH_ANSWER, TH_SHOW_ANSWER = "theory_section", "theory_tau", "theory_answer", "theory_show_answer"
#: Each slider: key -> (its name in the URL, lowest, highest, step).
SLIDERS: dict[str, tuple[str, float, float, float]] = {
    "theory_a1": ("a1", -5.0, 5.0, 0.5),
    "theory_a2": ("a2", -5.0, 5.0, 0.5),
    "theory_b1": ("b1", -5.0, 5.0, 0.5),
    "theory_b2": ("b2", -5.0, 5.0, 0.5),
    "theory_c": ("c", -3.0, 3.0, 0.5),
    "theory_r1": ("r1", 0.0, 5.0, 0.5),
    "theory_r2": ("r2", 0.0, 5.0, 0.5),
    "theory_r3": ("r3", 0.0, 5.0, 0.5),
    "theory_q1": ("q1", -3.0, 3.0, 0.25),
    "theory_q2": ("q2", -3.0, 3.0, 0.25),
    TH_TAU: ("tau", 0.05, 5.0, 0.05),
}
#: Each switch: key -> its name in the URL.
TOGGLES: dict[str, str] = {"theory_scaled": "scaled", "theory_mask": "mask"}


def _slider(key: str):
    name, lo, hi, step = SLIDERS[key]

    def read(raw: str) -> float:
        return round(round(read_float(raw, name, lo, hi) / step) * step, 10)  # on the slider's grid

    return lambda _: url.field(name, key, read, lambda v: None if v == THEORY[key].default else f"{v:g}")


def _toggle(key: str):
    name = TOGGLES[key]
    read = partial(read_flag, name=name)
    return lambda _: url.field(name, key, read, lambda on: None if on == THEORY[key].default else write_flag(on))


THEORY = table(
    control(TH_SECTION, BY_PAGE),  # the section a lesson's controls are in, else the first (theory_state)
    control("theory_a1", 3.0, "theory.ops.x", _slider("theory_a1"), name="a"),
    control("theory_a2", 1.0, "theory.ops.y", _slider("theory_a2"), name="a"),
    control("theory_b1", 1.0, "theory.ops.x", _slider("theory_b1"), name="b"),
    control("theory_b2", 2.0, "theory.ops.y", _slider("theory_b2"), name="b"),
    control("theory_c", -1.0, "theory.ops.c", _slider("theory_c")),
    control("theory_r1", 3.0, "theory.ws.raw", _slider("theory_r1"), i=1),
    control("theory_r2", 2.0, "theory.ws.raw", _slider("theory_r2"), i=2),
    control("theory_r3", 1.0, "theory.ws.raw", _slider("theory_r3"), i=3),
    control("theory_q1", 1.0, "theory.sm.query", _slider("theory_q1"), i=1),
    control("theory_q2", 2.0, "theory.sm.query", _slider("theory_q2"), i=2),
    control(TH_TAU, 1.0, "theory.sm.temperature", _slider(TH_TAU)),
    control("theory_scaled", False, "theory.sm.scaled", _toggle("theory_scaled")),
    control("theory_mask", True, "theory.mx.mask", _toggle("theory_mask")),
    control(TH_ANSWER, "", "theory.exercise.yours"),
    control(TH_SHOW_ANSWER, False, "theory.exercise.show"),
    *(control(f"theory_quiz_{q}", None, f"theory.quiz.{q}.q") for q in QUIZ),
)
