"""Checkpoints: safetensors round trip, and refusal of hostile or broken files (nothing runs from them)."""

import io
import json
import os
import pickle
from pathlib import Path

import pytest
import torch
from helpers import SMALL
from safetensors.torch import save as st_save

from tinygpt import checkpoint
from tinygpt.checkpoint import CheckpointError, from_bytes, to_bytes
from tinygpt.config import SEED_TEXT, GPTConfig, TrainConfig
from tinygpt.i18n import t
from tinygpt.train import train


@pytest.fixture(scope="module")
def tm():
    return train(SEED_TEXT, SMALL, TrainConfig(lr=3e-3, epochs=12, early_stop_loss=0.0))


def parts(data: bytes) -> tuple[dict, dict]:
    """(tensors, metadata) of checkpoint bytes, read with safetensors only."""
    from safetensors.torch import load

    n = int.from_bytes(data[:8], "little")
    return load(data), json.loads(data[8 : 8 + n])["__metadata__"]


def refused(data: bytes, key: str) -> CheckpointError:
    with pytest.raises(CheckpointError) as info:
        from_bytes(data)
    assert info.value.key == key, (info.value.key, str(info.value))
    for lang in ("zh", "en"):  # every refusal has its message in both languages
        assert t(f"ckpt.err.{key}", lang, **info.value.params)
    return info.value


def test_round_trip_gives_identical_logits_config_vocab_losses_and_snapshots(tm):
    back = from_bytes(to_bytes(tm))
    ids = tm.vocab.encode("你好世界你好")[None]  # (1, 6)
    with torch.no_grad():
        assert torch.equal(tm.model(ids), back.model(ids))
    assert (back.gpt_cfg, back.train_cfg, back.vocab, back.text) == (tm.gpt_cfg, tm.train_cfg, tm.vocab, tm.text)
    assert back.losses == tm.losses and back.stop_reason == tm.stop_reason
    assert sorted(back.snapshots) == sorted(tm.snapshots) == [0, 1, 2, 5, 10, 12]
    assert all(torch.equal(back.snapshots[s], tm.snapshots[s]) for s in tm.snapshots)
    assert back.frozen and back.init_seed is None


def test_post_ln_sinusoidal_model_round_trips():
    cfg = GPTConfig(**{**SMALL.to_dict(), "norm": "post", "positions": "sinusoidal"})
    model = train("白日依山尽", cfg, TrainConfig(lr=3e-3, epochs=3, early_stop_loss=0.0))
    back = from_bytes(to_bytes(model))
    ids = model.vocab.encode("白日依山")[None]
    with torch.no_grad():
        assert torch.equal(model.model(ids), back.model(ids))
    assert back.gpt_cfg.norm == "post" and back.model.position_embedding is None


def test_a_pickle_is_refused_and_nothing_in_it_runs(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    buf = io.BytesIO()
    torch.save({"weights": torch.zeros(2)}, buf)  # what a .pt file is: a zip of pickles
    refused(buf.getvalue(), "pickle")
    error = refused(pickle.dumps(Evil()), "pickle")
    assert not marker.exists()
    assert "pickle" in t("ckpt.err.pickle", "en") and "pickle" in t("ckpt.err.pickle", "zh")
    assert "code" in str(error)


def test_shapes_that_do_not_match_the_config_are_refused(tm):
    tensors, meta = parts(to_bytes(tm))
    meta["gpt_config"] = json.dumps({**tm.gpt_cfg.to_dict(), "d_ff": 128})
    error = refused(st_save(tensors, meta), "shapes")
    assert error.params["name"] == "blocks.0.ffn.net.0.weight"
    assert error.params["found"] == "[64, 32]" and error.params["expected"] == "[128, 32]"
    assert "blocks.0.ffn.net.0.weight" in t("ckpt.err.shapes", "zh", **error.params)


def test_wrong_dtype_nan_weights_and_extra_tensors_are_refused(tm):
    tensors, meta = parts(to_bytes(tm))
    half = {k: v.half() if k == "head.weight" else v for k, v in tensors.items()}
    assert refused(st_save(half, meta), "dtype").params == {"name": "head.weight", "dtype": "F16"}
    nan = dict(tensors, **{"ln_f.bias": torch.full_like(tensors["ln_f.bias"], float("nan"))})
    assert refused(st_save(nan, meta), "non_finite").params["name"] == "ln_f.bias"
    extra = dict(tensors, surprise=torch.zeros(3))
    assert refused(st_save(extra, meta), "unexpected").params["name"] == "surprise"
    missing = {k: v for k, v in tensors.items() if k != "head.bias"}
    assert refused(st_save(missing, meta), "shapes").params["name"] == "head.bias"


def test_vocab_and_config_json_must_agree(tm):
    tensors, meta = parts(to_bytes(tm))
    assert refused(st_save(tensors, {**meta, "vocab": json.dumps(list("你好世"), ensure_ascii=False)}), "vocab")
    assert refused(st_save(tensors, {**meta, "text": "你好世界们"}), "vocab")
    assert refused(
        st_save(tensors, {**meta, "gpt_config": json.dumps({**tm.gpt_cfg.to_dict(), "n_heads": 3})}), "config"
    )
    assert refused(st_save(tensors, {**meta, "vocab": "not json"}), "metadata").params["field"] == "vocab"
    assert refused(st_save(tensors, {**meta, "losses": json.dumps([1.0, "NaN"])}), "metadata")
    assert refused(st_save(tensors, {k: v for k, v in meta.items() if k != "format"}), "not_ours")
    assert refused(st_save(tensors), "not_ours")


def test_truncated_oversized_and_garbage_files_are_refused(tm):
    data = to_bytes(tm)
    # the message names the size of the file the student chose
    assert refused(data[:-100], "truncated").params["size"] == f"{len(data) - 100:,}"
    assert refused(data[:5], "truncated").params["size"] == "5"
    assert refused(data[:40], "truncated").params["size"] == "40"
    assert refused(b"GIF89a" + bytes(100), "not_safetensors")
    assert refused(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!" + bytes(8), "not_safetensors")
    with pytest.raises(CheckpointError) as info:
        checkpoint.check_size(checkpoint.MAX_CHECKPOINT_BYTES + 1)
    assert info.value.key == "too_large"


def test_a_checkpoint_whose_header_length_looks_like_a_pickle_opcode_still_loads(tm):
    """A header length of 0x..80 bytes starts the file with 0x80, the PROTO opcode a pickle starts with."""
    tensors, meta = parts(to_bytes(tm))
    for k in range(4000):
        data = st_save(tensors, {**meta, "note": "a" * k})
        if data[0] == 0x80:
            break
    else:
        pytest.fail("no header length of that form found")
    back = from_bytes(data)
    ids = tm.vocab.encode(SEED_TEXT)[None]
    with torch.no_grad():
        assert torch.equal(back.model(ids), tm.model(ids))


FIXTURE = Path(__file__).parent / "fixtures" / "small_seed0_12steps"


def test_a_checkpoint_written_by_an_earlier_build_loads_with_the_same_logits_and_training_reproduces_it():
    """tests/fixtures/small_seed0_12steps.*: SMALL trained 12 steps (lr 3e-3, seed 0) and saved;
    the JSON holds its losses and its logits of 你好世界, recorded when the file was written.
    The format and the model's mathematics must keep both bitwise."""
    expected = json.loads(FIXTURE.with_suffix(".json").read_text(encoding="utf-8"))
    tm = from_bytes(FIXTURE.with_suffix(".safetensors").read_bytes())
    assert tm.losses == expected["losses"]
    with torch.no_grad():
        logits = tm.model(tm.vocab.encode(expected["text"])[None])[0]  # (T, V)
    assert logits.tolist() == expected["logits"]
    again = train(SEED_TEXT, SMALL, TrainConfig(lr=3e-3, epochs=12, early_stop_loss=0.0, seed=0))
    assert again.losses == expected["losses"]
    loaded = tm.model.state_dict()
    assert all(torch.equal(v, loaded[k]) for k, v in again.model.state_dict().items())
