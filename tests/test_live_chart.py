"""The live α heatmap (tinygpt.explanations.charts.live): a spec that does not change with the
switches, and arithmetic equal to tinygpt's own softmax for the same switches."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch
from helpers import SMALL

from tinygpt.attention import Switches
from tinygpt.explanations.charts.live import LIVE_PARAMS, evaluate, input_ids, live_alpha_spec, live_columns
from tinygpt.explanations.explain import trace_of
from tinygpt.i18n import t
from tinygpt.model import GPT
from tinygpt.ui.attention.live_bridge import bridge_script, tau_class

LABELS = ["0 你", "1 好", "2 世", "3 界", "4 你", "5 好"]
HEAD = 2


@pytest.fixture(scope="module")
def base():
    """A trace of layer 1 of a small untrained GPT (the arithmetic does not need trained weights);
    its weights are scaled up so the scores span several units and τ visibly matters."""
    torch.manual_seed(0)
    model = GPT(SMALL).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(3.0)
    return trace_of(model, torch.tensor([[0, 1, 2, 3, 0, 1]]), 1)


SWITCHES = [
    Switches(),
    Switches(temperature=0.1),
    Switches(temperature=1e-4),
    Switches(temperature=10.0),
    Switches(temperature=1000.0),
    Switches(causal_mask=False, temperature=0.3),
    Switches(divisor=1.0, temperature=2.0),
    Switches(divisor=0.5),
    Switches(uniform_heads=(HEAD,)),
    Switches(causal_mask=False, uniform_heads=(HEAD,)),
    Switches(edits=((HEAD, 4, 1, 7.5),), temperature=0.5),
]


def columns_of(trace, head: int = HEAD) -> dict:
    sw = trace.switches
    return live_columns(
        trace.state["S"][0, head],
        LABELS,
        temperature=sw.temperature,
        divisor=sw.divisor_for(SMALL.d_head),
        causal_mask=sw.causal_mask,
        uniform=head in sw.uniform_heads,
        d_head=SMALL.d_head,
        layer=trace.layer,
        head=head,
    )


def spec_text(spec: dict) -> str:
    return json.dumps({k: v for k, v in spec.items() if k != "datasets"}, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize("sw", SWITCHES, ids=str)
def test_python_evaluation_equals_tinygpts_softmax(base, sw):
    trace = base.with_switches(sw)
    alpha = trace.state["alpha"][0, HEAD].double().numpy()  # (T, T)
    ours = evaluate(
        trace.state["S"][0, HEAD],
        temperature=sw.temperature,
        divisor=sw.divisor_for(SMALL.d_head),
        causal_mask=sw.causal_mask,
        uniform=HEAD in sw.uniform_heads,
    )
    np.testing.assert_allclose(ours, alpha, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ours.sum(axis=1), 1.0, atol=1e-12)
    if sw.causal_mask:
        assert (ours[np.triu_indices(len(LABELS), 1)] == 0.0).all()  # exactly 0, not small


def test_the_spec_is_the_same_text_whatever_the_switches(base):
    texts = {spec_text(live_alpha_spec(columns_of(base.with_switches(sw)), LABELS, "d", title="α")) for sw in SWITCHES}
    assert len(texts) == 1
    (text,) = texts
    assert "0.37" not in text and "1000" not in text  # no switch's value in the spec, only in the data
    spec = json.loads(text)
    bound = {p["name"]: p["bind"] for p in spec["params"]}
    assert bound == {name: {"element": f"#{id_}"} for name, id_ in input_ids("attn").items()}
    formulas = " ".join(t.get("calculate", "") for t in spec["transform"])
    assert "exp((datum.scaled - datum.m) / datum.tau)" in formulas and "datum.e / datum.z" in formulas
    ops = [a["op"] for t in spec["transform"] for a in t.get("joinaggregate", [])]
    assert ops == ["max", "sum"]


def test_the_data_carries_the_servers_switches(base):
    cols = columns_of(base.with_switches(Switches(temperature=0.37, causal_mask=False, divisor=2.5)))
    assert set(cols["tau0"]) == {0.37} and set(cols["div0"]) == {2.5} and not cols["mask0"].any()
    assert len(cols["s"]) == len(LABELS) ** 2
    with pytest.raises(ValueError, match="finite"):
        live_columns(np.full((2, 2), np.inf), LABELS[:2], **{**_SCALARS})
    with pytest.raises(ValueError, match="T labels"):
        live_columns(np.zeros((2, 2)), LABELS[:3], **_SCALARS)


_SCALARS = dict(temperature=1.0, divisor=1.0, causal_mask=True, uniform=False, d_head=8, layer=0, head=0)

# The chart's own transforms run as JavaScript (Vega's expressions are JavaScript expressions of
# datum and the parameters; toNumber, split, sqrt and exp are Vega's functions of the same names).
_NODE = r"""
const {transforms, rows, params, fields} = JSON.parse(require("fs").readFileSync(0, "utf8"));
const toNumber = Number, sqrt = Math.sqrt, exp = Math.exp, split = (s, d) => String(s).split(d);
const abs = Math.abs, max = Math.max, clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
const fns = {toNumber, sqrt, exp, split, abs, max, clamp};
const names = Object.keys(params);
let data = rows;
for (const t of transforms) {
  if (t.calculate) {
    const f = new Function("datum", ...names, ...Object.keys(fns), "return (" + t.calculate + ");");
    data = data.map((d) => ({...d, [t.as]: f(d, ...names.map((n) => params[n]), ...Object.values(fns))}));
  } else if (t.joinaggregate) {
    for (const a of t.joinaggregate) {
      const groups = {};
      for (const d of data) {
        const k = (t.groupby || []).map((g) => d[g]).join("|"), v = d[a.field];
        if (v === null || v === undefined) continue;
        groups[k] = groups[k] === undefined ? v : a.op === "max" ? Math.max(groups[k], v) : groups[k] + v;
      }
      data = data.map((d) => ({...d, [a.as]: groups[(t.groupby || []).map((g) => d[g]).join("|")]}));
    }
  }
}
process.stdout.write(JSON.stringify(data.map((d) => fields.map((f) => d[f]))));
"""


def run_rows(spec: dict, cols: dict, params: dict, fields: tuple[str, ...]) -> list[list]:
    """The chart's top-level transforms run in node over the rows of ``cols``: ``fields`` of each row."""
    rows = [
        {k: (v.item() if hasattr(v, "item") else v) for k, v in zip(cols, values)} for values in zip(*cols.values())
    ]
    payload = json.dumps({"transforms": spec["transform"], "rows": rows, "params": params, "fields": list(fields)})
    out = subprocess.run(["node", "-e", _NODE], input=payload, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def run_transforms(
    spec: dict, cols: dict, params: dict, shape: tuple[int, int] = (len(LABELS), len(LABELS))
) -> np.ndarray:
    alpha = np.full(shape, np.nan)
    for i, j, a, masked in run_rows(spec, cols, params, ("i", "j", "alpha", "masked")):
        alpha[i, j] = a
        assert not masked or a == 0
    return alpha


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the chart's JavaScript expressions")
def test_the_charts_expressions_give_tinygpts_alpha_live_and_from_the_server(base):
    server = base.with_switches(Switches())  # what the server sent: its own switches
    spec = live_alpha_spec(columns_of(server), LABELS, "d", title="α")
    empty = dict.fromkeys(LIVE_PARAMS, "")
    np.testing.assert_allclose(
        run_transforms(spec, columns_of(server), empty), server.state["alpha"][0, HEAD], atol=1e-6
    )
    live = [  # (the hidden inputs while a widget moves, the switches the server would use for them)
        ({"live_tau": "0.1"}, Switches(temperature=0.1)),
        ({"live_tau": "0.0001"}, Switches(temperature=1e-4)),
        ({"live_tau": "10"}, Switches(temperature=10.0)),
        ({"live_mask": "0", "live_tau": "0.5"}, Switches(causal_mask=False, temperature=0.5)),
        ({"live_uniform": "1"}, Switches(uniform_heads=(HEAD,))),
        ({"live_div": "1"}, Switches(divisor=1.0)),
        ({"live_div": "sqrt"}, Switches()),
        ({"live_edit": f"1,{HEAD},4,1,7.5"}, Switches(edits=((HEAD, 4, 1, 7.5),))),
        ({"live_edit": f"0,{HEAD},4,1,7.5"}, Switches()),  # another layer's edit: not this chart's
    ]
    for inputs, sw in live:
        expected = base.with_switches(sw).state["alpha"][0, HEAD].double().numpy()
        got = run_transforms(spec, columns_of(server), {**empty, **inputs})
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6, err_msg=str(inputs))
        assert math.isclose(float(got.sum()), len(LABELS), rel_tol=1e-9)


def test_the_bridge_script_reads_the_widgets_and_fetches_nothing():
    html = bridge_script()
    assert html.startswith("<script>") and html.rstrip().endswith("</script>")
    for key in ("attn_temperature", "attn_mask", "attn_uniform", "attn_scaling", "attn_divisor", "attn_edit_value"):
        assert key in html
    assert f'"{tau_class()}"' in html and f'"{tau_class("theory")}"' in bridge_script("theory")  # the τ captions
    assert "http" not in html and "fetch(" not in html and "import(" not in html


@pytest.mark.parametrize(("tau", "masked"), [(1.0, False), (0.05, True), (0.35, False), (5.0, True)])
def test_theorys_matrix_example_live_equals_its_attention_matrix(tau, masked):
    from tinygpt.explanations import theory
    from tinygpt.ui.theory.theory_live import live_matrix

    K = np.array(theory.EXAMPLE_KEYS)
    expected = theory.attention_matrix(K, K, theory.EXAMPLE_VALUES, temperature=tau, causal_mask=masked).weights
    got = evaluate(K @ K.T, temperature=tau, divisor=math.sqrt(K.shape[1]), causal_mask=masked, uniform=False)
    np.testing.assert_allclose(got, np.asarray(expected), atol=1e-12)
    tokens = ["t0", "t1", "t2"]
    assert spec_text(live_matrix(tau, masked, tokens)) == spec_text(live_matrix(1.0, False, tokens))
    cols = live_matrix(tau, masked, tokens)["datasets"]["cells"]
    assert cols.column("tau0").to_pylist() == [tau] * 9 and cols.column("mask0").to_pylist() == [masked] * 9


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the chart's JavaScript expressions")
def test_theorys_softmax_bars_live_equal_its_attend():
    from tinygpt.explanations import theory
    from tinygpt.explanations.charts.live import live_bars_spec

    q = (0.7, -1.2)
    raw = np.array(theory.EXAMPLE_KEYS) @ np.array(q)
    spec = live_bars_spec(raw, ["k1", "k2", "k3"], temperature=1.0, divisor=1.0, d=2, page="theory", title="α")
    cols = {
        name: np.asarray(spec["datasets"]["cells"].column(name).to_pylist())
        for name in spec["datasets"]["cells"].column_names
    }
    empty = dict.fromkeys(LIVE_PARAMS, "")
    for inputs, (tau, scaled) in [
        ({}, (1.0, False)),
        ({"live_tau": "0.05", "live_div": "sqrt"}, (0.05, True)),
        ({"live_tau": "5", "live_div": "1"}, (5.0, False)),
    ]:
        expected = theory.attend(q, theory.EXAMPLE_KEYS, theory.EXAMPLE_VALUES, temperature=tau, scaled=scaled).weights
        got = run_transforms(spec, cols, {**empty, **inputs}, (1, 3))[0]
        np.testing.assert_allclose(got, expected, rtol=1e-9, err_msg=str(inputs))
    other = live_bars_spec(raw * 3, ["k1", "k2", "k3"], temperature=0.3, divisor=1.4, d=2, page="theory", title="α")
    assert spec_text(other) == spec_text(spec)


def test_bench_drag_pairs_each_heatmap_change_with_the_first_input_it_answers():
    from bench.drag import latencies, p95

    record = {
        "inputs": [10.0, 12.0, 30.0, 31.0, 90.0],
        "changes": [
            {"changed": 20.0, "painted": 25.0},
            {"changed": 40.0, "painted": 44.0},
            {"changed": 50.0, "painted": 52.0},
        ],
    }
    assert latencies(record) == [15.0, 14.0]  # the third change answers no new input: not counted
    # the slider's value changed at 13 and 35: each redraw answers the last move before that change
    moved = {**record, "values": [13.0, 35.0]}
    assert latencies(moved) == [13.0, 13.0] and latencies(moved, by_value=False) == [15.0, 14.0]
    assert p95([5.0, 1.0, 3.0]) == 5.0 and math.isnan(p95([]))
    out = subprocess.run([sys.executable, "-m", "bench.drag", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "--steps" in out.stdout


# Steps 4 (S / divisor) and 5 (the mask) drawn live: values and colour bound from the raw scores
SCORE_SWITCHES = [
    Switches(),
    Switches(divisor=1.0),
    Switches(divisor=0.5, temperature=3.0),
    Switches(divisor=7.0, causal_mask=False),
    Switches(causal_mask=False),
    Switches(edits=((HEAD, 4, 1, 7.5),), divisor=2.0),
    Switches(edits=((HEAD, 1, 4, -60.0),)),  # a masked key's score: outside the bound while masked
]
STEP_TENSOR = {"scale": "S_scaled", "mask": "S_masked"}


def server_bound(trace, step: str) -> float:
    """The colour bound the server's heatmap of ``step`` uses (steps.show_step)."""
    from tinygpt.explanations.charts.heatmaps import _signed_bound
    from tinygpt.ui.attention.steps import shared_score_bound

    if step == "scale":
        future = torch.triu(torch.ones(len(LABELS), len(LABELS), dtype=torch.bool), 1)
        return shared_score_bound(trace, HEAD, future if trace.switches.causal_mask else None)
    return _signed_bound(trace.state["S_masked"][0, HEAD].double().numpy())


@pytest.mark.parametrize("step", ["scale", "mask"])
@pytest.mark.parametrize("sw", SCORE_SWITCHES, ids=str)
def test_python_scores_equal_tinygpts_steps_4_and_5(base, sw, step):
    from tinygpt.explanations.charts.live import evaluate_scores

    trace = base.with_switches(sw)
    own = trace.state[STEP_TENSOR[step]][0, HEAD].double().numpy()  # (T, T)
    values, bound = evaluate_scores(
        trace.state["S"][0, HEAD], step, divisor=sw.divisor_for(SMALL.d_head), causal_mask=sw.causal_mask
    )
    hidden = np.isneginf(own)
    assert (np.isneginf(values) == hidden).all() and hidden.any() == (step == "mask" and sw.causal_mask)
    np.testing.assert_allclose(values[~hidden], own[~hidden], rtol=1e-5, atol=1e-6)
    assert math.isclose(bound, server_bound(trace, step), rel_tol=1e-5)
    if sw.edits:  # the edit applied by the chart to the server's unedited scores gives the same
        (_, i, j, v) = sw.edits[0]
        again, again_bound = evaluate_scores(
            base.state["S"][0, HEAD], step, divisor=sw.divisor_for(SMALL.d_head), causal_mask=True, edit=(i, j, v)
        )
        np.testing.assert_array_equal(again, values)
        assert again_bound == bound


def test_the_scores_specs_are_the_same_text_whatever_the_switches(base):
    from tinygpt.explanations.charts.live import live_scores_spec

    for step in ("scale", "mask"):
        texts = {
            spec_text(live_scores_spec(columns_of(base.with_switches(sw)), LABELS, step, "d", title="S"))
            for sw in SWITCHES + SCORE_SWITCHES
        }
        assert len(texts) == 1, step
        (text,) = texts
        assert re.search(r'"domain": \[-?[0-9]', text) is None and '"domainMid": 0' in text  # no fixed bound
        spec = json.loads(text)
        assert [p["name"] for p in spec["params"]] == list(LIVE_PARAMS)
        ops = [a["op"] for t in spec["transform"] for a in t.get("joinaggregate", [])]
        assert ops == ["max"] and not [t for t in spec["transform"] if t.get("groupby")]
    with pytest.raises(ValueError, match="step='softmax'"):
        live_scores_spec(columns_of(base), LABELS, "softmax")


def test_masked_scores_are_drawn_with_the_servers_masked_layer(base):
    from tinygpt.explanations.charts import heatmap_spec
    from tinygpt.explanations.charts.axes import MASK_COLOR
    from tinygpt.explanations.charts.live import live_scores_spec

    texts = dict(title="S", row_title="query", col_title="key", value_title="value", masked_label="masked (−∞)")
    live = live_scores_spec(columns_of(base), LABELS, "mask", "d", **texts)
    server = heatmap_spec(base.state["S_masked"][0, HEAD], LABELS, LABELS, kind="signed", **texts)
    grey, server_grey = live["layer"][1], server["layer"][1]
    # the grey layer: the server's filter, tooltip and legend; its legend entry from the cells it
    # draws (the server leaves the layer out of an unmasked heatmap; the browser may turn the mask off)
    assert grey["encoding"]["color"]["scale"] == {"range": [MASK_COLOR]}
    assert server_grey["encoding"]["color"]["scale"] == {"domain": [texts["masked_label"]], "range": [MASK_COLOR]}
    without_scale = [
        {**layer, "encoding": {**layer["encoding"], "color": {**layer["encoding"]["color"], "scale": None}}}
        for layer in (grey, server_grey)
    ]
    assert without_scale[0] == without_scale[1] and grey["transform"][0] == {"filter": "datum.masked"}
    cells = live["layer"][0]["layer"][1]
    assert cells["transform"] == [{"filter": "!datum.masked"}] and cells["encoding"]["color"]["field"] == "shade"
    assert "layer" not in live_scores_spec(columns_of(base), LABELS, "scale", "d", **texts)["layer"][1]


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the chart's JavaScript expressions")
@pytest.mark.parametrize("step", ["scale", "mask"])
def test_the_scores_charts_expressions_give_tinygpts_steps_4_and_5(base, step):
    from tinygpt.explanations.charts.live import live_scores_spec

    server = base.with_switches(Switches())
    spec = live_scores_spec(columns_of(server), LABELS, step, "d", title="S")
    empty = dict.fromkeys(LIVE_PARAMS, "")
    live = [
        ({}, Switches()),
        ({"live_div": "1"}, Switches(divisor=1.0)),
        ({"live_div": "0.5", "live_tau": "3"}, Switches(divisor=0.5, temperature=3.0)),
        ({"live_mask": "0"}, Switches(causal_mask=False)),
        ({"live_mask": "0", "live_div": "7"}, Switches(causal_mask=False, divisor=7.0)),
        ({"live_edit": f"1,{HEAD},1,4,-60"}, Switches(edits=((HEAD, 1, 4, -60.0),))),
    ]
    T = len(LABELS)
    for inputs, sw in live:
        trace = base.with_switches(sw)
        own = trace.state[STEP_TENSOR[step]][0, HEAD].double().numpy()
        got, shade, masked, bounds = np.full((T, T), np.nan), np.full((T, T), np.nan), np.zeros((T, T), bool), set()
        for i, j, value, s, m, b in run_rows(
            spec, columns_of(server), {**empty, **inputs}, ("i", "j", "value", "shade", "masked", "b")
        ):
            got[i, j] = -math.inf if value is None else value
            shade[i, j] = np.nan if s is None else s
            masked[i, j] = m
            bounds.add(b)
        assert (masked == np.isneginf(own)).all() if step == "mask" else not np.isneginf(got).any(), inputs
        np.testing.assert_allclose(got, own, rtol=1e-5, atol=1e-6, err_msg=str(inputs))
        (b,) = bounds
        assert math.isclose(b, server_bound(trace, step), rel_tol=1e-5), inputs
        finite = np.isfinite(got)
        np.testing.assert_allclose(shade[finite], np.clip(got[finite], -b, b), rtol=1e-12)
        assert np.isnan(shade[~finite]).all()


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the chart's JavaScript expressions")
def test_the_live_row_gives_the_servers_cell_arithmetic(base):
    from tinygpt.explanations.charts.live_row import live_row_spec
    from tinygpt.explanations.explain import explain_cell

    server = base.with_switches(Switches())
    texts = {
        spec_text(live_row_spec(columns_of(base.with_switches(sw)), LABELS, i, j, "d", headers=("a", "b", "c")))
        for sw in SWITCHES
        for i, j in ((5, 0), (2, 1))
    }
    assert len(texts) == 1  # the picked cell is data, as the switches are
    i, j = 3, 1
    spec = live_row_spec(columns_of(server), LABELS, i, j, "d", headers=("a", "b", "c"))
    cols = {
        name: np.asarray(spec["datasets"]["cells"].column(name).to_pylist())
        for name in spec["datasets"]["cells"].column_names
    }
    assert set(cols["pick_i"]) == {i} and set(cols["pick_j"]) == {j}
    empty = dict.fromkeys(LIVE_PARAMS, "")
    for inputs, sw in [
        ({}, Switches()),
        ({"live_tau": "0.2"}, Switches(temperature=0.2)),
        ({"live_tau": "4", "live_div": "1"}, Switches(temperature=4.0, divisor=1.0)),
        ({"live_mask": "0"}, Switches(causal_mask=False)),
        ({"live_edit": f"1,{HEAD},{i},0,6"}, Switches(edits=((HEAD, i, 0, 6.0),))),
    ]:
        cell = explain_cell(base.with_switches(sw), "softmax", HEAD, i, j)
        rows = run_rows(spec, cols, {**empty, **inputs}, ("i", "j", "scaled", "masked", "m", "e", "z", "alpha", "tau"))
        row = sorted((r for r in rows if r[0] == i), key=lambda r: r[1])
        scaled = np.array([-math.inf if r[3] else r[2] for r in row])
        np.testing.assert_allclose(scaled, cell.row, rtol=1e-5, err_msg=str(inputs))
        np.testing.assert_allclose([r[5] for r in row], cell.exps, rtol=1e-5, atol=1e-9, err_msg=str(inputs))
        np.testing.assert_allclose([r[7] for r in row], cell.alpha, rtol=1e-4, atol=1e-7, err_msg=str(inputs))
        assert math.isclose(row[0][4], cell.row_max, rel_tol=1e-5) and math.isclose(
            row[0][6], cell.exp_sum, rel_tol=1e-5
        )
        assert {r[8] for r in row} == {cell.temperature}


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the chart's JavaScript expressions")
def test_the_live_rows_exp_column_says_e_is_1_under_uniform_attention(base):
    """Uniform attention uses no score: the e_k column's title says e_k = 1 then, and the formula
    with exp otherwise (the same spec: the title is computed from the row's switches)."""
    from tinygpt.explanations.charts.live_row import live_row_spec

    spec = live_row_spec(
        columns_of(base), LABELS, 3, 1, "d", headers=("S", "exp(S - m)", "a"), uniform_header="1 (uniform)"
    )

    def calculations(node: object) -> list[dict]:
        if isinstance(node, dict):
            return [node] * ("calculate" in node) + [c for value in node.values() for c in calculations(value)]
        return [c for value in node for c in calculations(value)] if isinstance(node, list) else []

    (what,) = {c["calculate"] for c in calculations(spec) if c.get("as") == "what"}
    script = (
        f"const f = (datum) => ({what});"
        "process.stdout.write(JSON.stringify([f({key: 't_e', flat: true}), f({key: 't_e', flat: false}),"
        " f({key: 't_s', flat: true}), f({key: 't_a', flat: true})]));"
    )
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == ["1 (uniform)", "exp(S - m)", "S", "a"]
    for language in ("en", "zh"):
        assert t("attn.live_row_exp_uniform", language).startswith("e_k = 1")
