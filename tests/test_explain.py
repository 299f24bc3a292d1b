"""The registry drives the lesson; ablation switches; the one walk, position effects, head importance, logit lens."""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import replace

import pytest
import torch
from helpers import SMALL, small_model

from tinygpt import attention
from tinygpt.attention import (
    DEFAULT_SWITCHES,
    STEPS,
    SWITCH_FIELDS,
    Switches,
    first_affected_step,
    future_mask,
    run_steps,
)
from tinygpt.explanations.explain import (
    explain_cell,
    head_importance,
    logit_lens,
    position_effects,
    sdpa_switch_difference,
    trace_of,
    walk,
)
from tinygpt.i18n import CATALOGUE
from tinygpt.training.train import new_model

#: A value of every switch field that changes the computation of SMALL's model (4 heads).
CHANGED = {
    "causal_mask": False,
    "divisor": 1.0,
    "temperature": 0.5,
    "edits": ((0, 3, 0, 50.0),),
    "uniform_heads": (1,),
    "heads_off": (2,),
}


@pytest.fixture(scope="module")
def small():
    model = new_model(SMALL, 1).eval()
    idx = torch.tensor([[0, 1, 2, 3, 0, 1]])
    return model, idx


def test_every_switch_field_has_a_changed_value_here():
    assert set(CHANGED) == set(SWITCH_FIELDS)


@pytest.mark.parametrize("name", SWITCH_FIELDS)
def test_a_switch_changes_the_outputs_from_the_first_step_that_reads_it_and_not_before(small, name):
    model, idx = small
    base = trace_of(model, idx)
    changed = replace(DEFAULT_SWITCHES, **{name: CHANGED[name]})
    first = next(k for k, s in enumerate(STEPS) if name in s.reads)
    assert first_affected_step(DEFAULT_SWITCHES, changed) == first
    state = run_steps({"x": base.state["x"]}, base.weights, changed)
    for k, step in enumerate(STEPS):
        same = all(torch.equal(state[o], base.state[o]) for o in step.outputs)
        assert same == (k < first), (name, step.id)


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.id)
def test_a_step_reads_no_switch_it_does_not_declare(small, step):
    """Run the step alone on the same inputs: a switch outside ``reads`` leaves its outputs alone,
    one inside changes them; and the function's source names no other switch field."""
    model, idx = small
    state = trace_of(model, idx).state
    w = trace_of(model, idx).weights
    own = step.fn(state, w, DEFAULT_SWITCHES)
    for name in SWITCH_FIELDS:
        out = step.fn(state, w, replace(DEFAULT_SWITCHES, **{name: CHANGED[name]}))
        same = all(torch.equal(out[o], own[o]) for o in step.outputs)
        assert same == (name not in step.reads), (step.id, name)
    tree = ast.parse(textwrap.dedent(inspect.getsource(step.fn)))
    read = {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "sw"
    }
    assert {r for r in read if r in SWITCH_FIELDS} <= step.reads, step.id


def test_the_registry_refuses_a_step_without_a_cell_declaration_and_explain_cell_has_no_default(small):
    with pytest.raises(TypeError, match="projection"):
        attention._numbered(replace(STEPS[0], cell=None), *STEPS[1:])
    with pytest.raises(ValueError, match="no step reads"):
        attention._numbered(*(replace(s, reads=frozenset()) for s in STEPS))
    model, idx = small
    with pytest.raises(TypeError, match="projection"):
        explain_cell(trace_of(model, idx), replace(STEPS[0], cell=object()), 0, 0, 0)


def test_every_step_has_its_name_in_every_language_and_numbers_follow_the_order():
    assert [s.number for s in STEPS] == list(range(1, len(STEPS) + 1))
    for s in STEPS:
        assert CATALOGUE[f"step.{s.id}.name"]["zh"] and CATALOGUE[f"step.{s.id}.name"]["en"]
        assert s.per_head == ("h" in s.shape)
    assert "of {n}" in CATALOGUE["attn.step_header"]["en"]


def test_future_mask_is_the_strict_upper_triangle():
    assert future_mask(3).tolist() == [[False, True, True], [False, False, True], [False, False, False]]


# ---------------------------------------------------------------- ablation switches


def test_switches_validate_head_lists():
    for bad in ((2, 1), (1, 1), (-1,), (1.0,), (True,)):
        with pytest.raises(ValueError):
            Switches(heads_off=bad)
        with pytest.raises(ValueError):
            Switches(uniform_heads=bad)
    assert not Switches(heads_off=(0,)).is_default and not Switches(uniform_heads=(3,)).is_default
    assert Switches(heads_off=(), uniform_heads=()).is_default


def test_a_head_the_layer_does_not_have_is_named_with_the_range(small):
    model, idx = small
    base = trace_of(model, idx)
    for sw in (Switches(heads_off=(1, 4)), Switches(uniform_heads=(7,)), Switches(edits=((4, 0, 0, 1.0),))):
        with pytest.raises(IndexError, match=r"head [47] does not exist; this layer has heads 0\.\.3"):
            base.with_switches(sw)
    with pytest.raises(IndexError, match="head 4"):
        walk(model, idx, {0: Switches(heads_off=(4,))})


def test_a_head_switched_off_is_its_merged_slice_zeroed_before_W_O(small):
    model, idx = small
    d_head = SMALL.d_head
    for layer in range(SMALL.n_layers):
        own = trace_of(model, idx, layer)
        merged = own.state["merged"].clone()  # (1, T, D)
        merged[..., 2 * d_head : 3 * d_head] = 0.0
        expected = merged @ own.weights.W_O.T  # (1, T, D)
        off = own.with_switches(Switches(heads_off=(2,)))
        assert torch.equal(off.state["heads"][0, 2], torch.zeros(6, d_head))
        assert torch.equal(off.state["alpha"], own.state["alpha"])  # α is untouched: only the output is cut
        assert torch.allclose(off.state["out"], expected, atol=1e-6)
        assert not torch.allclose(off.state["out"], own.state["out"], atol=1e-3)
        assert sdpa_switch_difference(off) < 1e-5
        # the walk runs the same switches: the block sees that output
        w = walk(model, idx, {layer: Switches(heads_off=(2,))}, trace_layer=layer)
        block = model.blocks[layer]
        with torch.no_grad():
            after = block.add_attention(w.block_inputs[layer], expected)
        assert torch.allclose(w.block_outputs[layer], after, atol=1e-6)


def test_uniform_heads_weigh_the_allowed_keys_exactly_equally(small):
    model, idx = small
    own = trace_of(model, idx, 1)
    T = 6
    uni = own.with_switches(Switches(uniform_heads=(0, 3)))
    a = uni.state["alpha"][0]  # (h, T, T)
    expected = torch.tensor([[1 / (i + 1) if j <= i else 0.0 for j in range(T)] for i in range(T)])
    assert torch.equal(a[0], expected) and torch.equal(a[3], expected)
    assert torch.equal(a[1:3], own.state["alpha"][0, 1:3])
    assert a[3, 2, 1] == torch.tensor(1 / 3, dtype=torch.float32)  # 1/(i+1) in the model's precision
    no_mask = own.with_switches(Switches(uniform_heads=(1,), causal_mask=False))
    assert torch.equal(no_mask.state["alpha"][0, 1], torch.full((T, T), 1 / T))
    # a layer made uniform is all its heads uniform; outputs are the running means of v_j
    layer = own.with_switches(Switches(uniform_heads=tuple(range(SMALL.n_heads))))
    V_h = own.state["V_h"][0]  # (h, T, d_head)
    means = V_h.cumsum(dim=1) / torch.arange(1, T + 1)[:, None]
    assert torch.allclose(layer.state["heads"][0], means, atol=1e-6)


# ---------------------------------------------------------------- the one walk


def test_the_walk_gives_the_models_own_logits_bitwise_and_its_switched_ones(small):
    model, idx = small
    with torch.no_grad():
        own_logits = model(idx)
        switched = model(idx, {1: Switches(causal_mask=False, heads_off=(0,))})
    w = walk(model, idx, trace_layer=1)
    assert torch.equal(w.logits, own_logits)
    assert len(w.block_inputs) == len(w.block_outputs) == SMALL.n_layers
    assert torch.equal(w.block_inputs[1], w.block_outputs[0])
    assert torch.equal(w.alphas[1], w.trace.state["alpha"][0]) and w.trace.layer == 1
    assert torch.equal(walk(model, idx, {1: Switches(causal_mask=False, heads_off=(0,))}).logits, switched)
    with pytest.raises(IndexError, match="layer=2"):
        walk(model, idx, trace_layer=2)
    with pytest.raises(IndexError, match="layer 5"):
        walk(model, idx, {5: Switches()})


def test_logit_lens_last_layer_is_the_models_prediction(small):
    model, idx = small
    lens = logit_lens(model, idx)
    assert lens.shape == (SMALL.n_layers, 6, SMALL.vocab_size)
    with torch.no_grad():
        probs = torch.softmax(model(idx)[0].double(), dim=-1)
    assert torch.allclose(lens[-1], probs, atol=1e-6)
    assert torch.allclose(lens.sum(-1), torch.ones(SMALL.n_layers, 6, dtype=torch.float64), atol=1e-9)
    w = walk(model, idx)
    with torch.no_grad():
        first = torch.softmax(model.head(model.ln_f(w.block_outputs[0]))[0].double(), -1)
    assert torch.allclose(lens[0], first, atol=1e-12)
    assert not torch.allclose(lens[0], lens[-1], atol=1e-3)


def test_position_effects_with_default_switches_report_no_change(small):
    model, idx = small
    fx = position_effects(model, idx, None)
    assert fx.n_changed == 0 and not fx.changed.any()
    assert torch.equal(fx.delta_own, torch.zeros(6, dtype=torch.float64)) and float(fx.max_delta.max()) == 0.0
    assert torch.equal(fx.own_ids, fx.new_ids) and torch.equal(fx.own_p, fx.new_p)
    assert position_effects(model, idx, {0: Switches()}).n_changed == 0


def test_position_effects_and_head_importance_on_a_trained_model():
    """The context example-like text 'abcabd…': a trained small model, real numbers checked
    against the model's own forward pass with the same switches."""
    record = small_model("你好世界你好", epochs=200)
    model = record.model.eval()
    idx = record.vocab.encode("你好世界你好")[None]
    with torch.no_grad():
        own = torch.softmax(model(idx)[0].double(), -1)  # (T, V)
        sw = {0: Switches(uniform_heads=tuple(range(SMALL.n_heads))), 1: Switches(heads_off=(0, 1, 2, 3))}
        new = torch.softmax(model(idx, sw)[0].double(), -1)
    fx = position_effects(model, idx, sw)
    assert torch.allclose(fx.own_probs, own, atol=1e-12) and torch.allclose(fx.new_probs, new, atol=1e-12)
    assert torch.equal(fx.changed, own.argmax(-1) != new.argmax(-1))
    ids = own.argmax(-1)
    assert torch.allclose(fx.delta_own, (new - own).abs().gather(-1, ids[:, None])[:, 0], atol=1e-12)
    assert torch.allclose(fx.max_delta, (new - own).abs().amax(-1), atol=1e-12)
    assert float(fx.max_delta.max()) > 0.0
    changed, max_delta = head_importance(model, idx)
    assert changed.shape == max_delta.shape == (SMALL.n_layers, SMALL.n_heads)
    for layer in range(SMALL.n_layers):
        for head in range(SMALL.n_heads):
            with torch.no_grad():
                p = torch.softmax(model(idx, {layer: Switches(heads_off=(head,))})[0].double(), -1)
            assert int(changed[layer, head]) == int((p.argmax(-1) != ids).sum())
            assert abs(float(max_delta[layer, head]) - float((p - own).abs().gather(-1, ids[:, None]).max())) < 1e-12
    assert float(max_delta.max()) > 0.0
