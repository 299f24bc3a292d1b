"""The memory guard: a new training that would pass the server's memory limit is refused with a
message in the user's language; models already trained and running jobs are still handed out."""

from __future__ import annotations

import pytest
from helpers import SMALL
from streamlit.testing.v1 import AppTest

from tinygpt.config import SEED_TEXT, TrainConfig
from tinygpt.i18n import t
from tinygpt.training import jobs
from tinygpt.training.jobs import (
    JobQueue,
    MemoryLimitError,
    ModelShelf,
    check_memory,
    job_memory_mb,
    process_rss_mb,
    start_job,
)
from tinygpt.ui.views.train_table import T_SEED

CFG = TrainConfig(lr=3e-3, epochs=5, early_stop_loss=0.0, seed=11)


def test_the_process_rss_is_read():
    rss = process_rss_mb()
    assert rss is not None and rss > 10  # torch alone is more than that


def test_the_estimate_counts_weights_gradients_and_adam_state():
    assert job_memory_mb(SMALL) == pytest.approx(SMALL.n_parameters() * 16 / 1e6 + jobs.JOB_BASE_MB)


def test_no_limit_or_a_high_one_lets_a_training_start():
    check_memory(SMALL, limit_mb=0)  # 0 = no limit
    check_memory(SMALL, limit_mb=1e9)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_tiny_limit_refuses_a_new_training_in_both_languages(monkeypatch, lang):
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 1)
    with pytest.raises(MemoryLimitError) as refused:
        start_job(SEED_TEXT, SMALL, CFG, JobQueue(1), ModelShelf())
    exc = refused.value
    assert exc.params["limit"] == 1 and exc.params["rss"] > 1 and exc.params["need"] >= jobs.JOB_BASE_MB
    message = t(exc.key, lang, **exc.params)
    assert f"{exc.params['rss']} MB" in message and "1 MB" in message
    assert ("内存不足" if lang == "zh" else "short of memory") in message
    assert jobs.running_job(jobs.model_key(SEED_TEXT, SMALL, CFG)) is None  # nothing registered


def test_a_model_on_the_shelf_is_handed_out_over_the_limit(monkeypatch):
    shelf = ModelShelf()
    job = start_job(SEED_TEXT, SMALL, CFG, JobQueue(1), shelf)
    job.join(120)
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 1)
    again = start_job(SEED_TEXT, SMALL, CFG, JobQueue(1), shelf)
    assert again.from_cache and again.result is job.result


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_train_page_shows_the_refusal_in_the_users_language(monkeypatch, lang):
    at = AppTest.from_file("../streamlit_app.py", default_timeout=180)
    at.query_params["lang"] = lang
    at.run()
    at.button(key="train_preset_small").click().run()
    at.text_input(key=T_SEED).set_value("12345").run()
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 1)
    at.button(key="train_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert any(("内存不足" if lang == "zh" else "short of memory") in e for e in errors), errors
    assert "job" not in at.session_state
