"""The Attention page's experiments: ablation switches, effects at every position, which heads
matter, the logit lens — on the context example (where attention matters) and the textbook model
(where it cannot)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import torch
from helpers import SMALL, small_model, tables
from streamlit.testing.v1 import AppTest
from test_attention_page import markdown, open_attention, open_part, rerun

from bench.experiments import changes
from tinygpt.attention import Switches
from tinygpt.charts import (
    effects_chart,
    effects_spec,
    labelled_heatmap,
    labelled_heatmap_spec,
    position_labels,
    vega_spec,
)
from tinygpt.examples import EXAMPLES
from tinygpt.explain import explain_cell, head_importance, position_effects, trace_of, walk
from tinygpt.formatting import format_change, format_probability
from tinygpt.i18n import t
from tinygpt.train import train
from tinygpt.ui import attention_view as view
from tinygpt.ui import experiments_view as xv
from tinygpt.ui.models import K_CHOICE

CONTEXT = EXAMPLES["context"]
#: bench.experiments on the context example: uniform attention (every head) in layer 0.
UNIFORM_LAYER0_CHANGES = [3, 5, 6, 7, 10, 12, 13, 14]
#: ... and head 1 of layer 0 switched off (5 of 15 positions, these among them).
HEAD1_OFF_CHANGES = {5, 7, 10, 13}


@pytest.fixture(scope="module")
def context_tm():
    return train(CONTEXT.text, CONTEXT.gpt, CONTEXT.train)


def table_with(at: AppTest, column: str) -> pd.DataFrame:
    """The first dataframe on the page that has ``column``."""
    return next(d.value for d in tables(at) if column in d.value.columns)


def effects_table(at: AppTest, lang: str = "en"):
    """The effects table as drawn (a static table)."""
    return next(d for d in tables(at) if t("attn.exp.changed", lang) in d.value.columns)


def marked(at: AppTest, lang: str = "en") -> list[int]:
    """Rows of the effects table marked as changed (the ▲ mark in the "changed" column)."""
    frame = table_with(at, t("attn.exp.changed", lang))
    return [k for k, v in enumerate(frame[t("attn.exp.changed", lang)]) if v.startswith(xv.CHANGED_MARK)]


# ---------------------------------------------------------------- effects at every position (context example)


def test_head_1_of_layer_0_off_marks_the_changed_positions_and_the_headline_counts_them(context_tm):
    at = open_attention(own_model=context_tm, part="prediction")
    assert at.markdown and t("attn.exp.headline_default", "en") in markdown(at)
    at.button_group(key=view.K_HEADS_OFF).set_value([1]).run()
    assert not at.exception
    rows = marked(at)
    assert HEAD1_OFF_CHANGES <= set(rows)
    assert t("attn.exp.headline", "en", n=len(rows), T=15, layer=0) in markdown(at)
    fx = position_effects(
        context_tm.model, context_tm.vocab.encode(CONTEXT.display)[None], {0: Switches(heads_off=(1,))}
    )
    assert rows == fx.changed.nonzero().flatten().tolist()
    frame = table_with(at, t("attn.exp.changed", "en"))
    assert list(frame[t("attn.pred_pos", "en")]) == position_labels(CONTEXT.display)
    assert np.allclose(frame[t("attn.exp.dp", "en")].to_numpy(), fx.delta_own.numpy(), atol=1e-8)
    assert effects_table(at).highlighted == rows  # a changed row is drawn highlighted, and only those
    assert at.query_params["off"] == "1" and at.query_params["part"] == "prediction"
    open_part(at, "steps")  # the steps say where the switch acts, and count the changed predictions
    assert any(c.value == t("attn.whatif_note", "en", step=7) for c in at.caption)  # weighted_sum reads heads_off
    assert t("attn.effects_note", "en", n=len(rows), T=15, layer=0) in markdown(at)
    assert "part" not in at.query_params
    at.button(key="attn_see_prediction").click().run()  # and its button opens the prediction again
    assert at.button_group(key=view.K_PART).value == "prediction" and marked(at) == rows


def test_uniform_attention_in_layer_0_changes_exactly_the_positions_bench_experiments_finds(context_tm):
    at = open_attention(own_model=context_tm)
    at.radio(key=view.K_UNIFORM).set_value("layer").run()
    assert any(c.value == t("attn.whatif_note", "en", step=6) for c in at.caption)  # softmax reads uniform_heads
    assert t("attn.check_sdpa_uniform", "en") in markdown(at)
    assert t("attn.effects_note", "en", n=8, T=15, layer=0) in markdown(at)
    open_part(at, "prediction")
    assert marked(at) == UNIFORM_LAYER0_CHANGES
    assert changes(context_tm, CONTEXT.display, {0: Switches(uniform_heads=(0, 1))})[0] == UNIFORM_LAYER0_CHANGES
    assert t("attn.exp.headline", "en", n=8, T=15, layer=0) in markdown(at)
    assert at.query_params["uniform"] == "layer"
    # "this head" follows the chosen head
    rerun(at, **{view.K_UNIFORM: "head", view.K_HEAD: 1})
    fx = position_effects(
        context_tm.model, context_tm.vocab.encode(CONTEXT.display)[None], {0: Switches(uniform_heads=(1,))}
    )
    assert marked(at) == fx.changed.nonzero().flatten().tolist()
    assert at.radio(key=view.K_UNIFORM).value == "head" and at.query_params["uniform"] == "head"
    # the reset button switches every ablation off and the URL forgets them
    rerun(at, **{view.K_HEADS_OFF: [0]})
    at.button(key="attn_reset").click().run()
    assert at.button_group(key=view.K_HEADS_OFF).value == [] and at.radio(key=view.K_UNIFORM).value == "none"
    assert "off" not in at.query_params and "uniform" not in at.query_params
    assert marked(at) == []


def test_a_switch_that_changes_nothing_on_the_context_example_says_why_without_offering_it_again(context_tm):
    at = open_attention(own_model=context_tm, tau="0.01", part="prediction")
    assert marked(at) == []
    text = markdown(at)
    assert t("attn.exp.why_header", "en") in text
    assert "τ = 0.01 < 1" in text and t("attn.exp.why_one_char", "en", T=15) not in text
    assert all(b.key != "attn_try_context" for b in at.button)  # this already is the context example


def test_mask_off_changes_earlier_positions_and_says_why_the_last_one_cannot(context_tm):
    at = open_attention(own_model=context_tm, mask="0", part="prediction")
    rows = marked(at)
    assert rows == [1, 2, 3, 6, 9, 10] and 14 not in rows
    labels = position_labels(CONTEXT.display)
    assert any(c.value == t("attn.exp.mask_last_note", "en", last=labels[-1]) for c in at.caption)


# ---------------------------------------------------------------- the textbook model: nothing changes, and why


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_on_the_textbook_model_nothing_changes_and_the_page_says_why(lang):
    at = open_attention(lang, mask="0", layer="5", part="prediction")
    assert marked(at, lang) == []
    assert t("attn.exp.headline", lang, n=0, T=4, layer=5) in markdown(at)
    text = markdown(at)
    assert t("attn.exp.why_header", lang) in text
    assert t("attn.exp.why_one_char", lang, T=4) in text  # 你→好, 好→世, 世→界, 界→你 from one character
    assert t("attn.exp.why_mask_last", lang, last="3 界", layer=5) in text
    assert t("attn.effects_note_none", lang, T=4, layer=5) in markdown(open_part(at, "steps"))  # and says where why is
    open_part(at, "prediction")
    button = at.button(key="attn_try_context")
    assert button.label == t("model.offer_context", lang)
    button.click().run()
    assert at.session_state[K_CHOICE] == "context" and not at.exception
    assert at.text_input(key=view.K_TEXT).value == EXAMPLES["context"].display  # the context model's own text


def test_unchanged_reasons_come_from_the_models_numbers():
    tm = small_model()
    idx = tm.vocab.encode("你好世界")[None]
    labels = position_labels("你好世界")
    fx = position_effects(tm.model, idx, {0: Switches(temperature=0.01)})
    assert [k for k, _ in xv.unchanged_reasons(fx, Switches(temperature=0.01), 0, 2, False, 0.95, labels)] == [
        "attn.exp.why_one_hot",
        "attn.exp.why_tiny" if float(fx.delta_own.max()) < xv.TINY_DELTA else "attn.exp.why_small",
    ]
    keys = [k for k, _ in xv.unchanged_reasons(fx, Switches(), 0, 2, True, 0.5, labels)]
    assert keys == ["attn.exp.why_default", "attn.exp.why_one_char"]
    keys = [
        k for k, _ in xv.unchanged_reasons(fx, Switches(causal_mask=False, temperature=0.5), 1, 2, False, 0.5, labels)
    ]
    assert keys[:2] == ["attn.exp.why_mask_last", "attn.exp.why_sharp"]
    alpha = torch.tensor([[[1.0, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]]])  # (1, 3, 3): rows 1.. have max 0.5
    assert xv.mean_row_max(alpha) == 0.5


# ---------------------------------------------------------------- which heads matter, the logit lens


def test_the_heads_table_is_head_importance_and_the_sentence_names_head_1_of_layer_0(context_tm):
    at = open_attention(own_model=context_tm, part="model")
    frame = table_with(at, t("attn.exp.col_dp", "en"))
    hi = head_importance(context_tm.model, context_tm.vocab.encode(CONTEXT.display)[None])
    assert frame[t("attn.exp.col_changed", "en", T=15)].tolist() == hi.changed.reshape(-1).tolist()
    assert np.allclose(
        frame[t("attn.exp.col_dp", "en")].to_numpy(), hi.max_delta.reshape(-1).numpy(), rtol=1e-7, atol=0
    )  # every digit, in the tooltip
    shown = next(d for d in tables(at) if t("attn.exp.col_dp", "en") in d.value.columns).text[
        t("attn.exp.col_dp", "en")
    ]
    assert list(shown) == [format_probability(v) for v in hi.max_delta.reshape(-1).tolist()]  # 1.40e-05, never 0.0
    assert frame[t("attn.exp.col_layer", "en")].tolist() == [0, 0, 1, 1]
    assert frame[t("attn.exp.col_head", "en")].tolist() == [0, 1, 0, 1]
    assert t("attn.exp.heads_top", "en", head=1, layer=0, n=5, T=15, dp=float(hi.max_delta[0, 1])) in markdown(at)


def test_which_heads_matter_starts_closed_when_its_walks_would_be_slow():
    quick = open_attention(part="model")  # the seed model on 4 characters: 48 walks, open
    assert t("attn.exp.heads_none", "en", dp=0.0, head=0, layer=0).split(";")[0] in markdown(quick)
    slow = open_attention(text="你好世界" * 32, part="model")  # on 128 characters: closed, nothing computed
    assert any(e.label == t("attn.exp.heads_header", "en") for e in slow.expander)
    assert t("attn.exp.heads_caption", "en") not in [c.value for c in slow.caption]
    rerun(slow, **{xv.K_HEADS: True})
    assert t("attn.exp.heads_caption", "en") in [c.value for c in slow.caption]


def test_the_logit_lens_is_drawn_when_opened_and_its_last_row_is_the_models_own_prediction(context_tm):
    at = open_attention("zh", own_model=context_tm, part="model")
    lens_header = t("attn.exp.lens_header", "zh")
    assert any(e.label == lens_header for e in at.expander)
    assert t("attn.exp.lens_intro", "zh") not in markdown(at)  # closed: nothing computed or drawn
    rerun(at, **{xv.K_LENS: True})
    assert t("attn.exp.lens_intro", "zh") in markdown(at)
    frame = next(d.value for d in tables(at) if t("attn.exp.lens_row_last", "zh", l=1) in list(d.value.index))
    idx = context_tm.vocab.encode(CONTEXT.display)[None]
    own = walk(context_tm.model, idx).logits[0].argmax(-1)  # (T,)
    assert list(frame.index) == [t("attn.exp.lens_row", "zh", l=0), t("attn.exp.lens_row_last", "zh", l=1)]
    assert [cell.split(" ")[0] for cell in frame.iloc[-1]] == [context_tm.vocab.chars[k] for k in own.tolist()]
    assert "".join(cell.split(" ")[0] for cell in frame.iloc[-1]) == CONTEXT.text[1:16]


# ---------------------------------------------------------------- the URL


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bad_off_and_uniform_values_in_the_link_get_a_message(lang):
    at = open_attention(lang, off="1,9", uniform="maybe")
    warnings = [w.value for w in at.warning]
    assert t("attn.url_bad_off", lang, value="1,9", last=7) in warnings
    assert t("attn.url_bad_uniform", lang, value="maybe") in warnings
    assert at.button_group(key=view.K_HEADS_OFF).value == [] and at.radio(key=view.K_UNIFORM).value == "none"
    assert "off" not in at.query_params and "uniform" not in at.query_params


def test_off_and_uniform_in_the_link_open_the_same_switches():
    at = open_attention(off="3,1,1", uniform="layer", layer="2")
    assert not at.warning
    assert at.button_group(key=view.K_HEADS_OFF).value == [1, 3] and at.radio(key=view.K_UNIFORM).value == "layer"
    assert at.query_params["off"] == "1,3" and at.query_params["uniform"] == "layer"
    values, problems = view.parse_url({"off": "none", "uniform": "1"}, 2, 4)
    assert values == {view.K_HEADS_OFF: [], view.K_UNIFORM: "head"} and problems == []
    values, problems = view.parse_url({"off": "-1", "uniform": ""}, 2, 4)
    assert [p for p, _ in problems] == ["off", "uniform"] and values[view.K_HEADS_OFF] == []
    assert view.url_values("你", 0, 0, "mask", True, "sqrt", 1.0, 1.0, [2, 0], "head")["off"] == "0,2"
    assert "off" not in view.url_values("你", 0, 0, "mask", True, "sqrt", 1.0, 1.0)


# ---------------------------------------------------------------- the arithmetic of a cell, the charts


def test_cell_arithmetic_of_a_uniform_head_and_of_a_head_switched_off():
    tm = small_model()
    assert SMALL.n_heads == 4  # head 2 uniform, head 3 off, heads 0 and 1 their own
    trace = trace_of(tm.model, tm.vocab.encode("你好世界你好")[None], 1).with_switches(
        Switches(uniform_heads=(2,), heads_off=(3,))
    )
    cell = explain_cell(trace, "softmax", 2, 4, 1)
    lines = view.cell_latex(cell, "alpha", 4, 1)
    assert [key for key, _, _ in lines] == ["attn.cell_dot", "attn.cell_scale", "attn.cell_uniform"]
    assert lines[-1][1] == {"n": 5} and lines[-1][2] == r"\alpha_{4,1} = \dfrac{1}{5} = 0.2"
    masked = view.cell_latex(explain_cell(trace, "softmax", 2, 1, 3), "alpha", 1, 3)
    assert [key for key, _, _ in masked][-2:] == ["attn.cell_masked", "attn.cell_uniform_masked"]
    assert masked[-1][2] == r"\alpha_{1,3} = 0"
    softmax = view.cell_latex(explain_cell(trace, "softmax", 0, 4, 1), "alpha", 4, 1)
    assert softmax[-1][0] == "attn.cell_alpha"  # the other heads keep their softmax
    off = view.cell_latex(explain_cell(trace, "weighted_sum", 3, 5, 2), "heads", 5, 2)
    assert [key for key, _, _ in off] == ["attn.cell_dot", "attn.cell_head_off"]
    on = view.cell_latex(explain_cell(trace, "weighted_sum", 0, 5, 2), "heads", 5, 2)
    assert [key for key, _, _ in on] == ["attn.cell_dot"]


def test_experiment_charts_keep_their_data_finite_and_mark_changes_with_a_symbol():
    labels = position_labels("你好你好")
    chart = vega_spec(
        effects_chart(labels, ["好 0.9"] * 4, ["世 0.5"] * 4, [0.1, np.nan, 0.9, np.inf], [False, False, True, False])
    )
    data = chart["datasets"]["cells"]
    assert np.isfinite(data["delta"]).all() and data["delta"].tolist() == [0.1, 0.0, 0.9, 1.0]
    assert data["mark"].tolist() == ["", "", "▲", ""] and list(data["pos"]) == labels
    heat = vega_spec(
        labelled_heatmap(
            np.array([[1.0, np.nan]]),
            [["a", "b"]],
            ["layer 0"],
            ["head 0", "head 1"],
            domain=(0, 4),
            extra=np.array([[0.5, np.nan]]),
        )
    )["datasets"]["cells"]
    assert (
        heat["value"].tolist() == [1.0, 0.0]
        and heat["extra"].tolist() == [0.5, 0.0]
        and heat["text"].tolist() == ["a", "b"]
    )
    with pytest.raises(ValueError):
        effects_chart(labels, ["a"], ["b"], [0.0], [False])


def _same_spec(a: dict, b: dict) -> bool:
    """Two Vega-Lite dicts with equal layouts and equal rows."""
    return {k: v for k, v in a.items() if k != "datasets"} == {
        k: v for k, v in b.items() if k != "datasets"
    } and _frame(a["datasets"]["cells"]).equals(_frame(b["datasets"]["cells"]))


def _frame(rows: "pd.DataFrame | pa.Table") -> pd.DataFrame:
    """A chart's rows as a DataFrame: an Altair chart's own, or a fast spec's Arrow table."""
    return rows if isinstance(rows, pd.DataFrame) else rows.to_pandas()


def test_the_fast_experiment_specs_draw_what_the_altair_charts_draw():
    labels = position_labels("你好你好")
    args = (labels, ["好 0.9"] * 4, ["世 0.5"] * 4, [0.1, np.nan, 0.9, 0.2], [False, False, True, False])
    options = {"changed_label": "▲ changed", "same_label": "same", "x_title": "position", "y_title": "|Δp|"}
    for _ in range(2):  # the second from the cached layout
        assert _same_spec(effects_spec(*args, **options), vega_spec(effects_chart(*args, **options)))
    values, texts = np.array([[1.0, 3.0]]), [["1", "3"]]
    options = {"domain": (0, 4), "row_title": "layer", "fit_width": True}
    for extra in (None, np.array([[0.5, 0.1]])):
        for _ in range(2):
            assert _same_spec(
                labelled_heatmap_spec(values, texts, ["layer 0"], ["head 0", "head 1"], extra=extra, **options),
                vega_spec(labelled_heatmap(values, texts, ["layer 0"], ["head 0", "head 1"], extra=extra, **options)),
            )
    with pytest.raises(ValueError):
        effects_spec(labels, ["a"], ["b"], [0.0], [False])


def test_every_probability_in_the_effects_and_prediction_tables_is_written_one_way(context_tm):
    at = open_attention(own_model=context_tm, mask="0", part="prediction")
    ids = context_tm.vocab.encode(CONTEXT.display)[None]
    fx = position_effects(context_tm.model, ids, {0: Switches(causal_mask=False)})

    def shown(column: str) -> list[str]:
        return list(next(d for d in tables(at) if column in d.value.columns).text[column])

    assert shown(t("attn.exp.p_own", "en")) == [format_probability(p) for p in fx.own_p.tolist()]
    assert shown(t("attn.exp.p_new", "en")) == [format_probability(p) for p in fx.new_p.tolist()]
    own, new = fx.own_probs[-1].tolist(), fx.new_probs[-1].tolist()
    assert shown(t("attn.pred_own", "en")) == [
        format_probability(p) for p in own
    ]  # 1.0000 beside 0.9999, 7.97e-06 not 0.0000
    assert shown(t("attn.pred_new", "en")) == [format_probability(p) for p in new]
    # the change: a small one keeps its digits and its sign
    assert shown(t("attn.pred_diff", "en")) == [format_change(b - a) for a, b in zip(own, new)]
    assert any("e-" in s for s in shown(t("attn.pred_own", "en")))  # this text has a probability below 1e-3


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_uniform_head_says_that_scores_scaling_and_tau_do_not_act_on_it(lang, context_tm):
    at = open_attention(lang, own_model=context_tm, step="softmax", tau="0.1")
    note = t("attn.uniform_ignores_scores", lang, head=0)
    assert note not in [i.value for i in at.info]
    rerun(at, **{view.K_UNIFORM: "head"})
    assert note in [i.value for i in at.info]
