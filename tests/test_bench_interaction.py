"""bench.interaction imports without a browser and answers --help (the benchmark itself is not run in CI)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_interaction_bench_help():
    import bench.interaction as bench

    assert set(bench.PARTS) == {"attention", "predict", "theory", "switch", "cold"}
    out = subprocess.run(
        [sys.executable, "-m", "bench.interaction", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "--repeats" in out.stdout and "--only" in out.stdout
