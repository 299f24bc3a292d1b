"""Memory admitted before a training allocates: when a job's slot comes, every other job with a slot
counts with its whole estimate, even one that has taken steps (its memory still grows: the backward
pass's buffers, the copy of the weights made as it ends), so two large jobs cannot pass the limit
between two samples of the RSS (tinygpt.training.jobs.check_start_memory; bench.limits measures it)."""

from __future__ import annotations

from test_limits import cleanup, settings, wait_until  # noqa: F401 - cleanup is a fixture

from tinygpt.training import jobs
from tinygpt.training.jobs import JobQueue, JobStatus, ModelShelf, start_job


def test_a_running_job_keeps_its_whole_estimate_reserved(monkeypatch, cleanup):  # noqa: F811
    monkeypatch.setattr(jobs, "process_rss_mb", lambda: 500.0)  # as if the running job's steps held nothing yet
    need = jobs.job_memory_mb(settings(1)[1])
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 500 + 1.5 * need)  # room for one job, not two
    queue, shelf = JobQueue(slots=2), ModelShelf()
    running = start_job(*settings(121), queue, shelf, paused=True, steps=3, owner="a")
    cleanup.append(running)
    wait_until(lambda: len(running.losses) == 3 and running.status == JobStatus.PAUSED)
    late = start_job(*settings(122), queue, shelf, owner="b")
    cleanup.append(late)
    late.join(60)
    assert late.status == JobStatus.ERROR and late.error.key == "train.memory_full_start" and not late.losses
    assert late.error.params["rss"] == round(500 + need)  # the running job's estimate was counted


def test_jobs_that_fit_together_both_start(monkeypatch, cleanup):  # noqa: F811
    monkeypatch.setattr(jobs, "process_rss_mb", lambda: 500.0)
    need = jobs.job_memory_mb(settings(1)[1])
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 500 + 2 * need + 1)
    queue, shelf = JobQueue(slots=2), ModelShelf()
    first = start_job(*settings(131), queue, shelf, paused=True, steps=2, owner="a")
    cleanup.append(first)
    wait_until(lambda: len(first.losses) == 2)
    second = start_job(*settings(132), queue, shelf, paused=True, steps=2, owner="b")
    cleanup.append(second)
    wait_until(lambda: len(second.losses) == 2 or second.status == JobStatus.ERROR)
    assert second.status == JobStatus.PAUSED and second.error is None
