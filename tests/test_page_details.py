"""Details a student or a teacher meets on the pages: an α grid stays open when the layer changes,
a lesson locks the Train page's settings, a space is named in tables and guesses, a chart title
speaks one language, and the texts put the examples in quotation marks."""

from __future__ import annotations

import json
import re

import pytest
from helpers import open_page, small_model, tables
from test_lesson import keyed_widgets, open_app

from tinygpt.examples import EXAMPLES
from tinygpt.i18n import CATALOGUE, t
from tinygpt.ui.attention import state as view
from tinygpt.ui.views.lesson import LESSON_CONTROLS
from tinygpt.ui.views.predict_table import P_GUESS
from tinygpt.ui.views.train_table import T_D_MODEL, T_LR

SPACE = "␣ (U+0020)"


def grid_charts(at, layer: int) -> int | None:
    """The charts drawn in "All heads of layer ``layer + 1``" (``layer``: the index); None: no such expander."""
    boxes = [e for e in at.expander if e.label == t("attn.heads_header", "en", layer=layer + 1)]
    return len(boxes[0].get("vega_lite_chart")) if boxes else None


def test_the_all_heads_grid_stays_open_when_the_layer_changes():
    at = open_page("attention", model="context")
    at.session_state[view.K_HEADS_GRID] = True
    at.run()
    assert grid_charts(at, 0) == 2  # the context example's two heads
    at.session_state[view.K_MORE] = True  # the layer is in "More controls"
    at.run()
    at.session_state[view.K_LAYER] = 1
    at.run()
    assert not at.exception
    assert grid_charts(at, 1) == 2 and grid_charts(at, 0) is None  # open, now titled layer 1
    at.session_state[view.K_HEADS_GRID] = False  # closed by the student: it stays closed
    at.run()
    assert grid_charts(at, 1) == 0


#: The Train page's settings a lesson can lock (the run buttons and downloads are always drawn).
TRAIN_SETTINGS = {key for key in LESSON_CONTROLS if key.startswith("train_")}
#: Keyed widgets of the Train page that are not settings: running, the runs and a chart's data
#: (the retrain with a suggested window is part of ``train_window``).
TRAIN_RUNNING = {
    "train_retrain_window",
    "train_start",
    "train_pause",
    "train_step",
    "train_stop",
    "train_reset",
    "train_overlay",
    "train_again",
    "train_loss_data",
}


def test_a_lesson_locks_the_train_pages_settings_to_the_ones_it_shows():
    at = open_app(lesson="1", pages="train,predict", show="train_lr,train_epochs")
    assert at.title[0].value == t("train.title", "en")
    drawn = keyed_widgets(at)
    assert drawn & TRAIN_SETTINGS == {"train_lr", "train_epochs"}
    assert {"train_start", "train_stop", "train_reset"} <= drawn  # the run buttons stay
    assert not [b for b in at.main.get("button") if (b.key or "").startswith("train_preset_")]  # no preset
    assert not at.get("file_uploader")  # no model file would replace the locked settings
    assert any(c.value.startswith(t("train.params", "en", n=0, d_head=0, tokens=0)[:10]) for c in at.caption)
    at.session_state[T_LR] = 1e-3  # what is shown still works
    at.run()
    assert at.select_slider(key=T_LR).value == 1e-3 and at.session_state[T_D_MODEL] == 512


def test_without_a_lesson_every_train_setting_is_drawn_and_registered():
    at = open_app()
    drawn = {key for key in keyed_widgets(at) if not key.startswith("train_preset_")}
    drawn |= {"train_presets"} if [b for b in at.main.get("button") if b.key == "train_preset_seed"] else set()
    drawn |= {"train_upload"} if at.get("file_uploader") else set()
    assert TRAIN_SETTINGS <= drawn
    assert drawn - TRAIN_SETTINGS <= TRAIN_RUNNING, drawn - TRAIN_SETTINGS


def test_a_space_is_named_in_predicts_tables_and_its_guess():
    record = small_model("你 好世")  # after 你 comes a space
    at = open_page("predict", own_model=record, prefix="你 好")
    at.session_state["predict_positions"] = True  # every position's table, drawn once opened
    at.run()
    first = tables(at)[0].value
    assert list(first[t("predict.col_top", "en")])[0] == SPACE
    assert list(first[t("predict.col_expected", "en")])[0] == SPACE
    at.session_state[P_GUESS] = True
    at.run()
    choices = [option.content for option in at.button_group(key="predict_quiz_pick").proto.options]
    assert "␣ \\(U\\+0020\\)" in choices  # Markdown-escaped "␣ (U+0020)", not a blank choice


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_softmax_steps_title_is_alpha_in_the_pages_language(lang):
    at = open_page("attention", lang, step="softmax", head="0")
    head = t("attn.panel_head", lang, h=1)  # head=0 in the link: head 1 on the page
    titles = [m.value for m in at.markdown] + [e.label for e in at.expander]
    assert f"**{t('attn.table', lang, name=f'α · {head}')}**" in titles  # the step's table, its title
    assert not [title for title in titles if "alpha ·" in title]


def test_the_texts_put_the_examples_in_quotation_marks():
    texts = {example.text.rstrip("。") for example in EXAMPLES.values()} | {"你好你世你界", "好世界你"}
    bare = []
    for key, by_lang in CATALOGUE.items():
        for lang, text in by_lang.items():
            for example in texts:
                for found in re.finditer(re.escape(example), text):
                    before, after = text[: found.start()], text[found.end() :]
                    if not (before.endswith(("“", "「")) and re.match(r"。?[”」]", after)):
                        bare.append(f"{key} ({lang}): …{text[max(0, found.start() - 12) : found.end() + 12]}…")
    assert bare == []


def chart_descriptions(at) -> list[str]:
    return [json.loads(chart.proto.spec).get("description", "") for chart in at.get("vega_lite_chart")]


def in_language(text: str, lang: str) -> bool:
    """A chart description written in ``lang`` (each catalogue's chart sentences name the chart kind)."""
    return "图" in text if lang == "zh" else bool(re.search(r"[Cc]hart|Heatmap", text)) and "图" not in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_chart_of_every_page_says_what_it_shows_in_the_pages_language(lang):
    seen = []
    at = open_page("attention", lang, model="context", step="softmax")
    for section in ("attn_details", "attn_heads", "attn_lens", "attn_heads_grid", "attn_layers_grid", "attn_training"):
        at.session_state[section] = True  # every section open: all its charts drawn
    at.run()
    assert not at.exception
    seen += chart_descriptions(at)
    assert len(seen) >= 9  # step, effects, heads, lens, 2 + 2 grid panels, snapshot
    at = open_page("predict", lang, model="context")
    at.session_state["predict_positions"] = True  # the panel grid of every position, drawn once opened
    at.run()
    seen += chart_descriptions(at)
    at = open_page("theory", lang)
    for section in ("vectors", "weighted_sum", "attention"):
        at.session_state["theory_section"] = section
        at.run()
        seen += chart_descriptions(at)
    at = open_page("train", lang)
    seen += chart_descriptions(at)  # the empty loss chart
    assert len(seen) >= 17
    assert [d for d in seen if not in_language(d, lang)] == []
