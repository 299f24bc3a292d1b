"""Save and load a trained model as safetensors, never pickle.

A checkpoint is one safetensors file: the model's ``state_dict`` (float32 tensors) plus, as
safetensors metadata (string → string), the GPTConfig and TrainConfig as JSON, the vocabulary
as a JSON list of characters, the training text, the loss curve and the stop reason. Training
snapshots (α over training, see ``ModelRecord.snapshots``) are stored as tensors
``snapshots.<step>``.

Loading trusts nothing in the file. The header is parsed by hand and checked against the
configuration *before* any tensor is read: the format tag, the configs (validated as usual,
host limits included), vocabulary and text consistent with each other, every expected tensor
present with dtype F32 and the shape the configuration implies, nothing unexpected. Then the
``safetensors`` library reads the data (it never executes anything) and every value must be
finite. ``torch.load`` and ``pickle`` are never used: a PyTorch ``.pt`` file is a pickle, which
can run code when loaded, and is refused with its own message.

Errors are :class:`CheckpointError` with a ``key`` (i18n ``ckpt.err.<key>``) and ``params``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load as st_load
from safetensors.torch import save as st_save

from tinygpt.config import MAX_EPOCHS, MAX_PARAMETERS, MAX_TEXT_LEN, ConfigError, GPTConfig, TrainConfig
from tinygpt.limits import check_host_limits
from tinygpt.record import SNAPSHOT_MAX_T, ModelRecord, StopReason
from tinygpt.train import new_model
from tinygpt.vocab import CharVocab

FORMAT = "tinygpt-checkpoint"
VERSION = "1"
#: Largest file accepted: the largest model this host trains (float32) plus 1 MiB of header.
MAX_HEADER_BYTES = 2**20
MAX_CHECKPOINT_BYTES = 4 * MAX_PARAMETERS + MAX_HEADER_BYTES + 8
_STOP_REASONS = tuple(StopReason)
_SNAPSHOT_KEY = re.compile(r"^snapshots\.(\d{1,6})$")


class CheckpointError(ValueError):
    """A file is not a checkpoint this app can use.

    ``key`` names the problem (``ckpt.err.<key>`` in the i18n catalogue), ``params`` fill the
    message; the English text is the exception's message.
    """

    def __init__(self, key: str, message: str, cause: ConfigError | None = None, **params: Any) -> None:
        self.key = key
        self.params = params
        self.cause = cause  # the configuration error behind key "config", so a page can word it in its language
        super().__init__(message)


def to_bytes(tm: ModelRecord) -> bytes:
    """The safetensors bytes of ``tm`` (weights, configs, vocabulary, text, losses, snapshots)."""
    tensors = {name: t.detach().contiguous() for name, t in tm.model.state_dict().items()}
    for step, alpha in tm.snapshots.items():
        tensors[f"snapshots.{step}"] = alpha.detach().float().contiguous()  # (L, h, T, T)
    metadata = {
        "format": FORMAT,
        "version": VERSION,
        "gpt_config": json.dumps(tm.gpt_cfg.to_dict()),
        "train_config": json.dumps(tm.train_cfg.to_dict()),
        "vocab": json.dumps(list(tm.vocab.chars), ensure_ascii=False),
        "text": tm.text,
        "losses": json.dumps(tm.losses),
        "stop_reason": str(tm.stop_reason),
    }
    return st_save(tensors, metadata)


def _looks_like_pickle(data: bytes) -> bool:
    """A pickle starts with the PROTO opcode 0x80; torch.save writes a zip (PK\\x03\\x04) of pickles."""
    return data[:1] == b"\x80" or data[:4] == b"PK\x03\x04"


def check_size(nbytes: int) -> None:
    """Refuse a file larger than ``MAX_CHECKPOINT_BYTES`` before reading it (CheckpointError "too_large")."""
    if nbytes > MAX_CHECKPOINT_BYTES:
        raise CheckpointError(
            "too_large",
            f"the file has {nbytes:,} bytes; at most {MAX_CHECKPOINT_BYTES:,}",
            size=f"{nbytes:,}",
            limit=f"{MAX_CHECKPOINT_BYTES:,}",
        )


def _header(data: bytes) -> dict[str, Any]:
    check_size(len(data))
    n = int.from_bytes(data[:8], "little") if len(data) >= 8 else 0
    framed = 2 <= n <= MAX_HEADER_BYTES and data[8:9] == b"{"  # u64 header length, then a JSON object
    if not framed and _looks_like_pickle(data):
        raise CheckpointError(
            "pickle", "this is a pickle / PyTorch .pt file; it is never loaded because it can run code"
        )
    if len(data) < 9:
        raise CheckpointError("truncated", f"the file has only {len(data)} bytes", size=f"{len(data):,}")
    if not framed:
        raise CheckpointError("not_safetensors", "the file does not start with a safetensors header")
    if 8 + n > len(data):
        raise CheckpointError("truncated", f"the header needs {n} bytes but the file ends first", size=f"{len(data):,}")
    try:
        header = json.loads(data[8 : 8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise CheckpointError("not_safetensors", "the safetensors header is not valid JSON") from None
    if not isinstance(header, dict):
        raise CheckpointError("not_safetensors", "the safetensors header is not a JSON object")
    return header


def _metadata(header: dict[str, Any]) -> dict[str, str]:
    meta = header.get("__metadata__")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(
            "not_ours", "the file is safetensors but not a checkpoint of this app (no tinygpt metadata)"
        )
    if meta.get("version") != VERSION:
        raise CheckpointError(
            "version",
            f"checkpoint version {meta.get('version')!r}; this app reads {VERSION}",
            version=str(meta.get("version")),
            supported=VERSION,
        )
    for name in ("gpt_config", "train_config", "vocab", "text", "losses", "stop_reason"):
        if not isinstance(meta.get(name), str):
            raise CheckpointError("metadata", f"metadata field {name!r} is missing", field=name)
    return meta


def _json(meta: dict[str, str], name: str) -> Any:
    try:
        return json.loads(meta[name])
    except json.JSONDecodeError:
        raise CheckpointError("metadata", f"metadata field {name!r} is not valid JSON", field=name) from None


def _configs(meta: dict[str, str]) -> tuple[GPTConfig, TrainConfig, CharVocab, str, list[float], str]:
    gpt_d, train_d = _json(meta, "gpt_config"), _json(meta, "train_config")
    if not isinstance(gpt_d, dict) or not isinstance(train_d, dict):
        raise CheckpointError("metadata", "gpt_config / train_config must be JSON objects", field="gpt_config")
    try:
        gpt_cfg = GPTConfig.from_dict(gpt_d)
        names = set(TrainConfig.__dataclass_fields__)
        train_cfg = TrainConfig(**{k: v for k, v in train_d.items() if k in names})
    except ConfigError as exc:
        raise CheckpointError(
            "config", f"the configuration in the file is not accepted: {exc}", cause=exc, error=str(exc)
        ) from None
    except TypeError:  # a field of the wrong kind (e.g. a list where a number belongs)
        raise CheckpointError(
            "metadata", "gpt_config / train_config hold a value of the wrong type", field="gpt_config / train_config"
        ) from None
    chars, text = _json(meta, "vocab"), meta["text"]
    if (
        not isinstance(chars, list)
        or not chars
        or not all(isinstance(c, str) and len(c) == 1 for c in chars)
        or len(set(chars)) != len(chars)
    ):
        raise CheckpointError("metadata", "vocab must be a list of distinct single characters", field="vocab")
    if not text or len(text) > MAX_TEXT_LEN:
        raise CheckpointError("metadata", f"text must have 1 to {MAX_TEXT_LEN} characters", field="text")
    vocab = CharVocab(tuple(chars))
    if len(vocab) != gpt_cfg.vocab_size or CharVocab.from_text(text) != vocab:
        raise CheckpointError(
            "vocab",
            f"vocabulary {''.join(chars)!r} ({len(chars)}) does not match vocab_size={gpt_cfg.vocab_size} "
            f"and the text {text[:20]!r}",
            vocab="".join(chars),
            n=len(chars),
            vocab_size=gpt_cfg.vocab_size,
        )
    try:
        check_host_limits(text, gpt_cfg, train_cfg)
    except ConfigError as exc:
        raise CheckpointError(
            "config", f"the configuration in the file is not accepted: {exc}", cause=exc, error=str(exc)
        ) from None
    losses = _json(meta, "losses")
    if (
        not isinstance(losses, list)
        or len(losses) > MAX_EPOCHS
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in losses)
    ):
        raise CheckpointError("metadata", f"losses must be at most {MAX_EPOCHS} finite numbers", field="losses")
    if meta["stop_reason"] not in _STOP_REASONS:
        raise CheckpointError("metadata", "stop_reason is not one of " + ", ".join(_STOP_REASONS), field="stop_reason")
    return gpt_cfg, train_cfg, vocab, text, [float(v) for v in losses], StopReason(meta["stop_reason"])


def _expected_shapes(gpt_cfg: GPTConfig) -> dict[str, tuple[int, ...]]:
    """Names and shapes of the state_dict GPTConfig implies, computed on the meta device (no memory)."""
    with torch.device("meta"):
        model = new_model(gpt_cfg)
    return {name: tuple(t.shape) for name, t in model.state_dict().items()}


def _check_tensors(header: dict[str, Any], gpt_cfg: GPTConfig, T: int, data_len: int, file_size: int) -> None:
    expected = _expected_shapes(gpt_cfg)
    snap_shape = (gpt_cfg.n_layers, gpt_cfg.n_heads, T, T)
    found = {k: v for k, v in header.items() if k != "__metadata__"}
    missing = [k for k in expected if k not in found]
    if missing:
        raise CheckpointError(
            "shapes",
            f"tensors missing for this configuration: {', '.join(missing[:3])}",
            name=missing[0],
            found="—",
            expected=str(list(expected[missing[0]])),
        )
    for name in [*expected, *(k for k in found if k not in expected)]:  # the model's order first
        info = found[name]
        if not isinstance(info, dict):
            raise CheckpointError("not_safetensors", f"header entry {name!r} is not an object")
        want = expected.get(name)
        if want is None and _SNAPSHOT_KEY.match(name):
            want = snap_shape
        if want is None:
            raise CheckpointError("unexpected", f"unexpected tensor {name!r} for this configuration", name=name)
        if info.get("dtype") != "F32":
            raise CheckpointError(
                "dtype",
                f"tensor {name} has dtype {info.get('dtype')}; only F32 is accepted",
                name=name,
                dtype=str(info.get("dtype")),
            )
        shape = info.get("shape")
        if not isinstance(shape, list) or tuple(shape) != want:
            raise CheckpointError(
                "shapes",
                f"tensor {name} has shape {shape}; the configuration needs {list(want)}",
                name=name,
                found=str(shape),
                expected=str(list(want)),
            )
    offsets = [info.get("data_offsets") for info in found.values()]
    if not all(isinstance(o, list) and len(o) == 2 and all(isinstance(e, int) for e in o) for o in offsets):
        raise CheckpointError("not_safetensors", "a header entry has no valid data_offsets")
    ends = [o[1] for o in offsets]
    if max(ends, default=0) > data_len:
        raise CheckpointError(
            "truncated",
            f"the tensors need {max(ends):,} bytes of data; the file holds {data_len:,}",
            size=f"{file_size:,}",
        )  # the message names the file's size, which the student sees


def from_bytes(data: bytes) -> ModelRecord:
    """A ModelRecord from checkpoint bytes written by :func:`to_bytes`; nothing runs from the file.

    The model is returned frozen (read-only, eval mode), ``init_seed`` None.

    Raises:
        CheckpointError: too large, a pickle, truncated, not safetensors, not this app's, bad
        metadata or configuration, vocabulary inconsistent with the text or vocab_size, a tensor
        missing / unexpected / not F32 / of the wrong shape, or NaN/∞ values.
    """
    header = _header(data)
    data_len = len(data) - 8 - int.from_bytes(data[:8], "little")
    gpt_cfg, train_cfg, vocab, text, losses, stop_reason = _configs(_metadata(header))
    window = train_cfg.window_for(len(text), gpt_cfg.max_len)
    _check_tensors(header, gpt_cfg, min(window, SNAPSHOT_MAX_T), data_len, len(data))
    try:
        tensors = st_load(data)
    except SafetensorError as exc:
        raise CheckpointError("malformed", f"the safetensors data is damaged: {exc}", error=str(exc)) from None
    for name, t in tensors.items():
        if not torch.isfinite(t).all():
            raise CheckpointError("non_finite", f"tensor {name} holds NaN or infinite values", name=name)
    snapshots = {int(_SNAPSHOT_KEY.match(k).group(1)): tensors.pop(k) for k in list(tensors) if _SNAPSHOT_KEY.match(k)}
    model = new_model(gpt_cfg)
    model.load_state_dict(tensors, strict=True)
    tm = ModelRecord(
        model=model,
        vocab=vocab,
        text=text,
        gpt_cfg=gpt_cfg,
        train_cfg=train_cfg,
        losses=losses,
        stop_reason=stop_reason,
        snapshots=dict(sorted(snapshots.items())),
    )
    return tm.freeze()
