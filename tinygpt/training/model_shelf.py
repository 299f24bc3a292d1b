"""Finished models shared by every session of a process, keyed by the settings that determine them."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.generate import MAX_NEW_CHARS, generate
from tinygpt.training.model_library import ModelKey, ModelLibrary
from tinygpt.training.record import ModelRecord
from tinygpt.vocab import cyclic, vocab_size_of

#: The shelf keeps finished models up to this many parameters in all (float32: × 4 bytes),
#: dropping the least recently used; sessions still holding a dropped model keep it.
MAX_SHELF_PARAMETERS = 60_000_000


def greedy_continuation(record: ModelRecord) -> tuple[str, str]:
    """(greedy continuation of the text's first character, what the text says comes next).

    Generation runs with the causal mask, as it must (the future is not there yet), whatever
    mask the model trained with; window - 1 characters (at most MAX_NEW_CHARS), the positions trained.
    """
    n = min(record.window - 1, MAX_NEW_CHARS)
    steps = generate(record.model, record.vocab, record.text[0], n, trained_len=record.window)
    return "".join(s.chosen for s in steps), cyclic(record.text, n + 1)[1:]


@dataclass
class ModelShelf:
    """Process-wide store of finished, frozen models, keyed by (text, GPTConfig, TrainConfig), LRU.

    Behind it, ``library`` (``tinygpt.training.model_library``) decides which weights a setting has: a model
    missing here is looked up there (shipped with the app, or published in the class store by
    another server), and a model trained here is published there first, so the shelf holds the
    model every server hands out for those settings.
    """

    models: OrderedDict[ModelKey, ModelRecord] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    load_lock: threading.Lock = field(default_factory=threading.Lock)
    max_parameters: int = MAX_SHELF_PARAMETERS
    library: ModelLibrary = field(default_factory=ModelLibrary)

    def get(self, key: ModelKey, before_load: Callable[[], None] | None = None) -> ModelRecord | None:
        """The model trained with these settings (here, shipped or published), or None.

        A model not on the shelf is looked up in the library one at a time (``load_lock``): reading a
        stored checkpoint holds about three copies of its weights at once, so sessions asking together
        load one model after another, and those asking for the same one find it on the shelf.
        ``before_load`` is called before a model is read from the class store and may raise (the
        caller's memory check).
        """
        with self.lock:
            record = self.models.get(key)
            if record is not None:
                self.models.move_to_end(key)
                return record
        with self.load_lock:
            with self.lock:
                record = self.models.get(key)
            if record is not None:
                return record
            if before_load is not None and self.library.stored(key):
                before_load()
            found = self.library.get(key)
            return None if found is None else self._keep(key, found)

    def put(self, key: ModelKey, record: ModelRecord) -> ModelRecord:
        """Keep ``record`` (frozen) unless the key has a model (here, shipped or published); return the
        model kept for the key."""
        with self.lock:
            if key in self.models:
                self.models.move_to_end(key)
                return self.models[key]
        return self._keep(key, self.library.publish(record))

    def _keep(self, key: ModelKey, record: ModelRecord) -> ModelRecord:
        with self.lock:
            if key in self.models:
                self.models.move_to_end(key)
                return self.models[key]
            self.models[key] = record.freeze()
            total = sum(m.gpt_cfg.n_parameters() for m in self.models.values())
            while total > self.max_parameters and len(self.models) > 1:
                _, old = self.models.popitem(last=False)
                total -= old.gpt_cfg.n_parameters()
            return record


def model_key(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> ModelKey:
    """Cache key of a training run's result (the vocab size follows from the text)."""
    vocab_size = vocab_size_of(text)
    if gpt_cfg.vocab_size != vocab_size:
        gpt_cfg = GPTConfig(**{**gpt_cfg.to_dict(), "vocab_size": vocab_size})
    return (text, gpt_cfg, train_cfg)
