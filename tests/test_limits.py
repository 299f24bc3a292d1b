"""Limits that hold (tinygpt.training.jobs): the memory limit checked again when a queued job starts, the line
bounded per server and per session, jobs that no open session waits for cancelled, and shared runs
that one session's Stop or Reset does not end for the others."""

from __future__ import annotations

import time

import pytest
from helpers import SMALL
from streamlit.testing.v1 import AppTest

from tinygpt.config import SEED_TEXT, TrainConfig
from tinygpt.i18n import t
from tinygpt.training import jobs
from tinygpt.training.jobs import JobQueue, JobStatus, MemoryLimitError, ModelShelf, QueueFullError, start_job
from tinygpt.training.links import encode_train
from tinygpt.ui.frame.model_session import model_session
from tinygpt.ui.shared.models import K_JOB, K_OWN
from tinygpt.ui.views.train_table import T_EARLY_STOP, T_EPOCHS, T_SEED


def settings(seed: int, epochs: int = 5000) -> tuple:
    return (SEED_TEXT, SMALL, TrainConfig(lr=3e-3, epochs=epochs, early_stop_loss=0.0, seed=seed))


def wait_until(cond, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while not cond():
        assert time.time() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture
def cleanup():
    """Jobs a test started; every one still going is stopped at the end."""
    started: list[jobs.TrainingJob] = []
    yield started
    for job in started:
        job.stop()
    for job in started:
        job.join(60)


# ---------------------------------------------------------------- memory when the job starts


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_queued_job_whose_turn_comes_when_memory_is_short_ends_with_the_memory_message(monkeypatch, cleanup, lang):
    rss = {"now": 500.0}
    monkeypatch.setattr(jobs, "process_rss_mb", lambda: rss["now"])
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 500 + jobs.START_MARGIN_MB + jobs.job_memory_mb(SMALL) + 1)
    queue, shelf = JobQueue(slots=1), ModelShelf()
    first = start_job(*settings(101), queue, shelf, paused=True, owner="a")  # holds the one slot
    cleanup.append(first)
    second = start_job(*settings(102), queue, shelf, owner="b")  # fits now: admitted, waits in line
    cleanup.append(second)
    wait_until(lambda: second.progress().place == 1)
    rss["now"] = 600.0  # meanwhile the server filled up (models kept, other pages)
    first.stop()
    second.join(60)
    assert second.status == JobStatus.ERROR and isinstance(second.error, MemoryLimitError)
    exc = second.error
    assert exc.key == "train.memory_full_start" and exc.params["rss"] == 600 and not second.losses
    message = t(exc.key, lang, **exc.params)
    assert "600 MB" in message and f"{exc.params['limit']} MB" in message
    assert ("没有开始" if lang == "zh" else "did not start") in message
    assert queue.running == 0 and jobs.running_job(jobs.model_key(*settings(102))) is None


def test_the_start_check_counts_jobs_that_have_a_slot_but_no_memory_yet(monkeypatch, cleanup):
    monkeypatch.setattr(jobs, "process_rss_mb", lambda: 500.0)
    need = jobs.job_memory_mb(SMALL)
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", 500 + jobs.START_MARGIN_MB + 1.5 * need)  # room for one job, not two
    queue, shelf = JobQueue(slots=2), ModelShelf()
    holding = start_job(*settings(111), queue, shelf, paused=True, owner="a")  # a slot, no step yet
    cleanup.append(holding)
    wait_until(lambda: holding.status == JobStatus.PAUSED)
    assert not holding.losses
    late = start_job(*settings(112), queue, shelf, owner="b")  # RSS alone leaves room
    cleanup.append(late)
    late.join(60)
    assert late.status == JobStatus.ERROR and late.error.key == "train.memory_full_start"
    assert late.error.params["rss"] == round(500 + need)  # the other job's memory was counted


# ---------------------------------------------------------------- the line, per server and per session


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_line_is_bounded_per_server(cleanup, lang):
    queue, shelf = JobQueue(slots=1, max_waiting=2), ModelShelf()
    for seed in (121, 122, 123):  # one runs (paused, holding the slot), two wait
        cleanup.append(start_job(*settings(seed), queue, shelf, paused=seed == 121, owner=f"s{seed}"))
    with pytest.raises(QueueFullError) as refused:
        start_job(*settings(124), queue, shelf, owner="s124")
    exc = refused.value
    assert exc.key == "train.queue_full" and exc.params == {"waiting": 2, "slots": 1}
    message = t(exc.key, lang, **exc.params)
    assert ("2 个在排队" if lang == "zh" else "2 trainings wait") in message
    joined = start_job(*settings(122), queue, shelf, owner="s999")  # a run already in line can be joined
    assert joined is cleanup[1] and joined.watchers == {"s122", "s999"}
    cleanup[1].stop()  # one leaves the line: there is room again
    wait_until(lambda: queue.admitted <= 1)
    cleanup.append(start_job(*settings(124), queue, shelf, owner="s124"))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_one_waiting_or_running_job_per_session(cleanup, lang):
    queue, shelf = JobQueue(slots=2), ModelShelf()
    mine = start_job(*settings(131), queue, shelf, owner="me")
    cleanup.append(mine)
    assert start_job(*settings(131), queue, shelf, owner="me") is mine  # asking again is the same run
    with pytest.raises(QueueFullError) as refused:
        start_job(*settings(132), queue, shelf, owner="me")
    assert refused.value.key == "train.session_busy" and refused.value.params == {}
    assert t("train.session_busy", lang)
    with pytest.raises(QueueFullError):
        start_job(*settings(133), queue, shelf, paused=True, owner="me")
    cleanup.append(start_job(*settings(132), queue, shelf, owner="someone else"))
    assert mine.leave("me") == 0  # left alone: the run stops, the session may start another
    cleanup.append(start_job(*settings(134), queue, shelf, owner="me"))


# ---------------------------------------------------------------- jobs nobody waits for


def test_a_job_no_open_session_waits_for_is_cancelled_after_the_grace(cleanup):
    queue, shelf = JobQueue(slots=1), ModelShelf()
    running = start_job(*settings(141), queue, shelf, owner="a")
    waiting = start_job(*settings(142), queue, shelf, owner="b")
    unowned = start_job(*settings(143), queue, shelf)  # started outside a session (CLI, bench): left alone
    cleanup.extend([running, waiting, unowned])
    running.watch("c")
    wait_until(lambda: waiting.progress().place >= 1)
    open_sessions = {"a", "b", "c"}

    def is_open(token: str) -> bool:
        return token in open_sessions

    assert jobs.reap_unwatched(is_open, now=0.0, grace=20.0) == []
    open_sessions -= {"a", "b"}  # two tabs closed; "c" still follows the running job
    assert jobs.reap_unwatched(is_open, now=1.0, grace=20.0) == []  # closed, but within the grace
    assert jobs.reap_unwatched(is_open, now=20.0, grace=20.0) == []  # the first look was at 1.0
    assert jobs.reap_unwatched(is_open, now=21.0, grace=20.0) == [waiting]
    assert running.watchers == {"c"} and running.active and not running._stop  # goes on for "c"
    waiting.join(60)
    assert waiting.status == JobStatus.STOPPED and waiting.cancelled and not waiting.losses
    open_sessions.clear()
    jobs.reap_unwatched(is_open, now=30.0, grace=20.0)
    assert jobs.reap_unwatched(is_open, now=50.0, grace=20.0) == [running]
    running.join(60)
    assert running.status == JobStatus.STOPPED and unowned.active and not unowned.cancelled


def test_a_session_that_comes_back_within_the_grace_keeps_its_job(cleanup):
    job = start_job(*settings(151), JobQueue(slots=1), ModelShelf(), owner="a")
    cleanup.append(job)
    assert jobs.reap_unwatched(lambda token: False, now=0.0, grace=20.0) == []
    assert jobs.reap_unwatched(lambda token: True, now=15.0, grace=20.0) == []  # reconnected
    assert jobs.reap_unwatched(lambda token: False, now=25.0, grace=20.0) == []  # a new absence starts
    assert job.active and job.watchers == {"a"}


def test_the_reaper_asks_streamlits_runtime_which_sessions_are_connected(monkeypatch, cleanup):
    from streamlit.runtime import Runtime

    from tinygpt.ui.train.training_jobs import Reaper

    connected = {"sid-a", "sid-b"}

    class FakeRuntime:
        def is_active_session(self, session_id: str) -> bool:
            return session_id in connected

    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: True))
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: FakeRuntime()))
    monkeypatch.setattr(jobs, "UNWATCHED_GRACE_S", 0.0)
    reaper = Reaper(interval=3600)  # its thread sleeps; the test calls reap() itself
    job = start_job(*settings(161), JobQueue(slots=1), ModelShelf(), owner="token-a")
    cleanup.append(job)
    job.watch("token-b")
    reaper.note("token-a", "sid-a")
    reaper.note("token-b", "sid-b")
    assert reaper.is_open("token-a") and reaper.is_open("unknown token")  # unknown: never cancelled on a guess
    assert reaper.reap() == []
    connected.discard("sid-a")  # the owner's tab closed; the follower's is open
    assert reaper.reap() == [] and job.watchers == {"token-b"}
    assert "token-a" not in reaper.session_ids
    connected.clear()
    assert reaper.reap() == [job] and job.cancelled


# ---------------------------------------------------------------- shared runs


def test_a_run_goes_on_while_anyone_follows_it_and_stops_when_the_last_leaves(cleanup):
    job = start_job(*settings(171), JobQueue(slots=1), ModelShelf(), owner="teacher")
    cleanup.append(job)
    for student in ("s1", "s2"):
        assert start_job(*settings(171), JobQueue(slots=1), ModelShelf(), owner=student) is job
    assert job.followers("teacher") == 2 and job.followers("s1") == 2
    assert job.leave("teacher") == 2 and job.active and not job._stop  # the teacher's Reset
    assert job.leave("s1") == 1 and not job._stop
    assert job.leave("s2") == 0
    job.join(60)
    assert job.status == JobStatus.STOPPED


def open_page(page: str, lang: str, **params: str) -> AppTest:
    at = AppTest.from_file("../streamlit_app.py", default_timeout=180)
    at.query_params.update({"lang": lang, **params})
    at.run()
    if page != "train":
        at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_followers_training_survives_the_owners_reset(lang):
    teacher = open_page("train", lang)
    teacher.button(key="train_preset_small").click().run()
    teacher.text_input(key=T_SEED).set_value("4242" if lang == "zh" else "4243").run()
    teacher.text_input(key=T_EPOCHS).set_value("3000").run()
    teacher.select_slider(key=T_EARLY_STOP).set_value(0.0).run()
    teacher.button(key="train_start").click().run()
    job = teacher.session_state[K_JOB]
    assert job.active
    link = encode_train(job.text, job.gpt_cfg, job.train_cfg)
    student = open_page("predict", lang, model="own", train=link)
    assert student.session_state[K_JOB] is job and job.followers(model_session(teacher.session_state).token) == 1
    teacher.run()
    assert t("train.followers", lang, n=1) in [c.value for c in teacher.caption]
    teacher.button(key="train_reset").click().run()
    assert not teacher.exception and "job" not in teacher.session_state
    assert t("train.left_shared", lang, n=1) in [i.value for i in teacher.info]
    assert job.active and not job._stop  # the student's training goes on
    job.join(120)
    assert job.status == JobStatus.DONE and len(job.losses) == 3000
    student.run()
    assert student.session_state[K_OWN] is job.result
