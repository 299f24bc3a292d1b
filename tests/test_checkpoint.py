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

from tinygpt.config import SEED_TEXT, GPTConfig, TrainConfig
from tinygpt.i18n import t
from tinygpt.training import checkpoint
from tinygpt.training.checkpoint import CheckpointError, from_bytes, to_bytes
from tinygpt.training.train import train


@pytest.fixture(scope="module")
def record():
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


def test_round_trip_gives_identical_logits_config_vocab_losses_and_snapshots(record):
    back = from_bytes(to_bytes(record))
    ids = record.vocab.encode("你好世界你好")[None]  # (1, 6)
    with torch.no_grad():
        assert torch.equal(record.model(ids), back.model(ids))
    assert (back.gpt_cfg, back.train_cfg, back.vocab, back.text) == (
        record.gpt_cfg,
        record.train_cfg,
        record.vocab,
        record.text,
    )
    assert back.losses == record.losses and back.stop_reason == record.stop_reason
    assert sorted(back.snapshots) == sorted(record.snapshots) == [0, 1, 2, 5, 10, 12]
    assert all(torch.equal(back.snapshots[s], record.snapshots[s]) for s in record.snapshots)
    assert back.frozen and back.init_seed is None


def test_the_training_time_round_trips_and_a_missing_or_odd_one_reads_as_unknown(record):
    assert record.seconds > 0 and from_bytes(to_bytes(record)).seconds == record.seconds
    tensors, meta = parts(to_bytes(record))
    assert meta["seconds"] == repr(record.seconds)
    for odd in ("nan", "-1", "1e99", "soon", "9" * 40):
        assert from_bytes(st_save(tensors, {**meta, "seconds": odd})).seconds == 0.0, odd
    del meta["seconds"]  # a file written without it
    assert from_bytes(st_save(tensors, meta)).seconds == 0.0


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


def test_shapes_that_do_not_match_the_config_are_refused(record):
    tensors, meta = parts(to_bytes(record))
    meta["gpt_config"] = json.dumps({**record.gpt_cfg.to_dict(), "d_ff": 128})
    error = refused(st_save(tensors, meta), "shapes")
    assert error.params["name"] == "blocks.0.ffn.net.0.weight"
    assert error.params["found"] == "[64, 32]" and error.params["expected"] == "[128, 32]"
    assert "blocks.0.ffn.net.0.weight" in t("ckpt.err.shapes", "zh", **error.params)


def test_wrong_dtype_nan_weights_and_extra_tensors_are_refused(record):
    tensors, meta = parts(to_bytes(record))
    half = {k: v.half() if k == "head.weight" else v for k, v in tensors.items()}
    assert refused(st_save(half, meta), "dtype").params == {"name": "head.weight", "dtype": "F16"}
    nan = dict(tensors, **{"ln_f.bias": torch.full_like(tensors["ln_f.bias"], float("nan"))})
    assert refused(st_save(nan, meta), "non_finite").params["name"] == "ln_f.bias"
    extra = dict(tensors, surprise=torch.zeros(3))
    assert refused(st_save(extra, meta), "unexpected").params["name"] == "surprise"
    missing = {k: v for k, v in tensors.items() if k != "head.bias"}
    assert refused(st_save(missing, meta), "missing").params == {"n": 1, "names": "head.bias"}


def test_vocab_and_config_json_must_agree(record):
    tensors, meta = parts(to_bytes(record))
    assert refused(st_save(tensors, {**meta, "vocab": json.dumps(list("你好世"), ensure_ascii=False)}), "vocab")
    assert refused(st_save(tensors, {**meta, "text": "你好世界们"}), "vocab")
    assert refused(
        st_save(tensors, {**meta, "gpt_config": json.dumps({**record.gpt_cfg.to_dict(), "n_heads": 3})}), "config"
    )
    assert refused(st_save(tensors, {**meta, "vocab": "not json"}), "metadata").params["field"] == "vocab"
    assert refused(st_save(tensors, {**meta, "losses": json.dumps([1.0, "NaN"])}), "metadata")
    assert refused(st_save(tensors, {k: v for k, v in meta.items() if k != "format"}), "not_ours")
    assert refused(st_save(tensors), "not_ours")


def test_truncated_oversized_and_garbage_files_are_refused(record):
    data = to_bytes(record)
    # the message names the size of the file the student chose
    assert refused(data[:-100], "truncated").params["size"] == f"{len(data) - 100:,}"
    assert refused(data[:5], "not_safetensors")  # too short to be a checkpoint: not one at all
    assert refused(data[:40], "truncated").params["size"] == "40"
    assert refused(b"GIF89a" + bytes(100), "not_safetensors")
    assert refused(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!" + bytes(8), "not_safetensors")
    with pytest.raises(CheckpointError) as info:
        checkpoint.check_size(checkpoint.MAX_CHECKPOINT_BYTES + 1)
    assert info.value.key == "too_large"


def test_a_checkpoint_whose_header_length_looks_like_a_pickle_opcode_still_loads(record):
    """A header length of 0x..80 bytes starts the file with 0x80, the PROTO opcode a pickle starts with."""
    tensors, meta = parts(to_bytes(record))
    for k in range(4000):
        data = st_save(tensors, {**meta, "note": "a" * k})
        if data[0] == 0x80:
            break
    else:
        pytest.fail("no header length of that form found")
    back = from_bytes(data)
    ids = record.vocab.encode(SEED_TEXT)[None]
    with torch.no_grad():
        assert torch.equal(back.model(ids), record.model(ids))


FIXTURE = Path(__file__).parent / "fixtures" / "small_seed0_12steps"


def test_a_checkpoint_written_by_an_earlier_build_loads_with_the_same_logits_and_training_reproduces_it():
    """tests/fixtures/small_seed0_12steps.*: SMALL trained 12 steps (lr 3e-3, seed 0) and saved;
    the JSON holds its losses and its logits of 你好世界, recorded when the file was written.
    The format keeps the stored numbers bitwise; the model's mathematics keeps the logits and a new
    training to float32 rounding (another CPU's kernels add in another order: a few 1e-7 here)."""
    expected = json.loads(FIXTURE.with_suffix(".json").read_text(encoding="utf-8"))
    record = from_bytes(FIXTURE.with_suffix(".safetensors").read_bytes())
    assert record.losses == expected["losses"]
    with torch.no_grad():
        logits = record.model(record.vocab.encode(expected["text"])[None])[0]  # (T, V)
    torch.testing.assert_close(logits, torch.tensor(expected["logits"]), rtol=1e-5, atol=1e-5)
    again = train(SEED_TEXT, SMALL, TrainConfig(lr=3e-3, epochs=12, early_stop_loss=0.0, seed=0))
    assert again.losses == pytest.approx(expected["losses"], abs=1e-5)
    loaded = record.model.state_dict()
    for name, weight in again.model.state_dict().items():
        torch.testing.assert_close(weight, loaded[name], rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- crafted files: names, bytes, numbers


def craft(header: dict, data: bytes) -> bytes:
    """A safetensors file written by hand: 8-byte header length, the JSON header, the data."""
    raw = json.dumps(header).encode()
    return len(raw).to_bytes(8, "little") + raw + data


def header_of(data: bytes) -> tuple[dict, bytes]:
    """(the JSON header, the tensor data) of safetensors bytes."""
    n = int.from_bytes(data[:8], "little")
    return json.loads(data[8 : 8 + n]), data[8 + n :]


def no_latin_words(text: str) -> bool:
    """True when a Chinese message holds no English words (tensor names and numbers aside)."""
    import re

    words = re.findall(r"[A-Za-z]{4,}", text)
    return all(w in ("safetensors", "module", "weight", "bias", "token", "embedding") for w in words)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_missing_tensors_are_called_missing_and_named(record, lang):
    tensors, meta = parts(to_bytes(record))
    gone = ["head.bias", "ln_f.weight", "ln_f.bias"]
    error = refused(st_save({k: v for k, v in tensors.items() if k not in gone}, meta), "missing")
    assert error.params["n"] == 3 and set(error.params["names"].split(", ")) == set(gone)
    text = t("ckpt.err.missing", lang, **error.params)
    assert all(name in text for name in gone) and ("missing" in str(error))
    if lang == "zh":
        assert "缺少" in text and "3 个张量" in text
    else:
        assert "lacks 3 tensors" in text


def test_a_compiled_models_state_dict_loads_with_its_prefix_stripped(record):
    tensors, meta = parts(to_bytes(record))
    ids = record.vocab.encode("你好世界")[None]
    for prefix in checkpoint.KNOWN_PREFIXES:
        every = {prefix + k: v for k, v in tensors.items()}  # torch.compile(model).state_dict() names
        weights_only = {(k if k.startswith("snapshots.") else prefix + k): v for k, v in tensors.items()}
        for renamed in (every, weights_only):
            back = from_bytes(st_save(renamed, meta))
            with torch.no_grad():
                assert torch.equal(back.model(ids), record.model(ids))
            assert sorted(back.snapshots) == sorted(record.snapshots)


def test_an_unknown_prefix_is_named(record):
    tensors, meta = parts(to_bytes(record))
    error = refused(st_save({"net." + k: v for k, v in tensors.items()}, meta), "prefix")
    assert error.params == {"prefix": "net.", "example": "token_embedding.weight"}
    assert "net." in t("ckpt.err.prefix", "zh", **error.params)


def test_two_tensors_sharing_bytes_get_a_message_in_the_users_language(record):
    header, data = header_of(to_bytes(record))
    # head.bias and ln_f.bias have the same shape (V,) and (d_model,) differ; pick two of one shape
    a, b = "blocks.0.ln1.bias", "blocks.0.ln2.bias"
    assert header[a]["shape"] == header[b]["shape"]
    header[b] = {**header[b], "data_offsets": header[a]["data_offsets"]}  # b reads a's bytes
    error = refused(craft(header, data), "shared")
    assert {error.params["first"], error.params["second"]} == {a, b}
    zh = t("ckpt.err.shared", "zh", **error.params)
    assert a in zh and b in zh and "共用" in zh and no_latin_words(zh.replace(a, "").replace(b, ""))


def test_declared_sizes_gaps_and_trailing_bytes_are_refused_before_the_data_is_read(record):
    header, data = header_of(to_bytes(record))
    name = "head.bias"
    begin, end = header[name]["data_offsets"]
    short = {**header, name: {**header[name], "data_offsets": [begin, end - 4]}}
    assert refused(craft(short, data), "sizes").params == {
        "name": name,
        "declared": f"{end - begin - 4:,}",
        "needed": f"{end - begin:,}",
    }
    assert refused(craft(header, data + bytes(4)), "malformed")  # bytes after the last tensor
    text = t("ckpt.err.malformed", "zh", size="1")
    assert no_latin_words(text) and "{error}" not in text


def test_a_library_error_is_said_in_the_users_language_without_the_librarys_text(record, monkeypatch):
    from safetensors import SafetensorError

    def broken(data):
        raise SafetensorError("Error while deserializing header: InvalidOffset(blocks.0.ln1.bias)")

    monkeypatch.setattr(checkpoint, "st_load", broken)
    error = refused(to_bytes(record), "malformed")
    for lang in ("zh", "en"):
        assert "InvalidOffset" not in t("ckpt.err.malformed", lang, **error.params)
    assert no_latin_words(t("ckpt.err.malformed", "zh", **error.params))


class CountingReader(io.BytesIO):
    """A file that counts the bytes read from it."""

    read_bytes = 0

    def read(self, n=-1):
        out = super().read(n)
        self.read_bytes += len(out)
        return out


def test_a_large_file_of_zeros_is_refused_after_its_first_bytes():
    size = 150 * 10**6
    stream = CountingReader(bytes(size))
    with pytest.raises(CheckpointError) as info:
        checkpoint.check_file(stream, size)
    assert info.value.key == "not_safetensors" and stream.read_bytes <= 9


def test_the_header_is_checked_before_a_byte_of_tensor_data_is_read(record):
    data = to_bytes(record)
    n = int.from_bytes(data[:8], "little")
    header, rest = header_of(data)
    header["__metadata__"]["gpt_config"] = json.dumps({**record.gpt_cfg.to_dict(), "d_ff": 128})
    crafted = craft(header, rest)
    stream = CountingReader(crafted)
    with pytest.raises(CheckpointError):
        checkpoint.check_file(stream, len(crafted))
    m = int.from_bytes(crafted[:8], "little")
    assert stream.read_bytes == 8 + m and m > n  # the header and nothing after it
    stream = CountingReader(data)
    checked = checkpoint.check_file(stream, len(data))
    assert stream.read_bytes == 8 + n and checked.gpt_cfg == record.gpt_cfg and checked.prefix == ""


def test_numbers_in_the_metadata_go_through_the_strict_reader(record):
    tensors, meta = parts(to_bytes(record))
    huge = meta["gpt_config"].replace('"d_model": 32', '"d_model": ' + "3" * 4400)
    assert huge != meta["gpt_config"]
    assert refused(st_save(tensors, {**meta, "gpt_config": huge}), "metadata").params["field"] == "gpt_config"
    for losses in ("[1.0, NaN]", "[1.0, Infinity]", "[1e999]", "[" + "1" * 4400 + "]"):
        assert refused(st_save(tensors, {**meta, "losses": losses}), "metadata").params["field"] == "losses"
    header, data = header_of(to_bytes(record))
    raw = json.dumps(header).replace('"data_offsets": [0, ', '"data_offsets": [' + "0" * 4400 + ", ", 1)
    assert refused(len(raw.encode()).to_bytes(8, "little") + raw.encode() + data, "not_safetensors")


def test_the_expected_shapes_are_a_real_models_and_reading_a_checkpoint_does_not_load_torchs_compiler():
    from tinygpt.training.train import new_model

    for cfg in (SMALL, GPTConfig(vocab_size=7, max_len=16, d_model=32, n_heads=2, n_layers=2, d_ff=64)):
        real = {name: tuple(t.shape) for name, t in new_model(cfg).state_dict().items()}
        assert checkpoint._expected_shapes(cfg) == real
    # a fresh process: the shipped model's check builds it on the meta device without initial values,
    # whose reference kernels would import torch._dynamo (1.4 s of one core on a fresh server)
    script = (
        "import sys, torch\n"
        "before = any(m.startswith('torch._dynamo') for m in sys.modules)\n"
        "from tinygpt.training.checkpoint import from_bytes\n"
        "from tinygpt.training.model_library import SHIPPED_DIR\n"
        "record = from_bytes((SHIPPED_DIR / 'context.safetensors').read_bytes())\n"
        "print(before, any(m.startswith('torch._dynamo') for m in sys.modules), record.gpt_cfg.d_model)\n"
    )
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1]
    )
    before, after, d_model = out.stdout.split()
    if before == "True":
        pytest.skip("this torch imports its compiler on import")
    assert after == "False" and d_model == "32"
