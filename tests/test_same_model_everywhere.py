"""One model per settings on every machine (tinygpt/training/model_library.py).

PyTorch picks its CPU kernels by the processor, and ``ATEN_CPU_CAPABILITY`` makes this machine run
another processor's choice (``default``: the portable kernels; ``avx2``; the CPU's own). Each test
here runs the app's code in subprocesses under every kernel path this machine can run:

- the context example the app serves has the same weights and flips the same positions under
  every path (it is the shipped checkpoint, not a training of the path's own);
- a model of other settings, trained by the first process and published in a class store, is the
  model a second process with another kernel path gets from that store, instead of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tinygpt.examples import EXAMPLES
from tinygpt.training.checkpoint import from_bytes
from tinygpt.training.model_library import SHIPPED_DIR, weights_hash

ROOT = Path(__file__).resolve().parent.parent

#: Prints, as JSON, the kernel path in force, the weights hash of the context example the app
#: serves (tinygpt.training.jobs.example_training, as tinygpt.ui.shared.models calls it) and the positions that
#: each switch changes in layer 0.
SERVED_CONTEXT = """
import json, torch
from tinygpt.attention import Switches
from tinygpt.explanations.explain import position_effects
from tinygpt.examples import EXAMPLES
from tinygpt.training.jobs import ModelShelf, example_training
from tinygpt.training.model_library import weights_hash
ex = EXAMPLES["context"]
record = example_training("context", ModelShelf()).result(timeout=300)
ids = record.vocab.encode(ex.display)[None]
flips = {}
for name, sw in [("mask", Switches(causal_mask=False)), ("tau", Switches(temperature=1000.0)),
                 ("head1", Switches(heads_off=(1,)))]:
    fx = position_effects(record.model, ids, {0: sw})
    flips[name] = fx.changed.nonzero().flatten().tolist()
print(json.dumps({"path": torch.backends.cpu.get_cpu_capability(), "hash": weights_hash(record), "flips": flips}))
"""

#: Trains (or takes from the store) a small model of settings no file ships, through a shelf backed
#: by the store at argv[1], and prints the kernel path and the weights hash of the model it serves.
THROUGH_STORE = """
import json, sys, torch
from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.training.jobs import ModelShelf, model_key
from tinygpt.training.model_library import ModelLibrary, weights_hash
from tinygpt.classroom.store import Store
from tinygpt.training.train import train
text = "我爱你，你爱我。他爱她，她爱他。"
gpt = GPTConfig(vocab_size=10, max_len=15, d_model=16, n_heads=2, n_layers=1, d_ff=32)
cfg = TrainConfig(lr=2e-2, epochs=60, seed=7, early_stop_loss=0.0, window=15)
shelf = ModelShelf(library=ModelLibrary(Store(sys.argv[1])))
key = model_key(text, gpt, cfg)
found = shelf.get(key)
served = found if found is not None else shelf.put(key, train(text, gpt, cfg))
print(json.dumps({"path": torch.backends.cpu.get_cpu_capability(), "hash": weights_hash(served),
                  "from_store": found is not None}))
"""


def run_under(path: str | None, script: str, *args: str) -> dict:
    """Run ``script`` in a fresh Python with ``ATEN_CPU_CAPABILITY=path`` (None: the CPU's own); its JSON."""
    env = {k: v for k, v in os.environ.items() if k != "ATEN_CPU_CAPABILITY"}
    if path is not None:
        env["ATEN_CPU_CAPABILITY"] = path
    done = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@cache
def kernel_paths() -> list[str | None]:
    """The kernel paths this machine runs: the CPU's own (None), then ``avx2`` and ``default`` where
    they differ from it and the CPU has them (PyTorch falls back to its best path otherwise)."""
    own = run_under(None, "import torch; import json; print(json.dumps(torch.backends.cpu.get_cpu_capability()))")
    paths: list[str | None] = [None]
    for path in ("avx2", "default"):
        shown = run_under(path, "import torch; import json; print(json.dumps(torch.backends.cpu.get_cpu_capability()))")
        if shown.lower() == path and shown != own:  # e.g. "AVX2" on a CPU whose own is "AVX512"
            paths.append(path)
    return paths


def test_this_machine_runs_more_than_one_kernel_path():
    """Without a second path the tests below prove nothing: every x86-64 CPU runs ``default`` too."""
    assert len(kernel_paths()) >= 2


def test_the_served_context_example_is_the_shipped_model_under_every_kernel_path():
    shipped = weights_hash(from_bytes((SHIPPED_DIR / "context.safetensors").read_bytes()))
    runs = [run_under(path, SERVED_CONTEXT) for path in kernel_paths()]
    assert len({run["path"] for run in runs}) == len(runs)  # each run really ran another path
    assert {run["hash"] for run in runs} == {shipped}
    assert all(run["flips"] == runs[0]["flips"] for run in runs)
    assert all(runs[0]["flips"][name] for name in ("mask", "tau", "head1"))  # each switch changes something


def test_a_model_published_in_the_store_is_the_one_a_server_with_other_kernels_serves(tmp_path):
    paths = kernel_paths()
    store_url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    first = run_under(paths[-1], THROUGH_STORE, store_url)
    second = run_under(paths[0], THROUGH_STORE, store_url)
    assert first["path"] != second["path"]
    assert not first["from_store"] and second["from_store"]
    assert second["hash"] == first["hash"]


@pytest.mark.parametrize("name", ["context"])
def test_a_shipped_checkpoint_holds_its_examples_settings(name):
    """A shipped file is found by its settings: an example whose settings change without a new file
    would be trained again (and differ per CPU), so its settings must be the example's."""
    record = from_bytes((SHIPPED_DIR / f"{name}.safetensors").read_bytes())
    ex = EXAMPLES[name]
    assert (record.text, record.gpt_cfg, record.train_cfg) == (ex.text, ex.gpt, ex.train)
