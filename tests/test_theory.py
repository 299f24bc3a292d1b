"""The Theory page: the vector mathematics (tinygpt.explanations.theory), its chart, and the page in AppTest."""

import math
import re
from urllib.parse import parse_qs

import pyarrow as pa
import pytest
import torch
import torch.nn.functional as F
from helpers import inline_data, tables
from streamlit.testing.v1 import AppTest

from tinygpt.attention import STEP_IDS
from tinygpt.explanations import theory
from tinygpt.explanations.charts import probability_bars, probability_bars_spec, vector_picture, vector_picture_spec
from tinygpt.explanations.theory import EXAMPLE_KEYS, EXAMPLE_VALUES, TheoryInputError
from tinygpt.i18n import CATALOGUE, t
from tinygpt.ui.frame.student_state import class_session

SOFTMAX_123 = [0.090, 0.245, 0.665]  # softmax([1, 2, 3]) at τ = 1, to 3 decimals


# ---------------------------------------------------------------- the mathematics


def test_vector_operations_give_the_textbook_values():
    assert theory.add((1, 2), (3, 4)) == [4, 6]
    assert theory.scale(-1.5, (1, 2)) == [-1.5, -3]
    assert theory.dot((1, 2), (3, 4)) == 11
    assert theory.dot((1, 0), (0, 1)) == 0  # perpendicular
    assert theory.dot((1, 2, 3, 4), (1, 1, 1, 1)) == 10  # length d, not only 2-D
    with pytest.raises(TheoryInputError) as info:
        theory.dot((1, 2), (1, 2, 3))
    assert info.value.reason == "length"


def test_softmax_of_one_two_three_and_its_properties():
    assert [round(x, 3) for x in theory.softmax([1, 2, 3])] == SOFTMAX_123
    assert math.isclose(sum(theory.softmax([1, 2, 3])), 1.0, abs_tol=1e-12)
    shifted = theory.softmax([101, 102, 103])  # adding a constant changes nothing
    assert max(abs(a - b) for a, b in zip(shifted, theory.softmax([1, 2, 3]))) < 1e-12
    assert theory.softmax([1, 2, 3], temperature=0.5) == pytest.approx(theory.softmax([2, 4, 6]), abs=1e-12)
    assert theory.softmax([1, 2, 3], temperature=0.01)[2] > 0.999999  # τ → 0: one-hot on the top score
    assert max(theory.softmax([1, 2, 3], temperature=1000)) < 0.34  # τ large: nearly uniform
    assert theory.softmax([1, float("-inf"), 3])[1] == 0.0  # a masked score gets exactly 0
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(TheoryInputError) as info:
            theory.softmax([1, 2], temperature=bad)
        assert info.value.reason == "temperature"


def test_weights_are_normalised_and_mix_the_values():
    assert theory.normalize_weights([1, 1, 2]) == [0.25, 0.25, 0.5]
    assert theory.weighted_sum([0.25, 0.25, 0.5], [(2, 0), (0, 2), (-2, -1)]) == [-0.5, 0.0]
    assert theory.weighted_sum([0, 1, 0], [(2, 0), (0, 2), (-2, -1)]) == [0.0, 2.0]  # one-hot picks a value
    for raw, reason in (([0, 0, 0], "zero_sum"), ([1, -1, 2], "negative")):
        with pytest.raises(TheoryInputError) as info:
            theory.normalize_weights(raw)
        assert info.value.reason == reason
    with pytest.raises(TheoryInputError) as info:
        theory.weighted_sum([0.5, 0.6], [(1, 0), (0, 1)])  # does not sum to 1
    assert info.value.reason == "sum"


def test_every_input_error_has_a_message_in_both_languages():
    for reason in TheoryInputError.REASONS:  # the page shows theory.err.<reason> with the value filled in
        zh, en = (t(f"theory.err.{reason}", lang, value=[0.0, 0.0]) for lang in ("zh", "en"))
        assert "[0.0, 0.0]" in zh and "[0.0, 0.0]" in en and zh != en
    with pytest.raises(ValueError):
        TheoryInputError("x", 1, "no_such_reason", "")


def test_one_query_scores_the_example_keys_one_two_three():
    att = theory.attend((1, 2), EXAMPLE_KEYS, EXAMPLE_VALUES)
    assert att.scores == [1.0, 2.0, 3.0]
    assert [round(x, 3) for x in att.weights] == SOFTMAX_123
    expected = [sum(a * v[d] for a, v in zip(att.weights, EXAMPLE_VALUES)) for d in range(2)]
    assert att.output == pytest.approx(expected, abs=1e-12)
    scaled = theory.attend((1, 2), EXAMPLE_KEYS, EXAMPLE_VALUES, scaled=True)
    assert scaled.scores == pytest.approx([1 / math.sqrt(2), 2 / math.sqrt(2), 3 / math.sqrt(2)], abs=1e-12)


def test_matrix_form_matches_pytorch_and_the_single_query_form():
    g = torch.Generator().manual_seed(0)
    Q, K, V = torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g), torch.randn(3, 2, generator=g)
    for causal in (False, True):
        mx = theory.attention_matrix(Q.tolist(), K.tolist(), V.tolist(), causal_mask=causal)
        ref = F.scaled_dot_product_attention(Q[None].double(), K[None].double(), V[None].double(), is_causal=causal)[0]
        assert torch.tensor(mx.output, dtype=torch.float64).sub(ref).abs().max() < 1e-12
        assert all(abs(sum(row) - 1) < 1e-12 for row in mx.weights)
    masked = theory.attention_matrix(Q.tolist(), K.tolist(), V.tolist(), causal_mask=True)
    assert masked.weights[0][1:] == [0.0, 0.0] and masked.weights[1][2] == 0.0  # exact zeros above the diagonal
    single = theory.attend(Q[1].tolist(), K.tolist(), V.tolist(), scaled=True)
    assert theory.attention_matrix(Q.tolist(), K.tolist(), V.tolist()).output[1] == pytest.approx(
        single.output, abs=1e-12
    )


def test_every_concept_links_real_steps_and_has_texts():
    assert theory.CONCEPT_IDS == ("definition", "vector", "operations", "weighted_sum", "qkv", "softmax", "matrix")
    for c in theory.CONCEPTS:
        assert c.steps and all(s in STEP_IDS for s in c.steps), c
        assert f"theory.{c.id}.title" in CATALOGUE and f"theory.{c.id}.body" in CATALOGUE
        assert c.formula.count("{") == c.formula.count("}") and c.formula.count(r"\left") == c.formula.count(r"\right")
        assert not re.search(r"\\q?quad[A-Za-z]", c.formula), c.formula  # "\qquadc" is an unknown macro


def test_number_formatting():
    assert theory.format_number(11.0) == "11" and theory.format_number(0.0) == "0"
    assert theory.format_number(-0.575) == "−0.575" and theory.format_number(float("-inf")) == "−∞"
    assert theory.format_vector([4.0, 6.0]) == "(4, 6)"


def test_vector_picture_draws_named_arrows_on_square_axes():
    spec = vector_picture(
        [("a", (1, 2)), ("b", (3, -4))], title="T", x_title="X", y_title="Y", name_title="N"
    ).to_dict()
    assert spec["title"] == "T" and spec["width"] == spec["height"] == 240
    rows = {r["name"]: r for data in spec["datasets"].values() for r in data if "name" in r}
    assert set(rows) == {"a", "b"} and (rows["b"]["x1"], rows["b"]["y1"]) == (3, -4)
    assert rows["a"]["angle"] == pytest.approx(90 - math.degrees(math.atan2(2, 1)))  # heads point along the arrow
    shafts = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "rule" and "x2" in layer["encoding"])
    x, y = shafts["encoding"]["x"], shafts["encoding"]["y"]
    assert x["title"] == "X" and y["title"] == "Y" and x["scale"]["domain"] == y["scale"]["domain"] == [-5, 5]
    tail = vector_picture([("b", (1, 1))], origins=[(2, 3)]).to_dict()
    tail_rows = [r for data in tail["datasets"].values() for r in data if "name" in r]
    assert (tail_rows[0]["x0"], tail_rows[0]["x1"], tail_rows[0]["y1"]) == (2, 3, 4)
    with pytest.raises(ValueError, match="has 3 components"):
        vector_picture([("x", (1, 2, 3))])


def test_the_fast_specs_draw_what_the_altair_charts_draw():
    pictures = [
        ([("a", (1, 2)), ("b", (3, -4))], {"title": "T", "x_title": "X", "y_title": "Y", "name_title": "N"}),
        ([("b", (1, 1)), ("c", (-0.5, 0.25))], {"origins": [(2, 3), None], "size": 260}),
    ]
    for vectors, options in pictures:
        for _ in range(2):  # the second from the cached layout
            fast = vector_picture_spec(vectors, **options)
            assert inline_data(fast) == inline_data(vector_picture(vectors, **options).to_dict())
            assert isinstance(fast["datasets"]["cells"], pa.Table)  # the browser swaps the data, keeps the spec
    moved = vector_picture_spec([("a", (1, 2)), ("b", (3, -4.5))], title="T", x_title="X", y_title="Y", name_title="N")
    assert moved["layer"][2]["encoding"]["x"]["scale"]["domain"] == [-6, 6]  # the extent follows the data
    options = {"title": "α", "highlight": "k2", "x_title": "key", "y_title": "α"}
    for probs in ([0.25, 0.75], [0.6, 0.4]):
        fast = probability_bars_spec(probs, ["k1", "k2"], **options)
        assert inline_data(fast) == inline_data(probability_bars(probs, ["k1", "k2"], **options).to_dict())
    assert probability_bars_spec([0.6, 0.4], ["k1", "k2"], **options)["data"] == {"name": "cells"}
    with pytest.raises(ValueError, match="has 3 components"):
        vector_picture_spec([("x", (1, 2, 3))])
    with pytest.raises(ValueError, match="2 probabilities for 3 characters"):
        probability_bars_spec([0.5, 0.5], ["a", "b", "c"])


# ---------------------------------------------------------------- the page (AppTest)


def theory_page(lang: str = "en", section: str | None = None) -> AppTest:
    """The Theory page opened directly (no model is needed), with ?lang=, showing ``section``
    (the first when None)."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=60)
    at.query_params["lang"] = lang
    at.switch_page("pages/theory.py").run()  # before the first run the file name is the page's url_path
    if section is not None:
        open_section(at, section)
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_section(at: AppTest, section: str) -> AppTest:
    """Pick ``section`` in the page's section chooser, as a student does."""
    return at.button_group(key="theory_section").set_value(section).run()


def metric(at: AppTest, key: str, lang: str = "en") -> str:
    label = t(key, lang)
    return next(m.value for m in at.metric if m.label == label)


def softmax_table(at: AppTest, lang: str = "en"):
    return next(d.value for d in tables(at) if t("theory.sm.col_alpha", lang) in d.value.columns)


def test_page_computes_dot_product_and_softmax_live():
    at = theory_page(section="vectors")
    for key, value in {"theory_a1": 1.0, "theory_a2": 2.0, "theory_b1": 3.0, "theory_b2": 4.0, "theory_c": 2.0}.items():
        at.slider(key=key).set_value(value)
    at.run()
    assert metric(at, "theory.ops.dot") == "11"
    assert metric(at, "theory.ops.sum") == "(4, 6)"
    assert metric(at, "theory.ops.scaled") == "(2, 4)"
    assert any(c.value == "a · b = 1 × 3 + 2 × 4 = 11" for c in at.caption)
    at.slider(key="theory_b1").set_value(-2.0)
    at.slider(key="theory_b2").set_value(1.0).run()  # (1, 2) · (−2, 1) = 0: perpendicular
    assert metric(at, "theory.ops.dot") == "0" and any(c.value == t("theory.ops.zero", "en") for c in at.caption)

    open_section(at, "attention")
    table = softmax_table(at)  # default query (1, 2) against keys (1,0), (0,1), (1,1)
    assert list(table[t("theory.sm.col_score", "en")]) == [1.0, 2.0, 3.0]
    assert [round(x, 3) for x in table[t("theory.sm.col_alpha", "en")]] == SOFTMAX_123
    shown = next(d.text for d in tables(at) if t("theory.sm.col_alpha", "en") in d.value.columns)
    assert list(shown[t("theory.sm.col_alpha", "en")]) == ["0.090", "0.245", "0.665"]  # every α with 3 decimals
    at.slider(key="theory_tau").set_value(0.5).run()
    assert [round(x, 3) for x in softmax_table(at)[t("theory.sm.col_alpha", "en")]] == [
        0.016,
        0.117,
        0.867,
    ]  # softmax([2, 4, 6])
    out = theory.attend((1, 2), EXAMPLE_KEYS, EXAMPLE_VALUES, temperature=0.5).output
    assert metric(at, "theory.sm.output") == theory.format_vector(out)
    at.slider(key="theory_tau").set_value(1.0)
    at.toggle(key="theory_scaled").set_value(True).run()
    assert [round(x, 3) for x in softmax_table(at)[t("theory.sm.col_score", "en")]] == [0.707, 1.414, 2.121]


def test_page_normalises_weights_and_explains_all_zero_weights_in_chinese():
    at = theory_page("zh", "weighted_sum")
    for i, value in enumerate((1.0, 1.0, 2.0), 1):
        at.slider(key=f"theory_r{i}").set_value(value)
    at.run()
    table = next(d.value for d in tables(at) if t("theory.ws.col_alpha", "zh") in d.value.columns)
    assert list(table[t("theory.ws.col_alpha", "zh")]) == [0.25, 0.25, 0.5]
    shown = next(d.text for d in tables(at) if t("theory.ws.col_alpha", "zh") in d.value.columns)
    assert list(shown[t("theory.ws.col_alpha", "zh")]) == ["0.250", "0.250", "0.500"]
    assert list(shown[t("theory.ws.col_raw", "zh")]) == ["1", "1", "2"]
    assert metric(at, "theory.ws.output", "zh") == "(−0.5, 0)"
    for i in (1, 2, 3):
        at.slider(key=f"theory_r{i}").set_value(0.0)
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [t("theory.err.zero_sum", "zh", value=[0.0, 0.0, 0.0])]


def test_page_matrix_form_mask_zeroes_the_future():
    at = theory_page(section="attention")
    weights = next(
        d.value for d in tables(at) if list(d.value.index) == [t("theory.mx.token", "en", i=i) for i in range(3)]
    )
    w = weights.to_numpy()
    assert w[0, 1] == 0 and w[0, 2] == 0 and w[1, 2] == 0 and abs(w.sum(1) - 1).max() < 2e-3
    at.toggle(key="theory_mask").set_value(False).run()
    w = tables(at)[-2].value.to_numpy()
    assert w[0, 1] > 0 and w[1, 2] > 0 and abs(w.sum(1) - 1).max() < 2e-3
    assert any("0.0e+00" in c.value for c in at.caption)  # the matrix row equals the single-query result


def test_page_links_every_concept_to_its_attention_step():
    at = theory_page()
    links = []
    for section in ("definition", "vectors", "weighted_sum", "attention"):
        links += open_section(at, section).main.get("page_link")  # not the sidebar's lesson builder
    expected = [s for c in theory.CONCEPTS for s in c.steps]
    assert [parse_qs(p.proto.query_string)["step"][0] for p in links] == expected
    assert {p.proto.page for p in links} == {"attention"}
    assert links[0].proto.label == t("theory.link", "en", number=1, name=t("step.projection.name", "en"))


def test_page_shows_the_reference_answer_on_request_and_checks_quiz_answers():
    at = theory_page("zh", "practice")
    answer = t("theory.exercise.answer", "zh")
    assert all(answer not in i.value for i in at.info)
    at.text_area(key="theory_answer").set_value("注意力可以直接看到远处的字").run()
    at.toggle(key="theory_show_answer").set_value(True).run()
    assert any(i.value == answer for i in at.info)
    assert at.text_area(key="theory_answer").value == "注意力可以直接看到远处的字"  # the student's text is kept
    assert not at.success and not at.warning
    at.radio(key="theory_quiz_mask_weight").set_value("c").run()  # exactly 0: right
    assert [s.value for s in at.success] == [t("theory.quiz.right", "zh", why=t("theory.quiz.mask_weight.why", "zh"))]
    at.radio(key="theory_quiz_shift").set_value("a").run()  # "they all grow": wrong
    assert [w.value for w in at.warning] == [t("theory.quiz.wrong", "zh", why=t("theory.quiz.shift.why", "zh"))]
    at.radio(key="theory_quiz_mask_positions").set_value("b").run()
    at.radio(key="theory_quiz_temperature").set_value("b").run()
    assert len(at.success) == 3 and len(at.warning) == 1
    # each first pick is counted in the score and kept in "my answers", as the other pages' guesses
    answers = class_session(at.session_state).answers
    assert at.session_state["exercise_score"] == (3, 4) and len(answers) == 4
    assert {e.question_text for e in answers.values()} == {
        t(f"theory.quiz.{q}.q", "zh") for q in ("mask_weight", "shift", "mask_positions", "temperature")
    }
    shift = next(e for e in answers.values() if e.question_text == t("theory.quiz.shift.q", "zh"))
    assert shift.answer == "a" and shift.answer_text == t("theory.quiz.shift.a", "zh") and not shift.right
    at.radio(key="theory_quiz_shift").set_value("d").run()  # a second pick: shown, not counted again
    assert at.session_state["exercise_score"] == (3, 4) and len(class_session(at.session_state).answers) == 4


def test_every_step_has_a_concept_that_links_back_to_it():
    assert set(theory.STEP_CONCEPT) == set(STEP_IDS)
    linked = {s for c in theory.CONCEPTS for s in c.steps}
    assert linked == set(STEP_IDS)  # the Theory page links to every step
    for step, cid in theory.STEP_CONCEPT.items():
        assert step in next(c for c in theory.CONCEPTS if c.id == cid).steps


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_link_from_a_step_names_its_section_links_back_and_anchors_it(lang):
    at = AppTest.from_file("../streamlit_app.py", default_timeout=60)
    at.query_params.update({"lang": lang, "concept": "definition", "step": "scale"})
    at.switch_page("pages/theory.py").run()
    assert not at.exception, [e.value for e in at.exception]
    title = t("theory.definition.title", lang)
    assert [i.value for i in at.info] == [
        t("theory.from_step", lang, number=4, name=t("step.scale.name", lang), title=title)
    ]
    back = at.get("page_link")[0].proto
    assert parse_qs(back.query_string) == {"step": ["scale"], "part": ["steps"]} and back.page == "attention"
    assert back.label == t("theory.back_link", lang, number=4, name=t("step.scale.name", lang))
    section = next(h for h in at.subheader if h.value == title)
    assert section.proto.anchor == "concept-definition"
    assert any("concept-definition" in h.proto.body for h in at.get("html"))  # scrolled to on arrival


def test_the_page_draws_one_section_at_a_time_and_the_next_button_opens_the_following_one():
    at = theory_page()
    assert at.button_group(key="theory_section").value == "definition"
    assert [h.value for h in at.subheader] == [t("theory.definition.title", "en")]
    assert not at.slider and not at.get("vega_lite_chart")  # only this section's text and formula are built
    at.button(key="theory_next_definition").click().run()
    assert [h.value for h in at.subheader] == [t(f"theory.{c}.title", "en") for c in ("vector", "operations")]
    assert "theory_tau" not in {s.key for s in at.slider} and len(at.get("vega_lite_chart")) == 1
    at.button(key="theory_next_vectors").click().run()
    assert at.button_group(key="theory_section").value == "weighted_sum"
    assert [h.value for h in at.subheader] == [t("theory.weighted_sum.title", "en")]
    assert any("theory-sections" in h.proto.body for h in at.get("html"))  # scrolled up to the chooser
    open_section(at, "practice")
    assert [h.value for h in at.subheader] == [t("theory.exercise.title", "en"), t("theory.quiz.title", "en")]
    assert not [b for b in at.button if b.key and b.key.startswith("theory_next_")]  # the last section has no "next"


def test_a_sections_values_and_answers_are_kept_while_another_section_is_open():
    at = theory_page(section="weighted_sum")
    at.slider(key="theory_r1").set_value(4.0).run()
    open_section(at, "practice")
    at.radio(key="theory_quiz_shift").set_value("d").run()
    at.text_area(key="theory_answer").set_value("my own words").run()
    open_section(at, "weighted_sum")
    assert at.slider(key="theory_r1").value == 4.0
    table = next(d.value for d in tables(at) if t("theory.ws.col_alpha", "en") in d.value.columns)
    assert list(table[t("theory.ws.col_raw", "en")]) == [4.0, 2.0, 1.0]
    open_section(at, "practice")
    assert at.radio(key="theory_quiz_shift").value == "d" and at.text_area(key="theory_answer").value == "my own words"
    assert [s.value for s in at.success] == [t("theory.quiz.right", "en", why=t("theory.quiz.shift.why", "en"))]
    at.radio(key="_lang_radio").set_value("zh").run()  # the language switch keeps the open section
    assert at.button_group(key="theory_section").value == "practice"
    assert [h.value for h in at.subheader][0] == t("theory.exercise.title", "zh")


@pytest.mark.parametrize(
    ("concept", "section"),
    [("softmax", "attention"), ("weighted_sum", "weighted_sum"), ("vector", "vectors"), ("definition", "definition")],
)
def test_a_link_to_a_concept_opens_its_section(concept, section):
    at = AppTest.from_file("../streamlit_app.py", default_timeout=60)
    at.query_params.update({"lang": "en", "concept": concept, "step": "softmax"})
    at.switch_page("pages/theory.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.button_group(key="theory_section").value == section
    assert t(f"theory.{concept}.title", "en") in [h.value for h in at.subheader]
    open_section(at, "practice")  # the student may go on to another section: the link does not pull back
    at.run()
    assert at.button_group(key="theory_section").value == "practice"
