"""Where a trained model comes from: one model per settings, the same on every machine.

Training is deterministic on one machine, not across machines: PyTorch and MKL choose their
kernels by the CPU (AVX-512, AVX2, the portable path, ARM's NEON), and kernels that add in
another order round differently. After 150 epochs at a high learning rate those last-bit
differences grow into other weights, and a switch then flips other positions. So the weights of
a setting are decided once and then handed out, never re-derived:

1. **Shipped weights.** The examples small enough to keep in the repository (the context
   example: 26 K parameters, a 144 KB file with its losses and snapshots) ship their trained
   checkpoint in ``tinygpt/weights/`` (:data:`SHIPPED_DIR`, made by ``python -m tinygpt
   --example NAME --save ...``). Every machine, x86 or ARM, loads the same bytes: the figures
   quoted in the README and on the pages are those.
2. **The class store.** Any other model (the textbook example, a student's ``train=`` link, a
   lesson's model) is trained by the first server that needs it and published in the class store
   (table ``models``: the checkpoint's bytes under a hash of the settings). A server that needs
   the same settings later loads those bytes instead of training again; a server that trained
   at the same moment and finds another's model already published takes that one. So every
   server sharing one store (several servers on one PostgreSQL, or one server after a restart)
   serves the same weights, whatever its CPU.
3. **Training.** Without a store (or while it cannot be reached) the server trains the model
   itself: the same weights as any machine with the same CPU kernels, not beyond.

Checkpoints from the store or the repository go through ``tinygpt.training.checkpoint.from_bytes``, which
trusts nothing in the bytes. Store failures never stop a training: the model is then this
server's own (logged once per failure).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.training.checkpoint import CheckpointError, from_bytes, to_bytes
from tinygpt.training.record import ModelRecord

log = logging.getLogger(__name__)

#: Folder of the checkpoints shipped with the app (one ``<example name>.safetensors`` each).
SHIPPED_DIR = Path(__file__).resolve().parents[1] / "weights"
#: Models not loaded for this many days are deleted from the store.
MODEL_DAYS = 90

ModelKey = tuple[str, GPTConfig, TrainConfig]


def settings_text(key: ModelKey) -> str:
    """The settings of a model as canonical JSON (text, GPTConfig, TrainConfig): equal settings, equal text."""
    text, gpt_cfg, train_cfg = key
    return json.dumps(
        {"text": text, "gpt": gpt_cfg.to_dict(), "train": train_cfg.to_dict()},
        sort_keys=True,
        ensure_ascii=True,
        separators=(",", ":"),
    )


def settings_hash(key: ModelKey) -> str:
    """SHA-256 (hex) of :func:`settings_text`: the name a model of these settings has in the store."""
    return hashlib.sha256(settings_text(key).encode("ascii")).hexdigest()


#: The modules whose code decides what a training run computes (a change to any of them makes
#: the models published by an older version of the app unusable: they are trained again).
TRAINING_CODE = (
    "model.py",
    "attention.py",
    "training/train.py",
    "training/optim.py",
    "vocab.py",
    "config.py",
    "training/record.py",
)


@functools.cache
def training_code_hash() -> str:
    """SHA-256 (hex) of the source of :data:`TRAINING_CODE`, read once per process."""
    h = hashlib.sha256()
    for name in TRAINING_CODE:
        h.update((Path(__file__).resolve().parents[1] / name).read_bytes())
    return h.hexdigest()


def store_name(key: ModelKey) -> str:
    """The name a model of these settings has in the store: SHA-256 (hex) of the training code's
    hash and :func:`settings_text`, so models of another version of the training code are not found."""
    return hashlib.sha256((training_code_hash() + settings_text(key)).encode("ascii")).hexdigest()


def weights_hash(record: ModelRecord) -> str:
    """SHA-256 (hex) of a model's weights (every tensor of its state dict, in order, as float32 bytes).

    Two models with the same hash compute the same numbers on the same kernels.
    """
    h = hashlib.sha256()
    for name, tensor in record.model.state_dict().items():
        h.update(name.encode("utf-8"))
        h.update(tensor.detach().float().contiguous().numpy().tobytes())
    return h.hexdigest()


def record_key(record: ModelRecord) -> ModelKey:
    """The settings a trained model was trained with (its text, GPTConfig and TrainConfig)."""
    return (record.text, record.gpt_cfg, record.train_cfg)


def _trained_model(data: bytes) -> ModelRecord:
    """The model of checkpoint bytes the library holds for the settings in them (frozen).

    Only runs trained from their settings are shipped or published (a finished run, or a run stopped
    after k steps under ``epochs=k``), and the library hands out these weights for those settings on
    every server: so the settings rebuild the model, and ``init_seed`` says so (a ``train=`` link works).

    Raises:
        CheckpointError: the bytes are refused (:func:`tinygpt.training.checkpoint.from_bytes`).
    """
    record = from_bytes(data)
    record.init_seed = record.train_cfg.seed
    return record


def _load_shipped() -> dict[str, ModelRecord]:
    """Every checkpoint of :data:`SHIPPED_DIR`, by :func:`settings_hash` of its settings (frozen)."""
    shipped: dict[str, ModelRecord] = {}
    for path in sorted(SHIPPED_DIR.glob("*.safetensors")):
        try:
            record = _trained_model(path.read_bytes())
        except (OSError, CheckpointError) as exc:  # a damaged file: that example is trained instead
            log.error("shipped model %s cannot be read: %s", path.name, exc)
            continue
        shipped[settings_hash(record_key(record))] = record
    return shipped


_shipped: dict[str, ModelRecord] | None = None
_shipped_lock = threading.Lock()


def shipped_model(key: ModelKey) -> ModelRecord | None:
    """The shipped model of these settings (frozen, shared), or None when none ships."""
    global _shipped
    with _shipped_lock:
        if _shipped is None:
            _shipped = _load_shipped()
        return _shipped.get(settings_hash(key))


class ModelStore(Protocol):
    """Where servers share trained models (``tinygpt.classroom.store.Store``): checkpoint bytes
    under a name. Its calls may raise any exception; the library treats it as "not there"."""

    def stored_model(self, name: str) -> tuple[bytes, str] | None:
        """The checkpoint bytes and settings text published as ``name`` (marked used), or None."""

    def publish_model(self, name: str, settings: str, checkpoint: bytes, unused_days: float) -> bool:
        """Publish ``checkpoint`` as ``name`` unless one is there already; True when this one was kept."""

    def has_model(self, name: str) -> bool:
        """Whether a model is published as ``name`` (its bytes are not read)."""


@dataclass
class ModelLibrary:
    """Trained models by settings: the shipped ones, then those published in a class store.

    Args:
        store: the class store that shares models between servers (None: shipped models only); it
            keeps the time a model was last used by its own clock.
    Thread-safe; every store failure is logged and treated as "not there".
    """

    store: ModelStore | None = None

    def get(self, key: ModelKey) -> ModelRecord | None:
        """The model of ``key``: shipped, else published in the store, else None."""
        record = shipped_model(key)
        if record is not None or self.store is None:
            return record
        digest = store_name(key)
        try:
            row = self.store.stored_model(digest)
        except Exception as exc:  # noqa: BLE001 - a store failure means "train it here"
            log.warning("model library: the store could not be read (%s)", type(exc).__name__)
            return None
        if row is None:
            return None
        checkpoint, settings = row
        if settings != settings_text(key):  # a hash collision, or a row written by hand
            return None
        try:
            return _trained_model(checkpoint)
        except CheckpointError as exc:
            log.error("model library: the stored model %s… cannot be read: %s", digest[:12], exc)
            return None

    def stored(self, key: ModelKey) -> bool:
        """Whether :meth:`get` would read the model of ``key`` from the store (not shipped, published there);
        False when the store cannot be read."""
        if self.store is None or shipped_model(key) is not None:
            return False
        try:
            return self.store.has_model(store_name(key))
        except Exception as exc:  # noqa: BLE001 - a store failure means "not there", as in get
            log.warning("model library: the store could not be read (%s)", type(exc).__name__)
            return False

    def publish(self, record: ModelRecord) -> ModelRecord:
        """Publish a trained model under its settings and return the model everyone gets for them.

        The first model published for a setting stays: when another server (or a shipped file)
        already has one, that model is returned instead of ``record``. Without a store, or when it
        cannot be written, ``record`` is returned.
        """
        key = record_key(record)
        shipped = shipped_model(key)
        if shipped is not None:
            return shipped
        if self.store is None:
            return record
        try:
            if self.store.publish_model(store_name(key), settings_text(key), to_bytes(record), MODEL_DAYS):
                return record
        except Exception as exc:  # noqa: BLE001 - the model stays this server's own
            log.warning("model library: the model could not be published (%s)", type(exc).__name__)
            return record
        return self.get(key) or record
