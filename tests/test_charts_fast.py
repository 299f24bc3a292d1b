"""Every chart is written once (tinygpt.explanations.charts.fast): its fast Vega-Lite dict draws what its Altair
chart draws, and its layout is built once per labels and titles, whatever the numbers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from tinygpt.explanations import charts
from tinygpt.explanations.charts import fast

LABELS = charts.position_labels("我爱你你爱我")
T = len(LABELS)
ALPHA = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
MASKED = np.triu(np.ones((T, T), dtype=bool), 1)
#: Two runs' losses, one not finite and one 0 (a log axis draws neither).
HISTORY = pd.DataFrame(
    {"step": [1, 2, 3, 1, 2], "loss": [2.0, float("nan"), 0.5, 1.5, 0.0], "run": ["#1", "#1", "#1", "#2", "#2"]}
)
SCORES = np.where(MASKED, -np.inf, np.arange(T * T, dtype=float).reshape(T, T) - 10)

#: (Altair builder, fast builder, arguments, keyword arguments) of every chart that has a fast spec.
PAIRS = {
    "heatmap": (charts.heatmap, charts.heatmap_spec, (SCORES, LABELS, LABELS), {"masked": MASKED, "row_title": "查询"}),
    "heatmap_prob": (charts.heatmap, charts.heatmap_spec, (ALPHA, LABELS, LABELS), {"kind": "prob", "masked": MASKED}),
    "alpha_grid": (
        charts.alpha_grid,
        charts.alpha_grid_spec,
        (np.stack([ALPHA, ALPHA]), ["h1", "h2"], LABELS, LABELS),
        {"masked": MASKED, "columns": 2, "legend": False},
    ),
    "probability_bars": (
        charts.probability_bars,
        charts.probability_bars_spec,
        ([0.2, 0.5, 0.3], ["a", "b", "c"]),
        {"highlight": "b", "title": "p", "y_title": "概率"},
    ),
    "vector_picture": (
        charts.vector_picture,
        charts.vector_picture_spec,
        ([("a", (1.0, 2.0)), ("b", (-1.0, 0.5))],),
        {"origins": [None, (1.0, 2.0)], "size": 200},
    ),
    "effects": (
        charts.effects_chart,
        charts.effects_spec,
        (LABELS, ["x"] * T, ["y"] * T, np.linspace(0, 1, T), np.arange(T) % 2 == 0),
        {"changed_label": "changed", "mark": "▲"},
    ),
    "labelled_heatmap": (
        charts.labelled_heatmap,
        charts.labelled_heatmap_spec,
        (np.ones((2, 3)), [["a", "b", "c"]] * 2, ["l1", "l2"], ["h1", "h2", "h3"]),
        {"domain": (0, 4), "extra": np.zeros((2, 3)), "fit_width": True},
    ),
    "loss": (
        charts.loss_chart,
        charts.loss_chart_spec,
        (HISTORY,),
        {"title": "损失", "x_title": "步", "y_title": "损失", "series_title": "训练"},
    ),
    "loss_one_run": (charts.loss_chart, charts.loss_chart_spec, (HISTORY.drop(columns="run")[:3],), {}),
    "answer_spread": (
        charts.answer_spread,
        charts.answer_spread_spec,
        (["2 世", "3 界"], [3, 5], [True, False]),
        {"title": "Q1", "right_mark": "✓"},
    ),
}


def rows(data: pd.DataFrame | pa.Table | list[dict]) -> pd.DataFrame:
    """A chart's rows as a DataFrame: an Altair chart's own (a frame, or inline records), or a fast
    spec's Arrow table."""
    if isinstance(data, list):
        return pd.DataFrame(data)
    return data if isinstance(data, pd.DataFrame) else data.to_pandas()


def named_cells(spec: dict, fast_spec: dict) -> dict:
    """``spec`` (an Altair chart's dict) with the one table the fast spec names ``cells`` named so
    too: a chart whose layers hold their own tables (the arrows beside the axes' zero lines) names
    them by a hash of their rows."""
    own = set(spec.get("datasets", {})) - set(fast_spec["datasets"])
    if len(own) != 1:
        return spec
    (name,) = own
    renamed = json.loads(json.dumps({k: v for k, v in spec.items() if k != "datasets"}).replace(name, "cells"))
    return {**renamed, "datasets": {**spec["datasets"], "cells": spec["datasets"][name]}}


@pytest.mark.parametrize("name", list(PAIRS))
def test_a_fast_spec_draws_what_its_altair_chart_draws(name):
    build, build_fast, args, kwargs = PAIRS[name]
    for description in ("", "what it shows"):
        quick = build_fast(*args, description=description, **kwargs)
        slow = named_cells(charts.vega_spec(build(*args, description=description, **kwargs)), quick)
        layout = {k: v for k, v in quick.items() if k not in ("datasets", "usermeta")}
        assert layout == {k: v for k, v in slow.items() if k != "datasets"}
        pd.testing.assert_frame_equal(rows(quick["datasets"]["cells"]), rows(slow["datasets"]["cells"]))
        assert quick.get("description", "") == description or (name == "answer_spread" and not description)


def test_a_layout_is_built_once_for_any_numbers_and_again_for_other_labels():
    fast._template.cache_clear()
    first = charts.heatmap_spec(ALPHA, LABELS, LABELS, kind="prob")
    second = charts.heatmap_spec(ALPHA[::-1], list(LABELS), tuple(LABELS), kind="prob")  # lists and tuples alike
    assert fast._template.cache_info().misses == 1 and fast._template.cache_info().hits == 1
    assert not rows(first["datasets"]["cells"]).equals(rows(second["datasets"]["cells"]))
    charts.heatmap_spec(ALPHA[:3, :3], LABELS[:3], LABELS[:3], kind="prob")
    assert fast._template.cache_info().misses == 2
    first["layer"][0]["mark"] = "changed by a caller"
    assert charts.heatmap_spec(ALPHA, LABELS, LABELS, kind="prob")["layer"][0]["mark"] != "changed by a caller"


def test_charts_that_differ_only_in_their_titles_share_one_layout_and_show_their_own_titles():
    from tinygpt.explanations.charts.heatmaps import _heatmap_layout

    fast._template.cache_clear()
    for title in ('scores "S" / √d', "权重 α", 'scores "S" / √d'):
        quick = charts.heatmap_spec(ALPHA, LABELS, LABELS, kind="prob", title=title, value_title=f"α {title}")
        options = {"row_labels": tuple(LABELS), "col_labels": tuple(LABELS), "any_masked": False, "kind": "prob"}
        options |= {"title": title, "value_title": f"α {title}"}
        own = json.loads(fast._template.__wrapped__(_heatmap_layout, tuple(sorted(options.items()))))
        assert quick["title"] == title
        assert {k: v for k, v in quick.items() if k not in ("datasets", "usermeta")} == own
    assert fast._template.cache_info().misses == 1 and fast._template.cache_info().hits == 2


def test_the_train_pages_live_loss_chart_is_the_loss_charts_fast_spec():
    from streamlit.testing.v1 import AppTest

    from tinygpt.i18n import t

    def page() -> None:
        import pandas as pd

        from tinygpt.ui.train.training_jobs import draw_loss_chart

        draw_loss_chart(
            pd.DataFrame({"step": [1, 2, 3, 1, 2], "loss": [2.0, 1.0, 0.5, 1.5, 0.0], "run": ["#1"] * 3 + ["#2"] * 2})
        )

    at = AppTest.from_function(page)
    at.query_params["lang"] = "en"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (drawn,) = at.get("vega_lite_chart")
    labels = {"title": "train.chart_title", "x_title": "train.axis_step", "y_title": "train.axis_loss"}
    labels = {k: t(v, "en") for k, v in labels.items()} | {"series_title": t("train.axis_run", "en")}
    quick = charts.loss_chart_spec(HISTORY, **labels)
    spec = json.loads(drawn.proto.spec)
    assert {k: v for k, v in spec.items() if k not in ("datasets", "description", "autosize")} == {
        k: v for k, v in quick.items() if k != "datasets"
    }
    assert spec["encoding"]["color"]["title"] == t("train.axis_run", "en") and spec["mark"]["point"] is True
    empty = pd.DataFrame({"step": np.array([], dtype=int), "loss": np.array([], dtype=float)})
    assert charts.loss_chart_spec(empty)["mark"]["point"] is False  # no curve: no layer of dots without a name
