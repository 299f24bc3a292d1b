"""Peak memory (RSS) of seed-config training jobs, each scenario in a fresh process.

Run: ``python -m bench.train_memory [--steps 40]``

Scenarios (every process first imports what the app imports: torch, streamlit, altair, pandas):
  imports only        the floor
  one job             one seed-config TrainingJob (18,972,676 parameters, Adam) for --steps steps
  app + one job       the default model trained and cached first (as the app does on the first
                      visit), then one session's job
  app + 3 sessions    the default model, then 3 sessions start seed-config jobs at once (different
                      seeds, so no cache hits) under the app's slot limit (MAX_CONCURRENT_JOBS)
  3 jobs at once      the same with the limit raised to 3, for comparison

Target: one seed-config training job under 700 MB RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def child(scenario: str, steps: int) -> None:
    import altair  # noqa: F401
    import pandas  # noqa: F401
    import streamlit  # noqa: F401  (what the app process holds)

    from tinygpt.config import DEFAULT_GPT, DEFAULT_TRAIN, SEED_TEXT, TrainConfig
    from tinygpt.training.jobs import MAX_CONCURRENT_JOBS, JobQueue, ModelShelf, model_key, start_job
    from tinygpt.training.train import train

    floor = _rss_mb()
    shelf = ModelShelf()
    if scenario.startswith("app"):
        shelf.put(model_key(SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN), train(SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN))
    n_jobs = {"imports": 0, "one": 1, "app1": 1, "app3": 3, "three": 3}[scenario]
    queue = JobQueue(3 if scenario == "three" else MAX_CONCURRENT_JOBS)
    jobs = [
        start_job(
            SEED_TEXT,
            DEFAULT_GPT,
            TrainConfig(lr=1e-4, epochs=steps, early_stop_loss=0.0, seed=10 + i),
            queue=queue,
            models=shelf,
        )
        for i in range(n_jobs)
    ]
    for job in jobs:
        job.join()
        assert job.status == "done", (job.status, job.error)
    print(json.dumps({"floor": floor, "peak": _rss_mb()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--child", default="")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.steps)
        return
    from tinygpt.training.jobs import MAX_CONCURRENT_JOBS

    names = {
        "imports": "imports only",
        "one": "one job",
        "app1": "app + one job",
        "app3": f"app + 3 sessions (limit {MAX_CONCURRENT_JOBS})",
        "three": "3 jobs at once (limit 3)",
    }
    results = {}
    for scenario, name in names.items():
        out = subprocess.run(
            [sys.executable, "-m", "bench.train_memory", "--child", scenario, "--steps", str(args.steps)],
            capture_output=True,
            text=True,
            check=True,
        )
        results[scenario] = json.loads(out.stdout.strip().splitlines()[-1])
        r = results[scenario]
        print(
            f"  {name:32s} peak RSS {r['peak']:7.0f} MB   (after imports {r['floor']:.0f} MB, "
            f"+{r['peak'] - r['floor']:.0f} MB)",
            flush=True,
        )
    one = results["one"]["peak"]
    print(f"one seed-config job: {one:.0f} MB peak RSS  (target < 700 MB: {'met' if one < 700 else 'NOT met'})")


if __name__ == "__main__":
    main()
