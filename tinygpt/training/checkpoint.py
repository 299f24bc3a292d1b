"""Save and load a trained model as safetensors, never pickle.

A checkpoint is one safetensors file: the model's ``state_dict`` (float32 tensors) plus, as
safetensors metadata (string → string), the GPTConfig and TrainConfig as JSON, the vocabulary
as a JSON list of characters, the training text, the loss curve and the stop reason. Training
snapshots (α over training, see ``ModelRecord.snapshots``) are stored as tensors
``snapshots.<step>``.

Loading trusts nothing in the file and reads it in two stages (:func:`check_file`, then
:func:`load_checked`; :func:`read_checkpoint` does both). First only the header is read: its
8-byte length, then that many bytes of JSON, checked against the configuration *before* a byte of
tensor data is touched: the format tag, the configs (numbers read by ``tinygpt.numbers``,
validated as usual, host limits included), vocabulary and text consistent with each other, every
expected tensor present with dtype F32 and the shape the configuration implies, nothing
unexpected, and the declared byte ranges tiling the data exactly (so no two tensors share bytes
and the file is as long as the header says). A file of 150 MB of zeros is refused after reading 8
bytes. Then the ``safetensors`` library reads the data (it never executes anything) and every
value must be finite. ``torch.load`` and ``pickle`` are never used: a PyTorch ``.pt`` file is a
pickle, which can run code when loaded, and is refused with its own message.

A compiled model's state dict (``torch.compile``) names every tensor ``_orig_mod.<name>`` and a
``DataParallel`` one ``module.<name>``: when every tensor carries one of these prefixes
(:data:`KNOWN_PREFIXES`) it is stripped.

Errors are :class:`CheckpointError` with a ``key`` (i18n ``ckpt.err.<key>``) and ``params``; no
message repeats the safetensors library's own (English) text.
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import dataclass
from typing import Any, BinaryIO

import torch
from safetensors import SafetensorError
from safetensors.torch import load as st_load
from safetensors.torch import save as st_save

from tinygpt.config import MAX_EPOCHS, MAX_PARAMETERS, MAX_TEXT_LEN, ConfigError, GPTConfig, TrainConfig
from tinygpt.limits import check_host_limits
from tinygpt.numbers import MAX_INT_CHARS, read_float, read_int
from tinygpt.training.record import SNAPSHOT_MAX_T, ModelRecord, StopReason
from tinygpt.training.train import new_model
from tinygpt.vocab import CharVocab

FORMAT = "tinygpt-checkpoint"
VERSION = "1"
#: Largest file accepted: the largest model this host trains (float32) plus 1 MiB of header.
MAX_HEADER_BYTES = 2**20
MAX_CHECKPOINT_BYTES = 4 * MAX_PARAMETERS + MAX_HEADER_BYTES + 8
_STOP_REASONS = tuple(StopReason)
_SNAPSHOT_KEY = re.compile(r"^snapshots\.([0-9]{1,6})$")
#: Prefixes that wrappers put before every tensor name of a state dict: ``torch.compile``'s
#: ``_orig_mod.`` and ``torch.nn.DataParallel``'s ``module.``. Stripped when every tensor has one.
KNOWN_PREFIXES = ("_orig_mod.", "module.")
#: Tensor names a message lists at most (then "…").
NAMES_SHOWN = 5


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


def to_bytes(record: ModelRecord) -> bytes:
    """The safetensors bytes of ``record`` (weights, configs, vocabulary, text, losses, training
    seconds, snapshots)."""
    tensors = {name: t.detach().contiguous() for name, t in record.model.state_dict().items()}
    for step, alpha in record.snapshots.items():
        tensors[f"snapshots.{step}"] = alpha.detach().float().contiguous()  # (L, h, T, T)
    metadata = {
        "format": FORMAT,
        "version": VERSION,
        "gpt_config": json.dumps(record.gpt_cfg.to_dict()),
        "train_config": json.dumps(record.train_cfg.to_dict()),
        "vocab": json.dumps(list(record.vocab.chars), ensure_ascii=False),
        "text": record.text,
        "losses": json.dumps(record.losses),
        "stop_reason": str(record.stop_reason),
        "seconds": repr(float(record.seconds)),
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


def _read_header(stream: BinaryIO, size: int) -> tuple[dict[str, Any], int]:
    """(the JSON header, its length n) from the first 8 + n bytes of a file of ``size`` bytes.

    Reads 8 bytes, then at most ``MAX_HEADER_BYTES``; nothing after the header.
    """
    check_size(size)
    first = stream.read(min(size, 9))
    n = int.from_bytes(first[:8], "little") if len(first) >= 8 else 0
    framed = 2 <= n <= MAX_HEADER_BYTES and first[8:9] == b"{"  # u64 header length, then a JSON object
    if not framed and _looks_like_pickle(first):
        raise CheckpointError(
            "pickle", "this is a pickle / PyTorch .pt file; it is never loaded because it can run code"
        )
    if not framed or size < 9:  # too short for a header: no checkpoint at all
        raise CheckpointError("not_safetensors", "the file does not start with a safetensors header")
    if 8 + n > size:
        raise CheckpointError("truncated", f"the header needs {n} bytes but the file ends first", size=f"{size:,}")
    raw = first[8:] + stream.read(n - 1)
    try:
        header = json.loads(raw.decode("utf-8"), **_STRICT_JSON)
    except (UnicodeDecodeError, json.JSONDecodeError, ConfigError):
        raise CheckpointError("not_safetensors", "the safetensors header is not valid JSON") from None
    if not isinstance(header, dict):
        raise CheckpointError("not_safetensors", "the safetensors header is not a JSON object")
    return header, n


def _refuse_constant(raw: str) -> None:
    raise ConfigError("json", raw, "a finite number", "number")


#: ``json.loads`` options that read every number of a file through ``tinygpt.numbers``: whole
#: numbers of at most ``MAX_INT_CHARS`` characters (``int()`` would take 4,300 digits, then fail),
#: finite decimals, and no ``NaN`` / ``Infinity``. A refused number raises ConfigError.
_STRICT_JSON: dict[str, Any] = {
    "parse_int": lambda raw: read_int(raw, "json", -(10**MAX_INT_CHARS), 10**MAX_INT_CHARS),
    "parse_float": lambda raw: read_float(raw, "json", -1e308, 1e308),
    "parse_constant": _refuse_constant,
}


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
    """The metadata field ``name`` as JSON, every number read by ``tinygpt.numbers``."""
    try:
        return json.loads(meta[name], **_STRICT_JSON)
    except (json.JSONDecodeError, ConfigError):
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


class _NoInit(torch.overrides.TorchFunctionMode):
    """Within it, ``torch.nn.init``'s functions return their tensor unchanged. On the meta device
    an embedding's ``normal_`` goes through torch's Python reference, whose first call imports
    torch's compiler (``torch._dynamo``): about 1.4 s of one core, for values a shape does not need."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if getattr(func, "__module__", "") == "torch.nn.init":
            return args[0] if args else kwargs["tensor"]
        return func(*args, **kwargs)


def _expected_shapes(gpt_cfg: GPTConfig) -> dict[str, tuple[int, ...]]:
    """Names and shapes of the state_dict GPTConfig implies, computed on the meta device (no memory)
    without initial values (:class:`_NoInit`)."""
    with torch.device("meta"), _NoInit():
        model = new_model(gpt_cfg)
    return {name: tuple(t.shape) for name, t in model.state_dict().items()}


def _names(names: list[str]) -> str:
    """At most NAMES_SHOWN tensor names, then "…"."""
    return ", ".join(names[:NAMES_SHOWN]) + (", …" if len(names) > NAMES_SHOWN else "")


def _strip_prefix(found: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """(the header's tensors with a known wrapper prefix stripped, that prefix or "").

    The prefix is stripped when every tensor but the snapshots (which are this app's own, never a
    wrapped model's) carries it.
    """
    weights = [k for k in found if not _SNAPSHOT_KEY.match(k)]
    for prefix in KNOWN_PREFIXES:
        if weights and all(k.startswith(prefix) for k in weights):
            return {k.removeprefix(prefix): v for k, v in found.items()}, prefix
    return found, ""


def _common_prefix(names: list[str]) -> str:
    """The dotted prefix every name starts with ("model." of "model.a", "model.b"), or ""."""
    parts = [n.split(".") for n in names]
    common = []
    for group in zip(*(p[:-1] for p in parts)):
        if len(set(group)) != 1:
            break
        common.append(group[0])
    return ".".join(common) + "." if common else ""


def _check_tensors(found: dict[str, Any], gpt_cfg: GPTConfig, T: int, data_len: int, file_size: int) -> None:
    """Check the header's tensors (prefix stripped) against the configuration, before any data is read:
    names, dtypes, shapes, and byte ranges that tile the ``data_len`` bytes after the header exactly."""
    expected = _expected_shapes(gpt_cfg)
    snap_shape = (gpt_cfg.n_layers, gpt_cfg.n_heads, T, T)
    missing = [k for k in expected if k not in found]
    if missing:
        prefix = _common_prefix(list(found)) if found else ""
        if prefix and all(k.startswith(prefix) for k in found):
            raise CheckpointError(
                "prefix",
                f"every tensor name starts with {prefix!r}; the configuration needs names such as {missing[0]}",
                prefix=prefix,
                example=missing[0],
            )
        raise CheckpointError(
            "missing",
            f"tensors missing for this configuration: {_names(missing)}",
            n=len(missing),
            names=_names(missing),
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
                dtype=str(info.get("dtype"))[:20],
            )
        shape = info.get("shape")
        if not isinstance(shape, list) or tuple(shape) != want:
            raise CheckpointError(
                "shapes",
                f"tensor {name} has shape {shape}; the configuration needs {list(want)}",
                name=name,
                found=str(shape)[:40],
                expected=str(list(want)),
            )
    _check_offsets(found, data_len, file_size)


def _check_offsets(found: dict[str, Any], data_len: int, file_size: int) -> None:
    """The declared byte ranges [begin, end) of the tensors (shapes already checked) must each hold
    exactly its tensor's float32 values and, in order, tile the data: no two tensors share bytes,
    no gap, nothing past the end of the file, nothing left over."""
    ranges = []
    for name, info in found.items():
        o = info.get("data_offsets")
        if not (isinstance(o, list) and len(o) == 2 and all(type(e) is int for e in o)):
            raise CheckpointError("not_safetensors", f"header entry {name!r} has no valid data_offsets")
        nbytes = 4 * math.prod(info["shape"])
        if o[1] - o[0] != nbytes:
            raise CheckpointError(
                "sizes",
                f"tensor {name} declares {o[1] - o[0]:,} bytes; its shape needs {nbytes:,}",
                name=name,
                declared=f"{o[1] - o[0]:,}",
                needed=f"{nbytes:,}",
            )
        ranges.append((o[0], o[1], name))
    ranges.sort()
    for (b0, e0, first), (b1, _, second) in zip(ranges, ranges[1:]):
        if b1 < e0:
            raise CheckpointError(
                "shared", f"tensors {first} and {second} share bytes of the file", first=first, second=second
            )
    end = ranges[-1][1] if ranges else 0
    if end > data_len:
        raise CheckpointError(
            "truncated",
            f"the tensors need {end:,} bytes of data; the file holds {data_len:,}",
            size=f"{file_size:,}",
        )  # the message names the file's size, which the student sees
    starts_and_ends = [0] + [x for b, e, _ in ranges for x in (b, e)] + [data_len]
    if any(a != b for a, b in zip(starts_and_ends[::2], starts_and_ends[1::2])):
        raise CheckpointError(
            "malformed", "the tensors' byte ranges leave gaps or bytes after the last tensor", size=f"{file_size:,}"
        )


@dataclass(frozen=True)
class CheckedFile:
    """What :func:`check_file` read and accepted from a file's header; :func:`load_checked` reads the rest."""

    size: int
    gpt_cfg: GPTConfig
    train_cfg: TrainConfig
    vocab: CharVocab
    text: str
    losses: list[float]
    stop_reason: StopReason
    prefix: str
    seconds: float = 0.0


def check_file(stream: BinaryIO, size: int) -> CheckedFile:
    """Check a checkpoint from its header alone, reading no tensor data.

    Args:
        stream: the file, positioned at its start; only its first 8 + n bytes are read (n, the
            header's length, at most ``MAX_HEADER_BYTES``).
        size: the file's length in bytes.
    Returns:
        the configs, vocabulary, text, losses and stop reason the header holds, all checked.
    Raises:
        CheckpointError: too large, a pickle, truncated, not safetensors, not this app's, bad
        metadata or configuration, vocabulary inconsistent with the text or vocab_size, a tensor
        missing / under an unknown prefix / unexpected / not F32 / of the wrong shape, byte ranges
        that do not fit the shapes, overlap (shared tensors) or do not fill the file exactly.
    """
    header, n = _read_header(stream, size)
    gpt_cfg, train_cfg, vocab, text, losses, stop_reason = _configs(_metadata(header))
    window = train_cfg.window_for(len(text), gpt_cfg.max_len)
    found, prefix = _strip_prefix({k: v for k, v in header.items() if k != "__metadata__"})
    _check_tensors(found, gpt_cfg, min(window, SNAPSHOT_MAX_T), size - 8 - n, size)
    return CheckedFile(size, gpt_cfg, train_cfg, vocab, text, losses, stop_reason, prefix, _seconds(header))


def _seconds(header: dict[str, Any]) -> float:
    """The training time in the metadata (seconds), 0.0 when the file has none or not a finite
    number from 0 to a year (a time is only shown, never computed with)."""
    raw = header.get("__metadata__", {}).get("seconds")
    try:
        value = float(raw) if isinstance(raw, str) and len(raw) <= 32 else 0.0
    except ValueError:
        return 0.0
    return value if math.isfinite(value) and 0.0 <= value <= 366 * 86400 else 0.0


def load_memory_bytes(size: int) -> int:
    """Bytes that loading a checkpoint of ``size`` bytes adds while it runs: its tensors as read by
    safetensors and the model they are copied into (the file's own bytes are already in memory)."""
    return 2 * size


def load_checked(stream: BinaryIO, checked: CheckedFile) -> ModelRecord:
    """The model of a file :func:`check_file` accepted: the data read by safetensors, every value finite.

    ``stream`` is read from its start. For an ``io.BytesIO`` over a ``bytes`` object (what
    Streamlit's ``UploadedFile`` is) ``seek(0)`` then ``read()`` returns that object itself, not a copy.
    The model is returned frozen (read-only, eval mode), ``init_seed`` None.

    Raises:
        CheckpointError: the file changed length since it was checked ("truncated"), the
        safetensors library refused the data ("malformed", never with the library's text), or a
        tensor holds NaN/∞ ("non_finite").
    """
    stream.seek(0)
    data = stream.read()
    if len(data) != checked.size:
        raise CheckpointError(
            "truncated", f"the file has {len(data):,} bytes, not {checked.size:,}", size=f"{len(data):,}"
        )
    try:
        tensors = st_load(data)
    except SafetensorError as exc:  # its text is English and technical: the log has it, the page does not
        raise CheckpointError(
            "malformed", f"the safetensors library refused the data: {exc}", size=f"{checked.size:,}"
        ) from None
    del data
    if checked.prefix:
        tensors = {k.removeprefix(checked.prefix): v for k, v in tensors.items()}
    for name, t in tensors.items():
        if not torch.isfinite(t).all():
            raise CheckpointError("non_finite", f"tensor {name} holds NaN or infinite values", name=name)
    snapshots = {int(_SNAPSHOT_KEY.match(k).group(1)): tensors.pop(k) for k in list(tensors) if _SNAPSHOT_KEY.match(k)}
    model = new_model(checked.gpt_cfg)
    model.load_state_dict(tensors, strict=True)
    del tensors
    record = ModelRecord(
        model=model,
        vocab=checked.vocab,
        text=checked.text,
        gpt_cfg=checked.gpt_cfg,
        train_cfg=checked.train_cfg,
        losses=checked.losses,
        stop_reason=checked.stop_reason,
        seconds=checked.seconds,
        snapshots=dict(sorted(snapshots.items())),
    )
    return record.freeze()


def read_checkpoint(stream: BinaryIO, size: int) -> ModelRecord:
    """:func:`check_file`, then :func:`load_checked`: a ModelRecord from a checkpoint file of
    ``size`` bytes; nothing runs from the file and no tensor byte is read before the header passed."""
    return load_checked(stream, check_file(stream, size))


def from_bytes(data: bytes) -> ModelRecord:
    """A ModelRecord from checkpoint bytes written by :func:`to_bytes` (:func:`read_checkpoint`).

    Raises:
        CheckpointError: everything :func:`check_file` and :func:`load_checked` refuse.
    """
    return read_checkpoint(io.BytesIO(data), len(data))
