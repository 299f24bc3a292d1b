"""Unit tests of the tinygpt core: configs, vocabulary, the nine steps, the model, training."""

import math

import pytest
import torch
import torch.nn.functional as F
from helpers import SMALL, seed_model

from tinygpt.attention import STEP_IDS, STEPS, Switches, first_affected_step, future_mask, step_by_id
from tinygpt.config import DEFAULT_GPT, SEED_TEXT, ConfigError, GPTConfig, TrainConfig
from tinygpt.explanations.explain import row_sums, sdpa_difference, trace_of
from tinygpt.training.train import NonFiniteLossError, new_model, train
from tinygpt.vocab import CharVocab, UnknownCharError, training_pairs


def test_seed_config_defaults_and_parameter_count():
    cfg = GPTConfig()
    assert (cfg.d_model, cfg.n_heads, cfg.n_layers, cfg.d_ff, cfg.d_head, cfg.max_len) == (512, 8, 6, 2048, 64, 128)
    assert cfg.n_parameters() == 18_972_676
    assert sum(p.numel() for p in new_model(cfg, 0).parameters()) == 18_972_676
    assert TrainConfig().lr == 1e-4 and TrainConfig().epochs == 1000


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"n_heads": 6}, "n_heads"),
        ({"d_model": 0}, "d_model"),
        ({"n_layers": 0}, "n_layers"),
        ({"norm": "mid"}, "norm"),
        ({"max_len": 10_000}, "max_len"),
        ({"d_model": 1024, "d_ff": 4096, "n_layers": 12}, "n_parameters"),
    ],
)
def test_invalid_gpt_config_names_the_value(kwargs, field):
    with pytest.raises(ValueError) as info:
        GPTConfig(**kwargs)
    assert isinstance(info.value, ConfigError) and info.value.field == field
    assert field in str(info.value)


def test_heads_not_dividing_d_model_lists_divisors():
    with pytest.raises(ConfigError) as info:
        GPTConfig(d_model=512, n_heads=6)
    assert "n_heads=6" in str(info.value) and "8" in info.value.params["examples"]


@pytest.mark.parametrize(
    "kwargs, field",
    [({"lr": 0}, "lr"), ({"lr": float("nan")}, "lr"), ({"epochs": 0}, "epochs"), ({"seed": -1}, "seed")],
)
def test_invalid_train_config(kwargs, field):
    with pytest.raises(ConfigError) as info:
        TrainConfig(**kwargs)
    assert info.value.field == field


def test_vocab_seed_mapping_and_shift_pairs():
    vocab = CharVocab.from_text(SEED_TEXT)
    assert vocab.chars == ("你", "好", "世", "界")
    assert vocab.encode("你好世界").tolist() == [0, 1, 2, 3]
    assert vocab.decode([1, 2, 3, 0]) == "好世界你"
    x, y = training_pairs(vocab, SEED_TEXT, 4)
    assert x.tolist() == [[0, 1, 2, 3]] and y.tolist() == [[1, 2, 3, 0]]


def test_training_pairs_windows_cycle():
    vocab = CharVocab.from_text("abcde")
    x, y = training_pairs(vocab, "abcde", 3)
    assert x.shape == (5, 3) and vocab.decode(x[4]) == "eab" and vocab.decode(y[4]) == "abc"


def test_unknown_characters_are_listed():
    vocab = CharVocab.from_text(SEED_TEXT)
    with pytest.raises(UnknownCharError) as info:
        vocab.encode("你们好吗们")
    assert info.value.unknown == ["们", "吗"]
    assert "们" in str(info.value) and "你好世界" in str(info.value)


def test_registry_has_nine_steps_in_order():
    assert [s.number for s in STEPS] == list(range(1, 10))
    assert STEP_IDS[0] == "projection" and STEP_IDS[-1] == "output_projection"
    assert all(s.formula for s in STEPS)
    assert "def softmax" in step_by_id("softmax").source()


@pytest.fixture(scope="module")
def small():
    torch.manual_seed(0)
    model = new_model(SMALL, 1).eval()
    idx = torch.tensor([[0, 1, 2, 3, 0, 1]])
    return model, idx


def test_step_shapes(small):
    model, idx = small
    trace = trace_of(model, idx, layer=1)
    B, T, D, h, dh = 1, 6, SMALL.d_model, SMALL.n_heads, SMALL.d_head
    expected = {
        "x": (B, T, D),
        "Q": (B, T, D),
        "K": (B, T, D),
        "V": (B, T, D),
        "Q_h": (B, h, T, dh),
        "K_h": (B, h, T, dh),
        "V_h": (B, h, T, dh),
        "S": (B, h, T, T),
        "S_scaled": (B, h, T, T),
        "S_masked": (B, h, T, T),
        "alpha": (B, h, T, T),
        "heads": (B, h, T, dh),
        "merged": (B, T, D),
        "out": (B, T, D),
    }
    assert {k: tuple(v.shape) for k, v in trace.state.items()} == expected
    assert trace.step_tensor("scores", head=2).shape == (T, T)
    assert trace.step_tensor("projection", output=2).shape == (T, D)


def test_alpha_rows_sum_to_one_and_masked_entries_are_exactly_zero(small):
    model, idx = small
    trace = trace_of(model, idx)
    assert torch.allclose(row_sums(trace), torch.ones(1, SMALL.n_heads, 6), atol=1e-6)
    alpha = trace.state["alpha"][0]
    upper = future_mask(6)
    assert (alpha[:, upper] == 0).all()
    assert torch.isneginf(trace.state["S_masked"][0][:, upper]).all()
    assert (alpha[:, ~upper] > 0).all()


def test_trace_equals_model_layer_output_and_sdpa(small):
    model, idx = small
    for layer in range(SMALL.n_layers):
        trace = trace_of(model, idx, layer)
        captured = {}
        hook = model.blocks[layer].attn.register_forward_hook(lambda m, a, out: captured.setdefault("out", out))
        with torch.no_grad():
            model(idx)
        hook.remove()
        assert torch.allclose(trace.state["out"], captured["out"], atol=1e-6)
        assert sdpa_difference(trace) < 1e-5
        ref = F.scaled_dot_product_attention(trace.state["Q_h"], trace.state["K_h"], trace.state["V_h"], is_causal=True)
        assert torch.allclose(trace.state["heads"], ref, atol=1e-5)


def test_scores_are_dot_products_and_scale_is_sqrt_d_head(small):
    model, idx = small
    tr = trace_of(model, idx)
    q, k = tr.state["Q_h"][0, 0], tr.state["K_h"][0, 0]
    assert math.isclose(float(tr.state["S"][0, 0, 3, 1]), float(q[3] @ k[1]), rel_tol=1e-5)
    assert torch.allclose(tr.state["S_scaled"], tr.state["S"] / math.sqrt(SMALL.d_head))


def test_switches_mask_off_makes_future_positive(small):
    model, idx = small
    base = trace_of(model, idx)
    off = base.with_switches(Switches(causal_mask=False))
    assert float(off.state["alpha"][0, 0, 0, 1]) > 0
    assert torch.equal(off.state["S"], base.state["S"])  # steps before the mask are reused
    assert first_affected_step(base.switches, off.switches) == 4


def test_switches_scale_by_one_sharpens_and_tiny_temperature_is_one_hot(small):
    model, idx = small
    base = trace_of(model, idx)
    one = base.with_switches(Switches(divisor=1.0))
    # every row with more than one visible key gets a larger maximum weight
    assert (one.state["alpha"][0, :, 1:].amax(-1) >= base.state["alpha"][0, :, 1:].amax(-1) - 1e-7).all()
    cold = base.with_switches(Switches(temperature=1e-4))
    a = cold.state["alpha"][0]
    assert not torch.isnan(a).any()
    assert torch.allclose(a.amax(-1), torch.ones_like(a.amax(-1)), atol=1e-3)
    hot = base.with_switches(Switches(temperature=1e3, causal_mask=False))
    assert torch.allclose(hot.state["alpha"], torch.full_like(hot.state["alpha"], 1 / 6), atol=1e-2)


def test_edited_score_changes_only_its_row(small):
    model, idx = small
    base = trace_of(model, idx)
    edited = base.with_switches(Switches(edits=((0, 3, 0, 50.0),)))
    diff = (edited.state["alpha"] - base.state["alpha"]).abs()[0, 0]
    assert float(diff[3].max()) > 0.1
    assert float(diff[torch.arange(6) != 3].max()) == 0.0
    assert float(edited.state["alpha"][0, 0, 3, 0]) > 0.99


def test_switches_reject_bad_values():
    with pytest.raises(ValueError):
        Switches(temperature=0)
    with pytest.raises(ValueError):
        Switches(divisor=float("inf"))


def test_mask_is_dtype_and_device_safe():
    model = new_model(SMALL, 0).to(torch.float64).eval()
    trace = trace_of(model, torch.tensor([[0, 1, 2]]))
    assert trace.state["alpha"].dtype == torch.float64
    assert trace.state["alpha"][0, 0, 0, 1].item() == 0.0


def test_sequence_longer_than_max_len_is_refused():
    model = new_model(SMALL, 0)
    with pytest.raises(ValueError, match="max_len=16"):
        model(torch.zeros(1, 17, dtype=torch.long))


def test_seed_architecture_learns_the_seed_example():
    record = seed_model()
    assert record.gpt_cfg == DEFAULT_GPT
    assert record.losses[-1] < 1e-3 and record.losses[0] > 1.0
    ids = record.vocab.encode(SEED_TEXT)[None]
    with torch.no_grad():
        pred = record.model(ids).argmax(-1)[0]
    assert record.vocab.decode(pred) == "好世界你"


def test_training_reports_steps_and_can_stop():
    seen = []
    record = train(
        SEED_TEXT,
        SMALL,
        TrainConfig(lr=1e-3, epochs=50, early_stop_loss=0),
        on_step=lambda s, loss: seen.append((s, loss)),
        should_stop=lambda: len(seen) >= 7,
    )
    assert record.stop_reason == "stopped" and [s for s, _ in seen] == list(range(1, 8))
    assert [loss for _, loss in seen] == record.losses


def test_training_is_deterministic():
    cfg = TrainConfig(lr=1e-3, epochs=20, early_stop_loss=0, seed=3)
    a, b = train(SEED_TEXT, SMALL, cfg), train(SEED_TEXT, SMALL, cfg)
    assert a.losses == b.losses
    assert all(torch.equal(p, q) for p, q in zip(a.model.parameters(), b.model.parameters()))


def test_non_finite_loss_stops_with_last_finite_weights():
    from tinygpt.training.train import Trainer, build

    record = build(SEED_TEXT, SMALL, TrainConfig(lr=1.0, epochs=200, early_stop_loss=0))
    with torch.no_grad():  # make the next forward pass overflow
        record.model.head.weight.mul_(1e38)
    with pytest.raises(NonFiniteLossError) as info:
        Trainer(record).run()
    assert info.value.step == 1 and "lr=1" in str(info.value) and "0.1" in str(info.value)
    assert all(torch.isfinite(p).all() for p in record.model.parameters())
    assert record.stop_reason == "non_finite" and record.losses == []
