"""Figures for slides: PNG and SVG of the charts (tinygpt.explanations.figures) and their download buttons
on every page."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET

import altair as alt
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from tinygpt.config import DEFAULT_GPT, DEFAULT_TRAIN, SEED_TEXT
from tinygpt.explanations import figures
from tinygpt.explanations.charts import (
    heatmap_spec,
    loss_chart,
    next_char_panels,
    paired_probability_bars,
    probability_bars,
)
from tinygpt.explanations.figures import FIGURE_WIDTH, FigureError, to_png, to_svg
from tinygpt.i18n import t
from tinygpt.training.jobs import JobStatus, RunRecord, settings_of
from tinygpt.training.record import StopReason
from tinygpt.ui.train.train_runs import K_RUNS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def svg_size(svg: str) -> tuple[int, int]:
    """Width and height of an SVG document (it must parse as XML)."""
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return int(float(root.get("width"))), int(float(root.get("height")))


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (the first chunk, right after the signature)."""
    assert png[:8] == PNG_SIGNATURE and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


def svg_texts(svg: str) -> str:
    """All text of the SVG's <text> elements: text stays text, whatever fonts this host has."""
    root = ET.fromstring(svg)
    return " ".join("".join(e.itertext()) for e in root.iter("{http://www.w3.org/2000/svg}text"))


def attention_heatmap(lang: str) -> dict:
    """The attention page's α heatmap spec (a Vega-Lite dict with the named dataset "cells")."""
    labels = ["0 你", "1 好", "2 世"]
    alpha = np.array([[1.0, 0, 0], [0.3, 0.7, 0], [0.2, 0.3, 0.5]])
    return heatmap_spec(
        alpha,
        labels,
        labels,
        kind="prob",
        masked=np.triu(np.ones((3, 3), dtype=bool), 1),
        title=f"alpha · {t('attn.panel_head', lang, h=0)}",
        row_title=t("attn.axis_query", lang),
        col_title=t("attn.axis_key", lang),
        value_title="α",
        masked_label=t("attn.masked", lang),
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_vega_lite_dict_with_named_datasets_becomes_png_and_svg_with_its_title(lang):
    spec = attention_heatmap(lang)
    svg = to_svg(spec, "unused: the chart has a title")
    png = to_png(spec, "unused", scale=2)
    w, h = svg_size(svg)
    assert w > 3 * 48 and h > 3 * 48  # the cells (48 px each) plus axes, legend and title
    assert png_size(png) == (2 * w, 2 * h)
    text = svg_texts(svg)
    assert f"alpha · {t('attn.panel_head', lang, h=0)}" in text
    assert t("attn.axis_query", lang) in text and t("attn.axis_key", lang) in text
    assert "unused" not in text
    assert isinstance(spec["datasets"]["cells"], pa.Table)  # the page's spec is left as it was


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_altair_chart_without_a_title_gets_the_pages_title(lang):
    chars = list("你好世界")
    panels = next_char_panels(
        np.full((2, 4), 0.25),
        chars,
        ["0: 你", "1: 你好"],
        ["好", ""],
        x_title=t("predict.axis_char", lang),
        y_title=t("predict.axis_prob", lang),
    )
    title = t("predict.per_position", lang)
    svg = to_svg(panels, title)
    text = svg_texts(svg)
    assert title in text and t("predict.axis_prob", lang) in text
    assert png_size(to_png(panels, title, scale=1)) == svg_size(svg)


def test_the_figure_has_the_charts_size_and_png_scales_it():
    spec = {
        "data": {"values": [{"c": "你", "p": 0.4}, {"c": "好", "p": 0.6}]},
        "mark": "bar",
        "width": 300,
        "height": 200,
        "autosize": {"type": "none"},
        "padding": 0,
        "encoding": {"x": {"field": "c", "type": "nominal"}, "y": {"field": "p", "type": "quantitative"}},
    }
    assert svg_size(to_svg(spec, "")) == (300, 200)
    assert png_size(to_png(spec, "", scale=3)) == (900, 600)


def test_a_chart_the_page_stretches_gets_the_figure_width_and_data_beside_the_spec():
    history = pd.DataFrame({"step": [1, 2, 3], "loss": [1.0, 0.1, 0.01], "run": "#1"})
    spec = loss_chart(history, title="loss").to_dict(validate=False)
    spec.pop("datasets"), spec.pop("data")  # how the Train page draws it: st.vega_lite_chart(df, spec)
    out = figures.figure_spec(spec, "", data=history)
    assert out["width"] == FIGURE_WIDTH and out["data"]["values"][2] == {"step": 3, "loss": 0.01, "run": "#1"}
    assert svg_size(to_svg(spec, "", data=history))[0] > FIGURE_WIDTH
    bars = probability_bars([0.25, 0.75], ["k1", "k2"], title="α")
    assert figures.figure_spec(bars, "")["width"] == FIGURE_WIDTH


def test_altair_charts_are_converted_without_altairs_process_wide_data_transformer():
    def refuse(data):
        raise AssertionError("the active data transformer was used")

    alt.data_transformers.register("figures_refuse", refuse)
    with alt.data_transformers.enable("figures_refuse"):  # what Streamlit switches while drawing elsewhere
        spec = figures.figure_spec(paired_probability_bars([0.2, 0.8], [0.1, 0.9], list("你好"), chosen="好"), "t")
    marker = [rows for rows in spec["datasets"].values() if len(rows) == 1]  # the ▼ layer's own table
    assert marker[0][0]["char"] == "好"


def test_the_same_figure_gives_the_same_json():
    assert figures.spec_json(attention_heatmap("en"), "t") == figures.spec_json(attention_heatmap("en"), "t")
    assert figures.spec_json(attention_heatmap("en"), "t") != figures.spec_json(attention_heatmap("zh"), "t")


def test_clear_errors():
    with pytest.raises(FigureError, match="Altair chart or a Vega-Lite dict"):
        to_svg([1, 2], "t")
    with pytest.raises(FigureError, match="datasets"):
        to_svg({"datasets": [1], "mark": "bar"}, "t")
    with pytest.raises(FigureError, match="scale must be positive"):
        to_png(attention_heatmap("en"), "t", scale=0)
    with pytest.raises(FigureError, match="vl-convert could not draw"):
        to_svg({"mark": "no such mark"}, "t")
    with pytest.raises(FigureError, match="not JSON"):
        to_svg({"mark": "bar", "data": {"values": [{"x": object()}]}}, "t")
    with pytest.raises(FigureError, match="not allowed"):  # nothing is fetched from another host
        to_svg({"data": {"url": "https://example.com/data.csv"}, "mark": "bar"}, "t")


# ---------------------------------------------------------------- the buttons on the pages (AppTest)

PAGE_BUTTONS = {
    "theory": [
        "theory_ops_figure",
        "theory_ws_figure",
        "theory_sm_bars_figure",
        "theory_sm_vectors_figure",
        "theory_mx_figure",
    ],
    "predict": ["predict_panels_figure", "predict_bars_figure"],
    "attention": ["attn_figure", "attn_effects_figure", "attn_heads_figure", "attn_snapshot_figure"],
    "train": ["train_loss_figure"],
}


@pytest.fixture
def downloads(monkeypatch) -> dict:
    """file name -> the data callable each download button registered (run only when clicked)."""
    seen: dict = {}
    register = MediaFileManager.add_deferred

    def recording(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        seen[file_name] = data_callable
        return register(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", recording)
    return seen


def open_page(page: str, lang: str) -> AppTest:
    at = AppTest.from_file("../streamlit_app.py", default_timeout=180)
    at.query_params["lang"] = lang
    if page == "train":  # a finished run of this session: the loss chart has its curve
        settings = settings_of(SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN)
        at.session_state[K_RUNS] = [
            RunRecord(
                1, "run-1", settings, (1.4, 0.3, 0.02), JobStatus.DONE, StopReason.EPOCHS, "好世界你", "好世界你", 1.0
            )
        ]
    if page in ("predict", "attention"):  # these open on the context example; the tests read the textbook's
        at.query_params["model"] = "textbook"
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("page", list(PAGE_BUTTONS))
def test_every_chart_has_png_and_svg_downloads_in_the_pages_language(page, lang, downloads):
    at = open_page(page, lang)
    buttons = {b.key: b for b in at.get("download_button")}
    # the page draws one section (part) at a time: every section's charts
    chooser = {"theory": ("theory_section", ("vectors", "weighted_sum", "attention"))}
    # the sections drawn only while open (expanders)
    opened = {
        "attention": ("attn_details", "attn_heads", "attn_lens", "attn_training", "attn_table_open"),
        "predict": ("predict_positions",),
    }
    if page in opened:
        for key in opened[page]:
            at.session_state[key] = True
        at.run()
        buttons |= {b.key: b for b in at.get("download_button")}
    if page in chooser:
        key, sections = chooser[page]
        for section in sections:
            at.button_group(key=key).set_value(section).run()
            buttons |= {b.key: b for b in at.get("download_button")}
    for key in PAGE_BUTTONS[page]:
        png, svg = buttons[f"{key}_png"], buttons[f"{key}_svg"]
        assert png.label == t("figure.png", lang) and svg.label == t("figure.svg", lang)
        assert png.help == t("figure.png_help", lang, scale=2) and svg.help == t("figure.svg_help", lang)
        assert png.proto.HasField("deferred_file_id") and svg.proto.HasField("deferred_file_id")  # converted on click
    if page == "theory":  # what a click downloads: the chart in the page's language
        svg = downloads["theory_mx.svg"]()
        png = downloads["theory_mx.png"]()
        assert t("theory.mx.chart_title", lang) in svg_texts(svg) and t("theory.mx.axis_query", lang) in svg_texts(svg)
        w, h = svg_size(svg)
        assert png_size(png) == (2 * w, 2 * h)
    if page == "attention":
        svg = downloads["attention_effects_layer0.svg"]()
        assert t("attn.exp.header", lang) in svg_texts(svg) and t("attn.exp.dp", lang) in svg_texts(svg)
    if page == "train":
        svg = downloads["tinygpt_loss.svg"]()
        assert t("train.chart_title", lang) in svg_texts(svg) and svg_size(svg)[0] > figures.FIGURE_WIDTH


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_attention_pages_grids_and_lens_download_when_open(lang, downloads):
    at = open_page("attention", lang)
    for key in ("attn_heads_grid", "attn_layers_grid", "attn_lens"):
        at.session_state[key] = True  # the expanders drawn only while open
    at.run()
    assert not at.exception
    keys = {b.key for b in at.get("download_button")}
    assert {"attn_heads_grid_figure_png", "attn_layers_grid_figure_svg", "attn_lens_figure_png"} <= keys
    svg = downloads["heads_grid.svg"]()
    assert t("attn.heads_header", lang, layer=1) in svg_texts(svg)  # index 0: layer 1
    assert all(t("attn.panel_head", lang, h=h) in svg_texts(svg) for h in range(1, 9))  # every head in one figure
