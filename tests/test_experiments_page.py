"""The Attention page's experiments: what the switches change at every position, right under them,
and why; which heads matter; the logit lens — on the context example (where attention matters)
and the textbook model (where it cannot)."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import torch
from helpers import SMALL, served_example, small_model, tables
from streamlit.testing.v1 import AppTest
from test_attention_page import markdown, more, open_attention, rerun

from bench.experiments import changes
from tinygpt.attention import Switches
from tinygpt.config import SEED_TEXT, TrainConfig
from tinygpt.examples import EXAMPLES
from tinygpt.explanations.charts import (
    effects_chart,
    effects_spec,
    labelled_heatmap,
    labelled_heatmap_spec,
    position_labels,
    vega_spec,
)
from tinygpt.explanations.explain import effects_of, explain_cell, head_importance, position_effects, trace_of, walk
from tinygpt.explanations.why import head_roles
from tinygpt.formatting import format_change, format_probability
from tinygpt.i18n import t
from tinygpt.training.train import train
from tinygpt.ui.attention import state as view
from tinygpt.ui.attention.cell import cell_latex
from tinygpt.ui.attention.effect import CHANGED_MARK, SHOWN_FLIPS
from tinygpt.ui.frame.controls import K_MODEL
from tinygpt.ui.shared import attention_data
from tinygpt.ui.views.attention_table import K_RESET

CONTEXT = EXAMPLES["context"]
#: bench.experiments on the context example as the app serves it (the shipped weights, the same on
#: every machine): uniform attention (every head) in layer 0.
UNIFORM_LAYER0_CHANGES = [3, 5, 6, 7, 10, 12, 13, 14]
#: ... and head 1 of layer 0 switched off (5 of 15 positions, these among them).
HEAD1_OFF_CHANGES = {5, 7, 10, 13}


@pytest.fixture(scope="module")
def context_tm():
    """The context example's model the page shows (the shipped checkpoint)."""
    return served_example("context")


class _Strip(HTMLParser):
    """The strip under the switches, read back: one dict per position (its aria label and its
    cells by class: m mark, i index, c character, o own, n switched, t text's next)."""

    def __init__(self) -> None:
        super().__init__()
        self.columns: list[dict] = []
        self._cls: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "div" and "listitem" == a.get("role"):
            self.columns.append({"changed": "changed" in a.get("class", ""), "aria": a.get("aria-label", "")})
        elif tag == "span" and self.columns and "legend" not in a.get("class", ""):
            self._cls = a.get("class")

    def handle_data(self, data: str) -> None:
        if self._cls and self.columns:
            self.columns[-1][self._cls] = data.strip()
            self._cls = None


def strip(at: AppTest) -> list[dict]:
    """The strip's columns, in position order."""
    body = next(h.value for h in at.get("html") if 'class="tg-strip"' in h.value)
    parser = _Strip()
    parser.feed(body)
    return parser.columns


def marked(at: AppTest) -> list[int]:
    """Positions the strip marks as changed (tinted, and ✓, ✗ or ▲ in their mark row)."""
    cols = strip(at)
    assert all(bool(c.get("m")) == c["changed"] for c in cols)  # never colour alone
    return [k for k, c in enumerate(cols) if c["changed"]]


def count_line(at: AppTest) -> str:
    """The first line of the effect panel: "k of N changed"."""
    return next(m.value for m in at.markdown if "predictions changed" in m.value or "changed**" in m.value)


def details_table(at: AppTest) -> pd.DataFrame:
    """The detailed table of every position (the details expander open)."""
    return next(d.value for d in tables(at) if t("attn.exp.changed", "en") in d.value.columns)


# ---------------------------------------------------------------- the effect, right under the switches


def test_a_head_switched_off_marks_the_changed_positions_and_the_count_says_how_many(context_tm):
    at = open_attention(own_model=context_tm)
    assert t("attn.effect.own", "en", T=15, layer=1, L=2) in markdown(at) and marked(at) == []
    more(at).button_group(key=view.K_HEADS_OFF).set_value([1]).run()
    assert not at.exception
    fx = position_effects(
        context_tm.model, context_tm.vocab.encode(CONTEXT.display)[None], {0: Switches(heads_off=(1,))}
    )
    rows = fx.changed.nonzero().flatten().tolist()
    assert HEAD1_OFF_CHANGES <= set(rows) and marked(at) == rows
    assert t("attn.effect.count", "en", n=len(rows), T=15, layer=1, L=2) in markdown(at)  # index 0: layer 1
    legend = t("attn.strip.legend", "en", changed="▲", right="✓", wrong="✗")
    assert legend in [c.value for c in at.caption]  # the marks are said in words under the strip
    chars = context_tm.vocab.chars
    for k, col in enumerate(strip(at)):  # every column: the character, both predictions, the text's next
        assert col["c"] == CONTEXT.display[k] and col["o"] == chars[int(fx.own_ids[k])]
        assert col["n"] == chars[int(fx.new_ids[k])]
        assert col["t"] == (CONTEXT.display[k + 1] if k + 1 < 15 else "—")
    assert at.query_params["off"] == "1"
    rerun(at, **{view.K_DETAILS: True})  # every number, one click away
    frame = details_table(at)
    assert list(frame.columns[:2]) == [t("attn.exp.changed", "en"), t("attn.pred_new_next", "en")]  # phone: first
    assert [k for k, v in enumerate(frame[t("attn.exp.changed", "en")]) if v.startswith(CHANGED_MARK)] == rows
    assert list(frame[t("attn.pred_target", "en")])[:-1] == list(CONTEXT.display[1:])
    assert np.allclose(frame[t("attn.exp.dp", "en")].to_numpy(), fx.delta_own.numpy(), atol=1e-8)


def test_each_flip_says_which_key_it_attended_to_before_and_after_and_whether_it_is_right(context_tm):
    at = open_attention(own_model=context_tm, mask="0")
    assert marked(at) == [1, 2, 3, 6, 9, 10]  # the mask off: the last position cannot change
    first = next(m.value for m in at.markdown if m.value.startswith("- **1 爱**"))
    # position 1 爱 looked at 我 before it (head 1 of layer 0); with the mask off it looks into the future
    own = walk(context_tm.model, context_tm.vocab.encode(CONTEXT.display)[None]).alphas[0, 1, 1]  # (T,)
    # a plain sentence first (where it looked, which switch), the verdict, then the numbers
    assert first.startswith("- **1 爱**: “爱” used to look at “我” (position 0, the character before it); with")
    assert "in the future" in first and "wrong, the text continues with “你”" in first
    numbers = first[first.index("wrong, the text") :]  # the numbers come after the sentence
    assert "(layer 1, head 2: α on “我”" in numbers and f"α on “我” {float(own.max()):.2f} →" in numbers
    assert t("attn.effect.numbers_note", "en") in [c.value for c in at.caption]  # α said in words
    assert t("why.mask_off", "en") in [c.value for c in at.caption]  # why more context makes it worse
    assert strip(at)[1]["m"] == "✗" and strip(at)[14]["m"] == ""


def test_uniform_attention_in_layer_0_changes_exactly_the_positions_bench_experiments_finds(context_tm):
    at = open_attention(own_model=context_tm)
    at.toggle(key=view.K_UNIFORM).set_value(True).run()
    assert marked(at) == UNIFORM_LAYER0_CHANGES
    assert changes(context_tm, CONTEXT.display, {0: Switches(uniform_heads=(0, 1))})[0] == UNIFORM_LAYER0_CHANGES
    assert t("attn.effect.count", "en", n=8, T=15, layer=1, L=2) in markdown(at)
    assert at.query_params["uniform"] == "layer"
    assert any("treats all" in m.value and "characters it may see alike" in m.value for m in at.markdown)
    rerun(at, **{view.K_CURIOUS: True})
    assert t("attn.check_sdpa_uniform", "en") in markdown(at)
    # only the chosen head, from "More controls"
    rerun(at, **{view.K_UNIFORM_SCOPE: "head", view.K_HEAD: 1})
    fx = position_effects(
        context_tm.model, context_tm.vocab.encode(CONTEXT.display)[None], {0: Switches(uniform_heads=(1,))}
    )
    assert marked(at) == fx.changed.nonzero().flatten().tolist() and at.query_params["uniform"] == "head"
    # reset: every switch back to the model's own, and the URL forgets them
    rerun(at, **{view.K_HEADS_OFF: [0]})
    at.button(key=K_RESET).click().run()
    more(at)
    assert at.button_group(key=view.K_HEADS_OFF).value == [] and at.toggle(key=view.K_UNIFORM).value is False
    assert "off" not in at.query_params and "uniform" not in at.query_params
    assert marked(at) == [] and at.button(key=K_RESET).disabled  # nothing to reset now


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_expander_of_the_other_reasons_counts_the_reasons_it_lists(lang, context_tm):
    at = open_attention(lang, own_model=context_tm, uniform="layer")  # 8 positions change (the shipped weights)
    reasons = {line for m in at.markdown for line in m.value.split("\n") if line.startswith("- **")}
    (box,) = [e for e in at.expander if e.label == t("attn.effect.other_reasons", lang, n=8 - SHOWN_FLIPS)]
    inside = [line for m in box.markdown for line in m.value.split("\n") if line.startswith("- **")]
    assert len(inside) == 8 - SHOWN_FLIPS  # the number in its title is the number of reasons it lists
    assert len(reasons) == len(UNIFORM_LAYER0_CHANGES)  # with the first three, in view: one per change


def test_a_switch_that_changes_nothing_on_the_context_example_says_why_without_offering_it_again(context_tm):
    at = open_attention(own_model=context_tm, tau="0.01")
    assert marked(at) == []
    text = markdown(at)
    assert t("attn.exp.why_header", "en") in text and t("attn.effect.count", "en", n=0, T=15, layer=1, L=2) in text
    assert all(b.key != "attn_try_context" for b in at.button)  # this already is the context example


def test_the_model_s_own_view_says_what_attention_decides_and_which_head_does_it(context_tm):
    at = open_attention(own_model=context_tm)
    captions = [c.value for c in at.caption]
    assert any("“爱” is followed by" in c and "我爱→你" in c for c in captions)
    alphas = walk(context_tm.model, context_tm.vocab.encode(CONTEXT.display)[None]).alphas
    roles = {(r.layer, r.head): r for r in head_roles(alphas)}
    # both heads of layer 0 look back; head index 1 is the one the prediction needs (5 flips when off)
    assert roles[(0, 0)].kind == roles[(0, 1)].kind == "previous"
    sentence = t("why.role.previous", "en", layer=1, head=2, share=roles[(0, 1)].share)
    assert f"{sentence} {t('why.role.steps_open', 'en')}" in captions  # "head 2 of layer 1": index 1 of layer 0
    assert at.session_state[view.K_HEAD] == 1  # ... and the steps open on it
    assert t("attn.steps_header", "en", layer=1, head=2) in [h.value for h in at.subheader]


# ---------------------------------------------------------------- the textbook model: nothing changes, and why


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_on_the_textbook_model_nothing_changes_the_page_says_why_and_its_button_opens_the_context_example(lang):
    at = open_attention(lang, mask="0", layer="5")
    assert marked(at) == []
    text = markdown(at)
    assert t("attn.effect.count", lang, n=0, T=4, layer=6, L=6) in text  # layer=5 in the link: layer 6 of 6
    assert f"**{t('attn.exp.why_header', lang)}** {t('attn.exp.why_one_char', lang, T=4)}" in text
    assert t("attn.exp.why_mask_last", lang, last="3 界", layer=6) in text
    button = at.button(key="attn_try_context")
    assert button.label == t("model.offer_context", lang)
    button.click().run()
    assert at.session_state[K_MODEL] == "context" and not at.exception
    assert at.text_input(key=view.K_TEXT).value == EXAMPLES["context"].display  # the context model's own text
    assert at.toggle(key=view.K_MASK).value is True  # its own attention again


def test_on_the_textbook_model_with_its_own_switches_the_page_says_why_nothing_can_change():
    at = open_attention("en")
    assert "In this model's training text every character has one successor (你→好" in markdown(at)
    assert at.button(key="attn_try_context")


# ---------------------------------------------------------------- which heads matter, the logit lens


def test_the_heads_table_is_head_importance_and_the_sentence_names_head_1_of_layer_0(context_tm):
    at = open_attention(own_model=context_tm, part="model")
    frame = next(d.value for d in tables(at) if t("attn.exp.col_dp", "en") in d.value.columns)
    hi = head_importance(context_tm.model, context_tm.vocab.encode(CONTEXT.display)[None])
    assert frame[t("attn.exp.col_changed", "en", T=15)].tolist() == hi.changed.reshape(-1).tolist()
    assert np.allclose(
        frame[t("attn.exp.col_dp", "en")].to_numpy(), hi.max_delta.reshape(-1).numpy(), rtol=1e-7, atol=0
    )  # every digit, in the tooltip
    shown = next(d for d in tables(at) if t("attn.exp.col_dp", "en") in d.value.columns).text[
        t("attn.exp.col_dp", "en")
    ]
    assert list(shown) == [format_probability(v) for v in hi.max_delta.reshape(-1).tolist()]  # 1.40e-05, never 0.0
    assert frame[t("attn.exp.col_layer", "en")].tolist() == [1, 1, 2, 2]  # counted from 1, as people count
    assert frame[t("attn.exp.col_head", "en")].tolist() == [1, 2, 1, 2]
    text = markdown(at)
    assert t("attn.exp.heads_top", "en", head=2, layer=1, n=5, T=15, dp=float(hi.max_delta[0, 1])) in text
    roles = {
        (r.layer, r.head): r
        for r in head_roles(walk(context_tm.model, context_tm.vocab.encode(CONTEXT.display)[None]).alphas)
    }
    assert roles[(0, 1)].kind == "previous"  # head 1 of layer 0 looks at the previous character, in words
    assert t("why.role.previous", "en", layer=1, head=2, share=roles[(0, 1)].share) in text


def test_which_heads_matter_is_computed_only_when_opened():
    closed = open_attention()
    assert any(e.label == t("attn.exp.heads_header", "en") for e in closed.expander)
    assert t("attn.exp.heads_caption", "en") not in [c.value for c in closed.caption]
    rerun(closed, **{view.K_HEADS: True})
    assert t("attn.exp.heads_caption", "en") in [c.value for c in closed.caption]


def test_the_logit_lens_is_drawn_when_opened_and_its_last_row_is_the_models_own_prediction(context_tm):
    at = open_attention("zh", own_model=context_tm)
    lens_header = t("attn.exp.lens_header", "zh")
    assert any(e.label == lens_header for e in at.expander)
    assert t("attn.exp.lens_intro", "zh") not in markdown(at)  # closed: nothing computed or drawn
    rerun(at, **{view.K_LENS: True})
    assert t("attn.exp.lens_intro", "zh") in markdown(at)
    frame = next(d.value for d in tables(at) if t("attn.exp.lens_row_last", "zh", l=2) in list(d.value.index))
    idx = context_tm.vocab.encode(CONTEXT.display)[None]
    own = walk(context_tm.model, idx).logits[0].argmax(-1)  # (T,)
    assert list(frame.index) == [t("attn.exp.lens_row", "zh", l=1), t("attn.exp.lens_row_last", "zh", l=2)]
    assert [cell.split(" ")[0] for cell in frame.iloc[-1]] == [context_tm.vocab.chars[k] for k in own.tolist()]
    assert "".join(cell.split(" ")[0] for cell in frame.iloc[-1]) == CONTEXT.text[1:16]
    box = next(e for e in at.expander if e.label == lens_header)  # the chart counts layers from 1, as the table
    y = json.loads(box.get("vega_lite_chart")[0].proto.spec)["layer"][0]["encoding"]["y"]
    assert y["sort"] == ["1", t("attn.exp.lens_axis_last", "zh", l=2)] and y["title"] == t("attn.exp.lens_axis", "zh")


# ---------------------------------------------------------------- the URL


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bad_off_and_uniform_values_in_the_link_get_a_message(lang):
    at = open_attention(lang, off="1,9", uniform="maybe")
    warnings = [w.value for w in at.warning]
    assert any("off=1,9" in w and t("accepted.heads_list", lang, hi=7, last=8) in w for w in warnings)  # and 1 to 8
    assert any("uniform=maybe" in w for w in warnings)
    more(at)
    assert at.button_group(key=view.K_HEADS_OFF).value == [] and at.toggle(key=view.K_UNIFORM).value is False
    assert "off" not in at.query_params and "uniform" not in at.query_params


def test_off_and_uniform_in_the_link_open_the_same_switches():
    at = open_attention(off="3,1,1", uniform="layer", layer="2")
    assert not at.warning
    more(at)
    assert at.button_group(key=view.K_HEADS_OFF).value == [1, 3] and at.toggle(key=view.K_UNIFORM).value is True
    assert at.query_params["off"] == "1,3" and at.query_params["uniform"] == "layer"
    assert open_attention(uniform="1").session_state[view.K_UNIFORM_SCOPE] == "head"  # an older link's word


# ---------------------------------------------------------------- the arithmetic of a cell, the charts


def test_cell_arithmetic_of_a_uniform_head_and_of_a_head_switched_off():
    record = small_model()
    assert SMALL.n_heads == 4  # head 2 uniform, head 3 off, heads 0 and 1 their own
    trace = trace_of(record.model, record.vocab.encode("你好世界你好")[None], 1).with_switches(
        Switches(uniform_heads=(2,), heads_off=(3,))
    )
    cell = explain_cell(trace, "softmax", 2, 4, 1)
    lines = cell_latex(cell, "alpha", 4, 1)
    assert [key for key, _, _ in lines] == ["attn.cell_dot", "attn.cell_scale", "attn.cell_uniform"]
    assert lines[-1][1] == {"n": 5} and lines[-1][2] == r"\alpha_{4,1} = \dfrac{1}{5} = 0.2"
    masked = cell_latex(explain_cell(trace, "softmax", 2, 1, 3), "alpha", 1, 3)
    assert [key for key, _, _ in masked][-2:] == ["attn.cell_masked", "attn.cell_uniform_masked"]
    assert masked[-1][2] == r"\alpha_{1,3} = 0"
    softmax = cell_latex(explain_cell(trace, "softmax", 0, 4, 1), "alpha", 4, 1)
    assert softmax[-1][0] == "attn.cell_alpha"  # the other heads keep their softmax
    off = cell_latex(explain_cell(trace, "weighted_sum", 3, 5, 2), "heads", 5, 2)
    assert [key for key, _, _ in off] == ["attn.cell_dot", "attn.cell_head_off"]
    on = cell_latex(explain_cell(trace, "weighted_sum", 0, 5, 2), "heads", 5, 2)
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
    at = open_attention(own_model=context_tm, mask="0", part="prediction")  # the details open
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
    at = open_attention(lang, own_model=context_tm, step="softmax", tau="0.1", head="0")
    note = t("attn.uniform_ignores_scores", lang, head=1)  # head=0 in the link: head 1 on the page
    assert note not in [i.value for i in at.info]
    rerun(at, **{view.K_UNIFORM: True, view.K_UNIFORM_SCOPE: "head"})
    assert note in [i.value for i in at.info]


@pytest.fixture(scope="module")
def cheat_tm():
    """A two-layer model trained without the causal mask (the cheating experiment's setting)."""
    return train(SEED_TEXT, SMALL, TrainConfig(lr=3e-3, epochs=60, early_stop_loss=0.0, causal_mask=False))


def test_all_layers_in_the_page_s_numbers_is_the_switches_in_every_layer(cheat_tm):
    ids = cheat_tm.vocab.encode(SEED_TEXT[:8])[None]
    mask = Switches(causal_mask=True)
    every = attention_data.switched_walk(cheat_tm, SEED_TEXT[:8], 0, mask, mask)
    assert torch.equal(every.alphas, walk(cheat_tm.model, ids, mask).alphas)  # one Switches for every layer
    assert torch.equal(every.logits, walk(cheat_tm.model, ids, {0: mask, 1: mask}).logits)
    one = attention_data.switched_walk(cheat_tm, SEED_TEXT[:8], 0, mask)  # layer 1's own: no mask
    assert torch.equal(one.alphas, walk(cheat_tm.model, ids, {0: mask, 1: Switches(causal_mask=False)}).alphas)
    assert not torch.equal(one.alphas[1], every.alphas[1])  # layer 1 looks ahead only without the mask


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_mask_in_all_layers_is_one_tap_in_the_first_view_and_the_count_says_both_layers(lang, cheat_tm):
    text = cheat_tm.text[: cheat_tm.window][: cheat_tm.gpt_cfg.max_len]
    ids, T = cheat_tm.vocab.encode(text)[None], len(text)
    own = walk(cheat_tm.model, ids, Switches(causal_mask=False))
    in_both = effects_of(own, walk(cheat_tm.model, ids, Switches(causal_mask=True))).n_changed
    in_first = effects_of(own, walk(cheat_tm.model, ids, {0: Switches(), 1: Switches(causal_mask=False)})).n_changed
    at = open_attention(lang, own_model=cheat_tm, mask="1")
    assert at.button_group(key=view.K_SCOPE).value == "layer" and "layers" not in at.query_params
    assert t("attn.effect.count", lang, n=in_first, T=T, layer=1, L=2) in markdown(at)
    at.button_group(key=view.K_SCOPE).set_value("all").run()  # one tap, in the first view
    both = t("attn.scope.both", lang)
    assert t("attn.effect.count_all", lang, n=in_both, T=T, every=both) in markdown(at)
    assert at.query_params["layers"] == "all" and at.query_params["mask"] == "1"
    knock = t("why.plain.knock_same", lang, switched=1, how="", layer=2, c="", k0="", w0="")[:16]
    assert not any(knock in m.value for m in at.markdown)  # in all layers no flip is a knock-on of layer 1
    again = open_attention(lang, own_model=cheat_tm, mask="1", layers="all")  # a link carries the scope
    assert again.button_group(key=view.K_SCOPE).value == "all"
    assert t("attn.effect.count_all", lang, n=in_both, T=T, every=both) in markdown(again)
    own_view = open_attention(lang, own_model=cheat_tm, layers="all")  # the model's own: where a switch would act
    assert t("attn.effect.own_all", lang, T=T, every=both) in markdown(own_view)


@pytest.mark.parametrize("scope", ["layer", "all"])
def test_layer_2_s_steps_read_what_layer_1_leaves_under_the_scope_s_switches(scope, cheat_tm):
    """The nine steps of layer 2 trace the attention whose inputs come from layer 1 as the switches set
    it: the model's own (no mask, as it trained) while the switches act in one layer, the mask and τ as
    set with "all layers"; and the page's module check still finds the trace equal to the model's module."""
    text = SEED_TEXT[:8]
    ids = cheat_tm.vocab.encode(text)[None]
    sw = Switches(causal_mask=True, temperature=0.5)
    first = sw if scope == "all" else Switches(causal_mask=False)
    expected = walk(cheat_tm.model, ids, {0: first, 1: sw}, trace_layer=1).trace.state["alpha"][0, 0].numpy()
    layer_1_default = walk(cheat_tm.model, ids, {1: sw}, trace_layer=1).trace.state["alpha"][0, 0].numpy()
    assert not np.allclose(expected, layer_1_default, atol=1e-4)  # what layer 1 does shows in layer 2
    at = open_attention(own_model=cheat_tm, text=text, step="softmax", layer="1", head="0", mask="1", tau="0.5")
    at.button_group(key=view.K_SCOPE).set_value(scope).run()
    rerun(at, **{view.K_CURIOUS: True})
    assert at.query_params.get("layers", "layer") == scope and at.query_params["tau"] == "0.5"
    np.testing.assert_allclose(tables(at)[0].value.to_numpy(dtype=np.float64), expected, atol=1e-6)
    assert attention_data.own_module_difference(cheat_tm, text, 1) < 1e-5
    why = t("attn.steps_all_layers", "en", layer=2, before="1")  # the page says why layer 2's numbers moved
    assert (why in [c.value for c in at.caption]) == (scope == "all")


def test_a_link_s_scope_it_cannot_read_is_named_with_the_words_it_accepts():
    at = open_attention(layers="some")
    assert at.button_group(key=view.K_SCOPE).value == "layer"
    assert any("layers" in w.value and "all" in w.value for w in at.warning)
