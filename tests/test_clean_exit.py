"""A process that imports the app and exits while the examples' warm-up thread trains inside torch exits
with its own code, not SIGABRT ("terminate called without an active exception"): the training threads
stop at their next step as the process exits (tinygpt.training.shutdown)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = """
import dataclasses, sys, time
from tinygpt.examples import EXAMPLES
from tinygpt.training.jobs import example_training
from tinygpt.training.model_library import ModelLibrary
from tinygpt.training.model_shelf import ModelShelf

# All 1000 epochs (no early stop): a run no CPU finishes in the seconds this script sleeps, and settings
# no shipped model has, so the thread trains.
ex = EXAMPLES["textbook"]
EXAMPLES["textbook"] = dataclasses.replace(ex, train=dataclasses.replace(ex.train, early_stop_loss=0.0))
future = example_training("textbook", ModelShelf(library=ModelLibrary(None)))
time.sleep({sleep})
print("still training" if not future.done() else "done", flush=True)
sys.exit(3)
"""


@pytest.mark.parametrize("sleep", [0.3, 2.0])
def test_exiting_while_an_example_trains_exits_with_the_processs_own_code(sleep):
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(sleep=sleep)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.stdout.strip() == "still training"  # the exit came while the thread was inside torch
    assert result.returncode == 3, result.stderr[-2000:]
    assert "terminate called" not in result.stderr


def test_a_stopped_example_is_not_published():
    script = SCRIPT.format(sleep=1.0).replace("sys.exit(3)", "")
    script += (
        "from tinygpt.training import shutdown\n"
        "assert shutdown.stop_all() == []\n"
        "exc = future.exception(timeout=60)\n"
        "print(type(exc).__name__, 'exited' in str(exc))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["still", "training", "RuntimeError", "True"]
