"""What makes the charts and the page readable to everyone, checked on the specs and the style
sheet: every chart builder takes a text description, masked cells have a legend entry, x labels
of long texts do not overlap, Chinese y titles stand level, a highlighted bar is also marked, a
space is named, and grey text passes WCAG's contrast."""

import json

import numpy as np
import pytest

from tinygpt.explanations import charts
from tinygpt.explanations.exercises import _position_choices, next_char_question
from tinygpt.ui.frame.style import HTML_LANG, MUTED_TEXT, style_sheet

CONTEXT = "我爱你，你爱我。他爱她，她爱他"  # the context example's window: 15 positions
LABELS = charts.position_labels(CONTEXT)
T = len(CONTEXT)
ALPHA = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]  # (T, T), rows sum to 1
MASKED = np.triu(np.ones((T, T), dtype=bool), 1)
DESCRIPTION = "热图（α · 头 1）：15 行 × 15 列。"

#: Every builder and its fast variant, with arguments that draw a small chart.
BUILDERS = {
    "heatmap": lambda d: charts.heatmap(ALPHA, LABELS, LABELS, kind="prob", description=d),
    "heatmap_spec": lambda d: charts.heatmap_spec(ALPHA, LABELS, LABELS, kind="prob", description=d),
    "alpha_grid": lambda d: charts.alpha_grid(ALPHA[None], ["h0"], LABELS, LABELS, description=d),
    "alpha_grid_spec": lambda d: charts.alpha_grid_spec(ALPHA[None], ["h0"], LABELS, LABELS, description=d),
    "loss_chart": lambda d: charts.loss_chart(
        __import__("pandas").DataFrame({"step": [1, 2], "loss": [1.0, 0.5]}), description=d
    ),
    "probability_bars": lambda d: charts.probability_bars([0.2, 0.8], ["a", "b"], description=d),
    "probability_bars_spec": lambda d: charts.probability_bars_spec([0.2, 0.8], ["a", "b"], description=d),
    "next_char_panels": lambda d: charts.next_char_panels([[0.2, 0.8]], ["a", "b"], ["0"], ["b"], description=d),
    "paired_probability_bars": lambda d: charts.paired_probability_bars(
        [0.2, 0.8], [0.0, 1.0], ["a", "b"], description=d
    ),
    "vector_picture": lambda d: charts.vector_picture([("a", (1.0, 2.0))], description=d),
    "vector_picture_spec": lambda d: charts.vector_picture_spec([("a", (1.0, 2.0))], description=d),
    "effects_chart": lambda d: charts.effects_chart(
        LABELS, [""] * T, [""] * T, np.zeros(T), np.zeros(T), description=d
    ),
    "effects_spec": lambda d: charts.effects_spec(LABELS, [""] * T, [""] * T, np.zeros(T), np.zeros(T), description=d),
    "labelled_heatmap": lambda d: charts.labelled_heatmap(
        ALPHA[:2], [list(CONTEXT)] * 2, ["0", "1"], LABELS, description=d
    ),
    "labelled_heatmap_spec": lambda d: charts.labelled_heatmap_spec(
        ALPHA[:2], [list(CONTEXT)] * 2, ["0", "1"], LABELS, description=d
    ),
}


def as_dict(chart) -> dict:
    return chart if isinstance(chart, dict) else chart.to_dict()


def walk(node):
    """Every dict inside a Vega-Lite spec."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def x_axes(spec: dict) -> list[dict]:
    return [
        node["x"].get("axis") or {} for node in walk(spec) if isinstance(node.get("x"), dict) and "field" in node["x"]
    ]


def y_axes(spec: dict) -> list[dict]:
    return [
        node["y"].get("axis") or {} for node in walk(spec) if isinstance(node.get("y"), dict) and node["y"].get("title")
    ]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_chart_builder_puts_its_description_on_the_spec(name):
    assert charts.__dict__[name.split(":")[0]]  # the builder exists under that name
    assert as_dict(BUILDERS[name](DESCRIPTION))["description"] == DESCRIPTION
    assert "description" not in as_dict(BUILDERS[name](""))


def test_a_fast_spec_keeps_one_cached_layout_for_its_descriptions():
    first = charts.heatmap_spec(ALPHA, LABELS, LABELS, kind="prob", description="one")
    second = charts.heatmap_spec(ALPHA, LABELS, LABELS, kind="prob", description="two")
    assert (first["description"], second["description"]) == ("one", "two")
    assert {k: v for k, v in first.items() if k not in ("description", "datasets")} == {
        k: v for k, v in second.items() if k not in ("description", "datasets")
    }


@pytest.mark.parametrize("fast", [False, True])
def test_masked_cells_have_their_own_legend_entry(fast):
    label = "已屏蔽（−∞）"
    build = charts.heatmap_spec if fast else charts.heatmap
    spec = as_dict(build(ALPHA, LABELS, LABELS, kind="prob", masked=MASKED, masked_label=label))
    colours = [layer["encoding"]["color"] for layer in spec["layer"]]
    grey = [c for c in colours if c.get("scale", {}).get("domain") == [label]]
    assert len(grey) == 1 and grey[0]["scale"]["range"] == [charts.MASK_COLOR]
    assert grey[0]["legend"] is not None  # drawn in the legend, named by the label
    assert spec["resolve"] == {"scale": {"color": "independent"}}  # beside the value's colour scale
    grid = charts.alpha_grid(ALPHA[None], ["h0"], LABELS, LABELS, masked=MASKED, masked_label=label).to_dict()
    assert any(c.get("scale", {}).get("domain") == [label] for c in (n.get("color", {}) for n in walk(grid)))


def test_long_texts_x_labels_are_slanted_or_upright_and_short_ones_flat():
    heat = as_dict(charts.heatmap_spec(ALPHA, LABELS, LABELS, kind="prob"))  # 24-pixel cells, labels "10 她"
    assert {axis["labelAngle"] for axis in x_axes(heat)} == {-90}
    short = charts.position_labels("你好世界")  # 48-pixel cells
    assert {axis["labelAngle"] for axis in x_axes(as_dict(charts.heatmap(ALPHA[:4, :4], short, short)))} == {0}
    grid = charts.alpha_grid(ALPHA[None], ["h0"], LABELS, LABELS, panel_size=160).to_dict()
    assert {axis["labelAngle"] for axis in x_axes(grid)} == {-90}
    fx = charts.effects_chart(LABELS, [""] * T, [""] * T, np.zeros(T), np.zeros(T)).to_dict()
    assert all(axis["labelAngle"] != 0 for axis in x_axes(fx))  # 15 labels across a phone's width
    assert charts.label_angle(["10 爱"], 60) == 0 and charts.label_angle(["10 爱"], 30) == -45
    assert charts.label_angle(["10 爱"], 12) == -90


def test_a_chinese_y_title_stands_level_and_a_latin_one_keeps_the_default():
    zh = as_dict(charts.heatmap_spec(ALPHA, LABELS, LABELS, kind="prob", row_title="查询位置 i"))
    assert [axis.get("titleAngle") for axis in y_axes(zh)] == [0]
    en = as_dict(charts.heatmap_spec(ALPHA, LABELS, LABELS, kind="prob", row_title="query i"))
    assert [axis.get("titleAngle") for axis in y_axes(en)] == [None]
    loss = charts.loss_chart(__import__("pandas").DataFrame({"step": [1], "loss": [1.0]}), y_title="损失").to_dict()
    assert [axis.get("titleAngle") for axis in y_axes(loss)] == [0]


def test_a_highlighted_bar_is_marked_not_only_coloured():
    spec = charts.probability_bars_spec([0.2, 0.8], ["a", "b"], highlight="b")
    diamonds = [layer for layer in spec["layer"] if layer["mark"].get("shape") == "diamond"]
    assert len(diamonds) == 1 and {"filter": "datum.chosen"} in diamonds[0]["transform"]
    assert list(spec["datasets"]["cells"].column("chosen").to_pylist()) == [False, True]


def test_a_space_is_named_in_labels_choices_and_answers():
    assert charts.position_labels("a b") == ["0 a", "1 ␣", "2 b"]
    assert [c.text for c in _position_choices("a b", range(3))] == ["0 a", "1 ␣ (U+0020)", "2 b"]
    import torch

    question = next_char_question(torch.tensor([0.1, 0.9]), ["a", " "], "a")
    assert [c.text for c in question.choices] == ["a", "␣ (U+0020)"]
    assert dict(question.reason_fields)["char"] == "␣ (U+0020)"


def contrast(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two #rrggbb colours."""

    def luminance(colour: str) -> float:
        rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_grey_text_passes_wcag_contrast_on_every_background_it_sits_on():
    for background in ("#ffffff", "#f0f2f6", "#fbe3b3"):  # page, sidebar, a highlighted table row
        assert contrast(MUTED_TEXT, background) >= 4.5
    assert contrast("#7d7d83", "#ffffff") < 4.5  # Streamlit's own caption grey, which axe-core flags
    sheet = style_sheet("zh", "公式", "表格", "↔")
    assert f"color: {MUTED_TEXT}; opacity: 1" in sheet  # captions: the colour, without Streamlit's opacity
    assert "rgba(49, 51, 63, 0.6)" not in sheet  # nor the table headers' faded grey


def test_the_style_sheet_sets_the_page_language_and_names_boxes_that_scroll():
    for lang, code in HTML_LANG.items():
        assert f"d.documentElement.lang = {json.dumps(code)};" in style_sheet(lang, "F", "T", "↔")
    sheet = style_sheet("zh", "公式（可左右滚动）", "表格（可滚动）", "↔ 可以左右滑动")
    assert '".katex-display": "公式（可左右滚动）"' in sheet and '".tg-table": "表格（可滚动）"' in sheet
    assert '"ArrowLeft": "attn_prev"' in sheet and '"ArrowRight": "attn_next"' in sheet
    # the scroll hint in the page's language, above the box (formula, chart or table), never under it
    assert '[data-tg-scrolls]::before { content: "↔ 可以左右滑动";' in sheet and "::after" not in sheet


def test_the_file_uploader_speaks_the_page_s_language():
    sheet = style_sheet("zh", "公式", "表格", "↔", "选择文件")
    assert 'content: "选择文件"' in sheet and 'w.__tgUploadLabel = "选择文件";' in sheet
    assert '[data-testid="stFileUploaderDropzoneInstructions"] { display: none; }' in sheet  # its English limit
    assert "stFileUploaderDropzoneInstructions" not in style_sheet("zh", "公式", "表格", "↔")
