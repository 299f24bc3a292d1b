"""The Attention page: the nine steps with real numbers, what-if switches, links, bad input.

AppTest tests drive the page with the default (seed) model, trained once per process by the app's
own cache; unit tests check the helpers behind it on the small config.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import replace
from urllib.parse import parse_qs

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import torch
from helpers import SMALL, open_page, small_model, tables
from streamlit.testing.v1 import AppTest

from tinygpt.attention import Switches, future_mask
from tinygpt.explanations.charts import alpha_grid_spec, heatmap, heatmap_spec, position_labels, vega_spec
from tinygpt.explanations.charts.live import evaluate
from tinygpt.explanations.explain import (
    Copy,
    DotProduct,
    ScoreCell,
    explain_cell,
    masked_weights,
    module_difference,
    non_finite,
    sdpa_switch_difference,
    step_source_location,
    trace_of,
    walk,
)
from tinygpt.i18n import t
from tinygpt.params import read_step
from tinygpt.ui.attention import state as view
from tinygpt.ui.attention.cell import cell_latex
from tinygpt.ui.attention.live_bridge import tau_class
from tinygpt.ui.shared import attention_data as data
from tinygpt.ui.views.attention_table import K_RESET, K_SNAPSHOT

SEED_LAYERS, SEED_HEADS = 6, 8
#: The parameters of the page's view (the model travels in model=).
URL_KEYS = ("text", "layer", "head", "step", "mask", "scale", "tau")


# ---------------------------------------------------------------- AppTest helpers


def open_attention(lang: str = "en", own_model=None, **params: str) -> AppTest:
    """The app on the Attention page with ?lang= and the given query parameters: the textbook
    model unless ``model=`` or ``own_model`` says otherwise."""
    params.setdefault("model", "own" if own_model is not None else "textbook")
    return open_page("attention", lang, own_model, **params)


def rerun(at: AppTest, **state) -> AppTest:
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def more(at: AppTest) -> AppTest:
    """Open "More controls" (layer, head, heads off, scaling, the score editor)."""
    return rerun(at, **{view.K_MORE: True})


def table(at: AppTest) -> pd.DataFrame:
    """The current step's table (the first table on the page)."""
    return tables(at)[0].value


def alpha(at: AppTest) -> np.ndarray:
    return table(at).to_numpy(dtype=np.float64)


def markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def prediction(at: AppTest) -> pd.DataFrame:
    """The last position's distribution: character | model's own p | p with the switches | change."""
    return next(d.value for d in tables(at) if t("attn.pred_new", "en") in d.value.columns)


def seed_tm():
    """The default model the page uses (the app's process-wide cache; trained by the first page run)."""
    from tinygpt.ui.shared.models import default_model

    return default_model()


# ---------------------------------------------------------------- the switches, driven on the page


def test_default_softmax_step_rows_sum_to_one_masked_exactly_zero_and_checks_agree():
    at = rerun(open_attention(step="softmax"), **{view.K_CURIOUS: True})
    a = alpha(at)
    assert a.shape == (4, 4)
    assert np.abs(a.sum(1) - 1).max() < 1e-6
    assert (a[np.triu_indices(4, 1)] == 0).all() and (a[np.tril_indices(4)] > 0).all()
    text = markdown(at)
    assert t("attn.check_masked", "en", n=6 * SEED_HEADS, value=t("attn.check_masked_value", "en")) in text
    assert t("attn.check_module", "en", diff=0.0) in text  # the trace IS the module's output
    sdpa = float(re.search(r"scale=0\.125\): ([0-9.e+-]+)", text).group(1))
    assert sdpa < 1e-5
    # the same numbers as the model's own trace, and the URL holds the view
    record = seed_tm()
    own = trace_of(record.model, record.vocab.encode("你好世界")[None], 0).state["alpha"][0, 0]
    assert np.allclose(a, own.numpy(), atol=1e-6)
    assert {k: at.query_params[k] for k in URL_KEYS} == {
        "text": "你好世界",
        "layer": "0",
        "head": "0",
        "step": "softmax",
        "mask": "1",
        "scale": "sqrt",
        "tau": "1",
    }


def test_mask_off_lets_every_position_see_the_future():
    at = rerun(open_attention(step="softmax"), **{view.K_CURIOUS: True})
    at.toggle(key=view.K_MASK).set_value(False).run()
    a = alpha(at)
    assert a[0, 1] > 0 and (a > 0).all()
    assert np.abs(a.sum(1) - 1).max() < 1e-6
    assert t("attn.check_no_mask", "en") in markdown(at)
    assert at.query_params["mask"] == "0"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_mask_step_says_when_the_mask_is_off(lang):
    on = open_attention(lang, step="mask")
    assert t("attn.mask_off_note", lang) not in [i.value for i in on.info]
    off = open_attention(lang, step="mask", mask="0")
    assert t("attn.mask_off_note", lang) in [i.value for i in off.info]


def test_scaling_by_one_sharpens_every_row_and_a_custom_divisor_divides():
    at = more(open_attention(step="softmax"))
    before = alpha(at)
    at.radio(key=view.K_SCALING).set_value("one").run()
    after = alpha(at)
    assert (after[1:].max(1) >= before[1:].max(1) - 1e-7).all()  # rows with ≥ 2 visible keys
    assert (after[1:].max(1) > before[1:].max(1)).any()
    assert at.query_params["scale"] == "1"
    rerun(at, **{view.K_STEP: "scores"})
    S = alpha(at)
    rerun(at, **{view.K_STEP: "scale", view.K_SCALING: "custom"})
    rerun(at, **{view.K_DIVISOR: 2.0})
    assert np.allclose(alpha(at), S / 2, rtol=1e-6)
    assert at.query_params["scale"] == "2"


def test_temperature_at_the_ends_of_its_range_one_hot_and_uniform_without_nan():
    at = rerun(open_attention(step="softmax"), **{view.K_CURIOUS: True})
    at.select_slider(key=view.K_TAU).set_value(view.TEMPERATURES[0]).run()
    a = alpha(at)
    assert not np.isnan(a).any()
    assert np.abs(a.max(1) - 1).max() < 1e-3  # every row one-hot within 1e-3
    assert t("attn.check_finite", "en") in markdown(at)
    assert at.query_params["tau"] == "0.0001"
    # the caption is text (not a chart): τ in the span the browser's script keeps at the slider's value
    (caption,) = [c.value for c in at.caption if tau_class() in c.value]
    assert f'<span class="{tau_class()}">0.0001</span>' in caption
    assert re.sub("<[^>]+>", "", caption) == t("attn.tau_now", "en", tau=0.0001)
    at.select_slider(key=view.K_TAU).set_value(view.TEMPERATURES[-1]).run()
    a = alpha(at)
    visible = np.tril(np.ones((4, 4), dtype=bool))
    expected = np.where(visible, 1 / visible.sum(1, keepdims=True), 0)
    assert np.abs(a - expected).max() < 1e-2 and not np.isnan(a).any()
    assert t("attn.check_finite", "en") in markdown(at)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_divisor_out_of_range_is_refused_in_the_pages_language_and_the_one_in_use_kept(language):
    at = more(open_attention(step="scale", scale="4", lang=language))
    before = at.number_input(key=view.K_DIVISOR)
    assert before.value == 4.0
    for typed in (0.001, 5000.0):
        at.number_input(key=view.K_DIVISOR).set_value(typed).run()
        lo, hi = f"{view.MIN_DIVISOR:g}", f"{view.MAX_DIVISOR:g}"
        label = t("attn.scale_value", language)
        refused = t("err.number_refused", language, label=label, value=f"{typed:g}", lo=lo, hi=hi, kept="4")
        assert refused in [w.value for w in at.warning] and not at.exception
        assert at.number_input(key=view.K_DIVISOR).value == 4.0 and at.query_params["scale"] == "4"
    at.number_input(key=view.K_DIVISOR).set_value(2.5).run()  # in range: taken, no message
    assert not at.warning and at.query_params["scale"] == "2.5"


def test_an_edited_score_changes_only_its_row_and_later_steps():
    at = more(open_attention(step="softmax"))
    before = alpha(at)
    rerun(at, **{view.K_EDITING: True})
    assert at.select_slider(key=view.K_EDIT_I).value == 3 and at.select_slider(key=view.K_EDIT_J).value == 0
    rerun(at, **{view.K_EDIT_I: 2})
    cell = at.number_input(key=f"{view.K_EDIT_VALUE}_l0_h0_i2_j0")
    record = seed_tm()
    own = float(trace_of(record.model, record.vocab.encode("你好世界")[None], 0).state["S"][0, 0, 2, 0])
    assert cell.value == pytest.approx(own, abs=1e-6)
    cell.set_value(view.MAX_EDIT * 2).run()  # refused in the user's language, the own score kept
    refused = t("attn.edit_refused", "en", value=f"{view.MAX_EDIT * 2:g}", limit=f"{view.MAX_EDIT:g}")
    assert refused in [w.value for w in at.warning] and "edits" not in at.query_params
    cell = at.number_input(key=f"{view.K_EDIT_VALUE}_l0_h0_i2_j0")
    cell.set_value(80.0).run()
    after = alpha(at)
    assert np.abs(after[2] - before[2]).max() > 0.1 and after[2, 0] > 0.99
    rows = [0, 1, 3]
    assert np.array_equal(after[rows], before[rows])
    assert at.query_params["edits"] == "0:2:0:80"
    rerun(at, **{view.K_CURIOUS: True})  # the checks: no PyTorch reference takes an edited score
    assert t("attn.check_sdpa_edits", "en") in markdown(at)
    rerun(at, **{view.K_STEP: "scores"})
    assert table(at).to_numpy()[2, 0] == 80.0  # the edited score is what step 3 shows
    rerun(at, **{view.K_EDIT_I: 3})  # another cell: the first edit stays
    assert at.number_input(key=f"{view.K_EDIT_VALUE}_l0_h0_i3_j0").value != 80.0 and table(at).to_numpy()[2, 0] == 80.0
    rerun(at, **{view.K_EDIT_I: 2})
    at.number_input(key=f"{view.K_EDIT_VALUE}_l0_h0_i2_j0").set_value(
        round(own, 4)
    ).run()  # its own value as shown: no edit
    assert "edits" not in at.query_params and table(at).to_numpy()[2, 0] != 80.0
    at.number_input(key=f"{view.K_EDIT_VALUE}_l0_h0_i2_j0").set_value(5.0).run()
    at.button(key=K_RESET).click().run()  # back to the model's own attention: no edits, no switches
    rerun(at, **{view.K_STEP: "softmax"})
    assert np.array_equal(alpha(at), before) and not at.toggle(key=view.K_EDITING).value
    assert "edits" not in at.query_params


def test_whole_model_prediction_with_switches_matches_the_model_run_with_them():
    at = open_attention(step="softmax", part="prediction")  # an older link's part: the details open
    own_p = prediction(at)
    at.toggle(key=view.K_MASK).set_value(False).run()
    frame = prediction(at)
    record = seed_tm()
    with torch.no_grad():
        ids = record.vocab.encode("你好世界")[None]
        expected = torch.softmax(record.model(ids, {0: Switches(causal_mask=False)})[0, -1].double(), -1).numpy()
        own = torch.softmax(record.model(ids)[0, -1].double(), -1).numpy()
    assert list(frame[t("attn.pred_char", "en")]) == list("你好世界")
    assert np.allclose(frame[t("attn.pred_new", "en")].to_numpy(), expected, atol=1e-6)
    assert at.session_state[view.K_DETAILS] is True
    assert np.allclose(frame[t("attn.pred_own", "en")].to_numpy(), own, atol=1e-6)
    assert np.allclose(own_p[t("attn.pred_own", "en")].to_numpy(), own, atol=1e-6)
    # the switch moves the textbook model's small probabilities (1.13e-05 → 1.19e-05), and the table shows it
    shown = tables(at)[[list(d.value.columns) for d in tables(at)].index(list(frame.columns))].text
    assert list(shown[t("attn.pred_new", "en")]) != list(shown[t("attn.pred_own", "en")])


# ---------------------------------------------------------------- navigation, the cell, the URL


def test_step_buttons_move_one_step_and_stop_at_the_ends():
    at = open_attention()
    assert at.select_slider(key=view.K_STEP).value == "projection" and not at.button(key="attn_prev").disabled
    at.button(key="attn_prev").click().run()  # before step 1: the input X
    assert at.select_slider(key=view.K_STEP).value == view.INPUT and at.button(key="attn_prev").disabled
    at.button(key="attn_next").click().run()
    at.button(key="attn_next").click().run()
    assert at.select_slider(key=view.K_STEP).value == "split_heads" and table(at).shape == (4, 64)
    at.button(key="attn_prev").click().run()
    assert at.select_slider(key=view.K_STEP).value == "projection"
    rerun(at, **{view.K_STEP: "output_projection"})
    assert at.button(key="attn_next").disabled
    assert t("attn.curious", "en") in [e.label for e in at.expander]
    assert at.get("download_button")


def test_cell_arithmetic_uses_the_numbers_in_the_table():
    at = open_attention(step="softmax")
    rerun(at, **{view.K_CELL_I: 3, view.K_CELL_J: 1})
    text = markdown(at)
    a = alpha(at)
    # the softmax of row 3 is the live text chart (drawn in the browser from the data sent here)
    assert "S_{3,1} = q_{3} \\cdot k_{1}" in text and t("attn.live_row", "en", i=3, j=1) in text
    (chart,) = [c.proto for c in at.get("vega_lite_chart") if "datum.pick_i" in c.proto.spec]
    cells = pa.ipc.open_stream(chart.datasets[0].data.data).read_all().to_pydict()
    assert set(cells["pick_i"]) == {3} and set(cells["pick_j"]) == {1}
    S = np.asarray(cells["s"]).reshape(4, 4)
    sw = dict(temperature=cells["tau0"][0], divisor=cells["div0"][0], causal_mask=cells["mask0"][0], uniform=False)
    assert math.isclose(evaluate(S, **sw)[3, 1], a[3, 1], rel_tol=1e-5)
    rerun(at, **{view.K_STEP: "scores"})
    assert "S_{3,1} = q_{3} \\cdot k_{1}" in markdown(at) and f"= {alpha(at)[3, 1]:.4g}$" in markdown(at)


def test_url_parameters_open_the_same_view_and_round_trip():
    params = {"text": "你好你好", "layer": "2", "head": "3", "step": "scores", "mask": "0", "scale": "1", "tau": "0.5"}
    at = more(open_attention(**params))
    assert not at.warning
    assert at.button_group(key=view.K_LAYER).value == 2 and at.button_group(key=view.K_HEAD).value == 3
    assert at.toggle(key=view.K_MASK).value is False and at.select_slider(key=view.K_TAU).value == 0.5
    record = seed_tm()
    S = trace_of(record.model, record.vocab.encode("你好你好")[None], 2).state["S"][0, 3].numpy()
    assert np.allclose(alpha(at), S, atol=1e-5)
    assert {k: at.query_params[k] for k in URL_KEYS} == params
    # change the view, then open its URL afresh: the same table
    rerun(at, **{view.K_STEP: "softmax", view.K_SCALING: "sqrt"})
    shown = alpha(at)
    again = open_attention(**{k: at.query_params[k] for k in URL_KEYS})
    assert np.array_equal(alpha(again), shown)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bad_url_values_are_named_with_what_is_accepted_and_the_view_stays(lang):
    at = open_attention(lang, layer="9", head="①", step="attention", mask="maybe", scale="0", tau="abc", off="²")
    (box,) = [w.value for w in at.warning]  # one box listing them
    warnings = [line.removeprefix("- ") for line in box.split("\n")]
    more(at)
    head, tail = t("link.bad_param_first", lang, name="", value="", accepted="@").split("@")
    assert len(warnings) == 7 and all(w.startswith(head[:4]) and w.endswith(tail) for w in warnings)  # the defaults
    accepted = lambda key, **f: t(f"accepted.{key}", lang, **f)  # noqa: E731
    said = lambda name, value, key, **f: t(
        "link.bad_param_first", lang, name=name, value=value, accepted=accepted(key, **f)
    )  # noqa: E731
    assert said("layer", "9", "index_layer", hi=5, last=6) in warnings  # the link's 0..5 are the page's layers 1..6
    assert said("head", "①", "index_head", hi=7, last=8) in warnings
    assert said("off", "²", "heads_list", hi=7, last=8) in warnings
    steps = ", ".join(view.NAV_IDS)  # the names, and the numbers 1–9 a link may use instead
    assert said("step", "attention", "step", options=steps, last=9) in warnings
    assert any("maybe" in w for w in warnings) and any("scale=0" in w for w in warnings)
    assert any("abc" in w for w in warnings)
    assert at.button_group(key=view.K_LAYER).value == 0 and at.button_group(key=view.K_HEAD).value == 0
    assert at.select_slider(key=view.K_STEP).value == "projection" and at.toggle(key=view.K_MASK).value is True
    assert at.query_params["layer"] == "0" and at.query_params["tau"] == "1"
    assert not at.warning  # a refused value is said once, not on every run
    at.query_params["layer"] = "7"  # the address changed once the page was shown: its layer stays as it was
    at.run()
    assert [w.value for w in at.warning] == [
        t("link.bad_param", lang, name="layer", value="7", accepted=accepted("index_layer", hi=5, last=6))
    ]
    assert at.button_group(key=view.K_LAYER).value == 0


# ---------------------------------------------------------------- input that must not break it


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unknown_characters_are_listed_and_empty_text_is_refused(lang):
    at = open_attention(lang)
    at.text_input(key=view.K_TEXT).set_value("你们好吗").run()
    assert not at.exception
    assert at.error[0].value == t("err.unknown_chars", lang, unknown="们 吗", known="你 好 世 界")
    at.text_input(key=view.K_TEXT).set_value("").run()
    assert not at.exception and at.warning[0].value == t("err.empty_text", lang)


def test_older_links_part_opens_the_expander_it_named_and_a_theory_link_opens_its_step():
    at = open_attention(part="model", step="scale")
    assert at.session_state[view.K_HEADS] is True and "part" not in at.query_params
    assert at.select_slider(key=view.K_STEP).value == "scale"
    assert t("attn.exp.heads_top", "en", layer=0, head=0, n=0, T=4, dp=0.0)[:8] in markdown(at) or at.get(
        "vega_lite_chart"
    )
    at.query_params.update({"step": "softmax", "part": "steps"})  # the Theory page's link back to a step
    at.run()
    assert at.select_slider(key=view.K_STEP).value == "softmax" and "part" not in at.query_params


def test_back_from_another_page_the_view_is_as_the_student_left_it():
    at = open_attention(layer="1", head="2", step="scale", mask="0", tau="0.5", part="prediction")
    for page in ("predict", "attention"):  # a page switch clears the URL's query, as st.navigation does
        at.query_params.clear()
        at.query_params["lang"] = "en"
        at.switch_page(f"pages/{page}.py")
        at.run()
        assert not at.exception
    more(at)
    assert (at.button_group(key=view.K_LAYER).value, at.button_group(key=view.K_HEAD).value) == (1, 2)
    assert at.toggle(key=view.K_MASK).value is False and at.select_slider(key=view.K_TAU).value == 0.5
    assert at.query_params["step"] == "scale"
    assert at.query_params["model"] == "textbook"
    at.query_params.update({"step": "softmax", "part": "steps"})  # a Theory link to a step: the switches stay
    at.run()
    assert at.select_slider(key=view.K_STEP).value == "softmax" and at.toggle(key=view.K_MASK).value is False


def test_text_longer_than_max_len_is_cropped_with_a_notice_and_repeats_keep_their_rows():
    at = open_attention(step="softmax")
    at.text_input(key=view.K_TEXT).set_value("你好世界" * 33).run()  # 132 > max_len 128
    assert at.info[0].value == t("attn.cropped", "en", n=132, max_len=128)
    assert alpha(at).shape == (128, 128)  # the step's grid: its table is one click away
    rerun(at, **{view.K_DETAILS: True})  # above the steps: the effects of every position
    assert len(tables(at)[0].value) == 128 and len(tables(at)[1].value) == 4  # and the last one's distribution
    rerun(at, **{view.K_DETAILS: False})
    at.text_input(key=view.K_TEXT).set_value("你好你好").run()
    frame = table(at)
    assert list(frame.index) == ["0 你", "1 好", "2 你", "3 好"] and list(frame.columns) == list(frame.index)
    assert frame.shape == (4, 4) and frame.iloc[1, 1] != frame.iloc[3, 3]


def test_training_snapshots_get_a_slider_and_a_model_without_them_says_so():
    record = small_model()
    T = 4
    snaps = {
        step: torch.softmax(
            torch.randn(SMALL.n_layers, SMALL.n_heads, T, T).masked_fill(future_mask(T), float("-inf")), -1
        )
        for step in (1, 50, 300)
    }
    with_snaps = replace(record, snapshots=snaps, uid="snapshots-test")
    at = open_attention(own_model=with_snaps, part="training")
    assert at.select_slider(key=K_SNAPSHOT).options == ["1", "50", "300"]
    at.select_slider(key=K_SNAPSHOT).set_value(50).run()
    head = at.session_state[view.K_HEAD] + 1  # the head the page opened on, counted from 1
    caption = t("attn.snap_caption", "en", text="你好世界", step=50, layer=1, head=head)
    assert any(c.value == caption for c in at.caption)
    rerun(at, **{view.K_TRAINING: False})  # closed: not drawn, its value kept
    assert all(s.key != "attn_snapshot" for s in at.select_slider)
    assert rerun(at, **{view.K_TRAINING: True}).select_slider(key=K_SNAPSHOT).value == 50
    without = open_attention(own_model=replace(record, snapshots={}, uid="no-snapshots-test"), part="training")
    assert all(s.key != "attn_snapshot" for s in without.select_slider)
    assert t("attn.snap_none", "en") in [i.value for i in without.info]


# ---------------------------------------------------------------- helpers behind the page (small model)


@pytest.fixture(scope="module")
def small():
    record = small_model()
    idx = record.vocab.encode("你好世界你好")[None]  # (1, 6)
    return record.model, idx


def test_explain_cell_gives_the_arithmetic_of_every_kind_of_step(small):
    model, idx = small
    trace = trace_of(model, idx, 1).with_switches(Switches(temperature=0.5))
    s = trace.state
    cell = explain_cell(trace, "softmax", 2, 4, 1)
    assert isinstance(cell, ScoreCell) and not cell.masked
    assert math.isclose(cell.dot.total, float(s["S"][0, 2, 4, 1]), rel_tol=1e-5, abs_tol=1e-6)
    assert math.isclose(cell.scaled, cell.raw / math.sqrt(SMALL.d_head), rel_tol=1e-6)
    assert math.isclose(cell.exps[1] / cell.exp_sum, float(s["alpha"][0, 2, 4, 1]), rel_tol=1e-5)
    assert cell.exps[5] == 0.0 and cell.temperature == 0.5
    assert explain_cell(trace, "mask", 2, 1, 3).masked
    q = explain_cell(trace, "projection", 0, 2, 7, output=0)
    assert isinstance(q, DotProduct) and math.isclose(q.total, float(s["Q"][0, 2, 7]), rel_tol=1e-5, abs_tol=1e-6)
    o = explain_cell(trace, "weighted_sum", 3, 5, 2)
    assert math.isclose(o.total, float(s["heads"][0, 3, 5, 2]), rel_tol=1e-5, abs_tol=1e-6)
    split = explain_cell(trace, "split_heads", 3, 1, 2, output=2)
    assert (
        isinstance(split, Copy)
        and split.index == (1, 3 * SMALL.d_head + 2)
        and split.value == float(s["V"][0, 1, 3 * SMALL.d_head + 2])
    )
    merged = explain_cell(trace, "merge_heads", 0, 1, 13)
    assert merged.index == (13 // SMALL.d_head, 1, 13 % SMALL.d_head)
    lines = cell_latex(cell, "alpha", 4, 1)
    assert [key for key, _, _ in lines] == [
        "attn.cell_dot",
        "attn.cell_scale",
        "attn.cell_max",
        "attn.cell_exp",
        "attn.cell_sum",
        "attn.cell_alpha",
    ]
    # a score's cell (steps 3-5) ends at the score: no τ or α of step 6 there, stale while τ moves
    assert [key for key, _, _ in cell_latex(explain_cell(trace, "mask", 2, 1, 3), "S_masked", 1, 3)] == [
        "attn.cell_dot",
        "attn.cell_scale",
        "attn.cell_masked",
    ]
    with pytest.raises(IndexError):
        explain_cell(trace, "softmax", 0, 6, 0)


def test_checks_agree_with_pytorch_and_the_module_under_switches(small):
    model, idx = small
    base = trace_of(model, idx, 1)
    own = walk(model, idx)
    assert module_difference(model, own, base) < 1e-6
    assert torch.equal(own.alphas[1], base.state["alpha"][0]) and torch.equal(own.logits, model(idx))
    for sw in (Switches(causal_mask=False), Switches(divisor=1.0, temperature=0.3), Switches(temperature=1e-4)):
        assert sdpa_switch_difference(base.with_switches(sw)) < 1e-4
    assert sdpa_switch_difference(base.with_switches(Switches(edits=((0, 1, 0, 3.0),)))) is None
    assert masked_weights(base) == (SMALL.n_heads * 15, 0.0)
    assert masked_weights(base.with_switches(Switches(causal_mask=False))) == (0, 0.0)
    assert non_finite(base.with_switches(Switches(temperature=1e-4))) == []
    path, first, last = step_source_location("softmax")
    assert path == "tinygpt/attention.py" and last > first


def test_the_url_table_reads_the_documented_values_and_writes_them_back():
    from tinygpt.config import ConfigError, GPTConfig

    cfg = GPTConfig(vocab_size=4, max_len=16, d_model=32, n_heads=4, n_layers=2, d_ff=64)
    params = {p.name: p for p in view.url_params(cfg)}
    read = lambda name, raw: params[name].read(raw, [])  # noqa: E731
    assert read("text", "你") == {view.K_TEXT: "你"} and read("layer", "1") == {view.K_LAYER: 1}
    assert read("step", "6") == {view.K_STEP: "softmax"} and read("step", "input") == {view.K_STEP: view.INPUT}
    assert read("mask", "0") == {view.K_MASK: False} and read("scale", "2.5") == {
        view.K_SCALING: "custom",
        view.K_DIVISOR: 2.5,
    }
    assert read("scale", "1") == {view.K_SCALING: "one"} and read("scale", "sqrt") == {view.K_SCALING: "sqrt"}
    assert read("tau", "0.7") == {view.K_TAU: 0.7} and read("tau", "0.101") == {view.K_TAU: 0.1}
    assert read("uniform", "head") == {view.K_UNIFORM: True, view.K_UNIFORM_SCOPE: "head"}
    assert read("off", "1,0") == {view.K_HEADS_OFF: [0, 1]} and read("part", "Model") == {view.K_HEADS: True}
    notes: list[str] = []
    assert params["tau"].read("0.04", notes) == {view.K_TAU: 0.03} and len(notes) == 1
    for name, raw in (
        ("layer", "2"),
        ("head", "x"),
        ("step", "10"),
        ("scale", "inf"),
        ("tau", "1e9"),
        ("part", "lens"),
        ("layer", "²"),
        ("head", "３"),
        ("off", "0,٣"),
        ("layer", "1" * 4400),
    ):
        with pytest.raises(ConfigError):
            read(name, raw)
    state = {
        view.K_TEXT: "你",
        view.K_LAYER: 1,
        view.K_HEAD: 2,
        view.K_STEP: "mask",
        view.K_MASK: False,
        view.K_SCALING: "custom",
        view.K_DIVISOR: 2.5,
        view.K_TAU: 0.7,
        view.K_HEADS_OFF: [],
        view.K_UNIFORM: False,
        view.K_UNIFORM_SCOPE: "layer",
        view.K_SCOPE: "all",
        view.K_GUESS: False,
        view.K_EDITING: False,
    }
    written = {name: p.write(state) for name, p in params.items() if name != "edits"}
    assert written == {
        "text": "你",
        "layer": "1",
        "head": "2",
        "step": "mask",
        "mask": "0",
        "scale": "2.5",
        "tau": "0.7",
        "off": None,
        "uniform": None,
        "layers": "all",
        "guess": None,
        "part": None,
    }
    assert params["layers"].write({view.K_SCOPE: "layer"}) is None  # in the URL only while set
    assert read("layers", "All") == {view.K_SCOPE: "all"} and read("layers", "one") == {view.K_SCOPE: "layer"}
    assert read_step("3", view.NAV_IDS, 1) == "scores"


def test_fast_tables_csv_and_chart_specs_hold_the_same_numbers():
    m = torch.randn(4, 6)
    rows, cols = position_labels("你好你好"), [str(j) for j in range(6)]
    back = pd.read_csv(io.BytesIO(data.matrix_csv(m, rows, cols)), index_col=0, encoding="utf-8-sig")
    assert list(back.index) == rows and np.allclose(back.to_numpy(), m.numpy(), rtol=1e-7)
    masked = np.zeros((4, 6), dtype=bool)
    masked[0, 5] = True  # one grey cell: the same picture as Altair's, layer for layer
    spec = heatmap_spec(m, rows, cols, kind="signed", title="Q", masked=masked)
    ref = vega_spec(heatmap(m, rows, cols, kind="signed", title="Q", masked=masked))
    assert spec.pop("datasets")["cells"].to_pandas().equals(ref.pop("datasets")["cells"]) and spec == ref
    finite = m.masked_fill(torch.from_numpy(masked), 0)
    assert spec["layer"][0]["encoding"]["color"]["scale"]["domain"] == [
        -float(finite.abs().max()),
        float(finite.abs().max()),
    ]
    plain = heatmap_spec(m, rows, cols, kind="signed", title="Q")  # nothing masked: the grey layer is left out
    assert len(plain["layer"]) == 1 and plain["layer"][0].get("transform", []) == []
    encoding, masked_encoding = plain["layer"][0]["encoding"], spec["layer"][0]["encoding"]
    assert encoding["color"]["scale"]["domain"] == [-float(m.abs().max()), float(m.abs().max())]
    assert {k: v for k, v in encoding.items() if k != "color"} == {
        k: v for k, v in masked_encoding.items() if k != "color"
    }
    a = torch.softmax(torch.randn(3, 4, 4), -1)
    future = np.triu(np.ones((4, 4), dtype=bool), 1)
    cells = alpha_grid_spec(a, ["h0", "h1", "h2"], rows, rows, masked=future)["datasets"]["cells"].to_pandas()
    assert len(cells) == 48 and cells["masked"].sum() == 18 and (cells.loc[cells["masked"], "value"] == 0).all()
    assert np.allclose(cells.loc[~cells["masked"], "value"].to_numpy(), a.numpy()[:, ~future].reshape(-1))


def test_the_checks_and_the_code_are_drawn_only_when_for_the_curious_is_open():
    from tinygpt.attention import step_by_id

    at = open_attention()
    python = lambda: [c.value for c in at.code if c.language == "python"]  # noqa: E731 (the link for the class is plain text)
    assert python() == [] and f"**{t('attn.checks', 'en')}**" not in markdown(at)  # collapsed: nothing sent
    at = rerun(at, **{view.K_CURIOUS: True})
    assert python() == [step_by_id(at.session_state[view.K_STEP]).source().strip()]
    assert f"**{t('attn.checks', 'en')}**" in markdown(at)


# ---------------------------------------------------------------- meaning, input X, colour scale, rough edges


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_step_says_what_it_does_and_why_and_links_its_theory_section(lang):
    from tinygpt.attention import STEPS
    from tinygpt.explanations.theory import CONCEPTS, STEP_CONCEPT
    from tinygpt.i18n import CATALOGUE

    assert len(STEPS) == 9
    at = open_attention(lang)
    for step in STEPS:
        assert f"step.{step.id}.meaning" in CATALOGUE
        meaning = t(f"step.{step.id}.meaning", lang)
        assert meaning != t(f"step.{step.id}.meaning", "en" if lang == "zh" else "zh")
        rerun(at, **{view.K_STEP: step.id})
        assert meaning in [m.value for m in at.markdown]
        concept = STEP_CONCEPT[step.id]
        assert step.id in next(c for c in CONCEPTS if c.id == concept).steps  # the theory page links back
        links = [p for p in at.get("page_link") if p.proto.page == "theory"]
        assert [parse_qs(p.proto.query_string) for p in links] == [{"concept": [concept], "step": [step.id]}]
        assert links[0].proto.label == t("attn.theory_link", lang, title=t(f"theory.{concept}.title", lang))
    assert "√d_head" in t("step.scale.meaning", "en") and "one-hot" in t("step.scale.meaning", "en")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_input_x_comes_before_step_1_with_its_table_and_what_it_is(lang):
    at = open_attention(lang, step="input")
    record = seed_tm()
    ids = record.vocab.encode("你好世界")[None]
    with torch.no_grad():
        block0 = record.model.blocks[0]
        x0 = block0.ln1(record.model.embed(ids))[0]  # Pre-LN: LayerNorm(token + position embedding)
        x2 = record.model.blocks[2].ln1(record.model.blocks[1](block0(record.model.embed(ids))))[0]
    # the first d_head columns, written to 4 decimals; all d_model of them on request, every digit
    assert np.allclose(alpha(at), x0[:, :64].numpy(), atol=5.1e-5) and table(at).shape == (4, 64)
    rerun(at, **{view.K_ALL_COLUMNS: True})
    assert np.allclose(alpha(at), x0.numpy(), atol=1e-6) and table(at).shape == (4, 512)
    rerun(at, **{view.K_ALL_COLUMNS: False})
    assert t("attn.input_header", lang) in [h.value for h in at.subheader]
    assert t("attn.input_pre_first", lang, positions=t("attn.positions_learned", lang)) in markdown(at)
    assert at.query_params["step"] == "input" and at.select_slider(key=view.K_STEP).options[0] == t(
        "attn.input_nav", lang
    )
    rerun(at, **{view.K_LAYER: 2})
    assert np.allclose(alpha(at), x2[:, :64].numpy(), atol=6e-5)
    assert t("attn.input_pre_later", lang, layer=3, blocks="1–2") in markdown(at)  # counted from 1, as the header
    assert len(at.select_slider(key=view.K_STEP).options) == 10  # X and the nine steps


def test_scores_and_scaled_scores_share_one_colour_scale():
    def domain(at: AppTest) -> list[float]:
        import json

        spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
        return next(
            layer["encoding"]["color"]["scale"]["domain"] for layer in spec["layer"] if "color" in layer["encoding"]
        )

    at = open_attention(step="scores")
    S = alpha(at)
    lower = np.tril(np.ones((4, 4), dtype=bool))  # the entries the mask keeps
    bound = float(np.abs(S[lower]).max())  # |S| ≥ |S / 8|
    assert domain(at) == pytest.approx([-bound, bound], rel=1e-6)
    rerun(at, **{view.K_STEP: "scale"})
    assert np.allclose(alpha(at), S / 8, rtol=1e-6)
    assert live_bound(at) == pytest.approx(bound, rel=1e-6)  # the same scale: step 4 is 8 times paler
    caption = t("attn.shared_scale", "en", bound=bound, divisor="√64 = 8", future=t("attn.shared_scale_future", "en"))
    assert caption in [c.value for c in at.caption]
    rerun(at, **{view.K_MASK: False})  # no mask: the whole matrix counts
    whole = float(np.abs(S).max())
    assert live_bound(at) == pytest.approx(whole, rel=1e-6)


def live_bound(at: AppTest) -> float:
    """The colour bound of step 4's live heatmap (drawn in the browser from the data the server
    sent: its raw scores and switches), as ``live.evaluate_scores`` computes the chart's formulas."""
    import json

    from tinygpt.explanations.charts.live import evaluate_scores

    chart = at.get("vega_lite_chart")[0].proto
    spec = json.loads(chart.spec)
    assert "live_div" in [p["name"] for p in spec["params"]] and '"domain":' not in json.dumps(spec["layer"])
    cells = pa.ipc.open_stream(chart.datasets[0].data.data).read_all().to_pydict()
    T = int(len(cells["s"]) ** 0.5)
    scores = np.asarray(cells["s"]).reshape(T, T)
    return evaluate_scores(scores, "scale", divisor=cells["div0"][0], causal_mask=cells["mask0"][0])[1]


def test_the_masked_table_writes_minus_infinity_and_chart_data_stay_finite():
    at = open_attention(step="mask")
    frame = table(at)
    assert np.isneginf(frame.to_numpy()[np.triu_indices(4, 1)]).all()  # the values are still −∞
    element = tables(at)[0]
    assert element.type == "static_table"  # a 4 × 4 table is static: its text is what is drawn
    shown = element.text
    assert shown.iloc[0, 1] == "−∞" and shown.iloc[1, 0] == f"{frame.iloc[1, 0]:.2f}"
    assert "Infinity" not in element.body and 'title="−∞"' in element.body
    m = torch.tensor([[1.0, float("-inf")], [float("nan"), 2.0]])
    cells = heatmap_spec(m, ["0 你", "1 好"], ["0 你", "1 好"], kind="signed")["datasets"]["cells"].to_pandas()
    assert np.isfinite(cells["value"]).all() and list(cells["masked"]) == [False, True, False, False]
    assert list(cells["value"]) == [1.0, 0.0, 0.0, 2.0]


def test_the_cell_pickers_labels_follow_the_step_shown():
    at = open_attention(step="softmax")
    rerun(at, **{view.K_CELL_J: 2})
    picker = at.select_slider(key=view.K_CELL_J)
    assert picker.options == ["0 你", "1 好", "2 世", "3 界"] and picker.value == 2
    rerun(at, **{view.K_STEP: "weighted_sum"})  # (T, d_head): the columns are dimensions
    picker = at.select_slider(key=view.K_CELL_J)
    assert picker.options[:3] == ["0", "1", "2"] and len(picker.options) == 64 and picker.value == 2


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_projection_cells_are_written_in_the_formulas_convention_and_say_how_pytorch_stores_weights(lang):
    at = open_attention(lang, step="projection")
    rerun(at, **{view.K_CELL_I: 3, view.K_CELL_J: 0})
    text = markdown(at)
    assert r"x_{3} \cdot W_{Q}[:,0]" in text and "[0,:]" not in text
    record = seed_tm()
    q = float(trace_of(record.model, record.vocab.encode("你好世界")[None], 0).state["Q"][0, 3, 0])
    assert f"= {q:.4g}$" in text and tables(at)[0].text.iloc[3, 0] == f"{q:.4f}"  # the table writes 4 decimals
    assert t("attn.weights_layout", lang, w="W_Q") in [c.value for c in at.caption]
    rerun(at, **{view.K_STEP: "output_projection"})
    assert r"W_O[:,0]" in markdown(at) and t("attn.weights_layout", lang, w="W_O") in [c.value for c in at.caption]
    rerun(at, **{view.K_STEP: "softmax"})
    assert not any(c.value.startswith(t("attn.weights_layout", lang, w="W_O")[:12]) for c in at.caption)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_text_longer_than_the_trained_window_is_called_extrapolation(lang):
    at = open_attention(lang)
    assert seed_tm().window == 4
    assert not at.info
    at.text_input(key=view.K_TEXT).set_value("你好世界你好").run()
    assert [i.value for i in at.info] == [t("attn.beyond_window", lang, n=6, window=4, last=5)]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_link_tau_between_slider_stops_snaps_to_the_nearest_and_says_so(lang):
    at = open_attention(lang, tau="0.4")  # between 0.3 and 0.5; nearer 0.5 in log scale
    assert at.select_slider(key=view.K_TAU).value == 0.5 and at.query_params["tau"] == "0.5"
    assert [w.value for w in at.warning] == [t("attn.url_snap_tau", lang, value="0.4", used=0.5)]


# ---------------------------------------------------------------- guess, then reveal


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_guess_at_the_softmax_step_shows_its_numbers_after_both_answers_with_the_traces_reasons(lang):
    at = open_attention(lang, step="softmax")
    at.toggle(key=view.K_GUESS).set_value(True).run()
    positions = ["0 你", "1 好", "2 世", "3 界"]

    def step_table_shown() -> bool:
        return any(list(d.value.columns) == positions for d in tables(at))

    rerun(at, **{view.K_CURIOUS: True})
    captions = [c.value for c in at.caption]
    assert not step_table_shown() and t("attn.guess_hidden", lang) in captions
    assert t("ex.score_none", lang) in captions
    assert f"**{t('attn.checks', lang)}**" not in markdown(at)  # the checks say every row sums to 1
    assert t("attn.heads_header", lang, layer=0) not in [e.label for e in at.expander]  # nor the α charts
    argmax = at.button_group(key="attn_ex_argmax_key_pick")  # about the last row until a cell is picked
    assert argmax.label == t("ex.argmax_key.prompt", lang, i=3, token="界") and argmax.options == positions

    record = seed_tm()
    row = trace_of(record.model, record.vocab.encode("你好世界")[None], 0).state["alpha"][0, 0, 3]  # (T,)
    j = int(row.argmax())
    argmax.set_value(str(j)).run()
    assert not at.exception
    assert at.success[0].value == t(
        "ex.right", lang, reason=t("ex.argmax_key.reason", lang, i=3, j=j, value=float(row[j]))
    )
    assert not step_table_shown()  # the row-sum question is still open
    assert t("ex.score", lang, right=1, asked=1) in [c.value for c in at.caption]

    at.button_group(key="attn_ex_row_sum_pick").set_value("4").run()  # wrong: the row sums to 1
    assert not at.exception
    reason = t("ex.row_sum.reason", lang, i=3, total=float(row.double().sum()))
    assert at.error[0].value == t("ex.wrong", lang, answer="1", reason=reason)
    assert t("ex.score", lang, right=1, asked=2) in [c.value for c in at.caption]
    assert step_table_shown() and np.allclose(alpha(at)[3], row.numpy(), atol=1e-6)
    assert f"**{t('attn.checks', lang)}**" in markdown(at) and at.select_slider(key=view.K_CELL_I).value == 3

    rerun(at, **{view.K_STEP: "projection"})  # a step without a question shows its numbers
    assert t("attn.guess_no_question", lang) in [c.value for c in at.caption]
    assert tables(at)[0].value.shape == (4, 64)  # head 0's columns of Q


def test_no_widget_shows_streamlits_english_placeholder_on_the_chinese_page():
    at = open_attention("zh", step="softmax")
    widgets = list(at.get("multiselect")) + list(at.get("selectbox"))
    for widget in widgets:
        placeholder = widget.proto.placeholder
        assert "Choose" not in placeholder and "option" not in placeholder, (widget.key, placeholder)
    # the heads, layers and cells are buttons and sliders: no drop-down with a placeholder
    more(at)
    counted = [str(h + 1) for h in range(SEED_HEADS)]  # people count from 1; the values stay indices
    assert at.button_group(key=view.K_HEADS_OFF).options == counted  # as the head buttons
    assert at.button_group(key=view.K_HEAD).options == counted


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_index_0_is_layer_1_and_head_1_on_the_page_and_the_code_view_says_how_they_map(lang):
    at = open_attention(lang, layer="0", head="0", step="softmax")
    assert t("attn.steps_header", lang, layer=1, head=1) in [h.value for h in at.subheader]
    assert at.session_state[view.K_HEAD] == 0 and at.session_state[view.K_LAYER] == 0  # the link's indices
    shapes = [c.value for c in at.caption if "d_model / h" in c.value]  # "…the text, head 1"
    assert len(shapes) == 1 and t("attn.head_part", lang, head=1) in shapes[0]
    assert t("attn.head_part", lang, head=0) not in shapes[0]
    rerun(at, **{view.K_CURIOUS: True})
    assert t("attn.source_indices", lang, layer=1, head=1, l=0, h=0) in [c.value for c in at.caption]
    rerun(at, **{view.K_HEAD: 1})  # the second head: "head 2" on the page, head=1 in the link
    assert t("attn.steps_header", lang, layer=1, head=2) in [h.value for h in at.subheader]
    assert at.query_params["head"] == "1"
