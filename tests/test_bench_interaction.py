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
    assert "--server-cpus" in out.stdout  # the server pinned with taskset, as on a one-core host


def test_a_pinned_server_runs_under_taskset(monkeypatch):
    import bench.cold_start as cold

    started = {}

    class _Proc:
        pid = 0

    def fake_popen(cmd, **kwargs):
        started["cmd"] = cmd
        return _Proc()

    monkeypatch.setattr(cold.subprocess, "Popen", fake_popen)
    cold.start_server(port=1, cpus="0")
    assert started["cmd"][:3] == ["taskset", "-c", "0"] and "streamlit" in started["cmd"]
    cold.start_server(port=1)
    assert started["cmd"][0] != "taskset"
