"""The model library: the first model published for a setting is the one every server gets.

On SQLite and on PostgreSQL (a throwaway cluster), as the class store's own tests."""

from __future__ import annotations

import gc

import pytest
import torch
from helpers import SMALL

from tinygpt.classroom.store import Store, database_url
from tinygpt.config import SEED_TEXT, TrainConfig
from tinygpt.examples import EXAMPLES
from tinygpt.training.checkpoint import to_bytes
from tinygpt.training.jobs import ModelShelf, model_key
from tinygpt.training.model_library import (
    MODEL_DAYS,
    ModelLibrary,
    settings_text,
    shipped_model,
    store_name,
    weights_hash,
)
from tinygpt.training.train import train

DAY = 86400.0
SETTINGS = (SEED_TEXT, SMALL, TrainConfig(lr=3e-3, epochs=8, early_stop_loss=0.0, seed=0))


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        url = database_url({"TINYGPT_DATA_DIR": str(tmp_path / "data")})
    else:
        url = database_url({"TINYGPT_DATABASE_URL": request.getfixturevalue("postgres_url")})
    store = Store(url)
    yield store
    store.dispose()


def trained(seed: int = 0):
    text, gpt, cfg = SETTINGS
    return train(text, gpt, TrainConfig(**{**cfg.to_dict(), "seed": seed}))


def with_other_weights(record):
    """``record`` as another CPU might have trained it: the same settings, other last bits."""
    other = trained()
    with torch.no_grad():
        for p in other.model.parameters():
            p.add_(1e-3)
    return other


def test_the_first_model_published_stays_and_a_second_server_gets_it(store):
    first = trained()
    library = ModelLibrary(store)
    assert library.get(model_key(*SETTINGS)) is None
    assert library.publish(first) is first
    second = with_other_weights(first)
    assert weights_hash(second) != weights_hash(first)
    served = ModelLibrary(store).publish(second)  # another server, which trained at the same moment
    assert weights_hash(served) == weights_hash(first)
    got = ModelShelf(library=ModelLibrary(store)).get(model_key(*SETTINGS))
    assert got is not None and got.frozen and weights_hash(got) == weights_hash(first)
    assert got.losses == first.losses
    assert got.init_seed == first.train_cfg.seed and got.seconds == first.seconds  # its settings rebuild it


def test_models_not_used_for_their_days_are_deleted_when_another_is_published(store):
    clock = Clock()
    store.clock = clock  # the store stamps a model's last use
    library = ModelLibrary(store)
    library.publish(trained())
    clock.now += (MODEL_DAYS - 1) * DAY
    assert library.get(model_key(*SETTINGS)) is not None  # a use keeps it
    clock.now += (MODEL_DAYS + 1) * DAY
    library.publish(trained(seed=1))
    assert library.get(model_key(*SETTINGS)) is None


def test_a_store_that_cannot_be_reached_leaves_the_model_this_servers_own(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    library = ModelLibrary(Store(database_url({"TINYGPT_DATA_DIR": str(blocker / "data")})))
    record = trained()
    assert library.get(model_key(*SETTINGS)) is None
    assert library.publish(record) is record


def test_names_in_the_store_follow_the_settings_and_the_training_code():
    key = model_key(*SETTINGS)
    other = model_key(SEED_TEXT, SMALL, TrainConfig(lr=3e-3, epochs=9, early_stop_loss=0.0, seed=0))
    assert settings_text(key) == settings_text(model_key(*SETTINGS)) and settings_text(key) != settings_text(other)
    assert store_name(key) != store_name(other) and len(store_name(key)) == 64


def test_the_shipped_model_wins_over_a_publication():
    ex = EXAMPLES["context"]
    shipped = shipped_model(model_key(ex.text, ex.gpt, ex.train))
    assert shipped is not None and shipped.frozen
    local = train(ex.text, ex.gpt, TrainConfig(**{**ex.train.to_dict(), "epochs": 2}))
    local.train_cfg = ex.train  # a training of the same settings, cut short: other weights
    assert ModelLibrary().publish(local) is shipped


def test_two_threads_publishing_into_a_fresh_store_at_once_leave_it_usable(tmp_path):
    """The models table is created with the store's own schema (one locked transaction), so two
    first publications at once cannot race to create it and mark the store unreachable."""
    import threading

    store = Store(database_url({"TINYGPT_DATA_DIR": str(tmp_path / "data")}))
    models = [trained(seed) for seed in (0, 1)]
    threads = [threading.Thread(target=ModelLibrary(store).publish, args=(record,)) for record in models]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.check()  # raises StoreError when a failure marked the store unreachable
    assert ModelLibrary(store).get(model_key(*SETTINGS)) is not None


def held_bytes(size: int) -> int:
    """How many objects the garbage collector sees holding a bytes value of exactly ``size`` bytes."""
    gc.collect()
    found = 0
    for obj in gc.get_objects():
        values = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else ()
        found += sum(isinstance(v, bytes) and len(v) == size for v in values)
    return found


def test_publishing_keeps_no_copy_of_the_checkpoint(store):
    record = trained(seed=5)
    size = len(to_bytes(record))
    assert held_bytes(size) == 0
    ModelLibrary(store).publish(record)
    assert held_bytes(size) == 0  # a statement cache holding the bytes would keep them for the process's life
