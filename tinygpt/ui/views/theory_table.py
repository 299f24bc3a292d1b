"""The Theory page's table of state (``tinygpt.ui.frame.controls``): each control's key, default, lesson
label and URL row. A slider or switch is in the URL only while it differs from its default, so a
reload shows the same example; the open section, and a link from an Attention step, are the URL
rows of ``tinygpt.ui.theory.theory_state`` (they need the lesson and the step registry)."""

from __future__ import annotations

from functools import partial

from tinygpt.numbers import read_float
from tinygpt.params import read_flag, write_flag
from tinygpt.ui.frame import url
from tinygpt.ui.frame.controls import BY_PAGE, control, table

PAGE = "theory"
#: The quiz's questions: id -> the right answer.
QUIZ = {"mask_positions": "b", "mask_weight": "c", "shift": "d", "temperature": "b"}
TH_SECTION, TH_TAU, TH_ANSWER, TH_SHOW_ANSWER = "theory_section", "theory_tau", "theory_answer", "theory_show_answer"
#: The vectors a and b and the multiple c; the three raw weights; the query; the two switches.
TH_A1, TH_A2, TH_B1, TH_B2, TH_C = "theory_a1", "theory_a2", "theory_b1", "theory_b2", "theory_c"
TH_R = ("theory_r1", "theory_r2", "theory_r3")
TH_Q1, TH_Q2, TH_SCALED, TH_MASK = "theory_q1", "theory_q2", "theory_scaled", "theory_mask"
#: The quiz's radios: question id -> key.
TH_QUIZ = {q: f"theory_quiz_{q}" for q in QUIZ}
#: Each slider: key -> (its name in the URL, lowest, highest, step).
SLIDERS: dict[str, tuple[str, float, float, float]] = {
    TH_A1: ("a1", -5.0, 5.0, 0.5),
    TH_A2: ("a2", -5.0, 5.0, 0.5),
    TH_B1: ("b1", -5.0, 5.0, 0.5),
    TH_B2: ("b2", -5.0, 5.0, 0.5),
    TH_C: ("c", -3.0, 3.0, 0.5),
    TH_R[0]: ("r1", 0.0, 5.0, 0.5),
    TH_R[1]: ("r2", 0.0, 5.0, 0.5),
    TH_R[2]: ("r3", 0.0, 5.0, 0.5),
    TH_Q1: ("q1", -3.0, 3.0, 0.25),
    TH_Q2: ("q2", -3.0, 3.0, 0.25),
    TH_TAU: ("tau", 0.05, 5.0, 0.05),
}
#: Each switch: key -> its name in the URL.
TOGGLES: dict[str, str] = {TH_SCALED: "scaled", TH_MASK: "mask"}


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
    control(TH_A1, 3.0, "theory.ops.x", _slider(TH_A1), name="a"),
    control(TH_A2, 1.0, "theory.ops.y", _slider(TH_A2), name="a"),
    control(TH_B1, 1.0, "theory.ops.x", _slider(TH_B1), name="b"),
    control(TH_B2, 2.0, "theory.ops.y", _slider(TH_B2), name="b"),
    control(TH_C, -1.0, "theory.ops.c", _slider(TH_C)),
    control(TH_R[0], 3.0, "theory.ws.raw", _slider(TH_R[0]), i=1),
    control(TH_R[1], 2.0, "theory.ws.raw", _slider(TH_R[1]), i=2),
    control(TH_R[2], 1.0, "theory.ws.raw", _slider(TH_R[2]), i=3),
    control(TH_Q1, 1.0, "theory.sm.query", _slider(TH_Q1), i=1),
    control(TH_Q2, 2.0, "theory.sm.query", _slider(TH_Q2), i=2),
    control(TH_TAU, 1.0, "theory.sm.temperature", _slider(TH_TAU)),
    control(TH_SCALED, False, "theory.sm.scaled", _toggle(TH_SCALED)),
    control(TH_MASK, True, "theory.mx.mask", _toggle(TH_MASK)),
    control(TH_ANSWER, "", "theory.exercise.yours"),
    control(TH_SHOW_ANSWER, False, "theory.exercise.show"),
    *(control(key, None, f"theory.quiz.{q}.q") for q, key in TH_QUIZ.items()),
)
#: The controls of each section (a lesson link that shows some of them opens the first such section).
SECTION_CONTROLS: dict[str, tuple[str, ...]] = {
    "definition": (),
    "vectors": (TH_A1, TH_A2, TH_B1, TH_B2, TH_C),
    "weighted_sum": TH_R,
    "attention": (TH_Q1, TH_Q2, TH_TAU, TH_SCALED, TH_MASK),
    "practice": (TH_ANSWER, TH_SHOW_ANSWER, *TH_QUIZ.values()),
}
