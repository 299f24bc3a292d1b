"""Memory admitted before a training allocates: when a job's slot comes, every other job with a slot
counts with its whole estimate, even one that has taken steps (its memory still grows: the backward
pass's buffers, the copy of the weights made as it ends), so two large jobs cannot pass the limit
between two samples of the RSS (tinygpt.training.jobs.check_start_memory; bench.limits measures it)."""

from __future__ import annotations

import pytest
from test_limits import cleanup, settings, wait_until  # noqa: F401 - cleanup is a fixture

from tinygpt.classroom.store import Store, database_url
from tinygpt.config import GPTConfig
from tinygpt.training import jobs
from tinygpt.training.jobs import JobQueue, JobStatus, MemoryLimitError, ModelShelf, model_key, start_job
from tinygpt.training.model_library import ModelLibrary
from tinygpt.training.train import train


def test_a_running_job_keeps_its_whole_estimate_reserved(monkeypatch, cleanup):  # noqa: F811
    monkeypatch.setattr(jobs, "process_rss_mb", lambda: 500.0)  # as if the running job's steps held nothing yet
    need = jobs.job_memory_mb(settings(1)[1])
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 500 + jobs.START_MARGIN_MB + 1.5 * need)  # room for one job, not two
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
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 500 + jobs.START_MARGIN_MB + 2 * need + 1)
    queue, shelf = JobQueue(slots=2), ModelShelf()
    first = start_job(*settings(131), queue, shelf, paused=True, steps=2, owner="a")
    cleanup.append(first)
    wait_until(lambda: len(first.losses) == 2)
    second = start_job(*settings(132), queue, shelf, paused=True, steps=2, owner="b")
    cleanup.append(second)
    wait_until(lambda: len(second.losses) == 2 or second.status == JobStatus.ERROR)
    assert second.status == JobStatus.PAUSED and second.error is None


def test_the_admission_arithmetic_with_the_benchmarks_figures():
    # the largest model a link accepts (bench.limits): 37,917,700 parameters × 16 bytes + 50 MB
    largest = GPTConfig(vocab_size=4, d_model=1024, n_heads=16, n_layers=3, d_ff=4096)
    need = jobs.job_memory_mb(largest)
    assert need == pytest.approx(37_917_700 * 16 / 1e6 + 50) == pytest.approx(656.68, abs=0.01)
    # a server at 690 MB: one such job fits the 2,000 MB limit, a second beside it does not
    assert jobs.start_fits(690, 0, need, 2000)
    assert not jobs.start_fits(690, need, need, 2000)  # 690 + 656.7 + 656.7 = 2003.4
    assert jobs.start_fits(690, need, need, 2004)
    # the margin counts: 550 + 656.7 + 656.7 = 1863.4 fits alone, not with 150 MB kept free (2013.4)
    assert jobs.start_fits(550, need, need, 2000) and not jobs.start_fits(550, need, need, 2000, margin_mb=150)
    assert jobs.start_fits(550, need, need, 2014, margin_mb=150)
    # once the first has ended, its model (151.7 MB of float32 weights) is in the RSS, not reserved
    assert jobs.start_fits(690 + 151.7, 0, need, 2000, margin_mb=150)
    assert not jobs.start_fits(1400, 0, need, 2000)  # 1400 + 656.7 > 2000
    assert jobs.start_fits(10_000, 10_000, need, 0, margin_mb=150)  # a limit of 0: none


def test_a_model_read_from_the_store_is_admitted_as_its_training(monkeypatch, tmp_path, cleanup):  # noqa: F811
    store = Store(database_url({"TINYGPT_DATA_DIR": str(tmp_path / "data")}))
    text, gpt, train_cfg = settings(141, epochs=3)
    ModelShelf(library=ModelLibrary(store)).put(model_key(text, gpt, train_cfg), train(text, gpt, train_cfg))
    need = jobs.job_memory_mb(gpt)
    monkeypatch.setattr(jobs, "process_rss_mb", lambda: 500.0)
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 500 + jobs.START_MARGIN_MB + need - 1)  # the load does not fit
    with pytest.raises(MemoryLimitError) as refused:
        start_job(text, gpt, train_cfg, JobQueue(), ModelShelf(library=ModelLibrary(store)), owner="a")
    assert refused.value.key == "train.memory_full"
    assert refused.value.params["need"] == round(need + jobs.START_MARGIN_MB)
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 500 + jobs.START_MARGIN_MB + need + 1)  # it fits: nothing trained
    job = start_job(text, gpt, train_cfg, JobQueue(), ModelShelf(library=ModelLibrary(store)), owner="a")
    assert job.from_cache and job.status == JobStatus.DONE and len(job.losses) == 3
    store.dispose()
